"""SCAFFOLD, Option II (Karimireddy et al. 2020, Alg. 1; docs/baselines.md)."""

from __future__ import annotations

import numpy as np

from fcocheck.solvers.algorithms.base import Counts, Env, RoundLog
from fcocheck.solvers.algorithms.control import ControlHyper, ControlState, corrected_local
from fcocheck.solvers.algorithms.primitives import client_weights

Array = np.ndarray


def scaffold_round(state: ControlState, hp: ControlHyper, env: Env, rng: np.random.Generator,
                   clients: Array) -> tuple[ControlState, RoundLog]:
    """One round of SCAFFOLD, Option II.

    Algorithm:
        Karimireddy et al. 2020 Alg. 1 (docs/baselines.md): y_i = x; K steps
        y_i ← y_i − η_l(g_i(y_i) − c_i + c); c_i⁺ = c_i − c + (x − y_i)/(K η_l);
        x ← x + η_g avg_{i∈S} (y_i − x); c ← c + Σ_{i∈S} p_i (c_i⁺ − c_i) (p_i = 1/N: the
        paper's (1/N) Σ_{i∈S}).  ψ is not used (smooth method, as published); the invariant
        c = Σ_i p_i c_i (full participation) is logged as ``control_gap``.

    Guarantee:
        Karimireddy et al. 2020 Thm III (convex/non-convex smooth F), independent of ζ.
        With ψ = 0 and full participation FedCanon with c_i = c − c_i(SCAFFOLD) and
        η_g(FedCanon) = η_g η_l K produces the same iterates (tested).

    References:
        docs/baselines.md; Karimireddy et al., ICML 2020, Alg. 1 Option II.

    """
    p = env.problem
    kern = env.kernel.subset(clients)
    weights = client_weights(p, clients)
    K, eta_l = hp.local_steps, hp.eta_l
    corr = state.server[None, :] - state.c[clients]
    local = corrected_local(env, kern, rng, state.w, corr, weights, K, eta_l, hp.b)
    c_new = state.c[clients] - state.server[None, :] + (state.w - local.final) / (K * eta_l)
    delta_y = weights @ (local.final - state.w)
    w_next = state.w + hp.scaffold_eta_g * delta_y
    server = state.server + p.weights[clients] @ (c_new - state.c[clients])
    controls = state.c.copy()
    controls[clients] = c_new
    S, dim = len(clients), p.dim
    counts = Counts(grad=S * K * hp.b, floats_up=2 * S * dim, floats_down=2 * S * dim)
    extra = {"control_gap": float(np.linalg.norm(server - p.weights @ controls))}
    log = RoundLog.primal(w_next, counts, discrepancy=local.discrepancy, extra=extra)
    return ControlState(w_next, controls, server, state.r + 1), log
