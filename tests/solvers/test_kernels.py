"""Gradient kernels: both strategies against a per-sample reference, subsets, minibatches."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from fcocheck.solvers.generators import generate
from fcocheck.solvers.kernels import Kernel, choose_strategy
from fcocheck.solvers.oracles import parse_oracle

CASES = [
    ("lasso-paper", {"clients": 3, "samples": 7, "d": 5, "nnz": 2}),
    ("sparse-logistic", {"clients": 4, "samples": 6, "d": 5, "nnz": 2}),
    ("ridge", {"clients": 3, "samples": 30, "d": 4, "partition": "unbalanced"}),
    ("lowrank-paper", {"clients": 2, "samples": 5, "d1": 2, "d2": 3, "rank": 1}),
    ("robust-penalized", {"clients": 3, "samples": 6, "d": 4, "nnz": 2}),
    ("bag-of-words", {"clients": 4, "d": 30, "words": 5, "min_size": 3, "max_size": 8, "mean_size": 5.0}),
]


def per_sample_reference(p, W):
    """(1/n_m) Σ_i φ'(x_iᵀw + b; y_i)(x_i, 1) + ridge, one sample at a time."""
    out = np.zeros_like(W)
    for m in range(p.M):
        X = p.X[m].toarray() if sp.issparse(p.X[m]) else p.X[m]
        w, b = W[m, : p.d], (W[m, p.d] if p.intercept else 0.0)
        for i in range(X.shape[0]):
            g = float(p.phi.dphi(np.array([X[i] @ w + b]), np.array([p.y[m][i]]))[0]) / X.shape[0]
            out[m, : p.d] += g * X[i]
            if p.intercept:
                out[m, p.d] += g
        out[m, : p.d] += p.ridge_lam * w
    return out


@pytest.mark.parametrize(("name", "params"), CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("strategy", ["batched", "loop"])
def test_gradients_match_the_per_sample_sum(name, params, strategy):
    p = generate(name, **params)
    W = np.random.default_rng(1).standard_normal((p.M, p.dim))
    k = Kernel(p, strategy)
    ref = per_sample_reference(p, W)
    np.testing.assert_allclose(k.grads(W), ref, rtol=1e-12, atol=1e-12)
    vals, G = k.values_and_grads(W)
    np.testing.assert_allclose(G, ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(vals, k.values(W), rtol=1e-13)


@pytest.mark.parametrize(("name", "params"), CASES[:4], ids=[c[0] for c in CASES[:4]])
def test_strategies_agree_on_subsets_and_minibatches(name, params):
    p = generate(name, **params)
    rng = np.random.default_rng(2)
    clients = np.array([0, p.M - 1])
    W = rng.standard_normal((2, p.dim))
    rows = np.stack([rng.integers(0, p.n[m], 4) for m in clients])
    full = per_sample_reference(p, np.repeat(W[:1], p.M, axis=0))
    a, b = Kernel(p, "batched").subset(clients), Kernel(p, "loop").subset(clients)
    np.testing.assert_allclose(a.grads(W), b.grads(W), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(a.grads(W)[0], full[0], rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(a.grads_rows(W, rows), b.grads_rows(W, rows), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(a.values(W), b.values(W), rtol=1e-13)


def test_minibatch_of_all_rows_once_each_is_the_exact_gradient():
    p = generate("lasso-paper", clients=3, samples=6, d=4, nnz=2)
    W = np.random.default_rng(0).standard_normal((p.M, p.dim))
    rows = np.tile(np.arange(6), (3, 1))
    for strategy in ("batched", "loop"):
        np.testing.assert_allclose(Kernel(p, strategy).grads_rows(W, rows), p.client_grads(W), rtol=1e-12)


def test_quadratic_kernel_is_exact():
    p = generate("quadratics", clients=3, d=5)
    W = np.random.default_rng(0).standard_normal((3, 5))
    k = Kernel(p).subset(np.array([1, 2]))
    np.testing.assert_allclose(k.grads(W[1:]), np.einsum("mde,me->md", p.Q[1:], W[1:]) + p.c[1:])
    vals = 0.5 * np.einsum("md,mde,me->m", W[1:], p.Q[1:], W[1:]) + np.einsum("md,md->m", p.c[1:], W[1:])
    np.testing.assert_allclose(k.values(W[1:]), vals)


def test_strategy_choice_follows_the_block_size():
    assert choose_strategy(generate("lasso-paper")) == "loop"  # 128 × 1024 floats = 1 MiB per client
    assert choose_strategy(generate("lasso-paper", clients=50, samples=20, d=100, nnz=10)) == "batched"
    assert choose_strategy(generate("ridge", partition="unbalanced")) == "loop"  # unequal n_m
    assert choose_strategy(generate("quadratics")) == "batched"


def test_oracles_act_on_the_served_clients_only():
    p = generate("lasso-paper", clients=4, samples=8, d=5, nnz=2)
    k = p.kernel.subset(np.array([1, 3]))
    W = np.zeros((2, p.dim))
    for spec in ("exact", "gaussian:1.0", "minibatch:3"):
        G = parse_oracle(spec).grads(k, W, np.random.default_rng(0))
        assert G.shape == (2, p.dim) and np.all(np.isfinite(G))
    full = p.client_grads(np.zeros((4, p.dim)))
    np.testing.assert_allclose(parse_oracle("exact").grads(k, W, None), full[[1, 3]])


def test_blocked_batched_kernel_is_bitwise_the_unblocked_one(monkeypatch):
    """Blocks run on threads; every client's numbers must not depend on the block size."""
    import fcocheck.solvers.kernels as kernels

    p = generate("lasso-paper", clients=9, samples=5, d=6, nnz=2)
    W = np.random.default_rng(3).standard_normal((p.M, p.dim))
    k = Kernel(p, "batched")
    whole, whole_values = k.values_and_grads(W), k.values(W)
    monkeypatch.setattr(kernels, "BLOCK", 2)
    blocked = k.values_and_grads(W)
    np.testing.assert_array_equal(whole[0], blocked[0])
    np.testing.assert_array_equal(whole[1], blocked[1])
    np.testing.assert_array_equal(whole_values, k.values(W))


@pytest.mark.parametrize(("name", "params"), CASES, ids=[c[0] for c in CASES])
def test_two_point_metrics_match_separate_evaluations(name, params):
    p = generate(name, **params)
    rng = np.random.default_rng(4)
    w, v = rng.standard_normal(p.dim), rng.standard_normal(p.dim)
    for strategy in ("batched", "loop"):
        vals, G, vals_v = Kernel(p, strategy).at_two_points(w, v)
        np.testing.assert_allclose(vals, p.client_values(p.broadcast(w)), rtol=1e-12)
        np.testing.assert_allclose(vals_v, p.client_values(p.broadcast(v)), rtol=1e-12)
        ref = per_sample_reference(p, np.array(p.broadcast(w)))
        np.testing.assert_allclose(G, ref, rtol=1e-11, atol=1e-12)


@pytest.mark.parametrize("name,params", CASES + [("quadratics", {})])
@pytest.mark.parametrize("strategy", ["loop", "batched"])
def test_grads_at_points_are_the_same_bits_as_grads_at_each_point(name, params, strategy, monkeypatch):
    monkeypatch.setattr("fcocheck.solvers.kernels.GRADS_AT_BYTES", 0)  # client by client at any size
    p = generate(name, **params)
    kernel = Kernel(p, strategy=strategy, compiled=False)
    points = np.random.default_rng(4).standard_normal((7, p.dim))
    budget = 8 * p.M * p.dim * 3  # chunks of 3 points: 3 + 3 + 1
    got = list(kernel.grads_at(points, budget=budget))
    assert len(got) == len(points)
    for w, G in zip(points, got, strict=True):
        ref = kernel.grads(p.broadcast(w))
        np.testing.assert_array_equal(G, ref)
        assert G.strides == ref.strides  # the same layout: products with G take the same BLAS path
        np.testing.assert_array_equal(p.weights @ G, p.weights @ ref)
