"""FCO §3.1, the curse of primal averaging: FedMiD-avg's floor is first order in η_cK, FedDualAvg's far below.

A server that averages the clients' prox points (FedMiD-avg, η_s = 1) keeps, on heterogeneous clients,
a steady-state Φ − Φ* of first order in the effective step η_cK: each client's ℓ1-prox point is non-zero
off the optimum's support, and so is their average.  FedDualAvg averages the dual states and thresholds
once: its floor is at least 10³ times lower on the same instances, along the same sweeps.

The condition is the class's, stated and drawn for: some client's gradient at w* crosses λ off the support
(max over off-support j and clients m of |∇F_m(w*)_j| − λ > 0: heterogeneity beyond the off-support dual
margin), else the clients' prox points stay on the support and there is no first-order floor.  FedDualAvg's
floor need not be 0 (the ℓ1 prox does not commute with averaging near a small on-support coordinate;
ratios of 10⁻⁸…10⁻⁴ to FedMiD-avg's are measured): "far below", not "at the optimum".

The class: FedCanon's quadratics (random Hessians, μ = 0.1, L = 1; 8 clients, d = 20), ζ = 1, ψ = 0.3‖·‖₁;
exact gradients, η_s = 1.  Each run is long enough to reach its floor: R = ⌈8/(μη_cK)⌉ for FedMiD-avg
(its floor is reached at a rate μη_cK per round), 3× that for FedDualAvg (which must reach the optimum).
Two sweeps of η_cK: η_c from 0.02 to 0.16 at K = 4 (to 0.64 in the full design), and K from 1 to 8 at
η_c = 0.04 (to 16); the measure is the last round's
Φ − Φ* (the law), and FedDualAvg's over FedMiD-avg's on the same instance (the identity ≤ 10⁻³, whose
control — the roles swapped — must break it).
"""

from __future__ import annotations

import numpy as np

from fcocheck.rates.catalog import FCO_CURSE
from fcocheck.solvers.problem import Problem
from fcocheck.solvers.reference.solve import ReferenceSolution
from fcocheck.verify.claim import IDENTITY, LAW, Claim
from fcocheck.verify.claim_group import ClaimGroup
from fcocheck.verify.classes import FEDCANON_QUADRATICS

#: FedDualAvg's floor must sit at least this far below FedMiD-avg's ("≪")
FAR_BELOW = 1e-3
#: rounds to each method's floor (μ is the class's; FedDualAvg goes 3× as far)
ROUNDS_MID = "ceiling(8/(mu*eta_c*K))"
ROUNDS_DUAL = "ceiling(24/(mu*eta_c*K))"


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
#: it 91% power against slope ±0.5 at seed 2; the identities' runs are 3× longer and need no interval)
LAW_SEEDS = 5
#: the full design's sweeps
ETA_C_FULL, K_FULL = (0.02, 0.04, 0.08, 0.16, 0.32, 0.64), (1, 2, 4, 8, 16)
MID = {"method": "fedmid-avg", "rounds": ROUNDS_MID}
DUAL = {"method": "feddualavg", "rounds": ROUNDS_DUAL}


def _law(name: str, along: tuple, hp: dict, full: tuple) -> Claim:
    """FedMiD-avg's floor ∝ η_cK along ``along`` (the other factor fixed by ``hp``)."""
    return Claim(name, bound="eta_c*K", label="η_cK", sense=LAW, along=along, hp={"eta_s": 1.0, **hp},
                 measure="gap", seeds=LAW_SEEDS, full={"along": full, "seeds": 2 * LAW_SEEDS}, **MID,
                 **SHARED)


def _far_below(name: str, along: tuple, hp: dict, full: tuple) -> Claim:
    """FedDualAvg's floor ≤ FAR_BELOW × FedMiD-avg's on the same instance, at every point of ``along``."""
    return Claim(name, bound=FAR_BELOW, label=f"{FAR_BELOW:g}", sense=IDENTITY, along=along,
                 hp={"eta_s": 1.0, **hp}, twin=MID, measure="gap_ratio", full={"along": full},
                 controls={"the roles swapped: FedMiD-avg's over FedDualAvg's": {**MID, "twin": DUAL}},
                 **DUAL, **SHARED)


GROUP = ClaimGroup(
    "fco-curse-rate",
    FCO_CURSE.name,
    f"FedMiD-avg's floor ∝ η_cK along η_c and along K; FedDualAvg's ≤ {FAR_BELOW:g} of it on the same "
    "instances",
    (
        _law("fco-curse-rate-eta-c", ETA_C, {"local_steps": 4}, ETA_C_FULL),
        _law("fco-curse-rate-K", K, {"eta_c": 0.04}, K_FULL),
        _far_below("fco-curse-rate-dual-eta-c", ETA_C, {"local_steps": 4}, ETA_C_FULL),
        _far_below("fco-curse-rate-dual-K", K, {"eta_c": 0.04}, K_FULL),
    ),
)
