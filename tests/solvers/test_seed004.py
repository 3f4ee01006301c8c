"""Seed 004's algorithms: the identities it proves and the reductions between its methods."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from fcocheck.solvers.algorithms.samples import (
    Pass,
    frequency_scaling,
    full_gradient,
    sample_view,
    sequences,
    svrg_pass,
)
from fcocheck.solvers.engine import run
from fcocheck.solvers.errors import InvalidOracleError, InvalidProblemError
from fcocheck.solvers.generators import generate
from fcocheck.solvers.problem import Problem, uniform_weights
from fcocheck.solvers.reference import reference_solve
from fcocheck.solvers.regularizers import L2Squared


def _close(a, b, tol=1e-10):
    scale = max(1.0, float(np.abs(a).max()))
    np.testing.assert_allclose(a, b, rtol=0, atol=tol * scale)


@pytest.fixture(scope="module")
def ridge():
    return generate("ridge", clients=4, samples=120, d=8, lam=0.1, partition="sorted")


@pytest.fixture(scope="module")
def bow():
    return generate("bag-of-words", clients=6, d=60, words=5, mean_size=25, min_size=5, max_size=80, lam=0.01)


def test_primal_method_keeps_the_perturbations_summing_to_zero(ridge, bow):
    """Lemma 4: Σ_k g_k^t = 0 for all t — exact local solves (ridge) and inexact ones (logistic)."""
    t = run("primal-method", ridge, {"sigma": 2.0}, rounds=15, seed=0, reference=False)
    assert np.max(t["g_sum"]) < 1e-12
    t = run("primal-method", bow, {"local_steps": 5}, rounds=8, seed=0, reference=False)
    assert np.max(t["g_sum"]) < 1e-12


@pytest.mark.parametrize("sigma", [0.0, 2.0, 1.0])
def test_primal_method_is_the_image_of_the_dual_method(ridge, sigma):
    """Theorem 5: for ridge regression w^t(Alg. 5) = (1/(λn)) X α^t (Alg. 6), every t (σ = K, 2, 1)."""
    a = run("primal-method", ridge, {"sigma": sigma}, rounds=10, seed=0, reference=False)
    b = run("dual-method", ridge, {"sigma": sigma}, rounds=10, seed=0, reference=False)
    _close(a["server_w"], b["server_w"], 1e-9)


def test_dual_method_ascends_and_converges_linearly(ridge):
    """Alg. 6 is block proximal ascent on a strongly concave D: D(α^t) never decreases, the
    duality gap Φ(w(α^t)) − D(α^t) closes, and the primal gap contracts geometrically."""
    ref = reference_solve(ridge)
    scale = abs(ref.objective)
    for name, hp in (("dual-method", {}), ("cocoa+", {"local_steps": 3})):
        t = run(name, ridge, hp, rounds=200, seed=0, reference=ref)
        D = t["dual_objective"]
        assert np.all(np.diff(D) >= -1e-12 * scale), name
        assert D[-1] <= ref.objective * (1 + 1e-12)  # weak duality
        assert t["objective"][-1] - D[-1] < 1e-10 * scale, name  # strong duality at the limit
        assert t["gap"][100] < 1e-2 * t["gap"][50], name  # linear rate


def _identical_clients(M: int = 4) -> Problem:
    base = generate("ridge", clients=1, samples=40, d=6, lam=0.05)
    return Problem(name="identical", loss="ridge", X=base.X * M, y=base.y * M, regularizer=base.regularizer,
                   mirror=base.mirror, weights=uniform_weights(M), ridge_lam=base.ridge_lam)


def test_dane_converges_in_one_round_on_identical_client_data():
    """Property (D) (FO16 §3.4): ∇F_k(w^t) − ∇f(w^t) = 0, so each node minimises f itself."""
    p = _identical_clients()
    ref = reference_solve(p)
    t = run("dane", p, {"eta": 1.0, "mu": 0.0}, rounds=1, seed=0, reference=ref)
    assert t["gap"][1] <= 1e-12 * max(1.0, abs(ref.objective))
    assert t["gap"][0] > 1e-2


def test_dane_is_not_one_round_on_heterogeneous_data(ridge):
    ref = reference_solve(ridge)
    t = run("dane", ridge, {}, rounds=1, seed=0, reference=ref)
    assert t["gap"][1] > 1e-8


@pytest.mark.parametrize("which", ["ridge", "bow"])
def test_dane_with_one_svrg_epoch_is_naive_fsvrg(ridge, bow, which):
    """Proposition 1: DANE (η = 1, μ = 0, one SVRG epoch from w^t) = Alg. 3 given the same samples.

    DANE's epoch is written from eq. (10) one sample at a time; naive FSVRG runs the lockstep
    pass (the lazy path on the sparse, l2sq instance) — two independent implementations.
    """
    p = ridge if which == "ridge" else bow
    h, m = (0.02, 30) if which == "ridge" else (0.5, 20)
    a = run("dane", p, {"eta": 1.0, "mu": 0.0, "local_solver": "svrg", "h": h, "m": m}, rounds=5, seed=3,
            reference=False)
    b = run("naive-fsvrg", p, {"h": h, "m": m}, rounds=5, seed=3, reference=False)
    _close(a["server_w"], b["server_w"], 1e-11)


@pytest.mark.parametrize("kind", ["ridge", "sparse"])
def test_fsvrg_on_one_client_is_svrg_over_a_permutation(kind):
    """Alg. 4 with K = 1: S = A = I, h_1 = h/n — SVRG with step h/n and m = n over a permutation."""
    if kind == "ridge":
        p = generate("ridge", clients=1, samples=50, d=5, lam=0.1)
    else:
        p = generate("bag-of-words", clients=1, d=30, words=4, mean_size=40, min_size=40, max_size=40)
    n, h = int(p.n[0]), 0.8
    a = run("fsvrg", p, {"h": h}, rounds=6, seed=4, reference=False)
    b = run("svrg", p, {"h": h / n, "m": n, "sampling": "permutation"}, rounds=6, seed=4, reference=False)
    _close(a["server_w"], b["server_w"], 1e-11)


def test_lazy_and_dense_svrg_passes_agree(bow):
    """The lazy representation w_k = s_k u_k + β_k ∇F(w^t) reproduces the dense steps (with S_k)."""
    view = sample_view(bow, "test")
    rng = np.random.default_rng(0)
    w = rng.standard_normal(bow.dim) * 0.3
    g, d0 = full_gradient(bow, view, w)
    s_entry, _ = frequency_scaling(bow, view)
    rows, client, step = sequences(rng, view, np.arange(bow.M), bow.n, permutation=True)
    spec = Pass(rows, client, step, 0.7 / bow.n, np.ones(view.n), s_entry, bow.weights)
    d_lazy, W_lazy = svrg_pass(bow, view, w, g, d0, spec, lazy=True, keep_points=True)
    d_dense, W_dense = svrg_pass(bow, view, w, g, d0, spec, lazy=False)
    _close(d_lazy, d_dense, 1e-12)
    _close(W_lazy, W_dense, 1e-12)


def test_full_gradient_matches_the_kernel(bow):
    view = sample_view(bow, "test")
    w = np.linspace(-1, 1, bow.dim)
    g, _ = full_gradient(bow, view, w)
    _close(g, bow.grad_F(w), 1e-13)


def test_fsvrg_scalings_follow_their_definitions():
    """S_k = φ^j/φ^j_k on client k's entries; A = K/ω_j (FO16 §3.6.1), checked by counting."""
    X0 = sp.csr_matrix(np.array([[1.0, 0, 2], [0, 0, 1]]))
    X1 = sp.csr_matrix(np.array([[0, 3.0, 1], [1, 0, 0], [0, 0, 4]]))
    p = Problem(name="tiny", loss="logistic", X=(X0, X1), y=(np.ones(2), -np.ones(3)),
                regularizer=L2Squared(0.1), mirror=generate("ridge", clients=1, samples=3, d=3).mirror,
                weights=np.array([0.4, 0.6]), weighting="samples")
    view = sample_view(p, "test")
    s_entry, a = frequency_scaling(p, view)
    # feature 0: n^0 = 2 of n = 5; client 0 has 1 of 2, client 1 has 1 of 3
    # feature 1: only client 1 (1 of 3); feature 2: client 0 2 of 2, client 1 2 of 3
    expected_rows = [{0: (2 / 5) / (1 / 2), 2: (4 / 5) / (2 / 2)}, {2: (4 / 5) / 1.0},
                     {1: (1 / 5) / (1 / 3), 2: (4 / 5) / (2 / 3)}, {0: (2 / 5) / (1 / 3)},
                     {2: (4 / 5) / (2 / 3)}]
    A = view.A
    for i, row in enumerate(expected_rows):
        cols = A.indices[A.indptr[i]:A.indptr[i + 1]]
        got = dict(zip(cols.tolist(), s_entry[A.indptr[i]:A.indptr[i + 1]].tolist(), strict=True))
        assert got == pytest.approx(row)
    np.testing.assert_allclose(a, [2 / 2, 2 / 1, 2 / 2])


def test_svrg_contracts_linearly(ridge):
    """Rate (5): one epoch with m = 2n, h small contracts the gap by a constant factor c < 1."""
    ref = reference_solve(ridge)
    t = run("svrg", ridge, {"h": 0.02, "m": 2 * int(ridge.n.sum())}, rounds=12, seed=0, reference=ref)
    gaps = t["gap"]
    ratios = gaps[1:8] / gaps[:7]
    assert np.all(ratios < 0.6), ratios


def test_one_shot_averages_the_local_minimisers(ridge):
    t = run("one-shot", ridge, {}, rounds=3, seed=0, reference=False)
    locals_ = []
    for k in range(ridge.M):
        Xk, yk, nk = ridge.X[k], ridge.y[k], ridge.n[k]
        H = Xk.T @ Xk / nk + ridge.ridge_lam * np.eye(ridge.d)
        locals_.append(np.linalg.solve(H, Xk.T @ yk / nk))
    _close(t["server_w"][1], ridge.weights @ np.array(locals_), 1e-12)
    np.testing.assert_array_equal(t["server_w"][1], t["server_w"][3])  # one shot: no later change
    assert t["floats_up"][3] == t["floats_up"][1]


def test_seed004_methods_refuse_what_they_cannot_run():
    quad = generate("quadratics", clients=3, d=4)
    logit = generate("sparse-logistic", clients=3, samples=20, d=10)
    lasso = generate("lasso-paper", clients=3, samples=10, d=12, nnz=3)
    with pytest.raises(InvalidProblemError, match="per-sample data"):
        run("svrg", quad, {"h": 0.1}, rounds=1, reference=False)
    with pytest.raises(InvalidProblemError, match="not quadratic"):
        run("dane", logit, {}, rounds=1, reference=False)  # no exact solver and none given
    with pytest.raises(InvalidProblemError, match="L2-regularised"):
        run("primal-method", lasso, {}, rounds=1, reference=False)
    with pytest.raises(InvalidOracleError, match="exact"):
        run("fsvrg", logit, {"h": 0.1}, rounds=1, oracle="minibatch:2", reference=False)


def test_dual_method_records_alpha_and_its_primal_image(ridge):
    """Eq. (14): the logged iterate is (1/λ) Σ_i ω_i α_i x_i of the logged α (record="step")."""
    t = run("dual-method", ridge, {}, rounds=4, seed=0, reference=False, record="step")
    A = np.vstack(ridge.X)
    omega = np.repeat(ridge.weights / ridge.n, ridge.n)
    for r in range(4):
        _close(t["server_w"][r + 1], A.T @ (omega * t["dual_alpha"][r]) / ridge.ridge_lam, 1e-12)


@pytest.mark.parametrize("name, hp", [
    ("fedcanon", {"eta_l": 0.5, "local_steps": 3}), ("fedcanon2", {"eta_l": 0.5, "local_steps": 3}),
    ("scaffold", {"eta_l": 0.5, "local_steps": 3}), ("scaffnew-composite", {"gamma": 0.5, "p": 0.5}),
    ("za1", {"eta": 0.5, "local_steps": 3}), ("feddr", {"eta": 1.0, "local_solver": "gd"}),
    ("fedadmm", {"eta": 1.0, "local_solver": "gd"}), ("gd", {"h": 1.0}), ("sgd", {"h": 0.5, "m": 50}),
    ("svrg", {"h": 0.5, "m": 50}), ("dane", {"local_solver": "gd", "local_steps": 5}),
    ("naive-fsvrg", {"h": 0.5, "m": 10}), ("fsvrg", {"h": 1.0}),
    ("primal-method", {"local_steps": 5}), ("one-shot", {"local_steps": 20}),
])
def test_sparse_unequal_clients_run_and_descend(bow, name, hp):
    """CSR data with log-normal client sizes through every issue-4 entry that accepts logistic loss."""
    t = run(name, bow, hp, rounds=3, seed=0, reference=False, participation=3 if name == "fedcanon" else None)
    assert t.status == "completed"
    assert t["objective"][-1] < t["objective"][0]


@pytest.mark.parametrize("name,params", [("ridge", {"clients": 3, "samples": 30, "d": 5}),
                                         ("bag-of-words", {"clients": 4, "d": 30, "words": 5, "min_size": 3,
                                                           "max_size": 8, "mean_size": 5.0})])
def test_sample_view_rows_equal_scipys_row_slices(name, params):
    """The per-step row gather of the single-sample loops returns A[rows].toarray() exactly, for dense
    and sparse data, repeated rows and any order (and the loops' iterates are unchanged bit for bit)."""
    from fcocheck.solvers.algorithms.samples import sample_view

    p = generate(name, **params)
    view = sample_view(p, "test")
    rows = np.array([0, view.n - 1, 3, 3, 1])
    np.testing.assert_array_equal(view.rows(rows), view.A[rows].toarray())
    assert view.rows(np.array([], dtype=int)).shape == (0, p.dim)


def test_sample_view_row_and_the_vectorised_gather_agree_with_scipy():
    """Both access paths (one row; many rows, above FEW_ROWS) return scipy's rows exactly."""
    from fcocheck.solvers.algorithms.samples import FEW_ROWS, sample_view

    p = generate("bag-of-words", clients=6, d=40, words=5, min_size=3, max_size=8, mean_size=5.0)
    view = sample_view(p, "test")
    many = np.random.default_rng(0).integers(0, view.n, size=3 * FEW_ROWS)
    np.testing.assert_array_equal(view.rows(many), view.A[many].toarray())
    np.testing.assert_array_equal(view.row(int(many[0])), view.A[int(many[0])].toarray()[0])


def test_permutation_keys_permute_each_block_uniformly():
    """Each client's block is a permutation of itself, all 3! orders equally likely (chi-square at
    the 0.1 % level over 6,000 blocks); keys without their random part fail the same test."""
    from scipy.stats import chisquare

    from fcocheck.solvers.algorithms.samples import permutation_keys

    rng = np.random.default_rng(11)
    client = np.repeat(np.arange(6000), 3)

    def counts(keys: np.ndarray) -> np.ndarray:
        order = np.argsort(keys, kind="stable").reshape(-1, 3)
        assert np.array_equal(np.sort(order, axis=1), np.arange(client.size).reshape(-1, 3))
        codes = (order - order.min(axis=1, keepdims=True)) @ np.array([9, 3, 1])
        return np.bincount(np.unique(codes, return_inverse=True)[1], minlength=6)

    good = counts(permutation_keys(rng, client))
    assert (good > 0).all() and chisquare(good).pvalue > 1e-3
    biased = counts(client.astype(np.int64) << 40)  # no random bits: every block in draw order
    assert chisquare(biased).pvalue < 1e-3
