"""Seed 004 Appendix A: the Primal Method (Alg. 5), the Dual Method (Alg. 6) and CoCoA+.

Problem class: L2-regularised linear predictors f_i(w) = φ(x_iᵀw; y_i) + (λ/2)‖w‖² (eq. 11),
λ = ``ridge_lam`` + (the l2sq ψ's λ), no intercept.  With client weights p_k and per-row
weights ω_i = p_k/n_k the papers' (1/n, 1/K) become (ω, p): F = Σ_i ω_i φ_i + (λ/2)‖w‖²,
dual D(α) = −(1/(2λ))‖Σ_i ω_i α_i x_i‖² − Σ_i ω_i φ*(−α_i), primal image w(α) = (1/λ)Σ_i ω_i α_i x_i
(eq. 14); for equal sizes and uniform weights this is the paper's notation exactly.
The dual start is α_i^0 = −φ'(x_iᵀw_0; y_i), the dual point consistent with w_0 (so a run
started at w* starts at α*).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from fcocheck.solvers.algorithms.base import Counts, Env, RoundLog, hp_field, positive_int
from fcocheck.solvers.algorithms.local_solvers import gram, psi_ridge, resolve_solver, solve_local
from fcocheck.solvers.errors import InvalidHyperparameterError, InvalidProblemError
from fcocheck.solvers.problem import Problem

Array = np.ndarray


@dataclass(frozen=True)
class PerturbHyper:
    """σ ∈ [1, K] (0 = K, always safe) and the local solver / CoCoA+ passes."""

    sigma: float = hp_field(0.0, help="σ ∈ [1, K] with XᵀX ⪯ σB (0 selects σ = K, always valid)")
    local_solver: str = hp_field("auto", help="Primal Method: auto | exact (squares) | gd")
    local_steps: int = hp_field(50, help="gd steps (Primal Method) or coordinate passes (CoCoA+)")

    def check(self) -> None:
        """σ = 0 or σ ≥ 1; a known solver; steps ≥ 1."""
        if not (np.isfinite(self.sigma) and (self.sigma == 0 or self.sigma >= 1)):
            raise InvalidHyperparameterError(
                f"sigma = {self.sigma!r} is invalid; the rule is 1 <= sigma <= K (or 0 for K)"
            )
        if self.local_solver not in ("auto", "exact", "gd"):
            raise InvalidHyperparameterError(
                f"local_solver = {self.local_solver!r}; the rule is one of ['auto', 'exact', 'gd']"
            )
        positive_int("local_steps", self.local_steps)

    def sigma_for(self, M: int) -> float:
        """σ (the given value, or K = M)."""
        return float(self.sigma or M)

    def weights(self, rounds: int, growing: bool) -> list[float]:
        """No prox."""
        return []


def ridge_lambda(problem: Problem, who: str) -> float:
    """λ of eq. (11); refuses problems outside the class."""
    lam_psi = psi_ridge(problem)
    if lam_psi is None or problem.loss in ("quadratic",) or problem.intercept:
        raise InvalidProblemError(
            f"{who} needs an L2-regularised linear predictor (FO16 eq. 11): a GLM loss, ψ ∈ {{0, l2sq}}, "
            f"no intercept; problem {problem.name!r} has loss {problem.loss!r}, ψ = "
            f"{problem.regularizer.name!r}, intercept = {problem.intercept}"
        )
    lam = problem.ridge_lam + lam_psi
    if lam <= 0:
        raise InvalidProblemError(
            f"{who} needs λ > 0 (ridge lam or l2sq ψ); problem {problem.name!r} has λ = 0"
        )
    return lam


def check_primal(problem: Problem, hp: PerturbHyper) -> None:
    """Eq. (11) class, σ ≤ K, and an available local solver."""
    ridge_lambda(problem, "primal-method")
    _check_sigma(problem, hp)
    resolve_solver(problem, hp.local_solver, with_psi=True, who="primal-method")


def check_dual(problem: Problem, hp: PerturbHyper) -> None:
    """Eq. (11) class with the squared loss (closed-form step 5 and coordinate steps)."""
    ridge_lambda(problem, "dual-method")
    _check_sigma(problem, hp)
    if problem.loss not in ("squares", "ridge", "matrix"):
        raise InvalidProblemError(f"dual-method / cocoa+ solve (15) for the squared loss only; problem "
                                  f"{problem.name!r} has loss {problem.loss!r}")


def _check_sigma(problem: Problem, hp: PerturbHyper) -> None:
    if hp.sigma > problem.M:
        raise InvalidHyperparameterError(
            f"sigma = {hp.sigma!r} > K = {problem.M}; the rule is 1 <= sigma <= K"
        )


def _omega(problem: Problem) -> Array:
    """ω_k = p_k/n_k per client."""
    return problem.weights / problem.n


def _dual_start(problem: Problem, w0: Array) -> list[Array]:
    return [-problem.phi.dphi(problem.X[k] @ w0, problem.y[k]) for k in range(problem.M)]


def primal_image(problem: Problem, alphas: list[Array], lam: float) -> Array:
    """w(α) = (1/λ) Σ_k ω_k X_kᵀ α_k (eq. 14)."""
    om = _omega(problem)
    return sum(om[k] * np.asarray(problem.X[k].T @ alphas[k]) for k in range(problem.M)) / lam


class PrimalState(NamedTuple):
    """w^t and the perturbation vectors g_k (M, dim)."""

    w: Array
    g: Array
    r: int


def init_primal_method(problem: Problem, hp: PerturbHyper, w0: Array,
                       rng: np.random.Generator) -> PrimalState:
    """Alg. 5 lines 2–5: α^0 consistent with w_0, w^0 = w(α^0), g_k^0 = η((1/n_k)X_kᵀα_k − λw^0)."""
    lam = ridge_lambda(problem, "primal-method")
    alphas = _dual_start(problem, np.asarray(w0, dtype=float))
    w = primal_image(problem, alphas, lam)
    eta = problem.M / hp.sigma_for(problem.M)
    G = np.stack([eta * (np.asarray(problem.X[k].T @ alphas[k]) / problem.n[k] - lam * w)
                  for k in range(problem.M)])
    return PrimalState(w, G, 0)


def primal_method_round(state: PrimalState, hp: PerturbHyper, env: Env, rng: np.random.Generator,
                        clients: Array) -> tuple[PrimalState, RoundLog]:
    """One round of the Primal Method.

    Algorithm:
        Seed 004 Alg. 5: η = K/σ, μ = λ(η − 1); a_k = ∇F_k(w^t) − (η∇F_k(w^t) + g_k);
        w_k = argmin F_k(w) − a_kᵀw + (μ/2)‖w − w^t‖² (eq. 9 form); w^{t+1} = Σ_k p_k w_k;
        g_k ← g_k + λη(w_k − w^{t+1}).  Lemma 4: Σ_k p_k g_k = 0 for all t (the paper's Σ_k g_k
        for uniform weights), logged as ``g_sum`` = ‖Σ_k M p_k g_k‖.

    Guarantee:
        Seed 004 Thm 5: for ridge regression w^t = w(α^t) of the Dual Method (Alg. 6), which
        converges linearly; Alg. 5 converges for any partition.

    References:
        Seed 004 Appendix A.1, Alg. 5, Lemma 4, Theorem 5.

    """
    p = env.problem
    lam = ridge_lambda(p, "primal-method")
    lam_psi = psi_ridge(p) or 0.0
    M, dim = p.M, p.dim
    eta = M / hp.sigma_for(M)
    mu = lam * (eta - 1.0)
    grads_t = env.kernel.grads(p.broadcast(state.w)) + lam_psi * state.w[None, :]
    a = grads_t - (eta * grads_t + state.g)
    solver = resolve_solver(p, hp.local_solver, with_psi=True, who="primal-method")
    centre = np.repeat(state.w[None, :], M, axis=0)
    W, steps = solve_local(p, env.kernel, np.arange(M), a, mu, centre, centre, solver, hp.local_steps,
                           with_psi=True)
    w = p.weights @ W
    G = state.g + lam * eta * (W - w[None, :])
    counts = Counts(grad=M * (1 + steps), floats_up=M * dim, floats_down=M * dim)
    extra = {"g_sum": float(np.linalg.norm(M * (p.weights @ G)))}
    log = RoundLog.primal(w, counts, extra=extra)
    return PrimalState(w, G, state.r + 1), log


class DualState(NamedTuple):
    """w^t = w(α^t) and the dual blocks α_k."""

    w: Array
    alpha: tuple
    r: int


def init_dual_method(problem: Problem, hp: PerturbHyper, w0: Array, rng: np.random.Generator) -> DualState:
    """α^0 consistent with w_0 (Alg. 6 line 2), w^0 = w(α^0)."""
    lam = ridge_lambda(problem, "dual-method")
    alphas = _dual_start(problem, np.asarray(w0, dtype=float))
    return DualState(primal_image(problem, alphas, lam), tuple(alphas), 0)


def dual_objective(problem: Problem, alphas: list[Array], lam: float) -> float:
    """D(α) = −(λ/2)‖w(α)‖² − Σ_i ω_i φ*(−α_i) (eq. 13 in the weighted notation)."""
    w = primal_image(problem, alphas, lam)
    om = _omega(problem)
    conj = sum(om[k] * np.sum(problem.phi.conj(-alphas[k], problem.y[k])) for k in range(problem.M))
    return float(-0.5 * lam * w @ w - conj)


def _exact_block(problem: Problem, k: int, w: Array, alpha: Array, scale: float) -> Array:
    """Argmin D_k^t(u) (15) for the squared loss: ((σω_k/λ) X_k X_kᵀ + I) u = y_k − α_k − X_k w."""
    rhs = problem.y[k] - alpha - problem.X[k] @ w
    return np.linalg.solve(scale * gram(problem, k) + np.eye(len(alpha)), rhs)


def _coordinate_block(problem: Problem, k: int, w: Array, alpha: Array, scale: float, passes: int) -> Array:
    """``passes`` cyclic exact coordinate minimisations of D_k^t(u) (15), from u = 0 (CoCoA+'s local SDCA)."""
    Xk = problem.X[k]
    Xd = Xk.toarray() if hasattr(Xk, "toarray") else np.asarray(Xk)
    norms = np.sum(Xd * Xd, axis=1)
    base = Xd @ w + alpha - problem.y[k]
    u = np.zeros(len(alpha))
    v = np.zeros(Xd.shape[1])  # X_kᵀu
    for _ in range(passes):
        for i in range(len(u)):
            xi = Xd[i]
            ui = -(base[i] + scale * (xi @ v - norms[i] * u[i])) / (scale * norms[i] + 1.0)
            v += (ui - u[i]) * xi
            u[i] = ui
    return u


def _dual_round(state: DualState, hp: PerturbHyper, env: Env, exact: bool) -> tuple[DualState, RoundLog]:
    p = env.problem
    lam = ridge_lambda(p, "dual-method")
    om = _omega(p)
    sigma = hp.sigma_for(p.M)
    alphas = []
    for k in range(p.M):
        scale = sigma * om[k] / lam
        if exact:
            h = _exact_block(p, k, state.w, state.alpha[k], scale)
        else:
            h = _coordinate_block(p, k, state.w, state.alpha[k], scale, hp.local_steps)
        alphas.append(state.alpha[k] + h)
    w = primal_image(p, alphas, lam)
    M, dim = p.M, p.dim
    counts = Counts(floats_up=M * dim, floats_down=M * dim)
    extra = {"dual_objective": dual_objective(p, alphas, lam)}
    steps = {"dual_alpha": np.concatenate(alphas)} if env.record_steps else {}
    log = RoundLog.primal(w, counts, steps=steps, extra=extra)
    return DualState(w, tuple(alphas), state.r + 1), log


def dual_method_round(state: DualState, hp: PerturbHyper, env: Env, rng: np.random.Generator,
                      clients: Array) -> tuple[DualState, RoundLog]:
    """One round of the Dual Method (dual block proximal gradient ascent).

    Algorithm:
        Seed 004 Alg. 6: h_k = argmin_u D_k^t(u) of (15) on every node (closed form for the
        squared loss); α^{t+1} = α^t + h; the primal image w^{t+1} = w(α^{t+1}) (eq. 14) is the
        reported iterate; the dual objective D(α) is logged (``dual_objective``) and, with
        ``record="step"``, the dual iterate α^{t+1} itself (``dual_alpha``, clients' blocks in order).

    Guarantee:
        D is smooth in the block norm ‖·‖_B and strongly concave: linear convergence of α^t,
        hence of w(α^t) (FO16 A.3); Thm 5: w(α^t) equals the Primal Method's w^t.

    References:
        Seed 004 Appendix A.3, eqs. (13)–(15), Alg. 6, Theorem 5.

    """
    return _dual_round(state, hp, env, exact=True)


def cocoa_round(state: DualState, hp: PerturbHyper, env: Env, rng: np.random.Generator,
                clients: Array) -> tuple[DualState, RoundLog]:
    """One round of CoCoA+ (Alg. 6 with step 5 solved inexactly).

    Algorithm:
        As the Dual Method, but each node runs ``local_steps`` cyclic passes of exact
        coordinate minimisation of D_k^t(u) (15) from u = 0 (local SDCA) instead of solving it;
        the adding aggregation with σ' = σ (default K).

    Guarantee:
        Ma et al. 2015: linear convergence for smooth losses given a Θ-approximate local
        solver, the rate degrading as Θ → 1.

    References:
        Seed 004 Appendix A.3 (remark after Thm 5); Ma et al., ICML 2015 (CoCoA+).

    """
    return _dual_round(state, hp, env, exact=False)
