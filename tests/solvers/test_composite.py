"""The composite map ∇(h + tψ)* against an independent cvxpy solve."""

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from fcocheck.solvers.composite import composite_map
from fcocheck.solvers.errors import NoClosedFormError
from fcocheck.solvers.mirror_maps import DiagonalQuadratic, Entropy, Euclidean, FreeTailMirror, PNorm
from fcocheck.solvers.reference.cvx import psi_expression
from fcocheck.solvers.regularizers import (
    L1,
    MCP,
    SCAD,
    Box,
    ElasticNet,
    FreeTail,
    GroupLasso,
    L2Squared,
    NonNegative,
    Nuclear,
    Simplex,
    Zero,
)
from tests.solvers.strategies import convex_regularizers, steps, vectors

D = 6


def h_expression(h, w):
    if isinstance(h, Euclidean):
        return 0.5 * cp.sum_squares(w), []
    if isinstance(h, DiagonalQuadratic):
        return 0.5 * cp.sum(cp.multiply(h.diag, cp.square(w))), []
    if isinstance(h, PNorm):
        # approx=False: power cones, not a rational approximation of p (which moves the optimum)
        return cp.square(cp.pnorm(w, h.p, approx=False)) / (2 * (h.p - 1)), []
    if isinstance(h, Entropy):
        return -cp.sum(cp.entr(w)), [w >= 0, cp.sum(w) == 1]
    raise AssertionError(h)


@st.composite
def pairs(draw):
    kind = draw(st.sampled_from(["euclidean", "diagonal", "pnorm", "entropy"]))
    if kind == "euclidean":
        return Euclidean(), draw(convex_regularizers(D))
    if kind == "diagonal":
        a = draw(arrays(np.float64, (D,), elements=st.floats(0.1, 10)))
        psi = draw(st.sampled_from([L1(0.7), L2Squared(0.5), ElasticNet(0.3, 0.4), Box(-0.5, 1.0),
                                    NonNegative(), Zero()]))
        return DiagonalQuadratic(tuple(a)), psi
    if kind == "pnorm":
        return PNorm(draw(st.floats(1.2, 2.0))), draw(st.sampled_from([L1(0.5), L1(2.0), Zero()]))
    return Entropy(), Simplex(1.0)


def _objective(h, psi, z, t, w):
    return -z @ w + t * float(psi.value(w)) + float(h.h(w))


@settings(max_examples=30)
@given(pairs(), vectors(D), steps)
def test_composite_map_is_optimal(pair, z, t):
    h, psi = pair
    w_ours = composite_map(h, psi, z, t)
    w = cp.Variable(D)
    hterm, hcons = h_expression(h, w)
    pterm, pcons = psi_expression(psi, w)
    prob = cp.Problem(cp.Minimize(-z @ w + t * pterm + hterm), hcons + pcons)
    prob.solve(solver="CLARABEL")
    ours = _objective(h, psi, z, t, w_ours)
    assert ours <= prob.value + 1e-6 * (1 + abs(prob.value))


@given(vectors(D))
def test_t_zero_gives_grad_conj(z):
    for h in (Euclidean(), PNorm(1.5), DiagonalQuadratic((2.0,) * D)):
        np.testing.assert_array_equal(composite_map(h, L1(1.0), z, 0.0), h.grad_conj(z))


@given(vectors(D), steps)
def test_euclidean_composite_is_the_prox(z, t):
    np.testing.assert_array_equal(composite_map(Euclidean(), L1(0.4), z, t), L1(0.4).prox(z, t))


@given(vectors(D + 1), steps)
def test_intercept_coordinate_is_left_free(z, t):
    w = composite_map(FreeTailMirror(PNorm(1.5), 1), FreeTail(L1(0.5), 1), z, t)
    assert w[-1] == z[-1]
    np.testing.assert_allclose(w[:-1], composite_map(PNorm(1.5), L1(0.5), z[:-1], t))


@pytest.mark.parametrize("h,psi", [
    (PNorm(1.5), Nuclear(1.0, (2, 3))),
    (DiagonalQuadratic((1.0,) * D), Simplex(1.0)),
    (Entropy(), L1(1.0)),
])
def test_pairs_without_closed_form_are_refused(h, psi):
    with pytest.raises(NoClosedFormError, match="no closed form"):
        composite_map(h, psi, np.ones(D), 1.0)


@pytest.mark.parametrize("psi", [L1(0.3), L2Squared(0.7), ElasticNet(0.2, 0.5), Box(-0.1, 0.2), NonNegative(),
                                 MCP(0.3, 3.0), SCAD(0.3, 3.7), Zero()], ids=lambda p: p.name)
def test_the_coordinatewise_intercept_path_is_the_strided_one_bit_for_bit(psi):
    """Euclidean h + separable ψ with a free intercept: the whole-array map equals the map on the
    model coordinates (per-coordinate t takes the strided path and is the reference), z untouched."""
    from fcocheck.solvers.composite import make_composite

    rng = np.random.default_rng(7)
    z = rng.standard_normal((9, 6))
    keep = z.copy()
    fast = make_composite(FreeTailMirror(Euclidean(), 1), FreeTail(psi, 1))
    t = 0.05
    want = fast(z, np.full(z.shape, t))  # an array t: the strided path, coordinate by coordinate
    got = fast(z, t)
    assert got.tobytes() == want.tobytes() and np.array_equal(z, keep)
    assert np.array_equal(got[:, -1], z[:, -1]) and not np.may_share_memory(got, z)


def test_a_coupled_psi_must_not_take_the_coordinatewise_path():
    """Power of the guard: the group lasso on the whole row (intercept included) is another point."""
    from fcocheck.solvers.composite import make_composite

    z = np.random.default_rng(8).standard_normal((4, 6))
    psi = GroupLasso(0.4, groups=(0, 0, 0, 0, 0))
    right = make_composite(FreeTailMirror(Euclidean(), 1), FreeTail(psi, 1))(z, 0.5)
    whole = GroupLasso(0.4, groups=(0, 0, 0, 0, 0, 0)).prox(z, 0.5)
    whole[:, -1] = z[:, -1]
    assert not GroupLasso.separable and not np.allclose(right, whole)
