"""Identities of every ψ, driven by Hypothesis."""

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcocheck.solvers.errors import InvalidRegularizerError, InvalidStepSizeError
from fcocheck.solvers.reference.cvx import psi_expression
from fcocheck.solvers.regularizers import L1, MCP, SCAD, L1Ball, Nuclear, make
from tests.solvers.strategies import convex_regularizers, steps, vectors, weakly_convex

D = 6


@given(psi=convex_regularizers(D), v=vectors(D), t=steps)
def test_moreau_decomposition_as_fenchel_young_equality(psi, v, t):
    """p = prox_{tψ}(v) ⇔ q = (v − p)/t ∈ ∂ψ(p) ⇔ ψ(p) + ψ*(q) = ⟨p, q⟩ (Moreau)."""
    p = psi.prox(v, t)
    q = (v - p) / t
    q_in = psi.dual_project(q)
    scale = 1.0 + np.abs(v).max() + np.abs(q).max()
    assert np.max(np.abs(q_in - q)) <= 1e-9 * scale  # q already lies in dom ψ*
    lhs = float(psi.value(p)) + float(psi.conjugate(q_in))
    assert lhs == pytest.approx(float(p @ q_in), abs=1e-8 * scale**2)


@given(psi=convex_regularizers(D), u=vectors(D), v=vectors(D), t=steps)
def test_prox_is_firmly_nonexpansive(psi, u, v, t):
    pu, pv = psi.prox(u, t), psi.prox(v, t)
    assert np.sum((pu - pv) ** 2) <= np.dot(pu - pv, u - v) + 1e-9 * (1 + np.sum((u - v) ** 2))


@given(psi=convex_regularizers(D), v=vectors(D))
def test_projection_is_idempotent(psi, v):
    if not psi.is_indicator:
        return
    p = psi.prox(v, 1.0)
    np.testing.assert_allclose(psi.prox(p, 1.0), p, atol=1e-10 * (1 + np.abs(v).max()))
    assert psi.value(p) == 0.0


@settings(max_examples=25)
@given(psi=convex_regularizers(D), v=vectors(D), t=steps)
def test_prox_matches_cvxpy(psi, v, t):
    """prox_{tψ}(v) solves min tψ(w) + ½‖w − v‖², checked against an independent cvxpy solve."""
    w = cp.Variable(D)
    term, cons = psi_expression(psi, w)
    prob = cp.Problem(cp.Minimize(t * term + 0.5 * cp.sum_squares(w - v)), cons)
    prob.solve(solver="CLARABEL")
    p = psi.prox(v, t)
    ours = t * float(psi.value(p)) + 0.5 * np.sum((p - v) ** 2)
    assert ours <= prob.value + 1e-6 * (1 + abs(prob.value))
    # strongly convex subproblem: the minimiser is unique
    np.testing.assert_allclose(p, w.value, atol=1e-4 * (1 + np.abs(v).max()))


@given(psi_t=weakly_convex(), v=vectors(D))
def test_weakly_convex_prox_is_the_global_minimiser_per_coordinate(psi_t, v):
    """Brute force: the prox beats a fine grid on each coordinate's 1-D problem."""
    psi, t = psi_t
    p = psi.prox(v, t)
    for j in range(D):
        grid = np.linspace(min(v[j], 0) - 1, max(v[j], 0) + 1, 20001)
        obj = t * psi.value(grid[:, None]) + 0.5 * (grid - v[j]) ** 2
        ours = t * psi.value(p[j : j + 1]) + 0.5 * (p[j] - v[j]) ** 2
        assert ours <= obj.min() + 1e-9


@pytest.mark.parametrize("psi", [MCP(1.0, 3.0), SCAD(1.0, 3.7)], ids=["mcp", "scad"])
@pytest.mark.parametrize("t", [0.2, 1.0, 1.9])
def test_weakly_convex_prox_is_continuous_at_breakpoints(psi, t):
    if isinstance(psi, MCP):
        breaks = [t * psi.lam, psi.gamma * psi.lam]
    else:
        breaks = [t * psi.lam, psi.lam * (1 + t), psi.a * psi.lam]
    for b in breaks:
        for sign in (1.0, -1.0):
            eps = 1e-9
            lo, hi = psi.prox(np.array([sign * (b - eps)]), t), psi.prox(np.array([sign * (b + eps)]), t)
            # Lipschitz constant of the prox is 1/(1 − tρ)
            assert abs(hi[0] - lo[0]) <= 2 * eps / (1 - t * psi.rho) + 1e-12


@given(psi_t=weakly_convex(), v=vectors(D))
def test_weakly_convex_subgradients_bounded_by_lambda(psi_t, v):
    psi, _ = psi_t
    assert np.all(np.abs(psi.subgradient(v)) <= psi.lam + 1e-12)


def test_weakly_convex_refuses_large_steps():
    with pytest.raises(InvalidStepSizeError, match="tρ"):
        MCP(1.0, 2.0).prox(np.ones(3), 2.0)
    with pytest.raises(InvalidStepSizeError, match="tρ"):
        SCAD(1.0, 3.0).prox(np.ones(3), 2.5)


@pytest.mark.parametrize("t", [0.0, -1.0, np.nan, np.inf])
def test_prox_refuses_nonpositive_or_nonfinite_steps(t):
    with pytest.raises(InvalidStepSizeError, match="t > 0"):
        L1(1.0).prox(np.ones(3), t)


@pytest.mark.parametrize("spec,match", [
    ({"name": "l1", "lam": -0.1}, "lam = -0.1"),
    ({"name": "l1_ball", "radius": -1}, "radius = -1"),
    ({"name": "scad", "lam": 1, "a": 1.5}, "a > 2"),
    ({"name": "mcp", "lam": 1, "gamma": 0}, "gamma > 0"),
    ({"name": "box", "lo": 1, "hi": 0}, "lo <= hi"),
    ({"name": "l11"}, "did you mean 'l1'"),
    ({"name": "l1", "lamb": 1}, "did you mean 'lam'"),
])
def test_bad_regularizer_parameters(spec, match):
    with pytest.raises(InvalidRegularizerError, match=match):
        make(spec)


def test_vectorised_over_clients():
    rng = np.random.default_rng(0)
    V = rng.standard_normal((5, 6))
    for psi in (L1(0.3), L1Ball(1.0), Nuclear(0.5, (2, 3))):
        batched = psi.prox(V, 0.7)
        for m in range(5):
            np.testing.assert_array_equal(batched[m], psi.prox(V[m], 0.7))
        np.testing.assert_allclose(psi.value(V), [psi.value(V[m]) for m in range(5)])


@given(st.integers(2, 8), st.floats(0.1, 3))
def test_nuclear_prox_soft_thresholds_singular_values(k, t):
    rng = np.random.default_rng(k)
    psi = Nuclear(1.0, (k, 3))
    v = rng.standard_normal(3 * k)
    s = np.linalg.svd(v.reshape(k, 3), compute_uv=False)
    s_prox = np.linalg.svd(psi.prox(v, t).reshape(k, 3), compute_uv=False)
    np.testing.assert_allclose(np.sort(s_prox), np.sort(np.maximum(s - t, 0)), atol=1e-10)
