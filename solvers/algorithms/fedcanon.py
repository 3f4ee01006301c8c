"""FedCanon (Alg. 1, eqs. 7a–7f) and FedCanon II (Alg. 2): one prox per round."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from fcocheck.solvers.algorithms.base import Counts, Env, RoundLog
from fcocheck.solvers.algorithms.control import (
    ControlHyper,
    ControlState,
    corrected_local,
    weighted_sum_norm,
)
from fcocheck.solvers.algorithms.primitives import client_weights
from fcocheck.solvers.problem import Problem

Array = np.ndarray


class CanonLocal(NamedTuple):
    """What the clients of one FedCanon round produce: g^t and the new controls."""

    g: Array
    controls: Array
    discrepancy: Array


def _clients(state_c: Array, start: Array, hp: ControlHyper, env: Env, rng: np.random.Generator,
             clients: Array) -> CanonLocal:
    """Eqs. 7b–7d and 7f: K corrected steps, normalised uploads, their average, new c_i."""
    kern = env.kernel.subset(clients)
    weights = client_weights(env.problem, clients)
    K, eta_l = hp.local_steps, hp.eta_l
    start = np.asarray(start)
    local = corrected_local(env, kern, rng, start, state_c[clients], weights, K, eta_l, hp.b)
    uploads = (start - local.final) / (eta_l * K)  # (x^t − x_i^{t,K}) / (η_l K), eq. 7c
    g = weights @ uploads  # eq. 7d
    controls = state_c.copy()
    controls[clients] = g[None, :] - local.grad_sum / K  # eq. 7f, the same stochastic gradients
    return CanonLocal(g, controls, local.discrepancy)


def fedcanon_round(state: ControlState, hp: ControlHyper, env: Env, rng: np.random.Generator,
                   clients: Array) -> tuple[ControlState, RoundLog]:
    """One round of FedCanon.

    Algorithm:
        Seed 003 Alg. 1: x_i^{t,0} = x^t; x_i^{t,k+1} = x_i^{t,k} − η_l(∇f_i(x_i^{t,k}; B) + c_i^t);
        g^t = avg_i (x^t − x_i^{t,K})/(η_l K); x^{t+1} = prox_{η_g ψ}(x^t − η_g g^t) (7e, the only
        prox of the round); c_i^{t+1} = g^t − (1/K) Σ_k ∇f_i(x_i^{t,k}; B) (7f).  Σ_i c_i^t = 0
        for every t (p-weighted: Σ_i p_i c_i = 0), logged as ``control_sum`` = ‖Σ_m M p_m c_m‖.
        B averages ``b`` oracle queries.  Under partial participation the average runs over
        S_t with weights p̃ and only sampled clients update c_i; the invariant still holds,
        because Σ_{i∈S} p_i c_i^{t+1} = Σ_{i∈S} p_i c_i^t (tested).  Euclidean: h is ignored.

    Guarantee:
        Seed 003 Thm 1 (non-convex, weakly convex ψ with η_g ρ < 1): (1/T) Σ_t E‖G(x^t)‖² decays
        as O(1/T) to a floor driven by σ²/b and λ B_ψ; Thm 2: linear under proximal PL.

    References:
        Seed 003 §II-B, eqs. 7a–7f, Alg. 1, Remark 4 (η_g = η_l K), Table III (1 prox/round).

    """
    local = _clients(state.c, state.w, hp, env, rng, clients)
    eta_g = hp.canon_eta_g
    w_next = env.problem.psi.prox(state.w - eta_g * local.g, eta_g)
    S, dim = len(clients), env.problem.dim
    counts = Counts(grad=S * hp.local_steps * hp.b, prox_server=1, floats_up=S * dim,
                    floats_down=2 * S * dim)  # x^{t+1} and g^t are broadcast
    extra = {"control_sum": weighted_sum_norm(env.problem, local.controls)}
    log = RoundLog.primal(w_next, counts, discrepancy=local.discrepancy, extra=extra)
    return ControlState(w_next, local.controls, state.server, state.r + 1), log


class CanonIIState(NamedTuple):
    """FedCanon II: every client holds its own copy of the model (M, dim) and its control."""

    w: Array
    models: Array
    c: Array
    r: int


def init_canon2(problem: Problem, hp: ControlHyper, w0: Array, rng: np.random.Generator) -> CanonIIState:
    """Every client starts from the same w_0 (consistency), c_i^0 = 0."""
    w0 = np.array(w0, dtype=float)
    return CanonIIState(w0, np.repeat(w0[None, :], problem.M, axis=0),
                        np.zeros((problem.M, problem.dim)), 0)


def fedcanon2_round(state: CanonIIState, hp: ControlHyper, env: Env, rng: np.random.Generator,
                    clients: Array) -> tuple[CanonIIState, RoundLog]:
    """One round of FedCanon II.

    Algorithm:
        Seed 003 Alg. 2: as FedCanon, but the server broadcasts only g^t and every client
        applies x_i^{t+1} = prox_{η_g ψ}(x_i^t − η_g g^t) to its own copy — M proxes per round,
        one broadcast vector fewer.  Sampled clients start their local steps from their own
        copy.  Clients that start consistent stay identical to FedCanon iterate by iterate;
        the logged ``model_spread`` = max_i ‖x_i − x_0‖ checks it.  The reported server point
        is client 0's copy.

    Guarantee:
        Same iterates as FedCanon (§II-C), hence its Theorems 1–2.

    References:
        Seed 003 §II-C, Alg. 2, Table III (n proxes per round).

    """
    local = _clients(state.c, state.models[clients], hp, env, rng, clients)
    eta_g = hp.canon_eta_g
    models = env.problem.psi.prox(state.models - eta_g * local.g[None, :], eta_g)  # every client
    M, S, dim = env.problem.M, len(clients), env.problem.dim
    counts = Counts(grad=S * hp.local_steps * hp.b, prox_client=M, floats_up=S * dim,
                    floats_down=M * dim)  # only g^t is broadcast, to every client
    extra = {"control_sum": weighted_sum_norm(env.problem, local.controls),
             "model_spread": float(np.max(np.linalg.norm(models - models[0], axis=1)))}
    w = models[0].copy()
    log = RoundLog.primal(w, counts, discrepancy=local.discrepancy, extra=extra)
    return CanonIIState(w, models, local.controls, state.r + 1), log
