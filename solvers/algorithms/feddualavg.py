"""FedDualAvg (FCO Alg. 3) and FedDualAvg-OSP (FCO §5): federated dual averaging."""

from __future__ import annotations

import numpy as np

from fcocheck.solvers.algorithms.base import (
    Counts,
    DualServerState,
    Env,
    FedHyper,
    RoundLog,
    eta_tilde,
)
from fcocheck.solvers.algorithms.fused_steps import conj_spec, map_spec
from fcocheck.solvers.algorithms.primitives import client_weights, dual_local

Array = np.ndarray


def _dual_round(state: DualServerState, hp: FedHyper, env: Env, rng: np.random.Generator,
                clients: Array, proximal_clients: bool) -> tuple[DualServerState, RoundLog]:
    h, r, K = env.problem.h, state.r, hp.local_steps
    kern = env.kernel.subset(clients)
    weights = client_weights(env.problem, clients)

    def client_map(Z: Array, k: int) -> Array:
        if proximal_clients:
            return env.composite(Z, eta_tilde(hp.eta_s, hp.eta_c, r, K, k))
        return h.grad_conj(Z)

    def shadow_map(zbar: Array, k: int) -> Array:
        return env.composite(zbar, eta_tilde(hp.eta_s, hp.eta_c, r, K, k))

    dim = env.problem.dim
    spec = map_spec(h, env.problem.psi, dim) if proximal_clients else conj_spec(h, dim)
    ts = np.array([eta_tilde(hp.eta_s, hp.eta_c, r, K, k) if proximal_clients else 0.0 for k in range(K)])
    local = dual_local(env, kern, rng, state.z, weights, K, hp.eta_c, client_map, shadow_map, (spec, ts))
    delta = weights @ (local.final - state.z[None, :])
    z_next = state.z + hp.eta_s * delta
    w_next = env.composite(z_next, eta_tilde(hp.eta_s, hp.eta_c, r + 1, K, 0))
    S, dim = len(clients), env.problem.dim
    counts = Counts(grad=S * K, prox_client=S * K if proximal_clients else 0, prox_server=1,
                    floats_up=S * dim, floats_down=S * dim)
    log = RoundLog(w=w_next, z=z_next, avg_terms=local.avg_terms, avg_count=K,
                   discrepancy=local.discrepancy, counts=counts, steps=local.steps)
    return DualServerState(z_next, w_next, r + 1), log


def feddualavg_round(state: DualServerState, hp: FedHyper, env: Env, rng: np.random.Generator,
                     clients: Array) -> tuple[DualServerState, RoundLog]:
    """One round of Federated Dual Averaging.

    Algorithm:
        FCO Alg. 3: z^m_{r,0} = z_r; for k < K: η̃_{r,k} = η_s η_c r K + η_c k,
        w^m_{r,k} = ∇(h + η̃_{r,k} ψ)*(z^m_{r,k}), z^m_{r,k+1} = z^m_{r,k} − η_c g^m_{r,k};
        Δ_r = avg_{m∈S_r}(z^m_{r,K} − z^m_{r,0}); z_{r+1} = z_r + η_s Δ_r;
        w_{r+1} = ∇(h + η_s η_c (r+1) K ψ)*(z_{r+1}).
        Logged: the dual shadow z̄_{r,k} = avg_m z^m_{r,k}, the primal images
        ∇(h + η̃_{r,k}ψ)*(z̄_{r,k}) (k = 1..K) whose average is ŵ (eq. 4.2), and the discrepancy.

    Guarantee:
        Thm 4.1 (small η_c): LB/R + σB^{1/2}/(MKR)^{1/2}.  Thm 4.2 (η_s = 1, η_c ≤ 1/(4L),
        ‖∇f‖_* ≤ G): E Φ(ŵ) − Φ* ≲ B/(η_c K R) + η_c σ²/M + η_c² L K² G².  Thm 4.3 (quadratic F,
        heterogeneity ζ): B/(η_c K R) + η_c σ²/M + η_c² L K σ² + η_c² L K² ζ².  With η_s = 1 the
        shadow obeys z̄_{r,k+1} = z̄_{r,k} − η_c avg_m g^m_{r,k} exactly (eq. 4.5).

    References:
        FCO Alg. 3, §3.3, eq. 4.2, eq. 4.5, Thms 4.1–4.3, Lemmas 4.4–4.5.

    """
    return _dual_round(state, hp, env, rng, clients, proximal_clients=True)


def feddualavg_osp_round(state: DualServerState, hp: FedHyper, env: Env, rng: np.random.Generator,
                         clients: Array) -> tuple[DualServerState, RoundLog]:
    """One round of FedDualAvg-OSP: ψ-free clients (w^m_{r,k} = ∇h*(z^m_{r,k})), FedDualAvg server.

    Algorithm:
        As FCO Alg. 3 with line 9 replaced by w^m_{r,k} = ∇h*(z^m_{r,k}); the server keeps
        z_{r+1} = z_r + η_s Δ_r and w_{r+1} = ∇(h + η_s η_c (r+1) K ψ)*(z_{r+1}).

    Guarantee:
        None: the paper calls it unprincipled — its clients optimise F without ψ, so the
        server's sparse/low-rank output is "far less accurate" (FCO Figs. 4–5).

    References:
        FCO §5 (ablation "FedDualAvg-OSP"), Figs. 3–5.

    """
    return _dual_round(state, hp, env, rng, clients, proximal_clients=False)
