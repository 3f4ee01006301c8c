"""Sequential references (FCO §2): PGM (2.1), mirror descent (2.2–2.3), dual averaging (2.4).

One step per round.  The stochastic gradient of F at w is Σ_{m∈S} p̃_m of K independent
oracle queries per sampled client (a minibatch of |S|·K): with K = 1 these are the plain
stochastic methods on F; with K > 1 ``mirror-descent`` (alias ``minibatch-pgm``) is the
minibatch comparator of Thm 4.1 — R steps with batch M·K.
"""

from __future__ import annotations

import numpy as np

from fcocheck.solvers.algorithms.base import (
    Counts,
    DualServerState,
    Env,
    RoundLog,
    ServerState,
    StepHyper,
)
from fcocheck.solvers.algorithms.primitives import client_weights, mean_oracle, mirror_step

Array = np.ndarray




def _gradient(state, hp: StepHyper, env: Env, rng: np.random.Generator, clients: Array):
    kern = env.kernel.subset(clients)
    W = np.repeat(state.w[None, :], kern.size, axis=0)
    g = client_weights(env.problem, clients) @ mean_oracle(env, kern, rng, W, hp.local_steps)
    S, dim = len(clients), env.problem.dim
    counts = Counts(grad=S * hp.local_steps, prox_server=1, floats_up=S * dim, floats_down=S * dim)
    return g, counts


def _md_round(state: ServerState, hp: StepHyper, env: Env, rng: np.random.Generator,
              clients: Array, euclidean: bool) -> tuple[ServerState, RoundLog]:
    g, counts = _gradient(state, hp, env, rng, clients)
    w_next = mirror_step(env, state.w, g, hp.eta, euclidean)
    steps = {"grad_avg": g[None, :]} if env.record_steps else {}
    log = RoundLog.primal(w_next, counts, steps=steps)
    return ServerState(w_next, state.r + 1), log


def pgm_round(state: ServerState, hp: StepHyper, env: Env, rng: np.random.Generator,
              clients: Array) -> tuple[ServerState, RoundLog]:
    """One step of stochastic proximal gradient.

    Algorithm:
        FCO eq. 2.1: w_{t+1} = prox_{ηψ}(w_t − η g_t), g_t = Σ_{m∈S} p̃_m (1/K) Σ_j ∇f(w_t; ξ^m_j).
        h is taken Euclidean whatever the problem's mirror map.

    Guarantee:
        Convex L-smooth F, η ≤ 1/L: E Φ(w̄_R) − Φ* ≤ ‖w_0 − w*‖²/(2ηR) + ησ²/(MK)
        (minibatch SPGM; the R-step, batch-MK comparator of Thm 4.1).

    References:
        FCO §2 eq. 2.1; Thm 4.1 (comparator).

    """
    return _md_round(state, hp, env, rng, clients, euclidean=True)


def mirror_descent_round(state: ServerState, hp: StepHyper, env: Env, rng: np.random.Generator,
                         clients: Array) -> tuple[ServerState, RoundLog]:
    """One step of stochastic (composite) mirror descent / Bregman proximal gradient.

    Algorithm:
        FCO eqs. 2.2–2.3: w_{t+1} = ∇(h + ηψ)*(∇h(w_t) − η g_t), g_t as in ``pgm``.

    Guarantee:
        Convex L-smooth F (relative to h's norm), η ≤ 1/L:
        E Φ(w̄_R) − Φ* ≲ D_h(w*, w_0)/(ηR) + ησ²/(MK); tuned, LB/R + σB^{1/2}/(MKR)^{1/2} — the
        minibatch rate FedMiD and FedDualAvg match in Thm 4.1.

    References:
        FCO §2 eqs. 2.2–2.3, Thm 4.1.

    """
    return _md_round(state, hp, env, rng, clients, euclidean=False)


def dual_averaging_round(state: DualServerState, hp: StepHyper, env: Env, rng: np.random.Generator,
                         clients: Array) -> tuple[DualServerState, RoundLog]:
    """One step of stochastic (regularised) dual averaging.

    Algorithm:
        FCO eq. 2.4: w_t = ∇(h + ηtψ)*(z_t), z_{t+1} = z_t − η g_t, z_0 = ∇h(w_0).

    Guarantee:
        Convex L-smooth F, η ≤ 1/L: the same minibatch rate as mirror descent
        (Xiao 2010; FCO Thm 4.1 with M = K = 1 and η_s = 1).

    References:
        FCO §2 eq. 2.4; Nesterov (2009), Xiao (2010).

    """
    g, counts = _gradient(state, hp, env, rng, clients)
    z_next = state.z - hp.eta * g
    w_next = env.composite(z_next, hp.eta * (state.r + 1))
    steps = {"grad_avg": g[None, :]} if env.record_steps else {}
    log = RoundLog(w=w_next, z=z_next, avg_terms=w_next, avg_count=1, discrepancy=np.zeros(0),
                   counts=counts, steps=steps)
    return DualServerState(z_next, w_next, state.r + 1), log
