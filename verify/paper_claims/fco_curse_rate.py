"""FCO §3.1, the curse of primal averaging: FedMiD-avg's steady state is first order in η_cK.

A server that averages the clients' prox points (FedMiD-avg, η_s = 1) keeps, on heterogeneous clients,
a steady-state Φ − Φ* of first order in the effective step η_cK: each client's ℓ1-prox point is non-zero
off the optimum's support, and so is their average.  The claim: that floor is Θ(η_cK) along η_c and
along K, on 5 instances (the law's interval is over their slopes).

The condition is the class's, stated and drawn for: some client's gradient at w* crosses λ off the support
(max over off-support j and clients m of |∇F_m(w*)_j| − λ > 0: heterogeneity beyond the off-support dual
margin), else the clients' prox points stay on the support and there is no first-order floor.

Its control is FedMiD-avg stopped in its transient (R = ⌈1/(μη_cK)⌉: the same progress μη_cKR at every
point, a gap flat in η_cK), which the rule must reject.  (FedDualAvg, the natural control, ends within
its instance's resolution on every instance of some seeds: nothing to reject.)  What is not claimed here:
that FedDualAvg's floor is ≤ 10⁻³ of FedMiD-avg's (the study this replaces).  Over 52 instances of the
class, FedDualAvg run for 96/(μη_cK) rounds (12× FedMiD-avg's) ends below 10⁻⁹ of it on most, but at
1.6·10⁻² on one (instance 37 at η_cK = 0.64, a stable floor) and at 0.15 on another (58 at η_cK = 0.08,
a plateau: a coordinate not yet in the support; at R = 24,000 its gap is 0) — a limit that a fixed
budget does not measure.  Nor that FedDualAvg has no floor: over 40 instances at η_cK = 0.32 its
R·(Φ(ŵ_R) − Φ*) falls from R = 250 to 16,000 and its last iterate is at rounding by R = 16,000 on every
one (instance 1 after a plateau of 2.45·10⁻⁴ up to R ≈ 1,000), but instance 37's last iterate holds
0, 0, 3.2·10⁻⁷, 1.19·10⁻⁵, 6.6·10⁻⁵ at η_cK = 0.08, 0.16, 0.32, 0.64, 1.28 from R = 3,000 to 48,000
(FedMiD-avg's: 7.3·10⁻⁴ at 0.64) — a floor that is exactly 0 below a threshold in η_cK and grows
steeply above it, neither a law nor absent; a claim about it needs that threshold, which is not
stated.

The class: FedCanon's quadratics (random Hessians, μ = 0.1, L = 1; 8 clients, d = 20), ζ = 1, ψ = 0.3‖·‖₁;
exact gradients, η_s = 1.  Each run reaches its floor: R = ⌈8/(μη_cK)⌉ (the floor is approached at a
rate μη_cK per round).  Two sweeps of η_cK: η_c from 0.02 to 0.16 at K = 4 (to 0.64 in the full design),
and K from 1 to 8 at η_c = 0.04 (to 16); the measure is the last round's Φ − Φ*.
"""

from __future__ import annotations

import numpy as np

from fcocheck.rates.catalog import FCO_CURSE
from fcocheck.solvers.problem import Problem
from fcocheck.solvers.reference.solve import ReferenceSolution
from fcocheck.verify.claim import LAW, Claim
from fcocheck.verify.claim_group import ClaimGroup
from fcocheck.verify.classes import FEDCANON_QUADRATICS

#: rounds to FedMiD-avg's floor (μ is the class's)
ROUNDS_MID = "ceiling(8/(mu*eta_c*K))"
#: the control's rounds: in the transient, the same progress μη_cKR = 1 at every point
EARLY = "ceiling(1/(mu*eta_c*K))"


def curse_margin(p: Problem, ref: ReferenceSolution) -> float:
    """Max over off-support j and clients m of |∇F_m(w*)_j| − λ (−∞ without an off-support coordinate).

    It is > 0 where client prox points leave the support: the curse's condition, heterogeneity beyond
    the off-support dual margin λ − |∇F(w*)_j|.
    """
    zeros = np.abs(ref.w) == 0
    if not zeros.any():
        return float("-inf")
    G = p.kernel.grads(np.repeat(ref.w[None, :], p.M, axis=0))
    return float(np.max(np.abs(G[:, zeros])) - p.regularizer.lam)


def crosses_lambda(p: Problem, ref: ReferenceSolution) -> str | None:
    """The claim's condition (``Claim.condition``): None when some client crosses λ off the support."""
    margin = curse_margin(p, ref)
    return None if margin > 0 else (f"no client's gradient at w* crosses λ off the support (margin "
                                    f"{margin:.3g} ≤ 0): there is no first-order floor to measure")


#: the class, the condition and what every claim of the study shares
SHARED = {"problem": ("quadratics", {**FEDCANON_QUADRATICS, "zeta": 1.0, "lam": 0.3}),
          "constants": {"mu": 0.1}, "condition": crosses_lambda, "redraw": 20, "worst": False,
          "theorem": FCO_CURSE.name, "source": "FCO §3.1, the curse of primal averaging"}
ETA_C = ("eta_c", (0.02, 0.04, 0.08, 0.16))
K = ("local_steps", (1, 2, 4, 8))
#: instances of a law: its interval is over the instances' slopes (t with 2 degrees of freedom on 3 left
#: it 91% power against slope ±0.5 at seed 2)
LAW_SEEDS = 5
#: the full design's sweeps
ETA_C_FULL, K_FULL = (0.02, 0.04, 0.08, 0.16, 0.32, 0.64), (1, 2, 4, 8, 16)
MID = {"method": "fedmid-avg", "rounds": ROUNDS_MID}


def _law(name: str, along: tuple, hp: dict, full: tuple) -> Claim:
    """FedMiD-avg's floor ∝ η_cK along ``along`` (the other factor fixed by ``hp``)."""
    return Claim(name, bound="eta_c*K", label="η_cK", sense=LAW, along=along, hp={"eta_s": 1.0, **hp},
                 measure="gap", seeds=LAW_SEEDS, full={"along": (along[0], full), "seeds": 2 * LAW_SEEDS},
                 controls={"stopped in its transient, R = ⌈1/(μη_cK)⌉": {"rounds": EARLY}}, **MID, **SHARED)


GROUP = ClaimGroup(
    "fco-curse-rate",
    FCO_CURSE.name,
    "FedMiD-avg's floor ∝ η_cK along η_c and along K (on instances where a client crosses λ off the "
    "support)",
    (
        _law("fco-curse-rate-eta-c", ETA_C, {"local_steps": 4}, ETA_C_FULL),
        _law("fco-curse-rate-K", K, {"eta_c": 0.04}, K_FULL),
    ),
)
