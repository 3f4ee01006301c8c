"""FCO Thm 4.3's variance term η_cσ²/M at ζ = 0: the noise's share of the output falls like 1/M.

With identical clients (ζ = 0) the only term of Thm 4.3 that moves with the number of clients M is
η_cσ²/M: averaging M clients' independent gradient noise divides its variance by M.  Its share of the
output is measured directly, against a noise-free twin of every run (same instance, exact gradients):
½‖ŵ_σ − ŵ_0‖² with ŵ eq. 4.2's average, which leaves out B/(η_cKR) and whatever else the noise-free run
carries.  For a quadratic F the noise moves ŵ linearly wherever the ℓ1 prox keeps its signs (λ = 0.01
is small beside the optimum's coordinates), so this share is ∝ 1/M in any fixed norm (the old study
used the Q-norm; the exponent is the same).  One run's share is a squared norm of a Gaussian
vector — a heavy per-run spread — so the law is fitted over 16 instances (32 in the full design), each
its own draw, the interval over instances and noise together.  The class: FCO Assumption 2's quadratics
with ζ = 0, λ = 0.01 (each M its own draw of the seed: the Hessian is the seed's, the shared linear term
is drawn after the clients' deviations); FedDualAvg with η_c = 0.2, K = 2, σ = 1.
"""

from __future__ import annotations

from fcocheck.rates.catalog import THM_4_3
from fcocheck.verify.claim import LAW, Claim
from fcocheck.verify.classes import ASSUMPTION_2

CLAIM = Claim(
    "fco-4.3-variance-M",
    method="feddualavg",
    bound=THM_4_3.term("variance"),
    label="η_cσ²/M",
    sense=LAW,
    along=("problem.clients", (2, 4, 8, 16, 32)),
    problem=("quadratics", {**ASSUMPTION_2, "zeta": 0.0, "lam": 0.01}),
    hp={"eta_c": 0.2, "local_steps": 2},
    constants={"sigma": 1.0},
    oracle="gaussian:1.0",
    twin={"oracle": "exact"},
    measure="w_hat_distance_sq",
    rounds=150,
    seeds=16,
    worst=False,
    theorem=THM_4_3.name,
    source="FCO Thm 4.3, its term η_cσ²/M",
    full={"seeds": 32, "rounds": 400},
)
