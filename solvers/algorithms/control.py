"""Shared pieces of the control-variate methods (FedCanon, SCAFFOLD, ZA1, Scaffnew).

``ControlHyper`` holds the step names FedCanon and SCAFFOLD share (η_l, η_g, K, b);
``ControlState`` the server point, the per-client control variables ``c`` (M, dim) and,
where the method needs it, a server control or correction; ``corrected_local`` runs K local
steps ``x ← x − η_l (g_i(x) + corr_i)`` and returns the sum of the stochastic gradients used,
which the control updates reuse (the same gradients as the local steps).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from fcocheck.solvers.algorithms.base import Env, hp_field, positive_int, positive_step
from fcocheck.solvers.algorithms.primitives import mean_oracle
from fcocheck.solvers.errors import InvalidStepSizeError
from fcocheck.solvers.kernels import Kernel

Array = np.ndarray


@dataclass(frozen=True)
class ControlHyper:
    """Step sizes of FedCanon and SCAFFOLD (names as in their papers)."""

    eta_l: float = hp_field(help="local step size η_l > 0")
    eta_g: float = hp_field(0.0, help="global step size η_g > 0 (0 selects the default: FedCanon "
                                      "Remark 4's η_l·K; SCAFFOLD's 1)")
    local_steps: int = hp_field(1, help="local steps per round K >= 1")
    b: int = hp_field(1, help="oracle queries averaged per local step (batch b with minibatch:1)")

    def check(self) -> None:
        """η_l > 0, η_g ≥ 0 (0 = default), K ≥ 1, b ≥ 1."""
        positive_step("eta_l", self.eta_l)
        if not (np.isfinite(self.eta_g) and self.eta_g >= 0):
            raise InvalidStepSizeError(f"eta_g = {self.eta_g!r} is invalid; the rule is eta_g > 0 "
                                       "(or 0 for the default)")
        positive_int("local_steps", self.local_steps)
        positive_int("b", self.b)

    @property
    def canon_eta_g(self) -> float:
        """η_g of FedCanon: the given value, else Remark 4's η_l·K."""
        return self.eta_g or self.eta_l * self.local_steps

    @property
    def scaffold_eta_g(self) -> float:
        """η_g of SCAFFOLD: the given value, else 1."""
        return self.eta_g or 1.0

    def weights(self, rounds: int, growing: bool) -> list[float]:
        """The prox weight of FedCanon's server step, t = η_g."""
        return [self.canon_eta_g]


class ControlState(NamedTuple):
    """Server point w, per-client controls c (M, dim), server control (SCAFFOLD) and r."""

    w: Array
    c: Array
    server: Array
    r: int


def init_controls(problem, hp, w0: Array, rng: np.random.Generator) -> ControlState:
    """w_0, c_i^0 = 0 (so Σ_i c_i^0 = 0), server control 0."""
    w0 = np.array(w0, dtype=float)
    return ControlState(w0, np.zeros((problem.M, problem.dim)), np.zeros(problem.dim), 0)


class Local(NamedTuple):
    """Result of K corrected local steps: final points, Σ_k g_k, discrepancy per step."""

    final: Array
    grad_sum: Array
    discrepancy: Array


def euclidean_discrepancy(weights: Array, X: Array) -> float:
    """Σ_i p̃_i ‖x̄ − x_i‖², x̄ = Σ p̃_i x_i (client drift of primal methods)."""
    xbar = weights @ X
    return float(weights @ np.sum((X - xbar) ** 2, axis=1))


def corrected_local(env: Env, kern: Kernel, rng: np.random.Generator, start: Array, corr: Array,
                    weights: Array, K: int, step: float, batch: int) -> Local:
    """K steps X ← X − step·(g(X) + corr) from X = start on every served client.

    Args:
        env: run environment.
        kern: kernel over the served clients.
        rng: oracle stream.
        start: ``(dim,)`` common start or ``(S, dim)`` per-client starts.
        corr: per-client corrections ``(S, dim)`` (FedCanon c_i; SCAFFOLD c − c_i).
        weights: aggregation weights p̃ for the discrepancy.
        K: local steps.
        step: η_l.
        batch: oracle queries averaged per step.

    """
    X = np.array(np.broadcast_to(start, corr.shape), dtype=float)
    gsum = np.zeros_like(X)
    disc = np.zeros(K)
    for k in range(K):
        if k > 0:
            disc[k] = euclidean_discrepancy(weights, X)
        G = mean_oracle(env, kern, rng, X, batch)
        gsum += G
        X = X - step * (G + corr)
    return Local(X, gsum, disc)


def weighted_sum_norm(problem, C: Array) -> float:
    """‖Σ_m M p_m c_m‖₂ — ‖Σ_m c_m‖ for uniform weights (the FedCanon invariant's residual)."""
    return float(np.linalg.norm(problem.M * (problem.weights @ C)))
