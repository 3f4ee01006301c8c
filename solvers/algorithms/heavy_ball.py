"""Polyak's heavy ball on F (ψ ignored): the centralised reference a server-momentum method reduces to.

Written in its classical two-point form, independently of the card pieces (``Trace``) that server
momentum is composed of, so a reduction to it pins a momentum buffer where β acts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from fcocheck.solvers.algorithms.base import Counts, Env, RoundLog, hp_field, positive_step
from fcocheck.solvers.algorithms.primitives import client_weights
from fcocheck.solvers.card.params import unit_interval

Array = np.ndarray


@dataclass(frozen=True)
class HeavyBallHyper:
    """Step α and momentum β."""

    eta: float = hp_field(help="step size α > 0")
    beta: float = hp_field(0.0, help="momentum 0 <= β < 1")

    def check(self) -> None:
        """α > 0, 0 ≤ β < 1."""
        positive_step("eta", self.eta)
        unit_interval("beta", self.beta)

    def weights(self, rounds: int, growing: bool) -> list[float]:
        """No prox."""
        return []


class HeavyBallState(NamedTuple):
    """x_t and x_{t−1} (equal at t = 0)."""

    w: Array
    prev: Array
    r: int


def init(problem: object, hp: HeavyBallHyper, w0: Array, rng: np.random.Generator) -> HeavyBallState:
    """x_0 = x_{−1} = w0."""
    w = np.array(w0, dtype=float)
    return HeavyBallState(w, w.copy(), 0)


def heavy_ball_round(state: HeavyBallState, hp: HeavyBallHyper, env: Env, rng: np.random.Generator,
                     clients: Array) -> tuple[HeavyBallState, RoundLog]:
    """One step of heavy ball.

    Algorithm:
        x_{t+1} = x_t − α g_t + β (x_t − x_{t−1}), g_t = Σ_{m∈S} p̃_m ∇f(x_t; ξ^m) (one query per client).

    Guarantee:
        On a quadratic with Hessian eigenvalues λ, the error contracts like the largest root modulus of
        z² − (1 + β − αλ) z + β over λ (``linear_rate``); on a μ-strongly convex one with
        α = 4/(√L + √μ)², β = ((√κ − 1)/(√κ + 1))² that is (√κ − 1)/(√κ + 1) up to a polynomial factor
        (Polyak 1964).

    References:
        B. T. Polyak, Some methods of speeding up the convergence of iteration methods (1964), eq. (9).

    """
    g = mean_gradient(state.w, env, rng, clients)
    w_next = state.w - hp.eta * g + hp.beta * (state.w - state.prev)
    return HeavyBallState(w_next, state.w, state.r + 1), step_log(w_next, env, clients)


def mean_gradient(w: Array, env: Env, rng: np.random.Generator, clients: Array) -> Array:
    """The mean gradient Σ_{m∈S} p̃_m ∇f(w; ξ^m): one query per sampled client at the common point w."""
    kern = env.kernel.subset(clients)
    W = np.repeat(w[None, :], kern.size, axis=0)
    return client_weights(env.problem, clients) @ env.oracle.grads(kern, W, rng)


def step_log(w: Array, env: Env, clients: Array) -> RoundLog:
    """The log of one centralised step: |S| gradients, the point down and a gradient up per client."""
    S, dim = len(clients), env.problem.dim
    return RoundLog.primal(w, Counts(grad=S, floats_up=S * dim, floats_down=S * dim))


def companion_radius(a: float, b: float) -> float:
    """The largest |z| with z² = a z + b: the rate of the scalar recursion e_{t+1} = a e_t + b e_{t−1}."""
    return float(np.max(np.abs(np.roots([1.0, -a, -b]))))


def companion(hp: HeavyBallHyper, lam: float) -> tuple[float, float]:
    """(a, b) of e_{t+1} = a e_t + b e_{t−1} along an eigenvalue λ of H: (1 + β − αλ, −β)."""
    return 1 + hp.beta - hp.eta * lam, -hp.beta


def linear_rate(hp: HeavyBallHyper, eigenvalues: Sequence[float]) -> float:
    """max_λ of the largest root modulus of z² − (1 + β − αλ) z + β (quadratic F, exact gradients).

    On F(x) = ½ xᵀHx − bᵀx each eigen-direction of H follows e_{t+1} = (1 + β − αλ) e_t − β e_{t−1}, so
    ‖x_t − x*‖ (and ‖x_{t+1} − x_t‖) shrinks by this factor per step once the slowest mode dominates.
    """
    return max(companion_radius(*companion(hp, lam)) for lam in eigenvalues)
