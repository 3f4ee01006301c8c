"""FedAvg (FCO Alg. 1) and FedAvg(∂) (FCO Fig. 1): local SGD with periodic averaging."""

from __future__ import annotations

import numpy as np

from fcocheck.solvers.algorithms.base import Env, FedHyper, RoundLog, ServerState
from fcocheck.solvers.algorithms.fused_steps import IDENTITY, MapSpec
from fcocheck.solvers.algorithms.primitives import primal_round

Array = np.ndarray


def _server(hp: FedHyper):
    return lambda w, delta: w + hp.eta_s * delta


def fedavg_round(state: ServerState, hp: FedHyper, env: Env, rng: np.random.Generator,
                 clients: Array) -> tuple[ServerState, RoundLog]:
    """One round of FedAvg; ψ is ignored (it solves min F, not min F + ψ).

    Algorithm:
        FCO Alg. 1: w^m_{r,0} = w_r; w^m_{r,k+1} = w^m_{r,k} − η_c g^m_{r,k} for k < K;
        Δ_r = avg_{m∈S_r}(w^m_{r,K} − w^m_{r,0}); w_{r+1} = w_r + η_s Δ_r.

    Guarantee:
        For ψ = 0 and convex L-smooth F it is the Euclidean, ψ-free case of FedMiD and
        FedDualAvg, so Thm 4.1 applies; with ψ ≠ 0 it has no guarantee for Φ (its iterates
        are never sparse — the point of FCO Fig. 1).

    References:
        Yuan, Zaheer, Reddi, Federated Composite Optimization (ICML 2021), Alg. 1, §3.

    """
    return primal_round(state, hp, env, rng, clients, lambda W, G: W - hp.eta_c * G,
                        _server(hp), prox_client=0, prox_server=0,
                        compiled=MapSpec(IDENTITY, 0.0, env.problem.dim))


def fedavg_subgradient_round(state: ServerState, hp: FedHyper, env: Env, rng: np.random.Generator,
                             clients: Array) -> tuple[ServerState, RoundLog]:
    """One round of FedAvg(∂): local steps along g + ∂ψ(w), plain averaging.

    Algorithm:
        As FCO Alg. 1 with the client step w^m_{r,k+1} = w^m_{r,k} − η_c (g^m_{r,k} + s^m_{r,k}),
        s^m_{r,k} ∈ ∂ψ(w^m_{r,k}) (one subgradient, ``psi.subgradient``).

    Guarantee:
        Subgradient-method rate O(1/√(KR)) at best for convex Φ with bounded subgradients;
        no iterate is ever exactly sparse (FCO Fig. 1, "FEDAVG (∂)").

    References:
        FCO §1 and Fig. 1 (baseline "FedAvg (∂)").

    """
    psi = env.problem.psi
    return primal_round(state, hp, env, rng, clients,
                        lambda W, G: W - hp.eta_c * (G + psi.subgradient(W)),
                        _server(hp), prox_client=0, prox_server=0, subgrad=1)
