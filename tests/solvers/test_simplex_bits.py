"""The ℓ1-ball and simplex projections keep the bits of the implementation they replaced (issue 33).

The reference below is the earlier code verbatim (``take_along_axis`` of css, divided apart, and the
projection computed even for points inside the ball); the current one must equal it bit for bit,
signed zeros included, on Hypothesis-drawn inputs of every shape the engine passes — through the compiled
row kernel (``ball_rows``: numba is loaded here, as in the engine) and through NumPy (rows longer than
``MAX_COMPILED_ROW``, a row not finite, numba not loaded).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from fcocheck.solvers.regularizers import L1Ball, Simplex, project_simplex
from fcocheck.solvers.regularizers.ball_rows import l1_ball_rows, l2_ball_rows, pairwise_sum
from fcocheck.solvers.regularizers.sets import MAX_COMPILED_ROW, row_major


def _reference_simplex(v: np.ndarray, radius: float = 1.0) -> np.ndarray:
    v = np.asarray(v, dtype=float)
    u = -np.sort(-v, axis=-1)
    css = np.cumsum(u, axis=-1) - radius
    idx = np.arange(1, v.shape[-1] + 1)
    cond = u - css / idx > 0
    rho = v.shape[-1] - 1 - np.argmax(cond[..., ::-1], axis=-1)
    theta = np.take_along_axis(css, rho[..., None], axis=-1) / (rho[..., None] + 1.0)
    return np.maximum(v - theta, 0.0)


def _reference_l1_ball(v: np.ndarray, radius: float) -> np.ndarray:
    v = np.asarray(v, dtype=float)
    inside = np.sum(np.abs(v), axis=-1, keepdims=True) <= radius
    proj = np.sign(v) * _reference_simplex(np.abs(v), radius)
    return np.where(inside, v, proj)


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


_values = st.one_of(
    st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 1e-300, -1e-300, 0.5, -0.5, 1.0, -1.0]),
)
_shapes = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=9)
_points = hnp.arrays(np.float64, _shapes, elements=_values)
_radii = st.one_of(st.floats(0.0, 50.0, allow_nan=False), st.sampled_from([0.0, 1.0, 0.25]))


@settings(max_examples=400)
@given(v=_points, radius=_radii)
def test_project_simplex_bits_equal_the_earlier_code(v, radius):
    assert _same_bits(project_simplex(v, radius), _reference_simplex(v, radius))


@settings(max_examples=400)
@given(v=_points, radius=_radii)
def test_l1_ball_projection_bits_equal_the_earlier_code(v, radius):
    assert _same_bits(L1Ball(radius).project(v), _reference_l1_ball(v, radius))


@settings(max_examples=200)
@given(v=_points, radius=st.floats(1e-3, 50.0))
def test_simplex_projection_bits_equal_the_earlier_code(v, radius):
    assert _same_bits(Simplex(radius).project(v), _reference_simplex(v, radius))


def test_ties_and_engine_shapes():
    """Ties in |v|, a point exactly on the sphere, and the (20,) and (8, 20) shapes of the runs."""
    rng = np.random.default_rng(0)
    cases = [np.array([1.0, 1.0, 1.0, -1.0]), np.array([0.25, -0.75]), np.zeros(5)]
    cases += [rng.standard_normal(20), rng.standard_normal((8, 20)), 0.01 * rng.standard_normal((8, 20))]
    for v in cases:
        for radius in (0.0, 1.0, 2.5):
            assert _same_bits(L1Ball(radius).project(v), _reference_l1_ball(v, radius))
            assert _same_bits(project_simplex(v, radius), _reference_simplex(v, radius))


def test_inside_the_ball_returns_a_fresh_array():
    v = np.array([0.1, -0.2, 0.3])
    out = L1Ball(1.0).project(v)
    assert out is not v
    out[0] = 5.0
    assert v[0] == 0.1


def _numpy_path(v: np.ndarray, radius: float, ball: type = L1Ball) -> np.ndarray:
    """``ball(radius).project(v)`` as it runs without numba loaded (its NumPy branch)."""
    import sys

    saved = sys.modules.pop("numba")
    try:
        return ball(radius).project(v)
    finally:
        sys.modules["numba"] = saved


@settings(max_examples=300)
@given(v=hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=24),
                    elements=_values), radius=_radii)
def test_the_compiled_rows_are_the_numpy_rows(v, radius):
    out = np.empty(v.shape)
    assert l1_ball_rows(np.ascontiguousarray(v), radius, out)
    assert _same_bits(out, _numpy_path(v, radius))
    assert _same_bits(out, _reference_l1_ball(v, radius))


def test_the_comparison_sees_one_ulp_and_the_kernel_is_used(monkeypatch):
    """A radius one ulp off gives other bits (the comparison can fail); the engine's shapes use the kernel."""
    rng = np.random.default_rng(4)
    V = rng.standard_normal((24, 20))
    out, off = np.empty(V.shape), np.empty(V.shape)
    l1_ball_rows(V, 1.0, out)
    l1_ball_rows(V, np.nextafter(1.0, 2.0), off)
    assert not _same_bits(out, off)
    from fcocheck.solvers.regularizers import ball_rows

    calls = []
    monkeypatch.setattr(ball_rows, "l1_ball_rows", lambda *a: calls.append(a[0].shape) or l1_ball_rows(*a))
    assert _same_bits(L1Ball(1.0).project(V), out) and calls == [(24, 20)]
    L1Ball(1.0).project(rng.standard_normal((3, MAX_COMPILED_ROW + 1)))  # longer rows: NumPy's
    assert calls == [(24, 20)]


def test_rows_not_finite_and_long_rows_take_numpy():
    v = np.array([[1.0, np.nan, 2.0], [3.0, -1.0, 0.5]])
    assert not l1_ball_rows(v, 1.0, np.empty(v.shape))
    assert _same_bits(L1Ball(1.0).project(v), _numpy_path(v, 1.0))
    w = np.random.default_rng(5).standard_normal((2, 3 * MAX_COMPILED_ROW))
    assert _same_bits(L1Ball(1.0).project(w), _reference_l1_ball(w, 1.0))


def test_the_pairwise_sum_is_numpys_at_every_length():
    """Blocks below 8 and of eight partial sums up to 128, halves cut to a multiple of 8 above (to 3000)."""
    rng = np.random.default_rng(6)
    for n in [*range(1, 300), 1000, 1023, 1024, 1025, 2999]:
        rows = np.abs(rng.standard_normal((2, n))) * 10.0 ** rng.uniform(-6, 6, (2, 1))
        want = np.add.reduce(rows, axis=-1)
        assert [pairwise_sum(r) for r in rows] == want.tolist()
    sequential = [np.abs(rng.standard_normal(1000)) for _ in range(5)]  # another order shows
    assert any(pairwise_sum(a) != float(np.cumsum(a)[-1]) for a in sequential)


def _reference_l2_ball(v: np.ndarray, radius: float) -> np.ndarray:
    """``L2Ball.project``'s NumPy code."""
    v = np.asarray(v, dtype=float)
    n = np.linalg.norm(v, axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n > radius, v * (radius / n), v)


_wide = st.one_of(st.floats(-1e150, 1e150, allow_nan=False), st.sampled_from([0.0, -0.0, 1e-300, 3.0]))


@settings(max_examples=300)
@given(v=hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=40),
                    elements=_wide), radius=_radii)
def test_the_compiled_l2_ball_is_numpys(v, radius):
    from fcocheck.solvers.regularizers import L2Ball

    assert _same_bits(L2Ball(radius).project(v), _reference_l2_ball(v, radius))
    out = np.empty(v.shape)
    l2_ball_rows(np.ascontiguousarray(v).reshape(-1, v.shape[-1]), radius, out.reshape(-1, v.shape[-1]))
    assert _same_bits(out, _reference_l2_ball(v, radius))


def test_the_l2_comparison_can_fail():
    v = np.random.default_rng(7).standard_normal((8, 21)) * 3.0
    out = np.empty(v.shape)
    l2_ball_rows(v, np.nextafter(2.0, 3.0), out)
    assert not _same_bits(out, _reference_l2_ball(v, 2.0))


def test_another_layout_keeps_numpys_path():
    """A column-major array sums |v| in another order: it takes NumPy's path, whose bits it had."""
    from fcocheck.solvers.regularizers import L2Ball

    rng = np.random.default_rng(8)
    for _ in range(50):
        v = np.asfortranarray(rng.standard_normal((6, 13)))
        radius = float(np.abs(v[0]).sum())  # a row on the sphere: the order of the sum decides
        assert _same_bits(L1Ball(radius).project(v), _numpy_path(v, radius))
        assert _same_bits(L2Ball(2.0).project(v), _numpy_path(v, 2.0, L2Ball))


@settings(max_examples=200)
@given(base=hnp.arrays(np.float64, st.tuples(st.integers(1, 12), st.integers(2, 30)), elements=_values),
       radius=_radii, data=st.data())
def test_views_of_rows_columns_and_steps_take_the_kernel_with_numpys_bits(base, radius, data):
    """A view of some rows, some columns or every k-th element (the free tail's head, a run's block), in
    2-D or as a 3-D stack with a strided middle axis, is row-major: the kernels run on it and their bits
    are NumPy's, radius on a row's ℓ1 or ℓ2 sphere included."""
    from fcocheck.solvers.regularizers import L2Ball, ball_rows

    r0 = data.draw(st.integers(0, base.shape[0] - 1))
    c0 = data.draw(st.integers(0, base.shape[1] - 1))
    c1 = data.draw(st.integers(c0 + 1, base.shape[1]))
    v = base[r0::data.draw(st.integers(1, 3)), c0:c1:data.draw(st.integers(1, 3))]
    if data.draw(st.booleans()):  # a stack of two, the middle axis strided
        v = np.stack([base, base[::-1].copy()])[:, r0::data.draw(st.integers(1, 3)), c0:c1]
    assert row_major(v)
    calls = {"l1": 0, "l2": 0}
    real1, real2 = ball_rows.l1_ball_rows, ball_rows.l2_ball_rows
    ball_rows.l1_ball_rows = lambda *a: calls.__setitem__("l1", calls["l1"] + 1) or real1(*a)
    ball_rows.l2_ball_rows = lambda *a: calls.__setitem__("l2", calls["l2"] + 1) or real2(*a)
    try:
        first = v.reshape(-1, v.shape[-1])[0]
        spheres = (float(np.abs(first).sum()), float(np.sqrt(np.add.reduce(first * first))))
        for r in (radius, *(s for s in spheres if np.isfinite(s))):
            assert _same_bits(L1Ball(r).project(v), _numpy_path(v, r))
            assert _same_bits(L2Ball(r).project(v), _numpy_path(v, r, L2Ball))
    finally:
        ball_rows.l1_ball_rows, ball_rows.l2_ball_rows = real1, real2
    assert calls["l2"] >= 1 and (calls["l1"] >= 1 or v.shape[-1] > MAX_COMPILED_ROW)


def test_a_column_view_uses_the_kernel_and_other_layouts_do_not(monkeypatch):
    from fcocheck.solvers.regularizers import ball_rows

    calls = []
    monkeypatch.setattr(ball_rows, "l1_ball_rows", lambda *a: calls.append(a[0].shape) or l1_ball_rows(*a))
    V = np.random.default_rng(9).standard_normal((6, 21))
    L1Ball(1.0).project(V[:, :-1])  # the free tail's head: a view with a gap after each row
    assert calls == [(6, 20)]
    for other in (np.asfortranarray(V), V[:, ::-1], np.broadcast_to(V[0], (4, 21))):
        assert not row_major(other)
        L1Ball(1.0).project(other)
    assert calls == [(6, 20)]


@settings(max_examples=300)
@given(shape=st.lists(st.integers(1, 5), min_size=1, max_size=4), data=st.data())
def test_the_contiguous_flag_answers_as_the_strides_rule_would(shape, data):
    """``row_major`` answers C-contiguous arrays from NumPy's flag: the strides rule agrees on each of them
    (axes of length 1 with any stride, rows and leading blocks of a C array), and says no to a few
    layouts the flag refuses too."""
    from fcocheck.solvers.regularizers.sets import _decreasing_strides

    base = np.zeros(shape)
    views = [base, base[data.draw(st.integers(0, shape[0] - 1))], base[: data.draw(st.integers(1, shape[0]))]]
    odd = [data.draw(st.integers(-64, 64)) * 8 if n == 1 else s
           for n, s in zip(base.shape, base.strides, strict=True)]  # any stride on an axis of length 1
    views.append(np.lib.stride_tricks.as_strided(base, strides=odd))
    for v in views:
        assert v.flags.c_contiguous and _decreasing_strides(v) and row_major(v)
    if base.ndim > 1 and min(shape[-2:]) > 1:
        for other in (np.asfortranarray(base), base[..., ::-1], base.swapaxes(-1, -2)):
            assert not other.flags.c_contiguous and not _decreasing_strides(other) and not row_major(other)
