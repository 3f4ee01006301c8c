"""Exact optima of the verify instances, with a KKT certificate, and the algorithm state at w*.

Instances are least squares with ψ ∈ {0, (λ/2)‖·‖², λ‖·‖₁}:
F(w) = ½wᵀHw − bᵀw + const with H = Σ_m p_m X_mᵀX_m/n_m, b = Σ_m p_m X_mᵀy_m/n_m.
ψ ∈ {0, ℓ2²}: w* solves (H + λI)w = b.  ℓ1: FISTA finds the sign pattern, then the optimality
system on the support, H_SS w_S = b_S − λ sign(w_S), is solved exactly and the KKT conditions
|(Hw* − b)_j| ≤ λ off the support are verified.  The certificate is the proximal-gradient
residual ‖G_η(w*)‖ = ‖w* − prox_{ηψ}(w* − η∇F(w*))‖/η with η = 1/L.

``state_at_optimum`` gives each algorithm the state that is consistent with w* (exact
gradients, g_i* = ∇F_i(w*), g* = ∇F(w*) = Σ_i p_i g_i* ∈ −∂ψ(w*)), derived from each method's
update so that an algorithm *with* the fixed-point property stays put:

* FedCanon (I and II): c_i = g* − g_i*  (Σ_i p_i c_i = 0; every client then steps along −g*);
* SCAFFOLD: c_i = g_i*, c = g*;  Scaffnew (plain and composite), ProxSkip: h_i = g_i*;
* ZA1: previous mean gradients g_i*, correction g* (so c_i = g* − g_i*);
* FedDR: x_i = w*, y_i = w* + ηg_i*, x̂_i = w* − ηg_i*, x̃ = w* − ηg*; FedADMM: z_i = −g_i*;
* everything else: ``init`` at w0 = w* (dual averaging: z₀ = ∇h(w*); the seed-004 primal and
  dual methods: α⁰ = −φ'(Xw*), the dual optimum, and its perturbations).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from fcocheck.solvers.algorithms.base import Algorithm
from fcocheck.solvers.problem import Problem
from fcocheck.verify.cases import InstanceSpec, build

Array = np.ndarray
#: Smallest eigenvalue of H + λI relative to the largest below which an instance is degenerate.
CONDITION_FLOOR = 1e-6


class DegenerateInstanceError(ValueError):
    """The drawn instance has no unique, well-conditioned minimiser (strategies filter these)."""


@dataclass(frozen=True)
class Optimum:
    """w*, Φ*, the KKT certificate ‖G_η(w*)‖, L, μ, and L_max = max(L, max_m L_m).

    Local-step methods need their step below 1/L_m on every client, so the hyper-parameter
    strategies scale steps by 1/L_max.
    """

    w: Array
    objective: float
    certificate: float
    L: float
    mu: float
    L_max: float


def quadratic_form(problem: Problem) -> tuple[Array, Array]:
    """(H, b) of F(w) = ½wᵀHw − bᵀw + const for the least-squares instances."""
    H = sum(p * Xm.T @ Xm / Xm.shape[0] for p, Xm in zip(problem.weights, problem.X, strict=True))
    b = sum(
        p * Xm.T @ ym / Xm.shape[0] for p, Xm, ym in zip(problem.weights, problem.X, problem.y, strict=True)
    )
    return np.asarray(H, dtype=float), np.asarray(b, dtype=float)


def prox_grad_residual(problem: Problem, w: Array, eta: float) -> float:
    """‖G_η(w)‖ = ‖w − prox_{ηψ}(w − η∇F(w))‖/η."""
    return float(np.linalg.norm(w - problem.psi.prox(w - eta * problem.grad_F(w), eta)) / eta)


def _lasso(H: Array, b: Array, lam: float, L: float) -> Array:
    """FISTA for the support, then the exact solve on it (KKT verified by the caller).

    Every ``_LASSO_CHECK`` iterations the exact solve on the current support and signs is tried:
    once it satisfies the LASSO's KKT conditions (signs kept on the support, |∇_i| ≤ λ off it) it
    is the unique minimiser (H ≻ 0 here), the same point — and the same bits, the solve depending
    only on the support and the signs — as after all 3,000 iterations, which remain the cap.
    """
    w = y = np.zeros_like(b)
    t = 1.0
    for it in range(1, 3001):
        v = y - (H @ y - b) / L
        w_next = np.sign(v) * np.maximum(np.abs(v) - lam / L, 0.0)
        t_next = 0.5 * (1 + np.sqrt(1 + 4 * t * t))
        y, w, t = w_next + (t - 1) / t_next * (w_next - w), w_next, t_next
        if it % _LASSO_CHECK == 0:
            exact, S = _lasso_exact(H, b, lam, w)
            if _lasso_kkt(H, b, lam, w, exact, S):
                return exact
    return _lasso_exact(H, b, lam, w)[0]


#: FISTA iterations between two tries of the exact solve in ``_lasso``
_LASSO_CHECK = 100


def _lasso_exact(H: Array, b: Array, lam: float, w: Array) -> tuple[Array, Array]:
    """The minimiser of ½wᵀHw − bᵀw + λ‖w‖₁ restricted to w's support S with w's signs, and S."""
    S = np.abs(w) > 1e-9 * max(1.0, float(np.abs(w).max()))
    exact = np.zeros_like(b)
    if S.any():
        exact[S] = np.linalg.solve(H[np.ix_(S, S)], b[S] - lam * np.sign(w[S]))
    return exact, S


def _lasso_kkt(H: Array, b: Array, lam: float, w: Array, exact: Array, S: Array) -> bool:
    """Whether ``exact`` (``_lasso_exact(w)``) is optimal: w's signs kept on S, |∇_i| ≤ λ off it."""
    g = H @ exact - b
    return bool(np.all(np.sign(exact[S]) == np.sign(w[S])) and np.all(np.abs(g[~S]) <= lam * (1 - 1e-9)))


def _check_clients(problem: Problem, ridge: float) -> None:
    """Each client's Hessian is singular or conditioned ≤ 1/CONDITION_FLOOR, never in between.

    A client Hessian with a tiny non-zero eigenvalue makes exact local solves (DANE, FedDR,
    one-shot) amplify rounding by its condition number, which would read as a drift of the
    algorithm; such draws are filtered, rank-deficient clients (genuine heterogeneity) are kept.
    """
    for m, Xm in enumerate(problem.X):
        eig = np.linalg.eigvalsh(Xm.T @ Xm / Xm.shape[0] + ridge * np.eye(Xm.shape[1]))
        top = max(eig[-1], 1e-300)
        small = eig[(eig > 1e-12 * top) & (eig < CONDITION_FLOOR * top)]
        if small.size:
            raise DegenerateInstanceError(f"client {m}: eigenvalue ratio {small[0] / top:.1e}")


@lru_cache(maxsize=4096)
def optimum(spec: InstanceSpec) -> Optimum:
    """The certified optimum of ``build(spec)``.

    Raises:
        DegenerateInstanceError: λ_min(H + λI) < CONDITION_FLOOR·λ_max (no unique minimiser
            to certify to 1e-10).

    """
    p = build(spec)
    H, b = quadratic_form(p)
    ridge = spec.lam if spec.psi == "l2sq" else 0.0
    eig = np.linalg.eigvalsh(H + ridge * np.eye(len(b)))
    if eig[0] < CONDITION_FLOOR * max(eig[-1], 1e-300):
        raise DegenerateInstanceError(f"{spec.size()}: λ_min/λ_max = {eig[0] / eig[-1]:.1e}")
    _check_clients(p, ridge)
    L = float(np.linalg.eigvalsh(H)[-1])
    if spec.psi == "l1":
        w = _lasso(H, b, spec.lam, L)
    else:
        w = np.linalg.solve(H + ridge * np.eye(len(b)), b)
    cert = prox_grad_residual(p, w, 1.0 / L)
    L_max = max([L] + [float(np.linalg.eigvalsh(Xm.T @ Xm / Xm.shape[0])[-1]) for Xm in p.X])
    return Optimum(w, p.Phi(w), cert, L, float(eig[0]), L_max)


def _client_grads(problem: Problem, w: Array) -> tuple[Array, Array]:
    G = problem.client_grads(problem.broadcast(w))
    return G, problem.weights @ G


def state_at_optimum(alg: Algorithm, problem: Problem, hp: Any, w: Array) -> Any:
    """The algorithm's state consistent with the optimum w* (see the module docstring)."""
    hook = getattr(alg, "at_optimum", None)
    if hook is not None:
        return hook(problem, hp, w)
    card = getattr(alg, "card", None)
    if card is not None:  # a card knows its memory's fixed point
        return card.at_optimum(problem, hp, w)
    state = alg.init(problem, hp, w, np.random.default_rng(0))
    Gi, g = _client_grads(problem, w)
    name = alg.name
    if name in ("fedcanon", "fedcanon2"):
        return state._replace(c=g[None, :] - Gi)
    if name in ("scaffnew", "scaffnew-composite"):
        return state._replace(X=np.repeat(w[None, :], problem.M, axis=0), H=Gi.copy())
    if name == "proxskip":
        return state._replace(X=w[None, :].copy(), H=g[None, :].copy())
    if name == "za1":
        return state._replace(corr=g.copy(), mean_grads=Gi.copy())
    if name in ("feddr", "fedadmm"):
        eta = hp.eta
        X = np.repeat(w[None, :], problem.M, axis=0)
        duals = X + eta * Gi if name == "feddr" else -Gi
        return state._replace(w=w.copy(), duals=duals, X=X, Xhat=X - eta * Gi, xtilde=w - eta * g)
    return state
