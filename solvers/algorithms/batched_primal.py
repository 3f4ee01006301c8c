"""One round of a primal card (FedAvg, FedMiD and its variants; FCO Alg. 1–2) for B runs at once.

B runs of the same primal card (a ``Gradient`` or ``Mirror`` client step, ``Scale`` and ``Trace`` server
transforms — FedAvgM's momentum buffer, one row per run —, an ``Add`` or ``MirrorAdd`` apply) on problems of
the same shape and the same (h, ψ), with full participation, differ in their instance data, their
hyper-parameters and their random streams. Their M clients each are stacked into one client axis of B·M rows
(run i owns rows iM … iM + M − 1), so every per-client operation — the gradient, the client step, ∇h of the
clients' points, the dual-norm rows of the discrepancy — is one numpy call for all runs; every reduction
over clients (Δ_r, z̄, Σ_m p̃_m ‖·‖²_*, the average's density) stays one call per run, the very call
``primitives.primal_round`` and ``primal_local`` make on that run's (M, dim) block:

    w^m_{r,0} = w_r;  w^m_{r,k+1} = step(w^m_{r,k}, g^m_{r,k})                      (rows of every run)
    step(x, g) = x − η_c g  (Gradient)  or  ∇(h + η_cψ)*(∇h(x) − η_c g)  or  ∇h*(∇h(x) − η_c g)  (Mirror)
    Δ_r = Σ_m p̃_m (w^m_{r,K} − w_r);  u_r = η_s Δ_r                                 (FCO Alg. 1–2 line 9)
    (FedAvgM: v_{r+1} = β v_r + Δ_r, u_r = η_s v_{r+1})
    w_{r+1} = w_r + u_r  (Add)  or  ∇(h + Tψ)*(∇h(w_r) + u_r), T = η_s η_c K or none (MirrorAdd, line 10)

A map with a weight t (η_c at the clients, T at the server) is called once per distinct t over the rows
of the runs sharing it (``batched_dual.by_weight``: the maps act row by row), so each run's numbers —
w_{r+1}, the discrepancy at the query points, ``client_density``, ``average_density`` and
``client_support`` — are those of the step-by-step schedule run alone, bit for bit
(``tests/solvers/test_run_batch_primal.py``).  The Gaussian oracle draws each run's noise from that
run's own generator, in the order the run alone draws it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from fcocheck.solvers.algorithms.base import BatchLog, Counts
from fcocheck.solvers.algorithms.batched_dual import (
    BatchEnv,
    batchable_server,
    by_weight,
    per_run,
    run_discrepancies,
    select_states,
    server_transforms,
    stacked_grads,
)
from fcocheck.solvers.card.steps import Add, Gradient, Mirror, MirrorAdd

Array = np.ndarray
CompositeFn = Callable[[Array, Any], Array]


def primal_card(card: Any) -> bool:
    """Whether ``primal_round`` runs this card: the pieces it is written for, no memory, not dual."""
    return (card is not None and not card.dual and card.memory is None
            and type(card.client) in (Gradient, Mirror) and type(card.apply) in (Add, MirrorAdd)
            and batchable_server(card))


class PrimalBatchState(NamedTuple):
    """The server points w_r of B runs, stacked ``(B, dim)``, r, and the transforms' states.

    ``server``: each server transform's state for every run (``batched_dual.server_transforms``: FedAvgM's
    buffers v_r, ``(B, dim)``).
    """

    w: Array
    r: int
    server: tuple

    def select(self, keep: Sequence[int]) -> PrimalBatchState:
        """The states of the runs ``keep`` (positions in the batch), in that order."""
        return PrimalBatchState(self.w[keep], self.r, select_states(self.server, keep))


def _client_steps(env: BatchEnv, W: Array, G: Array, etas: Sequence[float], M: int) -> Array:
    """``card.client(W, G, hp, ops)`` on every run's rows, η_c per row (a map once per distinct η_c)."""
    step = env.card.client
    eta = np.repeat(np.array(etas, dtype=float), M)[:, None]
    if type(step) is Gradient:
        return W - eta * G
    V = env.h.grad(W) - eta * G
    return by_weight(env.composite, V, etas, M, env.weightless) if step.prox else env.h.grad_conj(V)


def _server(env: BatchEnv, w: Array, delta: Array, states: tuple) -> tuple[Array, tuple]:
    """``card.server_step``'s (w_{r+1}, the transforms' states) of every run from its w_r and Δ_r."""
    card, hps = env.card, env.hps
    u, states = server_transforms(card, hps, delta, states)
    apply = card.apply
    if type(apply) is Add:
        return w + u, states
    v = env.h.grad(w) + u
    if apply.weight is None:
        return env.h.grad_conj(v), states
    return by_weight(env.composite, v, [apply.weight(hp) for hp in hps], 1, env.weightless), states


def primal_round(state: PrimalBatchState, env: BatchEnv, rngs: Sequence[np.random.Generator]
                 ) -> tuple[PrimalBatchState, BatchLog]:
    """One round of every run, every client (module docstring; FCO Alg. 1–2).

    Args:
        state: the runs' w_r.
        env: the batch's fixed machinery.
        rngs: each run's oracle generator, in batch order.

    Returns:
        The runs' w_{r+1}, and their log: row i ``primitives.primal_round``'s for run i, bit for bit (the
        discrepancy Σ_m p̃_m ‖z̄ − ∇h(w^m_{r,k})‖²_* at the query points, 0 at k = 0, and the extras
        ``client_density``, ``average_density``, ``client_support``: the non-zero counts over the same
        entries, divided once).

    """
    card, hps = env.card, env.hps
    B, M = env.weights.shape
    dim = state.w.shape[1]
    K = hps[0].local_steps
    etas = [getattr(hp, card.client.eta) for hp in hps]
    W = np.repeat(state.w, M, axis=0)  # w^m_{r,0} = w_r: C-contiguous, as ``primal_local``'s np.repeat
    disc = np.zeros((B, K))
    for k in range(K):
        G = stacked_grads(env.kernel, env.oracle, W, rngs, M)
        if k > 0:
            Z = env.h.grad(W)
            disc[:, k] = run_discrepancies(env.h, env.weights, Z, per_run(env.weights, Z))
        W = _client_steps(env, W, G, etas, M)
    delta = per_run(env.weights, W - np.repeat(state.w, M, axis=0))
    w_next, server = _server(env, state.w, delta, state.server)
    step, d = card.client, env.d
    counts = Counts(grad=M * K, subgrad=step.subgrad_cost * M * K, prox_client=step.prox_cost * M * K,
                    prox_server=card.apply.prox_cost, floats_up=M * dim, floats_down=M * dim)
    average = per_run(env.weights, W)
    final = W.reshape(B, M, dim)[:, :, :d]
    extra = {"client_density": np.count_nonzero(final, axis=(1, 2)) / (M * d),
             "average_density": np.count_nonzero(average[:, :d], axis=1) / d,
             "client_support": np.count_nonzero(final, axis=1) / M}
    log = BatchLog(w=w_next, z=None, avg_terms=w_next, avg_count=1, discrepancy=disc, counts=counts,
                   extra=extra)
    return PrimalBatchState(w_next, state.r + 1, server), log
