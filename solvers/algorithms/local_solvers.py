"""Client subproblems  min_x F_m(x) − ⟨a_m, x⟩ + (s/2)‖x − c_m‖² + ρ_ψ(x)  for every served client.

FedDR's and FedADMM's local prox (a = 0 or −z_i, s = 1/η), DANE's subproblem (eq. 10: s = μ,
c = w^t) and the Primal Method's (Alg. 5 line 8) are all of this form.  Two solvers:

* ``exact`` — when F_m is quadratic (loss ``quadratic``, ``squares``, ``matrix``, ``ridge``)
  and ψ is 0 or (λ/2)‖·‖² (then ρ_ψ = ψ, folded into the Hessian): one linear solve
  ``(H_m + λ_ψ P + sI) x = a_m + s c_m − ∇F_m(0)`` with H_m = ∇²F_m and P the projector on the
  model coordinates.  The factorisation is cached per problem: an eigendecomposition of H_m
  when dim is small or dim ≤ n_m, otherwise the Woodbury form through the n_m × n_m Gram
  matrix X_m X_mᵀ (so 64 × 128 × 1024 never forms a 1024 × 1024 matrix per client).
* ``gd`` — ``steps`` (proximal) gradient steps with the common step 1/(max_m L_m + s), warm
  started; inexact by design, its accuracy set by ``steps``.  ψ enters through its prox when
  the caller asks for it (one-shot averaging), otherwise it is left out (FedDR/FedADMM/DANE
  keep ψ outside the local problem).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from fcocheck.solvers.errors import InvalidHyperparameterError, InvalidProblemError
from fcocheck.solvers.kernels import Kernel
from fcocheck.solvers.problem import Problem
from fcocheck.solvers.regularizers import L2Squared, Zero
from fcocheck.solvers.smoothness import client_smoothness
from fcocheck.solvers.sparse import issparse

Array = np.ndarray
SOLVERS = ("auto", "exact", "gd")
QUADRATIC_LOSSES = ("quadratic", "squares", "matrix", "ridge")
#: dim up to which the Hessian of a sample loss is formed densely and eigendecomposed.
DENSE_DIM = 256
_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def psi_ridge(problem: Problem) -> float | None:
    """λ_ψ when ψ = (λ_ψ/2)‖·‖² on the model (0 when ψ = 0), None for any other ψ."""
    psi = problem.regularizer
    if isinstance(psi, Zero):
        return 0.0
    if isinstance(psi, L2Squared):
        return float(psi.lam)
    return None


def exact_available(problem: Problem, with_psi: bool) -> str | None:
    """None when the exact solver applies, else the reason it does not."""
    if problem.loss not in QUADRATIC_LOSSES:
        return f"loss {problem.loss!r} is not quadratic (exact solves need one of {QUADRATIC_LOSSES})"
    if with_psi and psi_ridge(problem) is None:
        return f"ψ = {problem.regularizer.name!r} has no linear-solve subproblem (only 0 or l2sq)"
    return None


def resolve_solver(problem: Problem, solver: str, with_psi: bool, who: str) -> str:
    """``auto`` → ``exact`` when available else ``gd``; ``exact`` refused with the reason."""
    if solver not in SOLVERS:
        raise InvalidHyperparameterError(
            f"{who}: local_solver = {solver!r}; the rule is one of {list(SOLVERS)}"
        )
    reason = exact_available(problem, with_psi)
    if solver == "exact" and reason:
        raise InvalidProblemError(f"{who}: local_solver = 'exact' on {problem.name}: {reason}; "
                                  "use local_solver = gd (or svrg where offered)")
    if solver == "auto":
        return "gd" if reason else "exact"
    return solver


def _entry(problem: Problem) -> dict[str, Any]:
    if problem not in _CACHE:
        _CACHE[problem] = {}
    return _CACHE[problem]


def _design(problem: Problem, m: int) -> Any:
    Xm = problem.X[m]
    if problem.intercept:
        ones = np.ones((Xm.shape[0], 1))
        if issparse(Xm):
            import scipy.sparse as sp

            return sp.hstack([Xm, ones], format="csr")
        return np.hstack([Xm, ones])
    return Xm


def _model_projector(problem: Problem) -> Array:
    P = np.ones(problem.dim)
    if problem.intercept:
        P[-1] = 0.0
    return P


def _eig(problem: Problem, lam_psi: float) -> list[tuple[Array, Array]]:
    """Per client (V, Λ) with H_m + λ_ψ P = V diag(Λ) Vᵀ (dense path), cached."""
    key = ("eig", lam_psi)
    cache = _entry(problem)
    if key not in cache:
        P = _model_projector(problem)
        if problem.loss == "quadratic":
            H = problem.Q + lam_psi * np.eye(problem.d)[None]
        else:
            H = []
            for m in range(problem.M):
                A = _design(problem, m)
                G = (A.T @ A) / A.shape[0]
                G = G.toarray() if issparse(G) else np.asarray(G)
                H.append(G + np.diag((problem.ridge_lam + lam_psi) * P))
            H = np.stack(H)
        lam, V = np.linalg.eigh(H)
        cache[key] = (V, lam)
    return cache[key]


def gram(problem: Problem, m: int) -> Array:
    """X_m X_mᵀ (dense n_m × n_m), cached."""
    cache = _entry(problem)
    key = ("gram", m)
    if key not in cache:
        Xm = problem.X[m]
        G = Xm @ Xm.T
        cache[key] = G.toarray() if issparse(G) else np.asarray(G)
    return cache[key]


def _woodbury(problem: Problem, m: int, shift: float, lam_psi: float, r: Array) -> Array:
    """(X_aᵀX_a/n + D)⁻¹ r with D = diag(s + λ on the model, s on the intercept)."""
    dm = shift + problem.ridge_lam + lam_psi
    n = problem.n[m]
    if dm <= 0 or (problem.intercept and shift <= 0):
        raise InvalidProblemError(
            f"{problem.name}: client {m}'s local problem is not strongly convex (n_m = {n} < dim = "
            f"{problem.dim}, shift {shift!r}, ridge {problem.ridge_lam + lam_psi!r}); the rule is a "
            "positive shift (FedDR/FedADMM η, DANE μ > 0) or a ridge term"
        )
    dinv = np.full(problem.dim, 1.0 / dm)
    if problem.intercept:
        dinv[-1] = 1.0 / shift
    K = n * np.eye(n) + gram(problem, m) / dm
    if problem.intercept:
        K = K + 1.0 / shift
    A = _design(problem, m)
    u = dinv * r
    import scipy.linalg as sla

    return u - dinv * np.asarray(A.T @ sla.solve(K, A @ u, assume_a="pos"))


def use_dense(problem: Problem) -> bool:
    """Whether the exact solver eigendecomposes ∇²F_m (small dim, or dim ≤ every n_m)."""
    return problem.loss == "quadratic" or problem.dim <= DENSE_DIM or problem.dim <= int(problem.n.min())


def exact_solve(problem: Problem, clients: Array, shift: float, lam_psi: float, rhs: Array) -> Array:
    """Solve (∇²F_m + λ_ψ P + s I) x_m = rhs_m for every client m in ``clients``.

    Raises:
        InvalidProblemError: the system is singular (not strongly convex).

    """
    if use_dense(problem):
        V, lam = _eig(problem, lam_psi)
        V, lam = V[clients], lam[clients] + shift
        floor = 1e-12 * max(1.0, float(np.abs(lam).max()))
        if np.any(lam <= floor):
            m = int(clients[np.flatnonzero(np.any(lam <= floor, axis=1))[0]])
            raise InvalidProblemError(
                f"{problem.name}: client {m}'s local problem is singular (smallest eigenvalue of "
                f"∇²F_m + shift = {float(lam.min())!r}); the rule is a strongly convex local problem: "
                "a positive shift (DANE μ > 0, FedDR/FedADMM η) or a ridge term"
            )
        coef = np.einsum("mde,md->me", V, rhs) / lam
        return np.einsum("mde,me->md", V, coef)
    return np.stack([_woodbury(problem, int(m), shift, lam_psi, rhs[i]) for i, m in enumerate(clients)])


def smoothness_each(problem: Problem, clients: Array) -> Array:
    """L_m of each of ``clients`` (cached per client)."""
    cache = _entry(problem)
    if "L" not in cache:
        cache["L"] = {}
    Ls = cache["L"]
    for m in clients:
        if int(m) not in Ls:
            Ls[int(m)] = client_smoothness(problem, int(m))
    return np.array([Ls[int(m)] for m in clients], dtype=float)


def prox_rows(problem: Problem, X: Array, steps: Array) -> Array:
    """prox_{t_m ψ} of each row x_m with its own step t_m (one call when they agree or ψ is separable)."""
    psi = problem.psi
    if np.all(steps == steps[0]):
        return psi.prox(X, float(steps[0]))
    if psi.separable:
        return psi.prox(X, steps[:, None])
    return np.stack([psi.prox(x, float(t)) for x, t in zip(X, steps, strict=True)])


def solve_local(problem: Problem, kern: Kernel, clients: Array, A: Array, shift: float, C: Array,
                X0: Array, solver: str, steps: int, with_psi: bool,
                grad_fn: Callable[[Array], Array] | None = None) -> tuple[Array, int]:
    """min_x F_m(x) − ⟨A_m, x⟩ + (s/2)‖x − C_m‖² (+ ψ(x) when ``with_psi``) per client.

    ``gd`` steps each client with its own 1/(L_m + s): a client's solve depends on its data only
    (a shared max_m L_m would let any client — even one of weight 0 — change every other's).

    Args:
        problem: the instance.
        kern: gradient kernel over exactly ``clients``.
        clients: client indices (rows of A, C, X0).
        A: linear terms a_m, ``(S, dim)``.
        shift: s ≥ 0.
        C: centres c_m, ``(S, dim)``.
        X0: warm starts for ``gd``.
        solver: ``exact`` or ``gd`` (resolved).
        steps: gradient steps of ``gd``.
        with_psi: include ψ (``exact``: ψ ∈ {0, l2sq} folded in; ``gd``: by its prox).
        grad_fn: the gradient oracle of ``gd`` (the run's stochastic oracle; default exact).

    Returns:
        (solutions ``(S, dim)``, oracle queries per client: ``steps`` for ``gd``, 0 for
        ``exact``, which reads the client's data directly rather than querying the oracle).

    """
    if solver == "exact":
        lam_psi = (psi_ridge(problem) or 0.0) if with_psi else 0.0
        grad0 = kern.grads(np.zeros_like(A))
        return exact_solve(problem, clients, shift, lam_psi, A + shift * C - grad0), 0
    grad_fn = kern.grads if grad_fn is None else grad_fn
    step = 1.0 / (smoothness_each(problem, clients) + shift)  # each client's own 1/(L_m + s)
    X = np.array(X0, dtype=float)
    for _ in range(steps):
        G = grad_fn(X) - A + shift * (X - C)
        X = X - step[:, None] * G
        if with_psi:
            X = prox_rows(problem, X, step)
    return X, steps
