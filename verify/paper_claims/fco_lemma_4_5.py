"""FCO Lemma 4.5 as three laws: FedDualAvg's discrepancy at the last local step ∝ each term's power.

The lemma bounds (1/M)Σ_m E‖z̄_{r,k} − z^m_{r,k}‖² by η_c²K²ζ² + η_c²Kσ² (Assumption 2, η_s = 1,
η_c ≤ 1/(4L)).  Each file's law isolates one exponent: in η_c (2, both terms), in K at ζ = 0 (1, the
noise term) and in K at σ = 0 (2, the heterogeneity term).  The class: Assumption 2's quadratics — a
common diagonal Hessian (spectrum 0.1…1, L = 1), ζ exact, ψ = 0.05‖·‖₁, measured in the lemma's own
norm (h = ½wᵀQw/‖Q‖) — one instance per seed.  The measure is the discrepancy at the last local
step, averaged over the R rounds.  The worst case of the lemma's constant is the tightness study of
Lemma 4.5 (``verify.worstcase``: exactly 1 at every K in the Q-norm).
"""

from __future__ import annotations

from fcocheck.rates.catalog import LEMMA_4_5
from fcocheck.verify.claim import LAW, Claim
from fcocheck.verify.classes import ASSUMPTION_2

#: Assumption 2's quadratics with ψ = 0.05‖·‖₁
CLASS = {**ASSUMPTION_2, "lam": 0.05}


def bound():  # noqa: ANN201 - a sympy expression
    """The lemma's bound, η_c²K²ζ² + η_c²Kσ²."""
    return LEMMA_4_5.bound


def noise_term():  # noqa: ANN201 - a sympy expression
    """The η_c²Kσ² term (ζ = 0)."""
    return LEMMA_4_5.term("variance")


def heterogeneity_term():  # noqa: ANN201 - a sympy expression
    """The η_c²K²ζ² term (σ = 0)."""
    return LEMMA_4_5.term("heterogeneity")


def _law(name: str, law, along, zeta: float, sigma: float, hp, full_along) -> Claim:  # noqa: ANN001
    return Claim(
        name,
        method="feddualavg",
        bound=law,
        sense=LAW,
        along=along,
        problem=("quadratics", {**CLASS, "zeta": zeta}),
        hp=hp,
        constants={"zeta": zeta, "sigma": sigma},
        oracle=f"gaussian:{sigma}" if sigma else "exact",
        rounds=5,
        measure="discrepancy_steps",
        statistic="last_step_mean",
        worst=False,
        theorem=LEMMA_4_5.name,
        source="FCO Lemma 4.5",
        full={"seeds": 8, "rounds": 20, "along": full_along},
    )


ETA = _law("fco-lemma-4.5-eta", bound, ("eta_c", (1e-3, 3e-3, 1e-2, 3e-2, 1e-1, 0.25)), 1.0, 1.0,
           {"local_steps": 4}, ("eta_c", (1e-3, 3e-3, 1e-2, 3e-2, 1e-1, 0.25)))
K_NOISE = _law("fco-lemma-4.5-K-noise", noise_term, ("local_steps", (8, 16, 32, 64)), 0.0, 1.0,
               {"eta_c": 1e-3}, ("local_steps", (8, 16, 32, 64, 128)))
K_HETERO = _law("fco-lemma-4.5-K-hetero", heterogeneity_term, ("local_steps", (8, 16, 32, 64)), 1.0, 0.0,
                {"eta_c": 1e-3}, ("local_steps", (8, 16, 32, 64, 128)))
