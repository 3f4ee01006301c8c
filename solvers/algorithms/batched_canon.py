"""One FedCanon round (Seed 003 Alg. 1, eqs. 7a–7f) for B runs at once, with a leading runs axis.

B runs of FedCanon on problems of the same shape and the same ψ, with full participation, the same K, b
and oracle, differ in their instance data, their step sizes (η_l, η_g) and their random streams.  Their M
clients each are stacked into one client axis of B·M rows (run i owns rows iM … iM + M − 1): the server
points x^t ``(B, dim)``, the controls c_i^t ``(B·M, dim)``.  Every per-client operation — the oracle at
x_i^{t,k}, the corrected step, the upload, the new control — is one numpy call for all runs; every
reduction over clients (the drift Σ_i p̃_i ‖x̄ − x_i‖², g^t = Σ_i p̃_i u_i, the invariant's Σ_i p_i c_i)
stays one call per run, the very call ``fedcanon._clients`` / ``control.corrected_local`` makes on that
run's ``(M, dim)`` block:

    x_i^{t,0} = x^t;  x_i^{t,k+1} = x_i^{t,k} − η_l (∇f_i(x_i^{t,k}; B) + c_i^t)    (7a–7b, all rows)
    u_i = (x^t − x_i^{t,K}) / (η_l K);  g^t = Σ_i p̃_i u_i                          (7c–7d, g^t run by run)
    x^{t+1} = prox_{η_g ψ}(x^t − η_g g^t)                                          (7e, one call per η_g)
    c_i^{t+1} = g^t − (1/K) Σ_k ∇f_i(x_i^{t,k}; B)                                 (7f, all rows)

prox_{η_g ψ} acts row by row, so it is called once per distinct η_g over the rows of the runs sharing it.
∇f_i(·; B) averages b oracle queries; the Gaussian oracle draws each query's noise, the minibatch oracle
each query's rows, from each run's own generator, in the order the run alone draws them (the exact
gradients are the same bits at every query, so they are computed once per step).  Each run's numbers are
therefore those of ``fedcanon_round`` run alone, bit for bit (``tests/solvers/test_run_batch_canon.py``,
``test_run_batch_minibatch.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from fcocheck.solvers.algorithms.base import BatchLog, Counts
from fcocheck.solvers.algorithms.batched_dual import by_weight, per_run, stacked_dot, stacked_grads
from fcocheck.solvers.algorithms.control import ControlHyper
from fcocheck.solvers.kernels import Kernel
from fcocheck.solvers.oracles import MinibatchOracle, Oracle

Array = np.ndarray


class CanonBatchState(NamedTuple):
    """The states of B FedCanon runs: x^t ``(B, dim)``, the controls ``(B·M, dim)`` and the common t."""

    w: Array
    c: Array
    r: int

    def select(self, keep: Sequence[int]) -> CanonBatchState:
        """The states of the runs ``keep`` (positions in the batch), in that order."""
        B, dim = self.w.shape
        return CanonBatchState(self.w[keep], self.c.reshape(B, -1, dim)[keep].reshape(-1, dim), self.r)


class CanonBatchEnv(NamedTuple):
    """What a batched FedCanon round reads, fixed for the batch.

    Attributes:
        hps: each run's hyper-parameters (common K and b).
        kernel: the gradient kernel over the B·M stacked clients (``batched_dual.stacked_kernel``).
        weights: p̃ of each run's clients, ``(B, M)`` (``primitives.client_weights`` over all clients).
        p: each run's problem weights p_m, ``(B, M)`` (the invariant's Σ_m M p_m c_m).
        psi: the runs' common regulariser.
        oracle: the runs' common oracle (exact, Gaussian or minibatch).
        eta_l: each row's η_l, ``(B·M, 1)``.
        upload: each row's η_l·K (the Python product the run alone divides by), ``(B·M, 1)``.
        eta_g: each run's η_g (``ControlHyper.canon_eta_g``).

    """

    hps: tuple[ControlHyper, ...]
    kernel: Kernel
    weights: Array
    p: Array
    psi: Any
    oracle: Oracle
    eta_l: Array
    upload: Array
    eta_g: tuple[float, ...]


def canon_env(hps: Sequence[ControlHyper], kernel: Kernel, weights: Array, p: Array, psi: Any,
              oracle: Oracle) -> CanonBatchEnv:
    """``CanonBatchEnv`` with the per-row step sizes formed once for the batch."""
    M = weights.shape[1]
    K = hps[0].local_steps
    eta_l = np.repeat(np.array([hp.eta_l for hp in hps], dtype=float), M)[:, None]
    upload = np.repeat(np.array([hp.eta_l * K for hp in hps], dtype=float), M)[:, None]
    return CanonBatchEnv(tuple(hps), kernel, weights, p, psi, oracle, eta_l, upload,
                         tuple(hp.canon_eta_g for hp in hps))


def drift(weights: Array, X: Array) -> Array:
    """``control.euclidean_discrepancy(weights[i], X_i)`` for each run i, ``(B,)``.

    x̄ = p̃ @ X_i and the final Σ_i p̃_i(·) run by run; ‖x̄ − x_i‖² (a sum within each row) for all rows.
    """
    B, M = weights.shape
    sq = np.add.reduce((X - np.repeat(per_run(weights, X), M, axis=0)) ** 2, axis=1).reshape(B, M)
    return stacked_dot(weights, sq)


def _oracle(env: CanonBatchEnv, X: Array, rngs: Sequence[np.random.Generator], M: int, b: int) -> Array:
    """∇f_i(x_i; B) of every stacked client: ``primitives.mean_oracle`` with each run's own draws.

    The run alone sums b queries G_1 + G_2 + … and divides by b when b > 1; query q's draws (noise or
    rows) come from each run's generator in turn (the runs' generators are independent, so each sees the
    order it sees alone; ``batched_dual.stacked_grads``).  The exact part ∇F_m(x_i) of the exact and
    Gaussian oracles is the same bits at every query: computed once.
    """
    oracle = env.oracle
    exact = None if type(oracle) is MinibatchOracle else env.kernel.grads(X)

    def query() -> Array:
        return stacked_grads(env.kernel, oracle, X, rngs, M, exact)

    G = query()
    for _ in range(b - 1):
        G = G + query()
    return G / b if b > 1 else G


def _prox(psi: Any, V: Array, ts: Sequence[float]) -> Array:
    """prox_{t_i ψ}(V[i]) for every run i (``batched_dual.by_weight``: one call for a separable ψ)."""
    return by_weight(psi.prox, V, ts, 1, rowwise=psi.separable)


def canon_round(state: CanonBatchState, env: CanonBatchEnv, rngs: Sequence[np.random.Generator]
                ) -> tuple[CanonBatchState, BatchLog]:
    """One FedCanon round of every run, full participation (module docstring; Seed 003 Alg. 1, eqs. 7a–7f).

    Args:
        state: the runs' x^t and c^t.
        env: the batch's fixed machinery.
        rngs: each run's oracle generator, in batch order.

    Returns:
        The runs' x^{t+1}, c^{t+1}, and their log: row i ``fedcanon_round``'s for run i, bit for bit
        (x^{t+1}, the per-step drift Σ_i p̃_i ‖x̄ − x_i^{t,k}‖² (0 at k = 0) and ``control_sum`` =
        ‖Σ_m M p_m c_m^{t+1}‖).

    """
    hps = env.hps
    B, M = env.weights.shape
    dim = state.w.shape[1]
    K, b = hps[0].local_steps, hps[0].b
    start = np.repeat(state.w, M, axis=0)  # x_i^{t,0} = x^t (7a)
    # The run alone queries x^t broadcast to its clients as an order-K copy of the broadcast (M, dim): for
    # M > 1 column-major, and a kernel's products over a column-major W take other last bits than over a
    # row-major one, so the stacked start is column-major too; for M = 1 a contiguous row, as the stacked
    # start's rows already are.  Every later X is row-major, as alone.
    X = np.asfortranarray(start) if M > 1 else start
    gsum = np.zeros((B * M, dim))
    disc = np.zeros((B, K))
    for k in range(K):  # 7b: K corrected steps on every client of every run
        if k > 0:
            disc[:, k] = drift(env.weights, X)
        G = _oracle(env, X, rngs, M, b)
        gsum += G
        X = np.ascontiguousarray(X - env.eta_l * (G + state.c))
    uploads = (start - X) / env.upload  # 7c
    g = per_run(env.weights, uploads)  # 7d, run by run
    controls = np.repeat(g, M, axis=0) - gsum / K  # 7f
    etas = env.eta_g
    w_next = _prox(env.psi, state.w - np.array(etas)[:, None] * g, etas)  # 7e
    sums = M * per_run(env.p, controls)
    counts = Counts(grad=M * K * b, prox_server=1, floats_up=M * dim, floats_down=2 * M * dim)
    # ‖v‖₂ as ``np.linalg.norm`` computes it for a vector: √(v·v), correctly rounded, each row's v·v its own
    log = BatchLog(w=w_next, z=None, avg_terms=w_next, avg_count=1, discrepancy=disc, counts=counts,
                   extra={"control_sum": np.sqrt(stacked_dot(sums, sums))})
    return CanonBatchState(w_next, controls, state.r + 1), log
