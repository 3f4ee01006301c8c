"""Metamorphic tests where the papers give reductions (FCO §3.1)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from fcocheck.solvers.engine import run
from fcocheck.solvers.generators import generate
from fcocheck.solvers.regularizers import L1, Zero

RTOL, ATOL = 1e-12, 1e-13


def same_iterates(a, b, rtol=RTOL, atol=ATOL):
    np.testing.assert_allclose(a["server_w"], b["server_w"], rtol=rtol, atol=atol)


@pytest.fixture(scope="module")
def smooth():
    """A small LASSO instance with ψ replaced by 0."""
    p = generate("lasso-paper", clients=4, samples=10, d=8, nnz=3)
    return dataclasses.replace(p, regularizer=Zero())


@pytest.mark.parametrize("oracle", ["exact", "gaussian:0.3", "minibatch:3"])
@pytest.mark.parametrize("other", ["fedmid", "feddualavg", "fedmid-osp", "feddualavg-osp"])
def test_psi_zero_euclidean_reduces_to_fedavg(smooth, other, oracle):
    hp = {"eta_c": 0.05, "eta_s": 0.7, "local_steps": 3}
    a = run("fedavg", smooth, hp, rounds=6, oracle=oracle, seed=4, reference=False)
    b = run(other, smooth, hp, rounds=6, oracle=oracle, seed=4, reference=False)
    same_iterates(a, b)


def parallel_projected_sgd(problem, eta, K, R):
    """FCO §3.1 (a)–(b), written out client by client: K projected steps, then a plain average."""
    project = problem.psi.prox
    w = problem.zero()
    out = [w]
    for _ in range(R):
        ends = []
        for m in range(problem.M):
            wm = w.copy()
            for _ in range(K):
                W = np.zeros((problem.M, problem.dim))
                W[m] = wm
                wm = project(wm - eta * problem.client_grads(W)[m], eta)
            ends.append(wm)
        w = np.mean(ends, axis=0)
        out.append(w)
    return np.array(out)


@pytest.mark.parametrize("name", ["constrained-logistic", "simplex-ls"])
def test_fedmid_with_a_constraint_is_parallel_projected_sgd(name):
    params = {"clients": 3, "samples": 12, "d": 5}
    p = generate(name, **params)
    t = run("fedmid", p, {"eta_c": 0.3, "eta_s": 1.0, "local_steps": 4}, rounds=5, reference=False)
    np.testing.assert_allclose(t["server_w"], parallel_projected_sgd(p, 0.3, 4, 5), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("oracle", ["exact", "gaussian:0.5", "minibatch:2"])
def test_one_local_step_is_the_sequential_minibatch_method(oracle):
    """K = 1, η_s = 1, full participation: FedDualAvg = dual averaging (2.4), FedMiD-OSP = PGM (2.1),
    FedAvg = SGD (ψ = 0) — each with the minibatch of one query per client."""
    p = generate("lasso-paper", clients=3, samples=10, d=8, nnz=3)
    kw = {"rounds": 8, "oracle": oracle, "seed": 11, "reference": False}
    same_iterates(run("feddualavg", p, {"eta_c": 0.1}, **kw), run("dual-averaging", p, {"eta": 0.1}, **kw))
    same_iterates(run("fedmid-osp", p, {"eta_c": 0.1}, **kw), run("pgm", p, {"eta": 0.1}, **kw))
    p0 = dataclasses.replace(p, regularizer=Zero())
    same_iterates(run("fedavg", p0, {"eta_c": 0.1}, **kw), run("pgm", p0, {"eta": 0.1}, **kw))


def test_one_client_one_step_fedmid_is_pgm_with_twice_the_l1_weight():
    """The double prox of Alg. 2 (lines 8 and 10) with M = K = 1, η_s = 1: S_{ηλ}∘S_{ηλ} = S_{2ηλ}."""
    p = generate("lasso-paper", clients=1, samples=30, d=8, nnz=3)
    p2 = dataclasses.replace(p, regularizer=L1(2 * p.regularizer.lam))
    kw = {"rounds": 8, "oracle": "minibatch:4", "seed": 2, "reference": False}
    same_iterates(run("fedmid", p, {"eta_c": 0.1}, **kw), run("pgm", p2, {"eta": 0.1}, **kw))


def _permuted(p, perm):
    return dataclasses.replace(p, X=tuple(p.X[i] for i in perm), y=tuple(p.y[i] for i in perm),
                               weights=p.weights[perm])


@pytest.mark.parametrize("name", ["fedavg", "fedavg-subgrad", "fedmid", "fedmid-osp", "feddualavg",
                                  "feddualavg-osp", "pgm", "dual-averaging", "centralized"])
def test_client_order_does_not_change_results(name):
    p = generate("lasso-paper", clients=5, samples=9, d=7, nnz=3)
    q = _permuted(p, np.array([3, 0, 4, 2, 1]))
    hp = {"eta_c": 0.05, "local_steps": 3} if name.startswith("fed") else {"eta": 0.05, "local_steps": 3}
    same_iterates(run(name, p, hp, rounds=5, reference=False), run(name, q, hp, rounds=5, reference=False))


def test_full_participation_by_sampling_equals_no_sampling():
    p = generate("lasso-paper", clients=4, samples=9, d=7, nnz=3)
    kw = {"rounds": 4, "oracle": "gaussian:1.0", "seed": 5, "reference": False}
    a = run("feddualavg", p, {"eta_c": 0.05, "local_steps": 2}, participation=4, **kw)
    b = run("feddualavg", p, {"eta_c": 0.05, "local_steps": 2}, **kw)
    np.testing.assert_array_equal(a["server_w"], b["server_w"])


@pytest.mark.parametrize("strategy", ["batched", "loop"])
def test_gradient_strategy_changes_nothing_beyond_rounding(strategy):
    p = generate("lasso-paper", clients=4, samples=9, d=7, nnz=3)
    kw = {"rounds": 5, "oracle": "minibatch:3", "seed": 1, "reference": False}
    a = run("feddualavg", p, {"eta_c": 0.05, "local_steps": 3}, gradient=strategy, **kw)
    b = run("feddualavg", p, {"eta_c": 0.05, "local_steps": 3}, gradient="auto", **kw)
    same_iterates(a, b)
