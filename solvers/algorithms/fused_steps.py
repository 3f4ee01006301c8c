"""K dual-averaging local steps per client in one compiled pass (client-major FedDualAvg, dense squares).

On the client-major schedule (``primitives.client_major``) every client takes its K steps

    w^m_k = ∇(h + η̃_k ψ)*(z^m_k),      z^m_{k+1} = z^m_k − η_c ∇F_m(w^m_k)      (FCO Alg. 3 lines 8–10)

independently of the others.  ``dual_trajectory`` runs them client by client in numba, so a client's
rows are read from memory once per round and stay in L1 for its K steps, where the numpy schedule
streams every block's rows twice per step.  It is the same arithmetic, not an approximation: the
gradient is formed by the sums of ``batched_squares`` (``predict_cols`` on the client's Xᵀ, built
once per round, gives ``predict_rows``' bits; ``back`` is shared), λ_ridge w is added as
``Kernel._ridge`` adds it, and the maps are the closed forms of ``composite.py``
written element by element with the same IEEE operations:

* ``SOFT``: ∇(½‖·‖² + tλ‖·‖₁)*(z) = S_{tλ}(z) = copysign(max(|z| − tλ, 0), z) on the first ``head``
  coordinates (``norms.soft_threshold``), the free tail (intercept) passed through, and ∇h* (the
  identity) when t = 0 as ``make_composite`` does;
* ``IDENTITY``: ∇h* of a Euclidean h (FedDualAvg with ψ = 0, FedDualAvg-OSP's clients).

So the trajectory is the numpy schedule's bit for bit (``tests/solvers/test_fused_steps.py``, which
also shows the comparison failing on a stale threshold, a dropped ridge term and a wrong client).
Pairs without a compiled form here (p-norm or entropy h, other ψ) and every other loss keep the
numpy schedule; ``plan`` says which.
"""

from __future__ import annotations

import math
import os
from typing import Any, NamedTuple

import numba
import numpy as np

from solvers.batched_squares import back, predict_cols, transpose_into
from solvers.kernels import BLOCK, Kernel, over_blocks
from solvers.mirror_maps import Euclidean, FreeTailMirror, MirrorMap
from solvers.oracles import Oracle
from solvers.regularizers import L1, FreeTail, Regularizer, Zero
from solvers.squares_kernel import client_grad

Array = np.ndarray

IDENTITY, SOFT = 0, 1


class MapSpec(NamedTuple):
    """A client map the compiled pass can apply.

    Attributes:
        kind: ``IDENTITY`` or ``SOFT``.
        lam: λ of ψ = λ‖·‖₁ (0.0 for the identity).
        head: the leading coordinates the map acts on; the rest (a free tail) pass through.

    """

    kind: int
    lam: float
    head: int


def _euclidean_head(h: MirrorMap, dim: int) -> int | None:
    """Coordinates of a Euclidean h before its free tail (None unless h is Euclidean there).

    Exact types: a subclass may define another ∇h*.
    """
    if type(h) is Euclidean:
        return dim
    if type(h) is FreeTailMirror and type(h.base) is Euclidean:
        return dim - h.n_free
    return None


def conj_spec(h: MirrorMap, dim: int) -> MapSpec | None:
    """The compiled form of ∇h* (the identity for a Euclidean h, free tail or not), else None."""
    return None if _euclidean_head(h, dim) is None else MapSpec(IDENTITY, 0.0, dim)


def map_spec(h: MirrorMap, psi: Regularizer, dim: int) -> MapSpec | None:
    """The compiled form of ∇(h + tψ)* for ψ ∈ {0, λ‖·‖₁} with a Euclidean h, else None.

    A free tail must be free for both h and ψ (``composite._resolve_free_tail``'s rule).
    """
    head = _euclidean_head(h, dim)
    if head is None:
        return None
    base = psi
    if isinstance(h, FreeTailMirror):
        if not (type(psi) is FreeTail and psi.n_free == h.n_free):
            return None
        base = psi.base
    if type(base) is Zero:
        return MapSpec(IDENTITY, 0.0, dim)
    if type(base) is L1 and np.ndim(base.lam) == 0:
        return MapSpec(SOFT, float(base.lam), head)
    return None


def plan(env: Any, kern: Kernel, spec: MapSpec | None) -> bool:
    """Whether ``dual_trajectory`` may replace the numpy schedules for this round.

    It may for a known map, the exact oracle (no draws, no added zeros) and a kernel whose gradients
    are compiled per client: ``batched_squares`` (dense squares-type clients, batched strategy) or
    ``squares_kernel`` (the same clients on the loop strategy, products by BLAS).
    """
    if spec is None or type(env.oracle) is not Oracle:
        return False
    return kern.dense_squares() is not None or kern.pooled_squares() is not None


@numba.njit(cache=True, nogil=True)
def _query(zm: Array, w: Array, kind: int, active: bool, tau: float, head: int) -> None:
    """W ← the client map at z (module docstring): S_τ on the head, the tail passed through; or z."""
    dim = zm.shape[0]
    if kind == SOFT and active:
        for j in range(head):
            a = abs(zm[j]) - tau
            if a < 0.0:  # np.maximum(a, 0): NaN passes through
                a = 0.0
            w[j] = math.copysign(a, zm[j])
        for j in range(head, dim):
            w[j] = zm[j]
    else:
        for j in range(dim):
            w[j] = zm[j]


@numba.njit(cache=True, nogil=True)
def _advance(zm: Array, w: Array, g: Array, s: float, eta: float, ridge: float, intercept: bool) -> None:
    """Z ← z − η_c (g + λ_ridge w, Σr): ``Kernel._ridge`` then ``Z -= η_c G`` element by element."""
    d = g.shape[0]
    if ridge != 0.0:
        for j in range(d):
            g[j] += ridge * w[j]
    for j in range(d):
        zm[j] -= eta * g[j]
    if intercept:
        zm[d] -= eta * s


@numba.njit(cache=True, nogil=True)
def _dual_block(X: Array, Y: Array, z: Array, taus: Array, active: Array, kind: int, head: int,
                eta: float, ridge: float, intercept: bool, traj: Array, lo: int, hi: int) -> None:
    """Clients lo…hi−1 of stacked data (batched strategy's sums, ``batched_squares``)."""
    K = traj.shape[0]
    n, d = X.shape[1], X.shape[2]
    zm = np.empty(z.shape[0])
    w = np.empty(z.shape[0])
    t = np.empty(n)
    g = np.empty(d)
    XT = np.empty((d, n))
    for m in range(lo, hi):
        transpose_into(X[m], XT)  # once per client, used for its K steps
        zm[:] = z
        for k in range(K):
            _query(zm, w, kind, active[k], taus[k], head)
            predict_cols(XT, w[:d], w[d] if intercept else 0.0, t)
            s = back(X[m], Y[m], t, g)
            _advance(zm, w, g, s, eta, ridge, intercept)
            traj[k, m, :] = zm


@numba.njit(cache=True, nogil=True)
def _dual_block_pooled(rows: Array, y: Array, offsets: Array, clients: Array, z: Array, taus: Array,
                       active: Array, kind: int, head: int, eta: float, ridge: float, intercept: bool,
                       traj: Array, lo: int, hi: int) -> None:
    """Clients lo…hi−1 of pooled rows (loop strategy's BLAS products, ``squares_kernel.client_grad``)."""
    K = traj.shape[0]
    d = rows.shape[1]
    zm = np.empty(z.shape[0])
    w = np.empty(z.shape[0])
    g = np.empty(d)
    none = np.empty(0)
    for i in range(lo, hi):
        a, b = offsets[clients[i]], offsets[clients[i] + 1]
        X, yi = rows[a:b], y[a:b]
        zm[:] = z
        for k in range(K):
            _query(zm, w, kind, active[k], taus[k], head)
            s = client_grad(X, yi, np.ascontiguousarray(w[:d]), w[d] if intercept else 0.0, g, none, 0)
            _advance(zm, w, g, s, eta, ridge, intercept)
            traj[k, i, :] = zm


def dual_trajectory(kern: Kernel, z: Array, K: int, eta_c: float, spec: MapSpec, ts: Array) -> Array:
    """The trajectory (K, |S|, dim) of K FedDualAvg local steps from z on every served client.

    Entry k is z^m_{k+1}.  ``ts[k]`` is η̃ of step k (the map's weight t; its threshold is t·λ).  The
    clients are split over the kernel's thread pool: in blocks of ``BLOCK``, or into one part per
    core when there are fewer (each client's steps are its own, so the split changes no bit).
    """
    p = kern.problem
    ts = np.asarray(ts, dtype=float)
    if ts.shape != (K,):
        raise ValueError(f"fused steps: {ts.shape[0] if ts.ndim == 1 else ts.shape} weights η̃ for "
                         f"K = {K} steps; the rule is one weight per local step")
    taus = ts * spec.lam  # t·λ as L1.prox forms it
    active = ts != 0.0  # make_composite: t = 0 is ∇h*
    traj = np.empty((K, kern.size, p.dim))
    z = np.ascontiguousarray(z, dtype=float)
    args = (z, taus, active, spec.kind, spec.head, float(eta_c), float(p.ridge_lam or 0.0), bool(p.intercept),
            traj)
    stacked = kern.dense_squares()
    if stacked is not None:
        def block(s: slice) -> None:
            _dual_block(*stacked, *args, s.start, s.stop)
    else:
        rows, y, offsets, clients = kern.pooled_squares()

        def block(s: slice) -> None:
            _dual_block_pooled(rows, y, offsets, clients, *args, s.start, s.stop)

    over_blocks(block, kern.size, min(BLOCK, -(-kern.size // (os.cpu_count() or 1))))
    return traj
