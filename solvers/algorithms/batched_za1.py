"""One ZA1 round (``za1.za1_round``) for B runs at once, with a leading runs axis.

B runs of ZA1 on problems of the same shape and the same ψ, with full participation, the same τ and
oracle, differ in their instance data, their step sizes (η, η_g) and their random streams.  Their M
clients each are stacked into one client axis of B·M rows (run i owns rows iM … iM + M − 1): the server
points x_r and corrections corr_r ``(B, dim)``, the clients' last mean gradients ``(B·M, dim)``.  Every
per-client operation — the oracle, the corrected step, the client prox — is one numpy call for all runs
(a prox once for every weight when ψ is separable: ``batched_dual.by_weight``); every reduction over
clients (the drift, avg_i ẑ_i^τ) is each run's own call on its ``(M, dim)`` block, made for all runs by
one stacked matmul (``batched_dual.stacked_dot``):

    c_i = corr_r − ḡ_i;  ẑ^0 = z^0 = x_r;  ẑ^{t+1} = ẑ^t − η(∇f_i(z^t) + c_i)
    z^{t+1} = prox_{(t+1)ηψ}(ẑ^{t+1})                                             (all rows)
    x̂_{r+1} = x_r + η_g(avg_i ẑ_i^τ − x_r);  x_{r+1} = prox_{ηη_gτψ}(x̂_{r+1});  corr_{r+1} = (x_r − x̂)/(η_gητ)

The Gaussian oracle draws each run's noise from that run's own generator, in the order the run alone
draws it.  Each run's numbers are those of ``za1_round`` run alone, bit for bit
(``tests/solvers/test_run_batch_za1.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from fcocheck.solvers.algorithms.base import BatchLog, Counts
from fcocheck.solvers.algorithms.batched_canon import drift
from fcocheck.solvers.algorithms.batched_dual import by_weight, per_run, stacked_grads
from fcocheck.solvers.algorithms.za1 import ZA1Hyper
from fcocheck.solvers.kernels import Kernel
from fcocheck.solvers.oracles import Oracle

Array = np.ndarray


class ZA1BatchState(NamedTuple):
    """The runs' x_r and corr_r ``(B, dim)``, their clients' last mean gradients ``(B·M, dim)``, and r."""

    w: Array
    corr: Array
    mean_grads: Array
    r: int

    def select(self, keep: Sequence[int]) -> ZA1BatchState:
        """The states of the runs ``keep`` (positions in the batch), in that order."""
        M = len(self.mean_grads) // len(self.w)
        rows = np.concatenate([np.arange(i * M, (i + 1) * M) for i in keep])
        return ZA1BatchState(self.w[keep], self.corr[keep], self.mean_grads[rows], self.r)


class ZA1BatchEnv(NamedTuple):
    """What a batched ZA1 round reads, fixed for the batch.

    Attributes:
        hps: each run's hyper-parameters (a common τ).
        kernel: the gradient kernel over the B·M stacked clients (``batched_dual.stacked_kernel``).
        weights: p̃ of each run's clients, ``(B, M)``.
        psi: the runs' common regulariser.
        oracle: the runs' common oracle (exact, Gaussian or minibatch).
        eta: each row's η, ``(B·M, 1)``.

    """

    hps: tuple[ZA1Hyper, ...]
    kernel: Kernel
    weights: Array
    psi: Any
    oracle: Oracle
    eta: Array


def za1_env(hps: Sequence[ZA1Hyper], kernel: Kernel, weights: Array, psi: Any, oracle: Oracle) -> ZA1BatchEnv:
    """``ZA1BatchEnv`` with each row's η formed once for the batch."""
    M = weights.shape[1]
    eta = np.repeat(np.array([hp.eta for hp in hps], dtype=float), M)[:, None]
    return ZA1BatchEnv(tuple(hps), kernel, weights, psi, oracle, eta)


def za1_batch_round(state: ZA1BatchState, env: ZA1BatchEnv, rngs: Sequence[np.random.Generator]
                    ) -> tuple[ZA1BatchState, BatchLog]:
    """One ZA1 round of every run, every client (module docstring).

    Args:
        state: the runs' x_r, corr_r and their clients' last mean gradients.
        env: the batch's fixed machinery.
        rngs: each run's oracle generator, in batch order.

    Returns:
        The runs' next state, and their log: row i ``za1_round``'s for run i, bit for bit (x_{r+1}; the
        drift Σ_i p̃_i ‖z̄ − z_i‖² at the query points, 0 at t = 0).

    """
    hps, psi = env.hps, env.psi
    B, M = env.weights.shape
    dim = state.w.shape[1]
    tau = hps[0].local_steps
    C = np.repeat(state.corr, M, axis=0) - state.mean_grads  # c_i = corr_r − ḡ_i
    Zhat = np.repeat(state.w, M, axis=0)  # ẑ^0 = x_r: C-contiguous, as the run alone's np.repeat
    Z = Zhat
    gsum = np.zeros_like(Zhat)
    disc = np.zeros((B, tau))
    for t in range(tau):
        if t > 0:
            disc[:, t] = drift(env.weights, Z)
        G = stacked_grads(env.kernel, env.oracle, Z, rngs, M)
        gsum += G
        Zhat = Zhat - env.eta * (G + C)
        Z = by_weight(psi.prox, Zhat, [(t + 1) * hp.eta for hp in hps], M, rowwise=psi.separable)
    eta_g = np.array([hp.eta_g for hp in hps])[:, None]
    xhat = state.w + eta_g * (per_run(env.weights, Zhat) - state.w)
    w_next = by_weight(psi.prox, xhat, [hp.eta * hp.eta_g * tau for hp in hps], 1, rowwise=psi.separable)
    corr = (state.w - xhat) / np.array([hp.eta_g * hp.eta * tau for hp in hps])[:, None]
    counts = Counts(grad=M * tau, prox_client=M * tau, prox_server=1, floats_up=M * dim,
                    floats_down=2 * M * dim)  # x_r and corr_r
    log = BatchLog(w=w_next, z=None, avg_terms=w_next, avg_count=1, discrepancy=disc, counts=counts)
    return ZA1BatchState(w_next, corr, gsum / tau, state.r + 1), log
