"""Nesterov's accelerated gradient on F (ψ ignored): the centralised reference for Nesterov momentum.

Written in its classical two-sequence form, independently of the card pieces (``Trace(nesterov=True)``)
that server-side Nesterov momentum is composed of, so a reduction to it pins such a buffer where β acts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from fcocheck.solvers.algorithms.base import Env, RoundLog
from fcocheck.solvers.algorithms.heavy_ball import HeavyBallHyper, companion_radius, mean_gradient, step_log

Array = np.ndarray


class NesterovState(NamedTuple):
    """y_t (where the gradient is taken), x_t, and t."""

    w: Array
    x: Array
    r: int


def init(problem: object, hp: HeavyBallHyper, w0: Array, rng: np.random.Generator) -> NesterovState:
    """y_0 = x_0 = w0."""
    w = np.array(w0, dtype=float)
    return NesterovState(w, w.copy(), 0)


def nesterov_round(state: NesterovState, hp: HeavyBallHyper, env: Env, rng: np.random.Generator,
                   clients: Array) -> tuple[NesterovState, RoundLog]:
    """One step of Nesterov's accelerated gradient with constant momentum.

    Algorithm:
        x_{t+1} = y_t − α g_t, y_{t+1} = x_{t+1} + β (x_{t+1} − x_t), g_t = Σ_{m∈S} p̃_m ∇f(y_t; ξ^m)
        (one query per client).  The logged iterate is y_t, the point where gradients are taken — the
        point a server with Nesterov momentum (optax ``trace(nesterov=True)``) holds.

    Guarantee:
        On a quadratic with Hessian eigenvalues λ, the error contracts like the largest root modulus of
        z² − (1 + β)(1 − αλ) z + β(1 − αλ) over λ (``linear_rate``); with α = 1/L and
        β = (√κ − 1)/(√κ + 1) that is 1 − 1/√κ up to a polynomial factor (Nesterov 1983).

    References:
        Y. Nesterov, A method for solving the convex programming problem with convergence rate O(1/k²)
        (1983); the constant-momentum form for strongly convex F, Nesterov, Introductory Lectures (2004),
        scheme (2.2.19).

    """
    x_next = state.w - hp.eta * mean_gradient(state.w, env, rng, clients)
    y_next = x_next + hp.beta * (x_next - state.x)
    return NesterovState(y_next, x_next, state.r + 1), step_log(y_next, env, clients)


def companion(hp: HeavyBallHyper, lam: float) -> tuple[float, float]:
    """(a, b) of y_{t+1} = a y_t + b y_{t−1} along an eigenvalue λ of H: ((1 + β)(1 − αλ), −β(1 − αλ))."""
    return (1 + hp.beta) * (1 - hp.eta * lam), -hp.beta * (1 - hp.eta * lam)


def linear_rate(hp: HeavyBallHyper, eigenvalues: Sequence[float]) -> float:
    """max_λ of the largest root modulus of z² − (1 + β)(1 − αλ) z + β(1 − αλ) (quadratic F, exact ∇)."""
    return max(companion_radius(*companion(hp, lam)) for lam in eigenvalues)
