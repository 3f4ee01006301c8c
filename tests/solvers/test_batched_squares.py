"""The compiled batched least-squares kernel computes its defining sequential sums bit for bit, on every
path that uses it, and the comparison can tell other summation orders, other clients and skipped terms."""

from __future__ import annotations

import numpy as np
import pytest

from fcocheck.solvers.batched_squares import back, predict_cols, predict_rows, squares_grads
from fcocheck.solvers.generators import generate
from fcocheck.solvers.kernels import Kernel


def transcription(X, Y, W, intercept):
    """The module's definition in numpy: every sum in index order from 0.0, one term at a time."""
    M, n, d = X.shape
    b = W[:, d] if intercept else np.zeros(M)
    T = np.zeros((M, n))
    for j in range(d):
        T += X[:, :, j] * W[:, None, j]
    T += b[:, None]
    R = (T - Y) / n
    G = np.zeros((M, d + int(intercept)))
    for i in range(n):
        G[:, :d] += X[:, i, :] * R[:, i, None]
    if intercept:
        s = np.zeros(M)
        for i in range(n):
            s += R[:, i]
        G[:, d] = s
    return T, G


def data(M, n, d, seed, zeros=0.0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((M, n, d)) * rng.uniform(0.1, 10, (M, 1, d))
    Y = rng.standard_normal((M, n))
    W = rng.standard_normal((M, d + 1))
    W[:, :d] *= rng.random((M, d)) >= zeros  # exact zeros (an ℓ1 method's sparse iterates)
    return X, Y, W


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 7, 8, 9, 20])
@pytest.mark.parametrize("d", [1, 3, 8, 100])
@pytest.mark.parametrize("intercept", [True, False])
def test_the_kernel_is_its_defining_sums_bit_for_bit(n, d, intercept):
    X, Y, W = data(9, n, d, seed=n * 101 + d)
    W = W if intercept else W[:, :d].copy()
    G = np.empty_like(W)
    T = squares_grads(X, Y, W, intercept, G)
    T0, G0 = transcription(X, Y, W, intercept)
    assert np.array_equal(T, T0) and np.array_equal(G, G0)
    assert np.array_equal(squares_grads(X, Y, W, intercept, None), T0)  # predictions only


@pytest.mark.parametrize("zeros", [0.0, 0.5, 0.9, 1.0])
def test_predictions_from_the_columns_are_those_from_the_rows_with_zero_columns_skipped(zeros):
    X, _, W = data(1, 20, 100, seed=3, zeros=zeros)
    W[0, 1:100:7] = -0.0  # negative zeros are skipped as well
    W[0, 100] = 0.25  # the intercept b
    t_rows, t_cols = np.empty(20), np.empty(20)
    predict_rows(X[0], W[0, :100], 0.25, t_rows)
    predict_cols(np.ascontiguousarray(X[0].T), W[0, :100], 0.25, t_cols)
    assert np.array_equal(t_rows, t_cols)
    assert np.array_equal(t_rows, transcription(X, np.zeros((1, 20)), W[:, :101], True)[0][0])


def test_skipping_zero_columns_needs_finite_data():
    """Why ``validate``'s finite-data rule matters here: inf·0 = NaN is a term the row form adds."""
    X = np.ones((1, 2, 3))
    X[0, 0, 1] = np.inf
    w = np.array([1.0, 0.0, 1.0])
    t_rows, t_cols = np.empty(2), np.empty(2)
    predict_rows(X[0], w, 0.0, t_rows)
    predict_cols(np.ascontiguousarray(X[0].T), w, 0.0, t_cols)
    assert np.isnan(t_rows[0]) and t_cols[0] == 2.0


def test_the_bit_comparison_tells_summation_orders_apart():
    """Power: data with cancellation separate the sequential sums from numpy's einsum and pairwise sums."""
    X = np.array([[[1e16, 1.0, -1e16, 1.0] * 4]])
    Y = np.zeros((1, 1))
    W = np.ones((1, 16))
    T = squares_grads(X, Y, W, False, None)
    assert T[0, 0] == transcription(X, Y, W, False)[0][0, 0] == 1.0  # ((1e16 + 1) − 1e16) + 1 …
    assert np.einsum("mnd,md->mn", X, W)[0, 0] != T[0, 0] or np.add.reduce(X[0, 0]) != T[0, 0]


def test_a_client_served_its_neighbours_rows_is_seen():
    X, Y, W = data(5, 6, 4, seed=8)
    G = np.empty_like(W)
    squares_grads(np.roll(X, 1, axis=0), Y, W, True, G)
    assert not np.array_equal(G, transcription(X, Y, W, True)[1])


def test_back_returns_the_intercept_sum_and_the_rows_weighted_by_residuals():
    X, Y, W = data(1, 7, 5, seed=2)
    t = np.empty(7)
    predict_rows(X[0], W[0, :5], W[0, 5], t)
    g = np.empty(5)
    s = back(X[0], Y[0], t, g)
    _, G = transcription(X, Y, W, True)
    assert s == G[0, 5] and np.array_equal(g, G[0, :5])


@pytest.mark.parametrize("name", ["lasso-paper", "lowrank-paper"])
def test_the_batched_strategy_uses_it_on_every_path(name):
    """Gradients, values, a client subset and minibatch rows: all the definition's bits."""
    kw = {"clients": 12, "samples": 5}
    kw.update({"d": 6, "nnz": 2} if name == "lasso-paper" else {})
    p = generate(name, seed=1, **kw)
    k = Kernel(p, "batched")
    assert k.dense_squares() is not None
    X, Y = p.stacked, np.stack(p.y)
    W = np.random.default_rng(0).standard_normal((p.M, p.dim))
    T0, G0 = transcription(X, Y, W, p.intercept)
    vals, G = k.values_and_grads(W)
    assert np.array_equal(G, G0)
    assert np.array_equal(vals, np.mean(p.phi.phi(T0, Y), axis=1))
    sub = k.subset(np.array([1, 4, 9]))
    assert np.array_equal(sub.grads(W[[1, 4, 9]]), transcription(X[[1, 4, 9]], Y[[1, 4, 9]], W[[1, 4, 9]],
                                                                  p.intercept)[1])
    rows = np.array([[0, 2]] * p.M)
    i = np.arange(p.M)[:, None]
    assert np.array_equal(k.grads_rows(W, rows), transcription(X[i, rows], Y[i, rows], W, p.intercept)[1])
    # and it is the gradient: the loop strategy (BLAS products) agrees to rounding
    assert np.allclose(G, Kernel(p, "loop").grads(W), rtol=1e-12, atol=1e-12)


def test_ridge_clients_get_the_ridge_term_after_the_kernel():
    p = generate("lasso-paper", clients=5, samples=4, d=3, nnz=1, seed=2)
    from dataclasses import replace

    q = replace(p, loss="ridge", ridge_lam=0.3)
    W = np.random.default_rng(1).standard_normal((q.M, q.dim))
    _, G0 = transcription(q.stacked, np.stack(q.y), W, q.intercept)
    G0[:, : q.d] += 0.3 * W[:, : q.d]
    assert np.array_equal(Kernel(q, "batched").grads(W), G0)


def test_other_losses_keep_the_einsums():
    p = generate("lasso-paper", clients=5, samples=4, d=3, nnz=1, seed=2)
    from dataclasses import replace

    logistic = replace(p, loss="logistic", y=[np.sign(y) + (y == 0) for y in p.y])
    assert Kernel(logistic, "batched").dense_squares() is None
    assert Kernel(p, "loop").dense_squares() is None


def test_shapes_that_do_not_match_are_refused_before_the_unchecked_loop():
    X, Y, W = data(3, 4, 5, seed=1)
    with pytest.raises(ValueError, match="the rule is X"):
        squares_grads(X, Y[:2], W, True, None)
    with pytest.raises(ValueError, match="the rule is X"):
        squares_grads(X, Y, W[:, :5], True, None)
    with pytest.raises(ValueError, match="the rule is X"):
        squares_grads(X, Y, W, True, np.empty((3, 5)))
