"""The centralised momentum methods a card's server momentum reduces to, pinned by their closed-form rates.

``heavy-ball`` and ``nesterov`` are written independently of the card pieces (``Trace``), so a reduction
to them checks a momentum buffer where β acts.  They are checked here against theory, not against each
other: on F(x) = ½xᵀHx − bᵀx every eigen-direction of H follows a two-term linear recursion, and the
largest root modulus over the eigenvalues (``linear_rate``) is the contraction per step.  Measured: the
steps ‖w_{t+1} − w_t‖ (no w* needed: they follow the same homogeneous recursion) from t₀ = 60 until they
have shrunk 10⁷-fold.  The instance has two eigenvalues (μ = 0.05, L = 1), so the slowest mode's lead
over the next, (ρ₂/ρ₁)^t₀, is computed and required to be below 1e-4 for every case used: the residual
of the estimate is then ≲ (ρ₂/ρ₁)^t₀/(t − t₀) ≤ 1e-6 relative, against the rule's 1e-6.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from fcocheck.solvers.algorithms import get
from fcocheck.solvers.algorithms import heavy_ball as hb
from fcocheck.solvers.algorithms import nesterov as nag
from fcocheck.solvers.engine import run
from fcocheck.solvers.generators import generate

T0, SHRINK, TOL, LEAD = 60, 1e-7, 1e-6, 1e-4
RATE = {"heavy-ball": hb.linear_rate, "nesterov": nag.linear_rate}
COMPANION = {"heavy-ball": hb.companion, "nesterov": nag.companion}
#: (α·L, β): β = 0 (gradient descent), momentum up to 0.5, a large step (α = 1.6/L); in each the slow
#: mode is real (its roots distinct), which the ratio of steps resolves — an oscillating slow mode (complex
#: roots of equal modulus) is not measured by this rule and is not among the cases
CASES = [(0.5, 0.3), (1.6, 0.1), (1.0, 0.0), (1.0, 0.3), (0.5, 0.5)]


@pytest.fixture(scope="module")
def quadratic():
    p = generate("quadratics", clients=3, d=2, L=1.0, mu=0.05, zeta=0.5, lam=0.0, seed=2)
    H = np.einsum("m,mde->de", p.weights, p.Q)
    return p, np.linalg.eigvalsh(0.5 * (H + H.T))


def measured_rate(algorithm, problem) -> float:
    """(‖d_T‖/‖d_t₀‖)^{1/(T − t₀)}, d_t = w_{t+1} − w_t, T the first step with ‖d_T‖ < SHRINK·‖d_t₀‖."""
    alg, hp = algorithm
    w = run(alg, problem, hp, rounds=3000, oracle="exact", seed=0, reference=False)["server_w"]
    d = np.linalg.norm(np.diff(w, axis=0), axis=1)
    T = T0 + int(np.argmax(d[T0:] < SHRINK * d[T0]))
    assert T > T0, "the steps never shrank enough: the run is too short for this rate"
    return float((d[T] / d[T0]) ** (1.0 / (T - T0)))


def lead(name: str, hp, eigenvalues) -> float:
    """(ρ₂/ρ₁)^t₀: how far the next-slowest mode still weighs at t₀ (module docstring)."""
    roots = []
    for lam in eigenvalues:
        a, b = COMPANION[name](hp, lam)
        roots.extend(np.roots([1.0, -a, -b]))
    mods = sorted(set(np.round(np.abs(roots), 12)), reverse=True)
    return 0.0 if len(mods) == 1 else float((mods[1] / mods[0]) ** T0)


def residual(name: str, alg, hp, quadratic) -> float:
    p, eig = quadratic
    rho = RATE[name](hp, eig)
    return abs(measured_rate((alg, dataclasses.asdict(hp)), p) - rho) / rho


@pytest.mark.parametrize("name", sorted(RATE))
@pytest.mark.parametrize(("eta", "beta"), CASES)
def test_each_momentum_target_contracts_at_its_closed_form_rate(name, eta, beta, quadratic):
    hp = hb.HeavyBallHyper(eta=eta, beta=beta)
    assert lead(name, hp, quadratic[1]) < LEAD  # the measurement can resolve the rate (docstring)
    assert residual(name, name, hp, quadratic) <= TOL


def test_the_two_targets_are_told_apart(quadratic):
    """Power: at β ≠ 0 each method's run against the other's formula misses by far more than the rule."""
    hp = hb.HeavyBallHyper(eta=1.0, beta=0.3)
    p, eig = quadratic
    for name, other in (("heavy-ball", "nesterov"), ("nesterov", "heavy-ball")):
        rho = RATE[other](hp, eig)
        assert abs(measured_rate((name, dataclasses.asdict(hp)), p) - rho) / rho > 100 * TOL


def test_a_momentum_buffer_that_is_never_kept_fails_the_rate(quadratic):
    """Power: heavy ball whose x_{t−1} is overwritten by x_{t+1} (β acts on a zero difference) runs at
    gradient descent's rate, which the closed form rejects."""

    def forgetful(state, hp, env, rng, clients):
        new, log = hb.heavy_ball_round(state, hp, env, rng, clients)
        return hb.HeavyBallState(new.w, new.w, new.r), log

    broken = dataclasses.replace(get("heavy-ball"), round=forgetful)
    hp = hb.HeavyBallHyper(eta=1.0, beta=0.3)
    assert residual("heavy-ball", broken, hp, quadratic) > 100 * TOL
