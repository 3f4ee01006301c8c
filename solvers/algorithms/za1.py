"""ZA1: decoupled prox with drift correction (Zhang, Hu, Johansson, ICASSP 2024; docs/baselines.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from fcocheck.solvers.algorithms.base import Counts, Env, RoundLog, hp_field, positive_int, positive_step
from fcocheck.solvers.algorithms.control import euclidean_discrepancy
from fcocheck.solvers.algorithms.primitives import client_weights
from fcocheck.solvers.problem import Problem

Array = np.ndarray


@dataclass(frozen=True)
class ZA1Hyper:
    """η (local), η_g (server) and τ local steps."""

    eta: float = hp_field(help="local step size η > 0")
    eta_g: float = hp_field(1.0, help="server step size η_g > 0")
    local_steps: int = hp_field(1, help="local steps per round τ >= 1")

    def check(self) -> None:
        """η > 0, η_g > 0, τ ≥ 1."""
        positive_step("eta", self.eta)
        positive_step("eta_g", self.eta_g)
        positive_int("local_steps", self.local_steps)

    def weights(self, rounds: int, growing: bool) -> list[float]:
        """Client prox weights (t+1)η up to τη, and the server's η η_g τ."""
        return [self.eta * self.local_steps, self.eta * self.eta_g * self.local_steps]


class ZA1State(NamedTuple):
    """Post-prox server point x_r, correction corr_r, each client's last mean gradient."""

    w: Array
    corr: Array
    mean_grads: Array
    r: int


def init_za1(problem: Problem, hp: ZA1Hyper, w0: Array, rng: np.random.Generator) -> ZA1State:
    """x_0 = w_0, corr_0 = 0 and zero previous gradients (so c_i^0 = 0)."""
    w0 = np.array(w0, dtype=float)
    return ZA1State(w0, np.zeros(problem.dim), np.zeros((problem.M, problem.dim)), 0)


def za1_round(state: ZA1State, hp: ZA1Hyper, env: Env, rng: np.random.Generator,
              clients: Array) -> tuple[ZA1State, RoundLog]:
    """One round of ZA1 (docs/baselines.md form; medium confidence in the prox scaling).

    Algorithm:
        c_i = corr_r − (1/τ) Σ_t ∇f_i(z_i^t of the previous round);  ẑ^0 = z^0 = x_r;
        ẑ^{t+1} = ẑ^t − η(∇f_i(z^t) + c_i); z^{t+1} = prox_{(t+1)ηψ}(ẑ^{t+1}); send ẑ^τ.
        Server: x̂_{r+1} = x_r + η_g(avg_i ẑ_i^τ − x_r); x_{r+1} = prox_{η η_g τ ψ}(x̂_{r+1});
        corr_{r+1} = (x_r − x̂_{r+1})/(η_g η τ).  The client prox weight (t+1)η is the
        algebraically consistent reading of the sources' α_t (uncertain, docs/baselines.md).

    Guarantee:
        Zhang et al. 2024: convergence for convex composite FL without bounded heterogeneity
        (constants not restated here).

    References:
        docs/baselines.md (ZA1); FedCanon Table III (n·τ client proxes).

    """
    p = env.problem
    kern = env.kernel.subset(clients)
    weights = client_weights(p, clients)
    tau, eta = hp.local_steps, hp.eta
    C = state.corr[None, :] - state.mean_grads[clients]
    Zhat = np.repeat(state.w[None, :], len(clients), axis=0)
    Z = Zhat
    gsum = np.zeros_like(Zhat)
    disc = np.zeros(tau)
    for t in range(tau):
        if t > 0:
            disc[t] = euclidean_discrepancy(weights, Z)
        G = env.oracle.grads(kern, Z, rng)
        gsum += G
        Zhat = Zhat - eta * (G + C)
        Z = p.psi.prox(Zhat, (t + 1) * eta)
    xhat = state.w + hp.eta_g * (weights @ Zhat - state.w)
    w_next = p.psi.prox(xhat, eta * hp.eta_g * tau)
    corr = (state.w - xhat) / (hp.eta_g * eta * tau)
    mean_grads = state.mean_grads.copy()
    mean_grads[clients] = gsum / tau
    S, dim = len(clients), p.dim
    counts = Counts(grad=S * tau, prox_client=S * tau, prox_server=1, floats_up=S * dim,
                    floats_down=2 * S * dim)  # x_r and corr_r
    log = RoundLog.primal(w_next, counts, discrepancy=disc)
    return ZA1State(w_next, corr, mean_grads, state.r + 1), log
