"""Seed 004's stochastic methods: GD, SGD (§2.1), SVRG (Alg. 1), naive FSVRG (Alg. 3), FSVRG (Alg. 4).

They sample data points themselves (the run must use the exact oracle; the draws come from
the run's oracle stream).  ψ enters through its prox after every step (proximal SVRG, Xiao and
Zhang 2014); with ψ = 0 each is the algorithm exactly as printed.  Aggregations use the
problem's client weights p_k, which are the papers' n_k/n for seed-004 instances (sample
weighting) and their 1/K when client sizes are equal.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from fcocheck.solvers.algorithms.base import Counts, Env, RoundLog, hp_field, positive_step
from fcocheck.solvers.algorithms.samples import (
    Pass,
    frequency_scaling,
    full_gradient,
    lazy_ok,
    sample_view,
    sequences,
    svrg_pass,
)
from fcocheck.solvers.errors import InvalidHyperparameterError
from fcocheck.solvers.problem import Problem

Array = np.ndarray
SAMPLINGS = ("uniform", "permutation")


@dataclass(frozen=True)
class StepSizeHyper:
    """GD's and FSVRG's only parameter: the step size h."""

    h: float = hp_field(help="step size h > 0 (FSVRG: h_k = h/n_k)")

    def check(self) -> None:
        """H > 0."""
        positive_step("h", self.h)

    def weights(self, rounds: int, growing: bool) -> list[float]:
        """Prox weight h."""
        return [self.h]


@dataclass(frozen=True)
class SVRGHyper:
    """h, the inner steps m (0: n, one pass) and how samples are drawn."""

    h: float = hp_field(help="step size h > 0")
    m: int = hp_field(0, help="stochastic steps per round (per client for naive FSVRG); 0 = n (n_k)")
    sampling: str = hp_field("uniform", help="uniform (with replacement, as Alg. 1) | permutation")

    def check(self) -> None:
        """H > 0, m ≥ 0, a known sampling."""
        positive_step("h", self.h)
        if isinstance(self.m, bool) or int(self.m) != self.m or self.m < 0:
            raise InvalidHyperparameterError(f"m = {self.m!r} is invalid; the rule is an integer m >= 0 "
                                             "(0 = one pass)")
        if self.sampling not in SAMPLINGS:
            raise InvalidHyperparameterError(
                f"sampling = {self.sampling!r}; the rule is one of {list(SAMPLINGS)}"
            )

    def weights(self, rounds: int, growing: bool) -> list[float]:
        """Prox weight h."""
        return [self.h]


class PointState(NamedTuple):
    """The iterate w^t and the round index."""

    w: Array
    r: int


def init_point(problem: Problem, hp: object, w0: Array, rng: np.random.Generator) -> PointState:
    """w^0 = w_0."""
    return PointState(np.array(w0, dtype=float), 0)


def needs_samples(who: str) -> Callable[[Problem, object], None]:
    """A ``check_problem`` hook: ``who`` samples data points, so the problem needs GLM data."""

    def check(problem: Problem, hp: object) -> None:
        sample_view(problem, who)

    return check


def gd_round(state: PointState, hp: StepSizeHyper, env: Env, rng: np.random.Generator,
             clients: Array) -> tuple[PointState, RoundLog]:
    """One step of (proximal) gradient descent.

    Algorithm:
        Seed 004 §2.1: w^{t+1} = prox_{hψ}(w^t − h∇F(w^t)) with the full gradient over all data.

    Guarantee:
        L-smooth F, h ≤ 1/L: Φ(w^t) − Φ* ≤ ‖w^0 − w*‖²/(2ht); linear (1 − hμ)^t if μ-strongly convex.

    References:
        Seed 004 §2.1 (GD); Beck and Teboulle 2009.

    """
    p = env.problem
    g = p.weights @ env.kernel.grads(p.broadcast(state.w))
    w = p.psi.prox(state.w - hp.h * g, hp.h)
    return PointState(w, state.r + 1), RoundLog.primal(w, Counts(grad=p.M, prox_server=1))


def _pooled_sequence(rng: np.random.Generator, n: int, m: int, permutation: bool) -> Array:
    """M uniform draws from n rows, or a permutation — drawn as ``samples.sequences`` draws them."""
    if permutation:
        return np.lexsort((rng.random(n), np.zeros(n, dtype=np.int64)))
    return (rng.random(m) * n).astype(np.int64)


def _rho(problem: Problem, view) -> Array:
    """n·ω_i: 1 for sample weighting (exactly), so the pooled estimator stays unbiased otherwise."""
    if problem.weighting == "samples":
        return np.ones(view.n)
    return view.n * view.omega


def sgd_round(state: PointState, hp: SVRGHyper, env: Env, rng: np.random.Generator,
              clients: Array) -> tuple[PointState, RoundLog]:
    """One epoch of m (proximal) SGD steps on single data points.

    Algorithm:
        Seed 004 §2.1: w ← prox_{hψ}(w − h ρ_i ∇f_i(w)), i uniform over all n points (or a
        permutation), ρ_i = n ω_i (1 under sample weighting).

    Guarantee:
        With decreasing steps E F(w) → F*; with a constant h a neighbourhood of size O(h σ²).

    References:
        Seed 004 §2.1 (SGD).

    """
    p = env.problem
    view = sample_view(p, "sgd")
    m = hp.m or view.n
    rows = _pooled_sequence(rng, view.n, m, hp.sampling == "permutation")
    rho = _rho(p, view)
    w = state.w.copy()
    for i in rows:
        x = view.row(i)
        grad = p.phi.dphi(np.array([x @ w]), view.y[i : i + 1])[0] * x
        if p.ridge_lam:
            grad = grad + p.ridge_lam * w * view.model
        w = p.psi.prox(w - hp.h * rho[i] * grad, hp.h)
    counts = Counts(sample_grad=len(rows), prox_server=len(rows))
    return PointState(w, state.r + 1), RoundLog.primal(w, counts)


def svrg_round(state: PointState, hp: SVRGHyper, env: Env, rng: np.random.Generator,
               clients: Array) -> tuple[PointState, RoundLog]:
    """One outer iteration (epoch) of SVRG on one machine.

    Algorithm:
        Seed 004 Alg. 1: ∇F(w^t) by a full pass; w = w^t; m times: pick i (uniformly, or from a
        permutation), w ← prox_{hψ}(w − h(ρ_i[∇f_i(w) − ∇f_i(w^t)] + ∇F(w^t))); w^{t+1} = w.

    Guarantee:
        Seed 004 rate (5) (Johnson and Zhang 2013): for μ-strongly convex F and L-smooth f_i,
        E[F(w^{t+1}) − F*] ≤ c (F(w^t) − F*) with c = 1/(μh(1 − 2Lh)m) + 2Lh/(1 − 2Lh), i.e.
        c = Θ(1/(mh)) + Θ(h).

    References:
        Seed 004 §3.2, Alg. 1, eq. (5); Xiao and Zhang 2014 (proximal form).

    """
    p = env.problem
    view = sample_view(p, "svrg")
    g, d0 = full_gradient(p, view, state.w)
    m = hp.m or view.n
    rows = _pooled_sequence(rng, view.n, m, hp.sampling == "permutation")
    M = p.M
    spec = Pass(rows, np.zeros(len(rows), dtype=np.int64), np.arange(len(rows)), np.full(M, hp.h),
                _rho(p, view), None, np.eye(M)[0])
    delta, _ = svrg_pass(p, view, state.w, g, d0, spec, lazy=False)
    w = state.w + delta
    counts = Counts(sample_grad=view.n + 2 * len(rows), prox_server=len(rows))
    return PointState(w, state.r + 1), RoundLog.primal(w, counts)


def naive_fsvrg_round(state: PointState, hp: SVRGHyper, env: Env, rng: np.random.Generator,
                      clients: Array) -> tuple[PointState, RoundLog]:
    """One round of naive Federated SVRG.

    Algorithm:
        Seed 004 Alg. 3: ∇F(w^t) computed and distributed; every node k runs m steps
        w_k ← prox_{hψ}(w_k − h(∇f_i(w_k) − ∇f_i(w^t) + ∇F(w^t))), i uniform in P_k, from w^t;
        w^{t+1} = w^t + Σ_k p_k (w_k − w^t) (the paper's 1/K for equal weights).

    Guarantee:
        None in FO16; Proposition 1: equals DANE (η = 1, μ = 0) with one SVRG epoch from
        w^t as local solver, given the same samples (tested).

    References:
        Seed 004 §3.5, Alg. 3, Proposition 1.

    """
    p = env.problem
    view = sample_view(p, "naive-fsvrg")
    g, d0 = full_gradient(p, view, state.w)
    M = p.M
    lengths = np.full(M, hp.m) if hp.m else p.n
    rows, client, step = sequences(rng, view, np.arange(M), lengths, hp.sampling == "permutation")
    spec = Pass(rows, client, step, np.full(M, hp.h), np.ones(view.n), None, p.weights)
    delta, _ = svrg_pass(p, view, state.w, g, d0, spec, lazy=lazy_ok(p))
    w = state.w + delta
    dim = p.dim
    counts = Counts(sample_grad=view.n + 2 * len(rows), prox_client=len(rows), floats_up=2 * M * dim,
                    floats_down=2 * M * dim)
    return PointState(w, state.r + 1), RoundLog.primal(w, counts)


def fsvrg_round(state: PointState, hp: StepSizeHyper, env: Env, rng: np.random.Generator,
                clients: Array) -> tuple[PointState, RoundLog]:
    """One round of Federated SVRG.

    Algorithm:
        Seed 004 Alg. 4: ∇F(w^t) distributed; node k: h_k = h/n_k, a random permutation of P_k,
        w_k ← prox_{h_kψ}(w_k − h_k(S_k[∇f_i(w_k) − ∇f_i(w^t)] + ∇F(w^t))) for its n_k points;
        w^{t+1} = w^t + A Σ_k p_k (w_k − w^t), S_k = Diag(φ^j/φ^j_k), A = Diag(K/ω_j)
        (§3.6.1).  Sparse data run the lazy path (``samples`` module): O(nnz) per round.

    Guarantee:
        None proved in FO16 (an empirical method, §3.6–3.8).

    References:
        Seed 004 §3.6, Alg. 4.

    """
    p = env.problem
    view = sample_view(p, "fsvrg")
    g, d0 = full_gradient(p, view, state.w)
    s_entry, a = frequency_scaling(p, view)
    M = p.M
    rows, client, step = sequences(rng, view, np.arange(M), p.n, permutation=True)
    spec = Pass(rows, client, step, hp.h / p.n, np.ones(view.n), s_entry, p.weights)
    delta, _ = svrg_pass(p, view, state.w, g, d0, spec, lazy=lazy_ok(p))
    w = state.w + a * delta
    dim = p.dim
    counts = Counts(sample_grad=view.n + 2 * len(rows), prox_client=len(rows), floats_up=2 * M * dim,
                    floats_down=2 * M * dim)
    return PointState(w, state.r + 1), RoundLog.primal(w, counts)
