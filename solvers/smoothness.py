"""Smoothness constants of F from the data, matrix-free so they scale to sparse data."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

import numpy as np

from fcocheck.solvers.problem import Problem
from fcocheck.solvers.sparse import issparse

if TYPE_CHECKING:  # scipy.sparse.linalg is imported where it is used (start-up time)
    from scipy.sparse.linalg import LinearOperator


def second_moment_operator(X, omega: np.ndarray, intercept: bool) -> LinearOperator:
    """V ↦ Σ_i ω_i a_i a_iᵀ v with a_i = (x_i, 1) (or x_i), as a symmetric LinearOperator."""
    from scipy.sparse.linalg import LinearOperator

    d = X.shape[1]
    D = d + int(intercept)

    def matvec(v: np.ndarray) -> np.ndarray:
        v = np.ravel(v)
        t = X @ v[:d] + (v[d] if intercept else 0.0)
        wt = omega * t
        out = np.empty(D)
        out[:d] = np.asarray(X.T @ wt).ravel()
        if intercept:
            out[d] = wt.sum()
        return out

    return LinearOperator((D, D), matvec=matvec, rmatvec=matvec, dtype=float)


def second_moment_dense(X: np.ndarray, omega: np.ndarray, intercept: bool) -> np.ndarray:
    """Σ_i ω_i a_i a_iᵀ as a dense matrix, one BLAS product (for dense X with few columns)."""
    A = np.hstack([X, np.ones((X.shape[0], 1))]) if intercept else X
    H = A.T @ (omega[:, None] * A)
    return 0.5 * (H + H.T)


def second_moment(X, omega: np.ndarray, intercept: bool) -> LinearOperator | np.ndarray:
    """The dense matrix when X is dense with at most 400 columns, else the matrix-free operator."""
    if not issparse(X) and X.shape[1] + int(intercept) <= 400:
        return second_moment_dense(X, omega, intercept)
    return second_moment_operator(X, omega, intercept)


#: a client with at most this many rows gets λ_max from its rows' n × n Gram matrix (exact, dense)
SMALL_GRAM_ROWS = 1500
START_SEED = 20240917  # Lanczos's start vector: fixed, so L is the same bits in every process


def top_second_moment(X, omega: np.ndarray, intercept: bool) -> float:
    """λ_max(Σ_i ω_i a_i a_iᵀ) = λ_max(D^{1/2} A Aᵀ D^{1/2}): the smaller of the two Gram matrices.

    AᵀDA (dim × dim) and D^{1/2}AAᵀD^{1/2} (n × n) share their non-zero eigenvalues, so a client
    with fewer rows than features (lasso-paper: 128 rows, 1,025 columns) needs one small dense
    ``eigvalsh`` instead of a Lanczos run on the dim × dim operator.
    """
    n, D = X.shape[0], X.shape[1] + int(intercept)
    if n > min(D, SMALL_GRAM_ROWS):
        return top_eigenvalue(second_moment(X, omega, intercept))
    A = X.toarray() if issparse(X) else np.asarray(X, dtype=float)
    if intercept:
        A = np.hstack([A, np.ones((n, 1))])
    S = np.sqrt(omega)[:, None] * A
    G = S @ S.T
    return float(np.linalg.eigvalsh(0.5 * (G + G.T))[-1])


def top_eigenvalue(op: LinearOperator | np.ndarray) -> float:
    """Largest eigenvalue of a symmetric PSD operator (dense eigvalsh when small).

    Lanczos starts from a fixed pseudo-random vector (``START_SEED``), not from ARPACK's own
    generator, whose state moves with every call in the process: with it, L's last bits (and so
    every step size built on it) depended on which solves had run before in the same worker.
    """
    n = op.shape[0]
    if isinstance(op, np.ndarray):
        return float(np.linalg.eigvalsh(op)[-1])
    if n <= 400:
        dense = op @ np.eye(n)
        return float(np.linalg.eigvalsh(0.5 * (dense + dense.T))[-1])
    from scipy.sparse.linalg import eigsh

    return float(eigsh(op, k=1, which="LA", tol=1e-10, v0=lanczos_start(n, START_SEED),
                       return_eigenvectors=False)[0])


def lanczos_start(n: int, seed: Any) -> np.ndarray:
    """A Lanczos start vector of length n from ``seed`` (ARPACK's own is uniform on [−1, 1]ⁿ, unseeded)."""
    return np.random.default_rng(seed).uniform(-1.0, 1.0, n)


def client_smoothness(problem: Problem, m: int) -> float:
    """L_m = sup ‖∇²F_m‖₂ (curvature bound × top eigenvalue of the client's second moment)."""
    if problem.loss == "quadratic":
        return float(np.linalg.eigvalsh(problem.Q[m])[-1])
    Xm = problem.X[m]
    om = np.full(Xm.shape[0], 1.0 / Xm.shape[0])
    lam = top_second_moment(Xm, om, problem.intercept)
    return problem.phi.curvature * lam + problem.ridge_lam


def global_smoothness(problem: Problem) -> float:
    """L = sup ‖∇²F‖₂ bound: curvature·λ_max(Σ ω_i a_i a_iᵀ) + ridge λ (exact for quadratics).

    Computed once per problem object (a sweep worker reuses its problems across runs: lasso-paper's
    Lanczos run costs 0.4 s, a third of a 30-round tuning run).
    """
    if problem not in _GLOBAL_L:
        _GLOBAL_L[problem] = _global_smoothness(problem)
    return _GLOBAL_L[problem]


#: L per problem object; problems are immutable by convention, so L never goes stale
_GLOBAL_L: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _global_smoothness(problem: Problem) -> float:
    if problem.loss == "quadratic":
        H = np.einsum("m,mde->de", problem.weights, problem.Q)
        return float(np.linalg.eigvalsh(0.5 * (H + H.T))[-1])
    A, _, omega = problem.pooled
    lam = top_eigenvalue(second_moment(A, omega, problem.intercept))
    return problem.phi.curvature * lam + problem.ridge_lam


def sample_smoothness(problem: Problem) -> float:
    """max_i sup φ''·‖a_i‖² (+ ridge λ): the per-sample L of FCO Assumption 1(c)."""
    if problem.loss == "quadratic":
        return client_smoothness_max(problem)
    A, _, _ = problem.pooled
    sq = np.asarray(A.multiply(A).sum(axis=1)).ravel() if issparse(A) else _row_squares(A)
    return float(problem.phi.curvature * (sq.max() + int(problem.intercept)) + problem.ridge_lam)


def client_smoothnesses(problem: Problem) -> tuple[float, ...]:
    """(L_1, …, L_M), computed once per problem object.

    The constants read them twice: L_clients, and the bounds that spare ζ's Hessian spread most of
    its Lanczos runs (``constants._hessian_spread``).
    """
    if problem not in _CLIENT_L:
        _CLIENT_L[problem] = tuple(client_smoothness(problem, m) for m in range(problem.M))
    return _CLIENT_L[problem]


#: L_m per problem object, as ``_GLOBAL_L``
_CLIENT_L: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


#: bytes of A * A formed at a time by ``_row_squares``
ROW_BLOCK_BYTES = 2 * 2**20


def _row_squares(A: np.ndarray) -> np.ndarray:
    """``np.sum(A * A, 1)``, float64 data a block of rows at a time.

    The same bits (each row is reduced on its own) without a temporary the size of A (lasso-paper's:
    64 MB, most of its cost the first touch of its pages).
    """
    if A.dtype != np.float64:
        return np.sum(A * A, 1)
    rows = max(1, ROW_BLOCK_BYTES // (8 * max(A.shape[1], 1)))
    out = np.empty(A.shape[0])
    buf = np.empty((min(rows, A.shape[0]), A.shape[1]))
    for i in range(0, A.shape[0], rows):
        block = buf[: min(rows, A.shape[0] - i)]
        np.multiply(A[i: i + len(block)], A[i: i + len(block)], out=block)
        np.sum(block, axis=1, out=out[i: i + len(block)])
    return out


def client_smoothness_max(problem: Problem) -> float:
    """max_m L_m."""
    return max(client_smoothnesses(problem))
