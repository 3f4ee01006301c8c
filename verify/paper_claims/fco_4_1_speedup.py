"""FCO Thm 4.1's speed-up: with Thm 4.1's η_s, E[Φ(ŵ)] − Φ* ≲ σ√B/√(MKR) along M and along R.

Thm 4.1 bounds FedDualAvg at a small η_c (η_cKL = 10⁻³ here: "sufficiently small") with
η_s = min{1/(η_cKL), √(BMK/R)/(η_cKσ)} by LB/R + σ√B/√(MKR).  With every run started at distance 1 from
the optimum (B = ½ in the Euclidean h) and σ = 1, the variance term dominates on this design: the
claim is that the measured error over σ√B/√(MKR) does not keep growing along M ∈ 1…32 (R = 64) nor
along R ∈ 16…512 (M = 4) — the √M of the speed-up included.  The mean over 12 noise seeds per instance
is judged (the claim is on the expectation), each instance against its own curve.  Control: one client
per round instead of M (the average is then over one client's K gradients, not MK) must be rejected
along M.  The class: quadratics with identical clients (ζ = 0), μ = 10⁻³, L = 1, ψ = 0.01‖·‖₁, d = 20,
each M its own draw of the instance's seed.  At 12 seeds the mean's log-noise leaves the rule without
power against a speed-up M^0.35–0.4 instead of M^0.5: the verdict then says so (no power).
"""

from __future__ import annotations

from fcocheck.rates.catalog import THM_4_1
from fcocheck.verify.claim import UPPER, Claim
from fcocheck.verify.claim_group import ClaimGroup

K = 2
#: Thm 4.1's server step at η_c = 10⁻³/(KL), L = 1
ETA_S = "Min(1, sqrt(B*M*K/R)/sigma)/(eta_c*K)"
SHARED = {"method": "feddualavg", "bound": THM_4_1.term("variance"), "label": "σ√B/√(MKR)", "sense": UPPER,
          "hp": {"eta_c": 1e-3 / K, "eta_s": ETA_S, "local_steps": K},
          "constants": {"sigma": 1.0, "B": 0.5}, "oracle": "gaussian:1.0", "repeats": 12, "start": 1.0,
          "worst": False, "theorem": THM_4_1.name, "source": "FCO Thm 4.1, eq. (4.1): its variance term"}
#: the full design: 32 noise seeds on 5 instances
FULL = {"repeats": 32, "seeds": 5}
CLASS = {"d": 20, "mu": 1e-3, "zeta": 0.0, "lam": 0.01}

GROUP = ClaimGroup(
    "fco-4.1-speedup",
    THM_4_1.name,
    "σ√B/√(MKR) with Thm 4.1's η_s along M and along R; one client per round as control",
    (
        Claim("fco-4.1-speedup-M", along=("problem.clients", (1, 2, 4, 8, 16, 32)), rounds=64,
              problem=("quadratics", CLASS), controls={"one client per round": {"participation": 1}},
              full=FULL, **SHARED),
        Claim("fco-4.1-speedup-R", along=("rounds", (16, 32, 64, 128, 256, 512)),
              problem=("quadratics", {**CLASS, "clients": 4}),
              full={**FULL, "along": ("rounds", (16, 32, 64, 128, 256, 512, 1024))}, **SHARED),
    ),
)
