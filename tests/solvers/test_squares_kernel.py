"""The compiled least-squares gradients of the loop strategy (``solvers/squares_kernel.py``).

They must be the generic numpy loop's bits (``Kernel._loop``: BLAS products, element-wise residual,
``r.sum()``) on every layout the engine hands them, and the comparison must be able to fail.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from fcocheck.solvers.generators import generate
from fcocheck.solvers.kernels import Kernel
from fcocheck.solvers.squares_kernel import offsets, pairwise_sum


def _bits(a, b):
    np.testing.assert_array_equal(np.asarray(a).view(np.int64), np.asarray(b).view(np.int64))


def _problem(sizes, intercept=True, loss="squares", ridge=0.0, seed=3, d=6):
    rng = np.random.default_rng(seed)
    base = generate("lasso-paper", clients=len(sizes), samples=max(sizes), d=d, nnz=min(2, d))
    return replace(base, X=tuple(rng.standard_normal((n, d)) for n in sizes),
                   y=tuple(rng.standard_normal(n) for n in sizes), loss=loss, ridge_lam=ridge,
                   weights=np.full(len(sizes), 1 / len(sizes)), intercept=intercept)


def _generic(k, W, rows=None):
    p = k.problem
    if rows is None:
        Xs, ys = [p.X[m] for m in k.index], [p.y[m] for m in k.index]
    else:
        Xs = [p.X[m][rows[i]] for i, m in enumerate(k.index)]
        ys = [p.y[m][rows[i]] for i, m in enumerate(k.index)]
    return k._loop(np.asarray(W, dtype=float), Xs, ys, values=rows is None)


@pytest.mark.parametrize("n", list(range(0, 140)) + [255, 256, 257, 1000, 4099])
def test_pairwise_sum_is_numpys_reduction(n):
    rng = np.random.default_rng(n)
    a = rng.standard_normal(n) * 10.0 ** rng.integers(-6, 6, n)
    _bits(pairwise_sum(a), np.add.reduce(a))


def test_pairwise_sum_order_matters_on_these_data():
    """Power: a plain running sum differs from numpy's on data like the tests' (so equality is earned)."""
    rng = np.random.default_rng(0)
    differ = 0
    for n in (20, 64, 128, 300):
        a = rng.standard_normal(n) * 10.0 ** rng.integers(-6, 6, n)
        running = 0.0
        for v in a:
            running += v
        differ += running != np.add.reduce(a)
    assert differ >= 2


@pytest.mark.parametrize("sizes", [[7, 12, 9], [16, 16, 16, 16], [1, 300, 2], [129, 128, 127]])
@pytest.mark.parametrize("intercept", [True, False])
@pytest.mark.parametrize("loss,ridge", [("squares", 0.0), ("ridge", 0.4)])
@pytest.mark.parametrize("d", [1, 6, 200])
def test_compiled_gradients_and_values_are_the_generic_loops_bits(sizes, intercept, loss, ridge, d):
    p = _problem(sizes, intercept, loss, ridge, d=d)
    k = Kernel(p, strategy="loop")
    assert k._compiled_squares()
    rng = np.random.default_rng(1)
    W = rng.standard_normal((p.M, p.dim))
    vals, G = k._squares(W, values=True)
    ref_v, ref_g = _generic(k, W)
    _bits(G, ref_g)
    _bits(vals, ref_v)
    # the public entry point adds the ridge term to both, identically for both paths
    v2, g2 = k.values_and_grads(W)
    _bits(g2, k._ridge(W, ref_g.copy()))
    # any layout of W gives the C-ordered copy's bits (numpy's own ``@`` does not: for a one-row client
    # and a strided w it skips BLAS, so the reference is taken on the C-ordered copy)
    for layout in (np.asfortranarray(W), np.broadcast_to(W[0], W.shape)):
        _bits(k._squares(layout, values=False)[1], _generic(k, np.ascontiguousarray(layout))[1])


def test_matrix_loss_takes_the_compiled_path_with_the_same_bits():
    p = generate("lowrank-paper", clients=3, samples=9, d1=3, d2=4, rank=1)
    k = Kernel(p, strategy="loop")
    assert k._compiled_squares()
    W = np.random.default_rng(5).standard_normal((p.M, p.dim))
    vals, G = k._squares(W, values=True)
    ref_v, ref_g = _generic(k, W)
    _bits(G, ref_g)
    _bits(vals, ref_v)


def test_equal_sizes_use_the_stacked_array_without_a_copy():
    p = _problem([16, 16, 16])
    rows, _, _ = p.pooled  # what squares_grads reads
    assert np.shares_memory(rows, p.stacked)
    assert offsets(p).tolist() == [0, 16, 32, 48]
    q = _problem([3, 5])
    assert q.pooled[0].shape == (8, 6) and offsets(q).tolist() == [0, 3, 8]


def test_subsets_and_minibatches():
    p = _problem([9, 14, 11, 20])
    rng = np.random.default_rng(2)
    k = Kernel(p, strategy="loop").subset(np.array([1, 3]))
    W = rng.standard_normal((2, p.dim))
    _bits(k._squares(W, values=False)[1], _generic(k, W)[1])
    rows = np.stack([rng.integers(0, 9, 5), rng.integers(0, 9, 5)])  # within every client's size
    _bits(k.grads_rows(W, rows), k._ridge(W, _generic(k, W, rows)[1]))


def test_the_comparison_sees_a_gemv_where_numpy_takes_a_dot_product():
    """Power: for a one-row client numpy's ``@`` is a dot product; BLAS gemv differs in the last bits
    on these data, so ``_matvec``'s rule is needed (the bit test above fails without it)."""
    import numba

    gemv = numba.njit(lambda A, x: np.dot(A, x))
    rng = np.random.default_rng(0)
    differ = sum(not np.array_equal(gemv(X, w), X @ w)
                 for X, w in ((rng.standard_normal((1, 1024)), rng.standard_normal(1024)) for _ in range(20)))
    assert differ >= 1


def test_the_comparison_sees_a_client_served_with_another_clients_rows():
    """Power: serving client 3's rows to client 1 (a wrong offset) changes the gradient."""
    p = _problem([9, 14, 11, 14])
    k = Kernel(p, strategy="loop").subset(np.array([1, 2]))
    wrong = Kernel(p, strategy="loop").subset(np.array([3, 2]))
    W = np.random.default_rng(4).standard_normal((2, p.dim))
    assert not np.array_equal(k._squares(W, values=False)[1][0], wrong._squares(W, values=False)[1][0])
    assert np.array_equal(k._squares(W, values=False)[1][1], wrong._squares(W, values=False)[1][1])


def test_out_of_range_rows_and_clients_are_refused_before_the_unchecked_loop():
    """Client 0 has 9 rows: row 9 would silently read client 1's first row in the compiled loop."""
    from fcocheck.solvers.squares_kernel import squares_grads

    p = _problem([9, 14])
    W, G = np.zeros((2, p.dim)), np.empty((2, p.dim))
    with pytest.raises(IndexError, match="minibatch rows must lie in"):
        squares_grads(p, np.array([0, 1]), W, G, select=np.array([[9, 0], [0, 1]]))
    with pytest.raises(IndexError, match="minibatch rows must lie in"):
        squares_grads(p, np.array([0, 1]), W, G, select=np.array([[-1, 0], [0, 1]]))
    with pytest.raises(IndexError, match="clients must lie in"):
        squares_grads(p, np.array([0, 2]), W, G)
    squares_grads(p, np.array([0, 1]), W, G, select=np.array([[8, 0], [13, 1]]))  # the edges are fine


def test_other_losses_and_sparse_data_keep_the_generic_loop():
    logistic = generate("sparse-logistic", clients=3, samples=6, d=5, nnz=2)
    assert not Kernel(logistic, strategy="loop")._compiled_squares()
    bow = generate("bag-of-words", clients=3, d=30, words=5, min_size=3, max_size=8, mean_size=5.0)
    assert not Kernel(bow, strategy="loop")._compiled_squares()
