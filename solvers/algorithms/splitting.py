"""FedDR (Tran-Dinh et al. 2021) and FedADMM (Wang et al. 2022): operator-splitting baselines.

Both keep per-client states and a server running sum x̃ whose prox is the model x̄.  The local
prox_{ηf_i} is exact for quadratic losses (``local_solver = exact``: one linear solve per
client) and otherwise ``local_steps`` warm-started gradient steps on
f_i(x) + ‖x − y‖²/(2η) (``gd``: inexact, its accuracy a hyper-parameter).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from fcocheck.solvers.algorithms.base import Counts, Env, RoundLog, hp_field, positive_int, positive_step
from fcocheck.solvers.algorithms.local_solvers import SOLVERS, resolve_solver, solve_local
from fcocheck.solvers.algorithms.primitives import client_weights
from fcocheck.solvers.errors import InvalidHyperparameterError
from fcocheck.solvers.kernels import Kernel
from fcocheck.solvers.problem import Problem

Array = np.ndarray


@dataclass(frozen=True)
class SplitHyper:
    """η, FedDR's relaxation α, and the local prox solver."""

    eta: float = hp_field(help="prox parameter η > 0")
    alpha: float = hp_field(1.0, help="FedDR relaxation 0 < α < 2 (FedADMM: unused)")
    local_solver: str = hp_field("auto", help="local prox: auto | exact (quadratic losses) | gd")
    local_steps: int = hp_field(20, help="gradient steps of the gd local solver")

    def check(self) -> None:
        """η > 0, α ∈ (0, 2), a known solver, steps ≥ 1."""
        positive_step("eta", self.eta)
        if not (np.isfinite(self.alpha) and 0 < self.alpha < 2):
            raise InvalidHyperparameterError(f"alpha = {self.alpha!r} is invalid; the rule is 0 < alpha < 2")
        if self.local_solver not in SOLVERS:
            raise InvalidHyperparameterError(
                f"local_solver = {self.local_solver!r}; the rule is one of {list(SOLVERS)}"
            )
        positive_int("local_steps", self.local_steps)

    def weights(self, rounds: int, growing: bool) -> list[float]:
        """The server prox weight η."""
        return [self.eta]


def check_split(problem: Problem, hp: SplitHyper) -> None:
    """An explicit ``exact`` local prox must exist for the problem's loss."""
    resolve_solver(problem, hp.local_solver, with_psi=False, who="local prox")


class SplitState(NamedTuple):
    """Per-client y_i (FedDR) or z_i (FedADMM), x_i, x̂_i; server x̃ and x̄ = w."""

    w: Array
    duals: Array
    X: Array
    Xhat: Array
    xtilde: Array
    r: int


def _prox_f(problem: Problem, kern: Kernel, clients: Array, Y: Array, X0: Array,
            hp: SplitHyper, grad_fn=None) -> tuple[Array, int]:
    """prox_{ηf_i}(y_i) = argmin f_i(x) + ‖x − y_i‖²/(2η) for the served clients."""
    solver = resolve_solver(problem, hp.local_solver, with_psi=False, who="local prox")
    return solve_local(problem, kern, clients, np.zeros_like(Y), 1.0 / hp.eta, Y, X0, solver,
                       hp.local_steps, with_psi=False, grad_fn=grad_fn)


def _oracle(env: Env, kern: Kernel, rng: np.random.Generator):
    """The run's oracle on the served clients (the gd local solver's gradients)."""
    return lambda X: env.oracle.grads(kern, X, rng)


def _start(problem: Problem, hp: SplitHyper, w0: Array) -> tuple[Array, Array, Array]:
    """y_i^0 = x^0, x_i^0 = prox_{ηf_i}(y_i^0), x̂_i^0 = 2x_i^0 − y_i^0."""
    w0 = np.array(w0, dtype=float)
    Y = np.repeat(w0[None, :], problem.M, axis=0)
    X, _ = _prox_f(problem, problem.kernel, np.arange(problem.M), Y, Y, hp)
    return Y, X, 2 * X - Y


def _server(problem: Problem, hp: SplitHyper, xhat_sum: Array) -> tuple[Array, Array]:
    """x̃ = Σ_i p_i x̂_i (the paper's avg), x̄ = prox_{ηψ}(x̃)."""
    return xhat_sum, problem.psi.prox(xhat_sum, hp.eta)


def init_feddr(problem: Problem, hp: SplitHyper, w0: Array, rng: np.random.Generator) -> SplitState:
    """FedDR's initialisation (docs/baselines.md): x̃^0 = avg x̂_i^0, x̄^0 = prox_{ηψ}(x̃^0)."""
    Y, X, Xhat = _start(problem, hp, w0)
    xtilde, xbar = _server(problem, hp, problem.weights @ Xhat)
    return SplitState(xbar, Y, X, Xhat, xtilde, 0)


def init_fedadmm(problem: Problem, hp: SplitHyper, w0: Array, rng: np.random.Generator) -> SplitState:
    """x_i^0 = prox_{ηf_i}(x^0), z_i^0 = (x_i^0 − x^0)/η (= −∇f_i(x_i^0)), x̂_i^0 = x_i^0 + ηz_i^0.

    The dual start that makes y_i = x̄ − ηz_i map FedADMM onto FedDR (α = 1) from round 0.
    """
    Y, X, Xhat = _start(problem, hp, w0)
    Z = (X - Y) / hp.eta
    xtilde, xbar = _server(problem, hp, problem.weights @ Xhat)
    return SplitState(xbar, Z, X, Xhat, xtilde, 0)


def _finish(state: SplitState, hp: SplitHyper, env: Env, clients: Array, duals: Array, X: Array,
            Xhat_new: Array, grads: int) -> tuple[SplitState, RoundLog]:
    p = env.problem
    Xhat = state.Xhat.copy()
    xtilde = state.xtilde + p.weights[clients] @ (Xhat_new - Xhat[clients])  # (1/n) Σ_{i∈S} Δx̂_i
    Xhat[clients] = Xhat_new
    xbar = p.psi.prox(xtilde, hp.eta)
    S, dim = len(clients), p.dim
    counts = Counts(grad=S * grads, prox_server=1, floats_up=S * dim, floats_down=S * dim)
    weights = client_weights(p, clients)
    xm = weights @ X[clients]
    extra = {"consensus_gap": float(np.linalg.norm(xm - xbar))}
    log = RoundLog.primal(xbar, counts, extra=extra)
    return SplitState(xbar, duals, X, Xhat, xtilde, state.r + 1), log


def feddr_round(state: SplitState, hp: SplitHyper, env: Env, rng: np.random.Generator,
                clients: Array) -> tuple[SplitState, RoundLog]:
    """One round of FedDR (randomised Douglas–Rachford splitting).

    Algorithm:
        Client i ∈ S: y_i ← y_i + α(x̄ − x_i); x_i ← prox_{ηf_i}(y_i); x̂_i ← 2x_i − y_i.
        Server: x̃ ← x̃ + Σ_{i∈S} p_i (x̂_i^new − x̂_i^old) (p_i = 1/n: the paper's (1/n)Σ);
        x̄ = prox_{ηψ}(x̃).  The exact local prox reads f_i's data (no oracle queries); the
        ``gd`` local solver queries the run's oracle.  The initial proxes use exact gradients.

    Guarantee:
        Tran-Dinh et al. 2021 Thm 1: non-convex smooth f_i, α ∈ (0, 2), η small enough:
        E‖G_η(x̄)‖² = O(1/R) (gradient-mapping norm), under exact or accurate-enough proxes.

    References:
        docs/baselines.md (FedDR); Tran-Dinh et al., NeurIPS 2021, Alg. 1.

    """
    p = env.problem
    kern = env.kernel.subset(clients)
    Y = state.duals[clients] + hp.alpha * (state.w[None, :] - state.X[clients])
    Xs, grads = _prox_f(p, kern, clients, Y, state.X[clients], hp, _oracle(env, kern, rng))
    duals, X = state.duals.copy(), state.X.copy()
    duals[clients], X[clients] = Y, Xs
    return _finish(state, hp, env, clients, duals, X, 2 * Xs - Y, grads)


def fedadmm_round(state: SplitState, hp: SplitHyper, env: Env, rng: np.random.Generator,
                  clients: Array) -> tuple[SplitState, RoundLog]:
    """One round of FedADMM.

    Algorithm:
        Client i ∈ S: x_i = argmin f_i(x) + ⟨z_i, x − x̄⟩ + ‖x − x̄‖²/(2η) (= prox_{ηf_i}(x̄ − ηz_i));
        z_i ← z_i + (x_i − x̄)/η; x̂_i = x_i + ηz_i; server as FedDR.  With y_i = x̄ − ηz_i this
        is FedDR with α = 1 (tested iterate by iterate); α is not used.

    Guarantee:
        Wang et al. 2022: O(1/R) stationarity for non-convex composite FL (medium confidence
        in the published scaling, docs/baselines.md).

    References:
        docs/baselines.md (FedADMM); Wang, Marella, Anderson 2022.

    """
    p = env.problem
    kern = env.kernel.subset(clients)
    Zc = state.duals[clients]
    A = -Zc  # ⟨z_i, x⟩ enters as −⟨a, x⟩ with a = −z_i
    centre = np.repeat(state.w[None, :], len(clients), axis=0)
    solver = resolve_solver(p, hp.local_solver, with_psi=False, who="local prox")
    Xs, grads = solve_local(p, kern, clients, A, 1.0 / hp.eta, centre, state.X[clients], solver,
                            hp.local_steps, with_psi=False, grad_fn=_oracle(env, kern, rng))
    Znew = Zc + (Xs - state.w[None, :]) / hp.eta
    duals, X = state.duals.copy(), state.X.copy()
    duals[clients], X[clients] = Znew, Xs
    return _finish(state, hp, env, clients, duals, X, Xs + hp.eta * Znew, grads)
