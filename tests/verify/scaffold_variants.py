"""A user's SCAFFOLD written from the paper, and three mutants with the bugs public FL codebases
keep shipping.  Written independently of ``solvers/algorithms/scaffold.py`` (one loop per client).

* ``sign``:   c_i⁺ = c_i − c − (x − y_i)/(Kη_l)   (the correction's sign flipped);
* ``steps``:  c_i⁺ = c_i − c + (x − y_i)/η_l       (the K local steps forgotten);
* ``server``: c ← c + avg_{i∈S}(c_i⁺ − c_i)        (|S|/N dropped: the sampled average).
"""

from __future__ import annotations

import numpy as np

from fcocheck.solvers.algorithms.base import Counts, RoundLog
from fcocheck.solvers.algorithms.control import ControlHyper, ControlState, init_controls
from fcocheck.verify.user import register


def make_round(bug: str | None):
    def scaffold_round(state: ControlState, hp: ControlHyper, env, rng, clients):
        p = env.problem
        kern = env.kernel.subset(clients)
        K, eta, S = hp.local_steps, hp.eta_l, len(clients)
        Y = np.repeat(state.w[None, :], S, axis=0)
        for _ in range(K):
            G = env.oracle.grads(kern, Y, rng)
            Y = Y - eta * (G - state.c[clients] + state.server[None, :])
        scale = eta if bug == "steps" else K * eta
        sign = -1.0 if bug == "sign" else 1.0
        c_new = state.c[clients] - state.server[None, :] + sign * (state.w[None, :] - Y) / scale
        pw = p.weights[clients] / p.weights[clients].sum()
        w = state.w + hp.scaffold_eta_g * (pw @ (Y - state.w[None, :]))
        delta = c_new - state.c[clients]
        server = state.server + (pw @ delta if bug == "server" else p.weights[clients] @ delta)
        c = state.c.copy()
        c[clients] = c_new
        extra = {"control_gap": float(np.linalg.norm(server - p.weights @ c))}
        log = RoundLog.primal(
            w, Counts(grad=S * K, floats_up=2 * S * p.dim, floats_down=2 * S * p.dim), extra=extra
        )
        return ControlState(w, c, server, state.r + 1), log

    return scaffold_round


def variant(bug: str | None):
    name = "my-scaffold" if bug is None else f"my-scaffold-{bug}"
    return register(
        name,
        init=init_controls,
        round=make_round(bug),
        hyper=ControlHyper,
        equivalent_to="scaffold",
        expects={"A": "holds"},
    )
