"""One round of a dual card (FedDualAvg, FCO Alg. 3) for B runs at once, with a leading runs axis.

B runs of the same card on problems of the same shape and the same (h, ψ), with full participation,
differ in their instance data, their hyper-parameters and their random streams.  Their M clients each
are stacked into one client axis of B·M rows (run i owns rows iM … iM + M − 1), so every per-client
operation — the query point ∇(h + η̃ψ)*(z^m), the gradient, z^m − η_c g^m, the dual-norm of z̄ − z^m — is
one numpy call for all runs; every reduction over clients (z̄ = Σ_m p̃_m z^m, Σ_m p̃_m ‖z̄ − z^m‖²_*, Δ_r)
stays one call per run, the very call ``primitives.dual_local`` makes on that run's (M, dim) block:

    z^m_{r,0} = z_r;  z^m_{r,k+1} = z^m_{r,k} − η_c g^m(∇(h + η̃_{r,k}ψ)*(z^m_{r,k}))     (rows of every run)
    Δ_r = Σ_m p̃_m (z^m_{r,K} − z_r);  z_{r+1} = z_r + η_s Δ_r;  w_{r+1} = ∇(h + η̃_{r+1,0}ψ)*(z_{r+1})

A map with a weight t is called once per distinct t over the rows of the runs sharing it (the maps act
row by row), so each run's numbers are those of the step-by-step schedule run alone, bit for bit
(``tests/solvers/test_run_batch.py``).  The Gaussian oracle draws each run's noise from that run's
own generator, in the order the run alone draws it; so does the minibatch oracle its rows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from fcocheck.solvers.algorithms.base import BatchLog, Counts
from fcocheck.solvers.card.steps import Scale, Trace
from fcocheck.solvers.kernels import Kernel
from fcocheck.solvers.oracles import GaussianOracle, MinibatchOracle, Oracle

Array = np.ndarray
CompositeFn = Callable[[Array, Any], Array]


class BatchState(NamedTuple):
    """The server states of B runs: z_r and w_r stacked ``(B, dim)``, r, and the transforms' states.

    ``server``: each server transform's state for every run (``server_transforms``).
    """

    z: Array
    w: Array
    r: int
    server: tuple

    def select(self, keep: Sequence[int]) -> BatchState:
        """The states of the runs ``keep`` (positions in the batch), in that order."""
        return BatchState(self.z[keep], self.w[keep], self.r, select_states(self.server, keep))


#: the server transforms a batched round applies to every run at once (``server_transforms``)
BATCHED_TRANSFORMS = (Scale, Trace)


class RunColumns:
    """The runs' hyper-parameters as columns: ``getattr`` gives each run's value, ``(B, 1)``.

    A transform of ``BATCHED_TRANSFORMS`` reads its hyper-parameters by name and acts element by element
    (η u, β v + u): handed this object instead of one run's hyper-parameters, it makes, for every run's
    row, the operations on the numbers the run alone makes.
    """

    def __init__(self, hps: Sequence[Any]) -> None:
        self._hps = hps

    def __getattr__(self, name: str) -> Array:
        return np.array([getattr(hp, name) for hp in self._hps], dtype=float)[:, None]


def server_transforms(card: Any, hps: Sequence[Any], delta: Array, states: tuple) -> tuple[Array, tuple]:
    """(u_r, states') of every run from its Δ_r (rows of ``delta``): ``Card.transform`` on the rows.

    ``states``: each transform's state for all runs (None before the first round, then ``(B, dim)``;
    ``stack_states``).  Only ``BATCHED_TRANSFORMS`` (``batchable_server``), handed ``RunColumns``.
    """
    return card.transform(delta, states, RunColumns(hps))


def batchable_server(card: Any) -> bool:
    """Whether ``server_transforms`` applies this card's server transforms (every one elementwise)."""
    return all(type(t) in BATCHED_TRANSFORMS for t in card.server)


def stack_states(runs: Sequence[tuple]) -> tuple:
    """The transforms' states of B runs (each run's tuple, as its ``init`` gives it) as one tuple of rows."""
    return tuple(None if all(s is None for s in col) else np.stack(col) for col in zip(*runs, strict=True))


def select_states(states: tuple, keep: Sequence[int]) -> tuple:
    """The transforms' states of the runs ``keep`` (a state still None stays None)."""
    return tuple(None if s is None else s[keep] for s in states)


class BatchEnv(NamedTuple):
    """What a batched round of a dual or a primal card reads, fixed for the batch.

    Attributes:
        card: the card every run runs (a dual card here, a primal one in ``batched_primal``).
        hps: each run's hyper-parameters.
        kernel: the gradient kernel over the B·M stacked clients (``stacked_kernel``).
        weights: p̃ of each run's clients, ``(B, M)`` (``primitives.client_weights`` over all clients).
        composite: (z, t) ↦ ∇(h + tψ)*(z), the runs' common map.
        h: the runs' common mirror map.
        oracle: the runs' common oracle (exact, Gaussian or minibatch).
        d: the model coordinates a primal card's densities count (``problem.d``).
        record_steps: each run's log also holds ``primitives.dual_local``'s per-step arrays (dual cards).
        weightless: the map is the same for every t ≠ 0 (an indicator ψ with the Euclidean h: Π_C), so
            ``by_weight`` calls it once for all the runs whose t is not 0.

    """

    card: Any
    hps: tuple
    kernel: Kernel
    weights: Array
    composite: CompositeFn
    h: Any
    oracle: Oracle
    d: int
    record_steps: bool = False
    weightless: bool = False


def stacked_kernel(problems: Sequence[Any]) -> Kernel:
    """A kernel over the clients of every problem, run after run (the batched strategy's arrays).

    Its rows are the problems' own per-client arrays concatenated, so each client's gradient is the
    same einsum over the same numbers as in its problem's kernel.
    """
    p = problems[0]
    k = Kernel(p, "batched", np.arange(len(problems) * p.M, dtype=np.int64))
    if p.loss == "quadratic":
        k._cache["Q"] = (np.concatenate([q.Q for q in problems]), np.concatenate([q.c for q in problems]))
    else:
        k._cache["X"] = np.concatenate([q.kernel._stacked() for q in problems])
        k._cache["y"] = np.concatenate([q.kernel._labels() for q in problems])
    return k


def by_weight(composite: CompositeFn, Z: Array, ts: Sequence[float], rows: int, weightless: bool = False,
              rowwise: bool | None = None) -> Array:
    """∇(h + t_iψ)*(z) on run i's ``rows`` rows of Z for every run i (or prox_{t_iψ}: any such map).

    ``Z`` is ``(B·rows, dim)`` (or ``(B, dim)`` with rows = 1).  ``weightless``: the map does not depend
    on t ≠ 0 (``BatchEnv``), so every t ≠ 0 is called as the first of them: one call for those runs.
    ``rowwise`` (default: the map's own ``rowwise``, ``composite.make_composite``): the map takes a column
    of weights, one per row, and acts element by element — a separable ψ, whose every element is the same
    operations on the same numbers with t a column as with t a scalar —, so runs of distinct t ≠ 0 are
    one call.  Otherwise one call per distinct t_i.
    """
    if weightless:
        ts = same_nonzero(ts)
    if len(set(ts)) == 1:
        return composite(Z, ts[0])
    if (getattr(composite, "rowwise", False) if rowwise is None else rowwise) and 0.0 not in ts:
        return composite(Z, np.repeat(np.asarray(ts, dtype=float), rows)[:, None])
    out = np.empty(Z.shape)
    Z3, out3 = Z.reshape(len(ts), rows, -1), out.reshape(len(ts), rows, -1)
    for t in dict.fromkeys(ts):
        idx = [i for i, u in enumerate(ts) if u == t]
        out3[idx] = composite(Z3[idx].reshape(len(idx) * rows, -1), t).reshape(len(idx), rows, -1)
    return out


def same_nonzero(ts: Sequence[float]) -> list[float]:
    """``ts`` with every t ≠ 0 replaced by the first t ≠ 0 (t = 0, ∇h* alone, is another map)."""
    first = next((t for t in ts if t != 0.0), 0.0)
    return [t if t == 0.0 else first for t in ts]


def stacked_grads(kernel: Kernel, oracle: Oracle, W: Array, rngs: Sequence[np.random.Generator], M: int,
                  exact: Array | None = None) -> Array:
    """Every stacked client's oracle answer, run i's draws from its own generator ``rngs[i]``.

    The exact gradient; ``GaussianOracle.grads``' noise added to it (``exact``: that gradient when the
    caller already holds it); ``MinibatchOracle.grads``' rows (``MinibatchOracle.rows``), drawn run by run
    as each run draws them alone, then every client's mean over its rows in one ``grads_rows`` call.  A
    batch's clients hold n rows each (stacked data have equal sizes), so run i's sizes are M copies of n.
    """
    if type(oracle) is MinibatchOracle:
        sizes = np.repeat(kernel.problem.n[:1], M)
        return kernel.grads_rows(W, np.concatenate([oracle.rows(sizes, g) for g in rngs]))
    G = kernel.grads(W) if exact is None else exact
    if type(oracle) is GaussianOracle and oracle.sigma != 0:
        noise = np.concatenate([g.standard_normal((M, W.shape[1])) for g in rngs])
        G = G + noise * (oracle.sigma / np.sqrt(W.shape[1]))
    return G


def per_run(weights: Array, X: Array) -> Array:
    """Σ_m w_m x^m for each run: ``weights[i] @ X_i`` on run i's own C-contiguous ``(M, dim)`` block.

    The very product each run alone makes over its clients (a batched round's reductions stay per run).
    """
    B, M = weights.shape
    return stacked_dot(weights, X.reshape(B, M, -1))


def stacked_dot(a: Array, X3: Array) -> Array:
    """``a[i] @ X3[i]`` for every run i in one call: ``(B, M, n)`` → ``(B, n)``, ``(B, M)`` → ``(B,)``.

    NumPy's stacked ``matmul`` makes, for each i, the product ``a[i] @ X3[i]`` alone makes (the same BLAS
    call on the same strides: ``tests/solvers/test_stacked_dot.py`` holds it to every bit), without a
    Python loop over the runs.
    """
    if X3.ndim == 2:
        return np.matmul(a[:, None, :], X3[:, :, None])[:, 0, 0]
    return np.matmul(a[:, None, :], X3)[:, 0, :]


def run_discrepancies(h: Any, weights: Array, Z: Array, zbars: Array) -> Array:
    """Σ_m p̃_m ‖z̄ − z^m‖²_* for each run (``primitives.discrepancies``' operations, run by run).

    ``weights`` ``(B, M)``, the stacked rows ``Z`` ``(B·M, dim)`` and each run's z̄ ``zbars`` ``(B, dim)``.
    """
    B, M = weights.shape
    norms = h.dual_norm(np.repeat(zbars, M, axis=0) - Z)
    return stacked_dot(weights, (norms ** 2).reshape(B, M))


def dual_round(state: BatchState, env: BatchEnv, rngs: Sequence[np.random.Generator]
               ) -> tuple[BatchState, BatchLog]:
    """One round of every run (module docstring); row i of the log is ``Card._dual_round``'s for run i."""
    card, hps, r = env.card, env.hps, state.r
    step = card.client
    B, M = env.weights.shape
    K = hps[0].local_steps
    dim = state.z.shape[1]
    ts = [[step.tilde(hp, r, k) for k in range(K + 1)] for hp in hps]  # η̃_{r,0..K} per run
    eta = np.repeat(np.array([getattr(hp, step.eta) for hp in hps]), M)[:, None]
    Z = np.repeat(state.z, M, axis=0)
    disc, terms = np.zeros((B, K)), np.zeros((B, dim))
    steps: list[dict[str, list[Array]]] = []  # per step: the (B, …) arrays ``dual_local`` keeps per run
    for k in range(K):
        tk = [t[k] for t in ts]
        duals = Z.reshape(B, M, dim).copy() if env.record_steps else None
        W = by_weight(env.composite, Z, tk, M, env.weightless) if step.prox else env.h.grad_conj(Z)
        G = stacked_grads(env.kernel, env.oracle, W, rngs, M)
        if k > 0:
            disc[:, k] = run_discrepancies(env.h, env.weights, Z, per_run(env.weights, Z))
        Z -= eta * G
        zbar = per_run(env.weights, Z)
        image = by_weight(env.composite, zbar, [t[k + 1] for t in ts], 1, env.weightless)
        terms = terms + image
        if env.record_steps:
            steps.append({"dual_shadow": zbar, "grad_avg": per_run(env.weights, G), "shadow_primal": image,
                          "client_duals": duals})
    delta = per_run(env.weights, Z - np.repeat(state.z, M, axis=0))
    u, server = server_transforms(card, hps, delta, state.server)
    z_next = state.z + u
    w_next = by_weight(env.composite, z_next, [step.tilde(hp, r + 1, 0) for hp in hps], 1, env.weightless)
    calls = Counts(grad=M * K, prox_client=M * K * step.prox_cost, prox_server=card.apply.prox_cost,
                   floats_up=M * dim, floats_down=M * dim)
    log = BatchLog(w=w_next, z=z_next, avg_terms=terms, avg_count=K, discrepancy=disc, counts=calls,
                   steps=[_run_steps(state.z, steps, i) for i in range(B)] if env.record_steps else None)
    return BatchState(z_next, w_next, r + 1, server), log


def _run_steps(z: Array, steps: Sequence[dict[str, Array]], i: int) -> dict[str, Array]:
    """Run i's per-step records as ``primitives.dual_local`` stacks them (z_r first in the dual shadow)."""
    return {"dual_shadow": np.array([z[i]] + [s["dual_shadow"][i] for s in steps]),
            "grad_avg": np.array([s["grad_avg"][i] for s in steps]),
            "shadow_primal": np.array([s["shadow_primal"][i] for s in steps]),
            "client_duals": np.array([s["client_duals"][i] for s in steps])}
