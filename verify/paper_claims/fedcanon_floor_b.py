"""FedCanon Thm 1's sampling term as a law: the steady state of ‖G(x^t)‖² ∝ σ²/b in the batch b.

Thm 1 bounds the running mean of ‖G_{1/L}(x^t)‖² by a transient, a sampling term C₂σ²/b and a
regulariser term ∝ (λB_r)²; with λ = 0.001 the last is negligible, so at the steady state the floor
is the sampling term's, and its exponent in b is −1.  The class: quadratics with ζ = 1, Euclidean h,
Gaussian gradient noise σ = 1; FedCanon with η_l = 0.2, K = 2 (η_g = η_lK); the measure is ‖G‖²
averaged over the last half of the run.
"""

from __future__ import annotations

from fcocheck.rates.catalog import FEDCANON_1
from fcocheck.verify.claim import LAW, Claim
from fcocheck.verify.classes import FEDCANON_QUADRATICS


def sampling_term():  # noqa: ANN201 - a sympy expression
    """Thm 1's C₂σ²/b."""
    return FEDCANON_1.term("sampling")


CLAIM = Claim(
    "fedcanon-floor-b",
    method="fedcanon",
    bound=sampling_term,
    sense=LAW,
    along=("b", (1, 2, 4, 8, 16)),
    problem=("quadratics", {**FEDCANON_QUADRATICS, "zeta": 1.0, "lam": 0.001}),
    hp={"eta_l": 0.2, "local_steps": 2},
    constants={"C_2": 1.0, "sigma": 1.0},
    oracle="gaussian:1.0",
    rounds=300,
    measure="prox_grad_norm_sq",
    statistic="tail_mean",
    worst=False,
    theorem=FEDCANON_1.name,
    source="FedCanon Thm 1",
    full={"seeds": 8, "rounds": 800},
)
