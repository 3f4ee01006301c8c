"""A user's FedProx (Li et al. 2020), an algorithm with no twin in the registry, and five mutants.

Client m runs K gradient steps on F_m(w) + (μ/2)‖w − w_r‖²; the server averages with weights n_m/n:

* ``sign``:      the proximal term's sign flipped, −μ(w − w_r);
* ``average``:   the server keeps the first sampled client's model (the average forgotten);
* ``uniform``:   uniform weights 1/|S| instead of n_m/n;
* ``step``:      K − 1 local steps (one forgotten);
* ``twice``:     the proximal term applied twice (2μ);
* ``origin``:    the proximal term anchored at 0, μ‖w‖²/2, instead of at the server model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

from fcocheck.solvers.algorithms.base import Counts, FedHyper, RoundLog, ServerState, hp_field
from fcocheck.verify.relations import LocalObjective
from fcocheck.verify.user import register


@dataclass(frozen=True)
class FedProxHyper(FedHyper):
    """FedAvg's (η_c, η_s, K) and the proximal weight μ ≥ 0."""

    mu: float = hp_field(0.0, help="proximal weight μ >= 0")


def init(problem, hp, w0, rng):
    return ServerState(np.array(w0, dtype=float), 0)


def make_round(bug: str | None):
    def fedprox_round(state, hp, env, rng, clients):
        kern = env.kernel.subset(clients)
        S, dim = len(clients), env.problem.dim
        p = env.problem.weights[clients]
        p = np.full(S, 1.0 / S) if bug == "uniform" else p / p.sum()
        mu = {"sign": -hp.mu, "twice": 2 * hp.mu}.get(bug, hp.mu)
        K = hp.local_steps - 1 if bug == "step" else hp.local_steps
        W = np.repeat(state.w[None, :], S, axis=0)
        for _ in range(K):
            G = env.oracle.grads(kern, W, rng)
            anchor = 0.0 if bug == "origin" else state.w[None, :]
            W = W - hp.eta_c * (G + mu * (W - anchor))
        avg = W[0] if bug == "average" else p @ W
        w_next = state.w + hp.eta_s * (avg - state.w)
        counts = Counts(grad=S * hp.local_steps, floats_up=S * dim, floats_down=S * dim)
        return ServerState(w_next, state.r + 1), RoundLog.primal(w_next, counts)

    return fedprox_round


def strategy(L: float, L_sample: float):
    """μ from 0 to 10L, η_c = c/(L + μ) with c ≤ ½, K ≤ 4, η_s = 1."""
    return st.sampled_from([0.0, 0.1, 1.0, 10.0]).flatmap(
        lambda m: st.fixed_dictionaries(
            {
                "mu": st.just(m * L),
                "eta_c": st.sampled_from([0.5, 0.25, 0.1]).map(lambda c: c / (L + m * L)),
                "eta_s": st.just(1.0),
                "local_steps": st.integers(1, 4),
            }
        )
    )


def variant(bug: str | None):
    return register(
        "my-fedprox" + (f"-{bug}" if bug else ""),
        init=init,
        round=make_round(bug),
        hyper=FedProxHyper,
        hyper_strategy=strategy,
        solves_composite=False,
        uses_composite=False,
        split_invariant=True,
        shrinks_with=("mu",),
        reduces_to=(({"mu": 0.0}, "fedavg", lambda hp: {k: v for k, v in hp.items() if k != "mu"}),),
        local_objective=LocalObjective(lambda w, anchor, hp: hp["mu"] * (w - anchor)),
    )
