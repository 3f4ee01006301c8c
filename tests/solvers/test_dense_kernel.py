"""The compiled dense SVRG pass (``solvers/algorithms/dense_kernel.py``) against the numpy pass it replaced.

The numpy lockstep pass stays callable (``svrg_pass(..., compiled=False)``); every comparison here is of
bits (``np.array_equal``), never a tolerance: whole traces of SVRG, naive FSVRG and FSVRG on dense and
sparse data, each loss the kernel compiles, ψ ∈ {0, l2sq, l1, elastic net} with and without an
intercept, the ridge term, FSVRG's S_k, unequal client steps, and dim < 8, 8 ≤ dim ≤ 128 and dim > 128
(the three regimes of numpy's pairwise summation, reproduced by ``_pairwise_sum``).
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from fcocheck.solvers.algorithms import dense_kernel
from fcocheck.solvers.algorithms import svrg as svrg_module
from fcocheck.solvers.algorithms.dense_kernel import _pairwise_sum, _prox, compiled_ok, dense_steps, psi_code
from fcocheck.solvers.algorithms.samples import Pass, full_gradient, sample_view, sequences, svrg_pass
from fcocheck.solvers.engine import run
from fcocheck.solvers.errors import InvalidStepSizeError
from fcocheck.solvers.generators import generate
from fcocheck.solvers.regularizers import (
    L1,
    MCP,
    ElasticNet,
    FreeTail,
    L1Ball,
    L2Squared,
    Simplex,
    Zero,
)


def _numpy_sum(p: np.ndarray) -> float:
    with np.errstate(all="ignore"):
        return float(np.sum(p[None, :], axis=1)[0])


def _compiled_sum(p: np.ndarray) -> float:
    depth = 2 * (int(np.log2(max(len(p), 1))) + 2)
    scratch = np.empty(depth, dtype=np.int64), np.empty(depth, dtype=np.int64), np.empty(depth)
    return 0.0 + _pairwise_sum(np.ascontiguousarray(p), len(p), *scratch)


def _bits(x: float) -> bytes:
    return np.float64(x).tobytes()


_LENGTHS = [0, 1, 2, 5, 7, 8, 9, 15, 16, 17, 20, 31, 64, 127, 128, 129, 130, 136, 200, 255, 256, 257, 300,
            513, 1000, 1025, 4099, 9000]


@pytest.mark.parametrize("n", _LENGTHS)
def test_pairwise_sum_is_numpys_row_sum_bit_for_bit(n):
    """Ill-conditioned terms (magnitudes 1e-8…1e8, cancellations) so that any other order shows."""
    rng = np.random.default_rng(n)
    for _ in range(20):
        p = rng.standard_normal(n) * 10.0 ** rng.integers(-8, 9, n)
        assert _bits(_compiled_sum(p)) == _bits(_numpy_sum(p))


def test_pairwise_sum_power_and_signed_zeros():
    """The comparison can fail: a left-to-right sum differs; all −0.0 terms sum to +0.0 (0.0 + −0.0)."""
    p = np.array([1.0, 1e16, -1e16] + [0.0] * 6 + [1.0, 1e16, -1e16])
    assert _bits(_compiled_sum(p)) == _bits(_numpy_sum(p))
    p = np.array([1e16] + [1.0] * 8)  # left to right every 1 is rounded away; in pairs they count
    plain = 0.0
    for v in p:
        plain += v
    assert plain == 1e16 and _compiled_sum(p) == _numpy_sum(p) > 1e16
    for n in (1, 3, 9, 200):
        z = np.full(n, -0.0)
        assert _bits(_compiled_sum(z)) == _bits(_numpy_sum(z)) == _bits(0.0)


_floats = st.one_of(st.floats(allow_nan=False, allow_infinity=True),
                    st.sampled_from([0.0, -0.0, 5e-324, -5e-324, 1e308]))


@settings(max_examples=200, deadline=None)
@given(p=hnp.arrays(np.float64, st.integers(0, 300), elements=_floats))
def test_pairwise_sum_on_any_values(p):
    got, want = _compiled_sum(p), _numpy_sum(p)
    assert _bits(got) == _bits(want) or (np.isnan(got) and np.isnan(want))


_PSIS = [Zero(), L2Squared(0.3), L2Squared(0.0), L1(0.2), L1(0.0), ElasticNet(0.2, 0.5), ElasticNet(0.0, 0.0)]


@settings(max_examples=100, deadline=None)
@given(v=hnp.arrays(np.float64, st.integers(1, 30), elements=st.one_of(
    st.floats(allow_nan=False, allow_infinity=True), st.sampled_from([0.0, -0.0, 0.2, -0.2, 5e-324]))),
       t=st.sampled_from([1.0, 0.5, 1e-300, 3.7, 1e300]))
def test_prox_is_the_regularisers_prox_bit_for_bit(v, t):
    """Each compiled branch against ψ.prox on the same coordinates (|v| = tλ, ±0, ±inf included)."""
    for psi in _PSIS:
        code, a, b, _ = psi_code(psi)
        want = psi.prox(v, t)
        got = np.array([_prox(code, float(x), t, a, b) for x in v])
        assert got.tobytes() == want.tobytes() or np.array_equal(got, want, equal_nan=True), psi


def test_compiled_psis_and_the_ones_left_on_numpy():
    for psi in _PSIS:
        assert compiled_ok("logistic", psi) and compiled_ok("squares", FreeTail(psi, 1))
    for psi in (L1Ball(1.0), Simplex(1.0), MCP(0.1, 3.0)):
        assert not compiled_ok("squares", psi)

    @dataclasses.dataclass(frozen=True, eq=False)
    class OtherL1(L1):
        pass

    assert not compiled_ok("squares", OtherL1(0.1))  # a subclass may change the prox
    assert not compiled_ok("quadratic", Zero())


def _same_traces(a, b):
    assert a.status == b.status and a.meta["completed"] == b.meta["completed"]
    assert sorted(a.arrays) == sorted(b.arrays)
    for key in a.arrays:
        x, y = np.asarray(a.arrays[key]), np.asarray(b.arrays[key])
        assert x.shape == y.shape, key
        if x.dtype.kind == "f":
            assert np.array_equal(x, y, equal_nan=True) and x.tobytes() == y.tobytes() or (
                np.array_equal(x, y, equal_nan=True) and np.isnan(x).any()), key
        else:
            assert np.array_equal(x, y), key


def _both(monkeypatch, method, problem, hp, rounds, seed):
    """(the run as it is, the run on the numpy dense pass); the compiled loop is seen in the first."""
    calls = []

    def counted(*args, **kwargs):
        calls.append(1)
        return dense_steps(*args, **kwargs)

    with monkeypatch.context() as m:
        m.setattr(dense_kernel, "dense_steps", counted)
        compiled = run(method, problem, hp, rounds=rounds, seed=seed, reference=False)
        used = len(calls)
        m.setattr(svrg_module, "svrg_pass", functools.partial(svrg_pass, compiled=False))
        reference = run(method, problem, hp, rounds=rounds, seed=seed, reference=False)
    assert len(calls) == used
    if method == "svrg":
        assert used >= compiled.meta["completed"] and used > 0
    return compiled, reference


def _instance(kind: str, d: int, seed: int):
    if kind == "ridge":
        return generate("ridge", clients=3, samples=25, d=d, seed=seed)
    if kind == "lasso":  # squares, l1, intercept (FreeTail), uniform weights: ρ_i ≠ 1
        return generate("lasso-paper", clients=3, samples=20, d=d, nnz=max(1, d // 4), seed=seed)
    if kind == "logistic-l1":
        return generate("sparse-logistic", clients=3, samples=20, d=d, nnz=max(1, d // 4), seed=seed)
    if kind == "sigmoid-enet":
        p = generate("sparse-logistic", clients=3, samples=20, d=d, nnz=max(1, d // 4), seed=seed)
        return dataclasses.replace(p, loss="sigmoid", regularizer=ElasticNet(0.01, 0.1))
    if kind == "cauchy-l2sq":
        p = generate("robust-penalized", clients=3, samples=20, d=d, nnz=max(1, d // 4), seed=seed)
        return dataclasses.replace(p, regularizer=L2Squared(0.05))
    if kind == "ridge-l1-intercept":  # ridge term on the model only, the intercept free
        p = generate("lasso-paper", clients=3, samples=20, d=d, nnz=max(1, d // 4), seed=seed)
        return dataclasses.replace(p, loss="ridge", ridge_lam=0.2, regularizer=L1(0.05))
    p = generate("bag-of-words", clients=4, d=d, words=5, mean_size=12, min_size=3, max_size=30, seed=seed)
    if kind == "bow-l1":  # CSR rows, unequal clients; l1 keeps FSVRG on the dense pass
        return dataclasses.replace(p, regularizer=L1(0.002))
    return p  # logistic, l2sq: SVRG runs the dense pass on sparse rows


_KINDS = ["ridge", "lasso", "logistic-l1", "sigmoid-enet", "cauchy-l2sq", "ridge-l1-intercept", "bow-l1",
          "bow"]


@pytest.mark.parametrize("kind", _KINDS)
@pytest.mark.parametrize("d", [5, 20, 150])
def test_whole_traces_are_the_numpy_passs_bit_for_bit(monkeypatch, kind, d):
    """SVRG (uniform and permutation), naive FSVRG and FSVRG: every recorded array, every round."""
    if kind.startswith("bow") and d < 20:
        d = 12  # a vocabulary of at least the words per document
    statuses = []
    for seed in (0, 1):
        p = _instance(kind, d, seed)
        n = int(p.n.sum())
        A = sample_view(p, "test").A
        c = min(1.0, 20.0 / float(A.multiply(A).sum(axis=1).max()))  # steps ∝ 1/max‖x_i‖²: d = 150 too
        cases = [("svrg", {"h": 0.05 * c, "m": 3 * n // 2}),
                 ("svrg", {"h": 0.2 * c, "m": 0, "sampling": "permutation"}),
                 ("naive-fsvrg", {"h": 0.1 * c, "m": 15}),
                 ("fsvrg", {"h": 0.5 * c})]
        for method, hp in cases:
            a, b = _both(monkeypatch, method, p, hp, rounds=3, seed=seed + 7)
            _same_traces(a, b)
            statuses.append(a.status)
    assert statuses.count("completed") >= 7, statuses  # mostly finite iterates, not NaN against NaN


@settings(max_examples=40, deadline=None)
@given(kind=st.sampled_from(_KINDS), d=st.sampled_from([3, 8, 9, 17, 64, 128, 129, 140, 260]),
       seed=st.integers(0, 2**16), scaled=st.booleans(), equal_h=st.booleans(), weights=st.booleans(),
       int_h=st.booleans())
def test_one_pass_with_drawn_inputs_is_the_numpy_passs_bit_for_bit(kind, d, seed, scaled, equal_h, weights,
                                                                   int_h):
    """Unequal client steps (prox per row), integer steps, random ρ_i, S_k, any point: Δ and every w_k."""
    if kind.startswith("bow"):
        d = max(d, 12)
    p = _instance(kind, d, seed % 5)
    view = sample_view(p, "test")
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(p.dim) * rng.choice([0.01, 1.0, 30.0])
    g, d0 = full_gradient(p, view, w)
    lengths = rng.integers(0, 25, p.M)
    rows, client, step = sequences(rng, view, np.arange(p.M), lengths, permutation=False)
    h = np.full(p.M, 0.1) if equal_h else rng.uniform(0.01, 0.5, p.M)
    if int_h:  # an integer h (hyper-parameters may be ints): numpy's int × float arithmetic
        h = np.full(p.M, 1) if equal_h else rng.integers(1, 3, p.M)
    rho = rng.uniform(0.5, 2.0, view.n)
    scale = rng.uniform(0.5, 2.0, view.A.nnz) if scaled else None
    view.cache.pop("fsvrg_dense", None)
    if scaled:  # the dense S_k built from these entries (the pass reads dense_scaling's cache)
        S = np.ones((p.M, p.dim))
        S[view.owner[np.repeat(np.arange(view.n), np.diff(view.A.indptr))], view.A.indices] = scale
        view.cache["fsvrg_dense"] = S
    spec = Pass(rows, client, step, h, rho, scale, rng.dirichlet(np.ones(p.M)) if weights else p.weights)
    try:
        got = svrg_pass(p, view, w, g, d0, spec, lazy=False)
        want = svrg_pass(p, view, w, g, d0, spec, lazy=False, compiled=False)
    finally:
        view.cache.pop("fsvrg_dense", None)
    for x, y in zip(got, want, strict=True):
        assert np.array_equal(x, y, equal_nan=True)
        assert x.tobytes() == y.tobytes() or np.isnan(x).any()


def test_the_comparison_sees_a_changed_step():
    """Power: the compiled pass with h changed in its last bit is not the numpy pass's bits."""
    p = _instance("ridge", 20, 0)
    view = sample_view(p, "test")
    w = np.zeros(p.dim)
    g, d0 = full_gradient(p, view, w)
    n = view.n
    spec = Pass(np.arange(n), np.zeros(n, dtype=np.int64), np.arange(n), np.full(p.M, 0.05), np.ones(n), None,
                np.eye(p.M)[0])
    nudged = dataclasses.replace(spec, h=np.nextafter(spec.h, 1.0))
    a = svrg_pass(p, view, w, g, d0, nudged, lazy=False)
    b = svrg_pass(p, view, w, g, d0, spec, lazy=False, compiled=False)
    assert not np.array_equal(a[1], b[1])


def test_an_invalid_step_is_refused_as_the_numpy_prox_refuses_it():
    p = _instance("lasso", 8, 0)
    view = sample_view(p, "test")
    w = np.zeros(p.dim)
    g, d0 = full_gradient(p, view, w)
    spec = Pass(np.array([0, 1]), np.array([0, 1]), np.array([0, 0]), np.array([0.1, 0.0, 0.1]),
                np.ones(view.n), None, p.weights)
    messages = []
    for compiled in (True, False):
        with pytest.raises(InvalidStepSizeError, match="prox step t = 0.0") as err:
            svrg_pass(p, view, w, g, d0, spec, lazy=False, compiled=compiled)
        messages.append(str(err.value))
    assert messages[0] == messages[1]
    one = np.array([0])
    quiet = dataclasses.replace(spec, seq_rows=one, seq_client=one, seq_step=one)
    for x, y in zip(svrg_pass(p, view, w, g, d0, quiet, lazy=False),
                    svrg_pass(p, view, w, g, d0, quiet, lazy=False, compiled=False), strict=True):
        assert x.tobytes() == y.tobytes()  # a client that does not move is not checked (nor prox'd)
