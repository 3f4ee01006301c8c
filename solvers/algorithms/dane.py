"""DANE (FO16 Alg. 2) and one-shot averaging (§3.4): methods built on local solves."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fcocheck.solvers.algorithms.base import Counts, Env, RoundLog, hp_field, positive_int, positive_step
from fcocheck.solvers.algorithms.local_solvers import resolve_solver, solve_local
from fcocheck.solvers.algorithms.samples import sample_view, sequences
from fcocheck.solvers.algorithms.svrg import PointState
from fcocheck.solvers.errors import InvalidHyperparameterError
from fcocheck.solvers.problem import Problem

Array = np.ndarray
DANE_SOLVERS = ("exact", "gd", "svrg")


@dataclass(frozen=True)
class DaneHyper:
    """η and μ of eq. (10), and the local solver."""

    eta: float = hp_field(1.0, help="η of eq. (10), default 1")
    mu: float = hp_field(0.0, help="μ ≥ 0 of eq. (10), default 0")
    local_solver: str = hp_field("exact", help="exact (quadratic losses) | gd | svrg (one epoch from w^t)")
    local_steps: int = hp_field(50, help="gradient steps of the gd local solver")
    h: float = hp_field(0.0, help="svrg local solver: step size h > 0")
    m: int = hp_field(0, help="svrg local solver: steps per node (0 = n_k)")

    def check(self) -> None:
        """η > 0, μ ≥ 0, a known solver; h > 0 and m ≥ 0 for svrg."""
        positive_step("eta", self.eta)
        if not (np.isfinite(self.mu) and self.mu >= 0):
            raise InvalidHyperparameterError(f"mu = {self.mu!r} is invalid; the rule is mu >= 0")
        if self.local_solver not in DANE_SOLVERS:
            raise InvalidHyperparameterError(
                f"local_solver = {self.local_solver!r}; the rule is one of {list(DANE_SOLVERS)}"
            )
        positive_int("local_steps", self.local_steps)
        if self.local_solver == "svrg":
            positive_step("h", self.h)
            if int(self.m) != self.m or self.m < 0:
                raise InvalidHyperparameterError(f"m = {self.m!r} is invalid; the rule is an integer m >= 0")

    def weights(self, rounds: int, growing: bool) -> list[float]:
        """Prox weights of the gd/svrg local solvers (the exact solver folds ψ in)."""
        return [self.h] if self.local_solver == "svrg" else []


def check_dane(problem: Problem, hp: DaneHyper) -> None:
    """Refuse, before round 0, a local solver the problem does not support."""
    if hp.local_solver == "svrg":
        sample_view(problem, "dane with local_solver svrg")
    elif hp.local_solver == "exact":
        resolve_solver(problem, "exact", with_psi=True, who="dane")


def _svrg_local(problem: Problem, hp: DaneHyper, w_t: Array, grads_t: Array, rng: np.random.Generator,
                a: Array) -> tuple[Array, int]:
    """One SVRG epoch on subproblem (10) per node, started at w^t, written from (10) itself.

    Component i of G_k(w) = F_k(w) − a_kᵀw + (μ/2)‖w − w^t‖² has gradient ∇f_i(w) − a_k + μ(w − w^t);
    SVRG's direction is that minus its value at w^t plus ∇G_k(w^t) = ∇F_k(w^t) − a_k; ψ by prox.
    The nodes draw their samples with ``samples.sequences`` (the draws naive FSVRG makes).
    """
    view = sample_view(problem, "dane")
    M = problem.M
    lengths = np.full(M, hp.m) if hp.m else problem.n
    rows, client, _ = sequences(rng, view, np.arange(M), lengths, permutation=False)
    W = np.repeat(w_t[None, :], M, axis=0)
    psi, lam = problem.psi, problem.ridge_lam

    def grad_i(i: int, w: Array) -> Array:
        x = view.row(i)
        out = problem.phi.dphi(np.array([x @ w]), view.y[i : i + 1])[0] * x
        return out + lam * w * view.model if lam else out

    for i, k in zip(rows, client, strict=True):
        w = W[k]
        direction = (grad_i(i, w) - a[k] + hp.mu * (w - w_t)) - (grad_i(i, w_t) - a[k]) + (grads_t[k] - a[k])
        W[k] = psi.prox(w - hp.h * direction, hp.h)
    return W, 2 * len(rows)


def dane_round(state: PointState, hp: DaneHyper, env: Env, rng: np.random.Generator,
               clients: Array) -> tuple[PointState, RoundLog]:
    """One round of DANE.

    Algorithm:
        Seed 004 Alg. 2: ∇F(w^t) computed and distributed; every node solves (eq. 10)
        w_k = argmin F_k(w) − (∇F_k(w^t) − η∇F(w^t))ᵀw + (μ/2)‖w − w^t‖² (+ ψ(w): composite
        form; ψ ∈ {0, l2sq} for the exact solver, any prox-friendly ψ for gd/svrg);
        w^{t+1} = Σ_k p_k w_k (the paper's 1/K).  Local solvers: ``exact`` (linear solve),
        ``gd`` (``local_steps`` proximal gradient steps from w^t), ``svrg`` (one SVRG epoch from
        w^t of m steps with step h: Proposition 1's solver).

    Guarantee:
        Shamir et al. 2014: for quadratics with i.i.d. data, O(K log(1/ε)) rounds (λ = O(1/√n));
        no guarantee for arbitrary partitions (FO16 §3.4).  Properties (A) and (D) hold.

    References:
        Seed 004 §3.4, Alg. 2, eq. (10); §3.5, Proposition 1.

    """
    p = env.problem
    grads_t = env.kernel.grads(p.broadcast(state.w))
    g = p.weights @ grads_t
    a = grads_t - hp.eta * g[None, :]
    M, dim = p.M, p.dim
    sample = 0
    if hp.local_solver == "svrg":
        W, sample = _svrg_local(p, hp, state.w, grads_t, rng, a)
        grads = M
    else:
        centre = np.repeat(state.w[None, :], M, axis=0)
        W, steps = solve_local(p, env.kernel, np.arange(M), a, hp.mu, centre, centre, hp.local_solver,
                               hp.local_steps, with_psi=True)
        grads = M * (1 + steps)
    w = p.weights @ W
    prox = 0 if hp.local_solver == "exact" else (sample // 2 if sample else M * hp.local_steps)
    counts = Counts(grad=grads, sample_grad=sample, prox_client=prox, floats_up=2 * M * dim,
                    floats_down=2 * M * dim)
    log = RoundLog.primal(w, counts)
    return PointState(w, state.r + 1), log


@dataclass(frozen=True)
class OneShotHyper:
    """The local solver of one-shot averaging."""

    local_solver: str = hp_field("auto", help="auto | exact (quadratic losses, ψ ∈ {0, l2sq}) | gd")
    local_steps: int = hp_field(500, help="proximal gradient steps of the gd local solver")

    def check(self) -> None:
        """A known solver, steps ≥ 1."""
        if self.local_solver not in ("auto", "exact", "gd"):
            raise InvalidHyperparameterError(
                f"local_solver = {self.local_solver!r}; the rule is one of ['auto', 'exact', 'gd']"
            )
        positive_int("local_steps", self.local_steps)

    def weights(self, rounds: int, growing: bool) -> list[float]:
        """No ψ-weight is fixed in advance (gd uses 1/L_m)."""
        return []


def check_oneshot(problem: Problem, hp: OneShotHyper) -> None:
    """An exact request must be available."""
    resolve_solver(problem, hp.local_solver, with_psi=True, who="one-shot")


def oneshot_round(state: PointState, hp: OneShotHyper, env: Env, rng: np.random.Generator,
                  clients: Array) -> tuple[PointState, RoundLog]:
    """One-shot averaging: round 1 averages the local minimisers; later rounds do nothing.

    Algorithm:
        Seed 004 §3.4: every node minimises F_k + ψ on its own data (exactly, or by
        ``local_steps`` proximal gradient steps from w^0); w = Σ_k p_k w_k; no further
        communication (later rounds cost nothing and keep w).

    Guarantee:
        Zhang, Duchi, Wainwright 2013: for i.i.d. data the average is as good as the pooled
        minimiser to first order in 1/n; with heterogeneous data it is biased (property (A)
        fails).

    References:
        Seed 004 §3.4 (one-shot averaging).

    """
    p = env.problem
    if state.r > 0:
        return PointState(state.w, state.r + 1), RoundLog(
            w=state.w, z=None, avg_terms=state.w, avg_count=1, discrepancy=np.zeros(0), counts=Counts())
    M, dim = p.M, p.dim
    solver = resolve_solver(p, hp.local_solver, with_psi=True, who="one-shot")
    start = np.repeat(state.w[None, :], M, axis=0)
    W, steps = solve_local(p, env.kernel, np.arange(M), np.zeros_like(start), 0.0, start, start, solver,
                           hp.local_steps, with_psi=True)
    w = p.weights @ W
    counts = Counts(grad=M * steps, prox_client=M * steps if solver == "gd" else 0, floats_up=M * dim,
                    floats_down=M * dim)
    log = RoundLog.primal(w, counts)
    return PointState(w, state.r + 1), log
