"""Non-federated baselines of FCO Fig. 1 and Fig. 5: ``centralized`` and ``local``.

Both run K (Bregman) proximal gradient steps per round with the problem's (h, ψ):
``centralized`` on the pooled objective F = Σ_m p_m F_m (every client's oracle at the same
point, i.e. the data gathered on one machine), ``local`` on one client's F_m alone, with no
communication.  Metrics are always measured on the federated objective Φ.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fcocheck.solvers.algorithms.base import (
    Counts,
    Env,
    RoundLog,
    ServerState,
    StepHyper,
    hp_field,
)
from fcocheck.solvers.algorithms.primitives import client_weights, init_primal, mirror_step
from fcocheck.solvers.errors import InvalidHyperparameterError
from fcocheck.solvers.problem import Problem

Array = np.ndarray


@dataclass(frozen=True)
class LocalHyper(StepHyper):
    """The centralised baseline's parameters plus the client that trains alone."""

    client: int = hp_field(0, help="index of the client that trains alone, 0 <= client < M")

    def check_client(self, M: int) -> None:
        """0 <= client < M."""
        if isinstance(self.client, bool) or int(self.client) != self.client or not 0 <= self.client < M:
            raise InvalidHyperparameterError(
                f"client = {self.client!r} is invalid; the rule is an integer 0 <= client < M = {M}"
            )


def init(problem: Problem, hp: StepHyper, w0: Array, rng: np.random.Generator) -> ServerState:
    """w_0 (and, for ``local``, a check that the client exists)."""
    if isinstance(hp, LocalHyper):
        hp.check_client(problem.M)
    return init_primal(problem, hp, w0, rng)


def _steps(state: ServerState, hp: StepHyper, env: Env, rng: np.random.Generator,
           clients: Array) -> tuple[ServerState, RoundLog]:
    kern = env.kernel.subset(clients)
    weights = client_weights(env.problem, clients)
    w = state.w
    for _ in range(hp.local_steps):
        g = weights @ env.oracle.grads(kern, np.repeat(w[None, :], kern.size, axis=0), rng)
        w = mirror_step(env, w, g, hp.eta, euclidean=False)
    counts = Counts(grad=len(clients) * hp.local_steps, prox_server=hp.local_steps)
    log = RoundLog.primal(w, counts)
    return ServerState(w, state.r + 1), log


def centralized_round(state: ServerState, hp: StepHyper, env: Env, rng: np.random.Generator,
                      clients: Array) -> tuple[ServerState, RoundLog]:
    """K stochastic (mirror) proximal gradient steps on the pooled data.

    Algorithm:
        w ← ∇(h + ηψ)*(∇h(w) − η Σ_m p_m ∇f(w; ξ^m)), K times per round; every client's oracle
        is queried at the same point (the gathered dataset; no client drift).

    Guarantee:
        Stochastic composite mirror descent with batch M: Φ(w̄_T) − Φ* ≲ B/(ηT) + ησ²/M over
        T = KR steps — the "centralized" reference of FCO Figs. 1 and 5.

    References:
        FCO Fig. 1, §5.3 ("centralized").

    """
    return _steps(state, hp, env, rng, np.arange(env.problem.M))


def local_round(state: ServerState, hp: LocalHyper, env: Env, rng: np.random.Generator,
                clients: Array) -> tuple[ServerState, RoundLog]:
    """K stochastic (mirror) proximal gradient steps on one client's data only.

    Algorithm:
        w ← ∇(h + ηψ)*(∇h(w) − η ∇f(w; ξ^c)) with c = ``client``, K times per round.

    Guarantee:
        Converges (for convex Φ_c = F_c + ψ) to argmin F_c + ψ, not to w*: the gap to Φ*
        plateaus at a level set by the heterogeneity — the "local" baseline of FCO Figs. 1, 5.

    References:
        FCO Fig. 1, §5.3 ("local").

    """
    state, log = _steps(state, hp, env, rng, np.array([hp.client]))
    counts = Counts(grad=log.counts.grad, prox_client=log.counts.prox_server)
    return state, RoundLog(w=log.w, z=None, avg_terms=log.avg_terms, avg_count=1,
                           discrepancy=log.discrepancy, counts=counts)
