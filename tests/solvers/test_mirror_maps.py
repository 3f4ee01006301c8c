"""Mirror-map identities: ∇h*(∇h(w)) = w, strong convexity, dual norms."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from fcocheck.solvers.errors import InvalidMirrorMapError
from fcocheck.solvers.mirror_maps import DiagonalQuadratic, Entropy, Euclidean, FreeTailMirror, PNorm, make
from tests.solvers.strategies import vectors

D = 5


@st.composite
def mirror_and_point(draw):
    kind = draw(st.sampled_from(["euclidean", "diagonal", "pnorm", "entropy", "free_tail"]))
    if kind == "entropy":
        logits = draw(arrays(np.float64, (D,), elements=st.floats(-5, 5)))
        w = np.exp(logits) / np.exp(logits).sum()
        return Entropy(), w
    w = draw(vectors(D))
    if kind == "euclidean":
        return Euclidean(), w
    if kind == "diagonal":
        a = draw(arrays(np.float64, (D,), elements=st.floats(0.05, 20)))
        return DiagonalQuadratic(tuple(a)), w
    if kind == "pnorm":
        return PNorm(draw(st.floats(1.05, 2.0))), w
    return FreeTailMirror(PNorm(draw(st.floats(1.1, 2.0))), 1), w


@given(mirror_and_point())
def test_grad_conj_inverts_grad(hw):
    h, w = hw
    np.testing.assert_allclose(h.grad_conj(h.grad(w)), w, atol=1e-9 * (1 + np.abs(w).max()))


@given(mirror_and_point(), st.data())
def test_bregman_is_one_strongly_convex_in_its_norm(hw, data):
    h, w = hw
    if isinstance(h, Entropy):
        logits = data.draw(arrays(np.float64, (D,), elements=st.floats(-5, 5)))
        u = np.exp(logits) / np.exp(logits).sum()
    else:
        u = data.draw(vectors(D))
    assert h.bregman(u, w) >= 0.5 * h.norm(u - w) ** 2 - 1e-9 * (1 + h.norm(u) ** 2 + h.norm(w) ** 2)


@given(mirror_and_point(), vectors(D), vectors(D))
def test_dual_norm_is_dual(hw, z, x):
    h, _ = hw
    assert abs(z @ x) <= h.dual_norm(z) * h.norm(x) * (1 + 1e-12) + 1e-12


@pytest.mark.parametrize("spec,match", [
    ({"name": "pnorm", "p": 1.0}, "1 < p <= 2"),
    ({"name": "pnorm", "p": 2.5}, "1 < p <= 2"),
    ({"name": "diagonal", "a": [1.0, 0.0]}, "a_j > 0"),
    ({"name": "euclidian"}, "did you mean 'euclidean'"),
])
def test_bad_mirror_maps(spec, match):
    with pytest.raises(InvalidMirrorMapError, match=match):
        make(spec)
