"""ProxSkip, Scaffnew and the toolkit's composite Scaffnew (Mishchenko et al. 2022; docs/baselines.md).

A *round* of these methods is one prox/communication: local steps are taken until the shared
coin θ ~ Bernoulli(p) comes up, so a round holds a Geometric(p) number of steps (mean 1/p);
the steps taken are logged as ``local_steps_taken``.  The coin is drawn from the oracle stream.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from fcocheck.solvers.algorithms.base import Counts, Env, RoundLog, hp_field, positive_step
from fcocheck.solvers.algorithms.control import weighted_sum_norm
from fcocheck.solvers.errors import InvalidHyperparameterError
from fcocheck.solvers.problem import Problem

Array = np.ndarray


@dataclass(frozen=True)
class SkipHyper:
    """γ and p of ProxSkip/Scaffnew."""

    gamma: float = hp_field(help="step size γ > 0")
    p: float = hp_field(0.2, help="probability of a prox/communication per step, 0 < p <= 1")

    def check(self) -> None:
        """γ > 0; p ∈ (0, 1]."""
        positive_step("gamma", self.gamma)
        if not (np.isfinite(self.p) and 0 < self.p <= 1):
            raise InvalidHyperparameterError(
                f"p = {self.p!r} is invalid; the rule is a probability 0 < p <= 1"
            )

    def weights(self, rounds: int, growing: bool) -> list[float]:
        """The prox weight γ/p."""
        return [self.gamma / self.p]


class SkipState(NamedTuple):
    """Per-client points X (M, dim) and controls H (M, dim); w = the last communicated point."""

    w: Array
    X: Array
    H: Array
    r: int


def init_skip(problem: Problem, hp: SkipHyper, w0: Array, rng: np.random.Generator) -> SkipState:
    """x_i^0 = w_0 and h_i^0 = 0 on every client (Σ_i h_i^0 = 0)."""
    w0 = np.array(w0, dtype=float)
    return SkipState(w0, np.repeat(w0[None, :], problem.M, axis=0), np.zeros((problem.M, problem.dim)), 0)


def init_proxskip(problem: Problem, hp: SkipHyper, w0: Array, rng: np.random.Generator) -> SkipState:
    """One machine: x^0 = w_0, h^0 = 0 (stored as one row)."""
    w0 = np.array(w0, dtype=float)
    return SkipState(w0, w0[None, :].copy(), np.zeros((1, problem.dim)), 0)


def proxskip_round(state: SkipState, hp: SkipHyper, env: Env, rng: np.random.Generator,
                   clients: Array) -> tuple[SkipState, RoundLog]:
    """One ProxSkip round: gradient steps until a prox is taken.

    Algorithm:
        Mishchenko et al. 2022 Alg. 1 on Φ = F + ψ with ∇F(x) = Σ_m p_m g_m(x) (every client's
        oracle, i.e. one machine holding all data): x̂ = x − γ(∇F(x) − h); with probability p:
        x⁺ = prox_{(γ/p)ψ}(x̂ − (γ/p)h), else x⁺ = x̂; h⁺ = h + (p/γ)(x⁺ − x̂).

    Guarantee:
        μ-strongly convex, L-smooth F, γ ≤ 1/L: E Ψ_t ≤ (1 − ζ)^t Ψ_0 with
        ζ = min(γμ, p²) (Mishchenko et al. Thm 3.6); expected 1/p steps per prox.

    References:
        docs/baselines.md; Mishchenko et al., ICML 2022, Alg. 1.

    """
    p = env.problem
    x, h = state.X[0], state.H[0]
    steps, t = 0, hp.gamma / hp.p
    while True:
        steps += 1
        g = p.weights @ env.oracle.grads(env.kernel, p.broadcast(x), rng)
        xhat = x - hp.gamma * (g - h)
        if rng.random() < hp.p:
            x_next = p.psi.prox(xhat - t * h, t)
            h = h + (x_next - xhat) / t
            x = x_next
            break
        x = xhat
    counts = Counts(grad=p.M * steps, prox_server=1)
    log = RoundLog.primal(x, counts, extra={"local_steps_taken": float(steps)})
    return SkipState(x, x[None, :], h[None, :], state.r + 1), log


def _scaffnew(state: SkipState, hp: SkipHyper, env: Env, rng: np.random.Generator,
              composite: bool) -> tuple[SkipState, RoundLog]:
    p = env.problem
    X, H = state.X, state.H
    steps, t = 0, hp.gamma / hp.p
    while True:
        steps += 1
        Xhat = X - hp.gamma * (env.oracle.grads(env.kernel, X, rng) - H)
        if rng.random() < hp.p:  # θ_t, shared by every client: communicate
            xbar = p.weights @ (Xhat - t * H)
            if composite:
                xbar = p.psi.prox(xbar, t)
            X_next = np.repeat(xbar[None, :], p.M, axis=0)
            H = H + (X_next - Xhat) / t
            X = X_next
            break
        X = Xhat
    dim = p.dim
    counts = Counts(grad=p.M * steps, prox_server=int(composite), floats_up=p.M * dim,
                    floats_down=p.M * dim)
    extra = {"local_steps_taken": float(steps), "control_sum": weighted_sum_norm(p, H)}
    w = X[0].copy()
    log = RoundLog.primal(w, counts, extra=extra)
    return SkipState(w, X, H, state.r + 1), log


def scaffnew_round(state: SkipState, hp: SkipHyper, env: Env, rng: np.random.Generator,
                   clients: Array) -> tuple[SkipState, RoundLog]:
    """One Scaffnew round: local steps until the shared coin says communicate.

    Algorithm:
        Mishchenko et al. 2022 Alg. 2: x̂_i = x_i − γ(g_i(x_i) − h_i); with probability p
        (a communication): x_i⁺ = Σ_j p_j (x̂_j − (γ/p) h_j) (the paper's avg_j), else
        x_i⁺ = x̂_i; h_i⁺ = h_i + (p/γ)(x_i⁺ − x̂_i).  ψ is not used.  Σ_i h_i = 0 is preserved
        (p-weighted), logged as ``control_sum`` = ‖Σ_m M p_m h_m‖.

    Guarantee:
        Strongly convex smooth f_i: linear convergence with O(√κ) expected communications
        (Mishchenko et al. Thm 5.x); independent of heterogeneity.

    References:
        docs/baselines.md; Mishchenko et al., ICML 2022, Alg. 2.

    """
    return _scaffnew(state, hp, env, rng, composite=False)


def scaffnew_composite_round(state: SkipState, hp: SkipHyper, env: Env, rng: np.random.Generator,
                             clients: Array) -> tuple[SkipState, RoundLog]:
    """One round of the toolkit's composite Scaffnew extension.

    Algorithm:
        Scaffnew with the communication step x_i⁺ = prox_{(γ/p)ψ}(Σ_j p_j(x̂_j − (γ/p)h_j)):
        the form FedCanon compares against on FCO problems.  This is the toolkit's extension,
        not a published algorithm with its own guarantee (docs/baselines.md).  The control sum is no
        longer 0: after a communication Σ_i p_i h_i = (prox_{tψ}(v) − v)/t ∈ −∂ψ(x⁺) (t = γ/p,
        v the averaged point), the subgradient that balances ∇F at a fixed point (tested).

    Guarantee:
        None claimed; with ψ = 0 it is Scaffnew, with M = 1 it is ProxSkip.

    References:
        docs/baselines.md (composite Scaffnew); FedCanon §I (SCAFFNEW on composite problems).

    """
    return _scaffnew(state, hp, env, rng, composite=True)
