"""K local steps per client in one compiled pass (client-major rounds on dense least-squares clients).

Within a round every client takes its K steps independently of the others:

    dual (FedDualAvg, FCO Alg. 3 l. 8–10):  w^m_k = ∇(h + η̃_k ψ)*(z^m_k),  z^m_{k+1} = z^m_k − η_c ∇F_m(w^m_k)
    primal (FedAvg, FedMiD, FedMiD-OSP):   w^m_{k+1} = map(w^m_k − η_c ∇F_m(w^m_k))

with map = S_{η_c λ} for FedMiD (∇(h + η_c ψ)*(∇h(w) − η_c g), h Euclidean) and the identity for FedAvg
and FedMiD-OSP.  ``dual_trajectory`` / ``primal_trajectory`` run them client by client in numba, so a
client's rows are read from memory once per round and stay in L1/L2 for its K steps, where the numpy
schedules stream every block's rows twice per step.  It is the same arithmetic, not an
approximation: the gradient is formed by the kernel's own per-client routine — the sums of
``batched_squares`` on the batched strategy (``predict_cols`` on the client's Xᵀ, built once per
round, gives ``predict_rows``' bits; ``back`` is shared), ``squares_kernel.client_grad`` on the loop
strategy — λ_ridge w is added as ``Kernel._ridge`` adds it, and the maps are the closed forms of
``composite.py`` written element by element with the same IEEE operations:

* ``SOFT``: ∇(½‖·‖² + tλ‖·‖₁)*(z) = S_{tλ}(z) = copysign(max(|z| − tλ, 0), z) on the first ``head``
  coordinates (``norms.soft_threshold``), the free tail (intercept) passed through, and ∇h* (the
  identity) when t = 0 as ``make_composite`` does;
* ``IDENTITY``: ∇h* of a Euclidean h (ψ = 0, the OSP variants' clients, FedAvg's plain step).

So the trajectories are the numpy schedules' bit for bit (``tests/solvers/test_fused_steps.py`` and
``test_client_major.py``, which also show the comparison failing on a stale threshold, a wrong prox
weight, a dropped ridge term, a wrong map and a wrong client).  Pairs without a compiled form here
(p-norm or entropy h, other ψ), FedAvg's subgradient variant and every other loss keep the numpy
schedules; ``plan`` and ``primitives.fused`` say which.
"""

from __future__ import annotations

import math
import os
from typing import Any, NamedTuple

import numba
import numpy as np

from fcocheck.solvers.batched_squares import back, predict_cols, transpose_into
from fcocheck.solvers.kernels import BLOCK, Kernel, over_blocks
from fcocheck.solvers.mirror_maps import Euclidean, FreeTailMirror, MirrorMap
from fcocheck.solvers.oracles import Oracle
from fcocheck.solvers.regularizers import L1, FreeTail, Regularizer, Zero
from fcocheck.solvers.squares_kernel import client_grad

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
def _before(xm: Array, w: Array, primal: bool, kind: int, active: bool, tau: float, head: int) -> None:
    """The query point w: the client map of z (dual family) or the iterate itself (primal family)."""
    if primal:
        w[:] = xm
    else:
        _query(xm, w, kind, active, tau, head)


@numba.njit(cache=True, nogil=True)
def _after(xm: Array, w: Array, v: Array, g: Array, s: float, primal: bool, kind: int, active: bool,
           tau: float, head: int, eta: float, ridge: float, intercept: bool) -> None:
    """The new state: z − η_c g (dual), or map(w − η_c g) (primal: FedAvg, FedMiD, FedMiD-OSP)."""
    if primal:
        v[:] = w
        _advance(v, w, g, s, eta, ridge, intercept)
        _query(v, xm, kind, active, tau, head)
    else:
        _advance(xm, w, g, s, eta, ridge, intercept)


@numba.njit(cache=True, nogil=True)
def _block(X: Array, Y: Array, x: Array, taus: Array, active: Array, kind: int, head: int,
           eta: float, ridge: float, intercept: bool, primal: bool, traj: Array, lo: int, hi: int) -> None:
    """Clients lo…hi−1 of stacked data (batched strategy's sums, ``batched_squares``)."""
    K = traj.shape[0]
    n, d = X.shape[1], X.shape[2]
    xm = np.empty(x.shape[0])
    w = np.empty(x.shape[0])
    v = np.empty(x.shape[0])
    t = np.empty(n)
    g = np.empty(d)
    XT = np.empty((d, n))
    for m in range(lo, hi):
        transpose_into(X[m], XT)  # once per client, used for its K steps
        xm[:] = x
        for k in range(K):
            _before(xm, w, primal, kind, active[k], taus[k], head)
            predict_cols(XT, w[:d], w[d] if intercept else 0.0, t)
            s = back(X[m], Y[m], t, g)
            _after(xm, w, v, g, s, primal, kind, active[k], taus[k], head, eta, ridge, intercept)
            traj[k, m, :] = xm


@numba.njit(cache=True, nogil=True)
def _block_pooled(rows: Array, y: Array, offsets: Array, clients: Array, x: Array, taus: Array,
                  active: Array, kind: int, head: int, eta: float, ridge: float, intercept: bool,
                  primal: bool, traj: Array, lo: int, hi: int) -> None:
    """Clients lo…hi−1 of pooled rows (loop strategy's BLAS products, ``squares_kernel.client_grad``)."""
    K = traj.shape[0]
    d = rows.shape[1]
    xm = np.empty(x.shape[0])
    w = np.empty(x.shape[0])
    v = np.empty(x.shape[0])
    g = np.empty(d)
    none = np.empty(0)
    for i in range(lo, hi):
        a, b = offsets[clients[i]], offsets[clients[i] + 1]
        X, yi = rows[a:b], y[a:b]
        xm[:] = x
        for k in range(K):
            _before(xm, w, primal, kind, active[k], taus[k], head)
            s = client_grad(X, yi, np.ascontiguousarray(w[:d]), w[d] if intercept else 0.0, g, none, 0)
            _after(xm, w, v, g, s, primal, kind, active[k], taus[k], head, eta, ridge, intercept)
            traj[k, i, :] = xm


def dual_trajectory(kern: Kernel, z: Array, K: int, eta_c: float, spec: MapSpec, ts: Array) -> Array:
    """The trajectory (K, |S|, dim) of K FedDualAvg local steps from z on every served client.

    Entry k is z^m_{k+1}.  ``ts[k]`` is η̃ of step k (the map's weight t; its threshold is t·λ).
    """
    return _trajectory(kern, z, K, eta_c, spec, ts, primal=False)


def primal_trajectory(kern: Kernel, w: Array, K: int, eta_c: float, spec: MapSpec) -> Array:
    """The trajectory (K, |S|, dim) of K primal local steps w^m_{k+1} = map(w^m_k − η_c ∇F_m(w^m_k)).

    The map is ``spec``'s at weight t = η_c: S_{η_c λ} for FedMiD (∇(h + η_c ψ)*(∇h(w) − η_c g) with a
    Euclidean h), the identity for FedAvg (w − η_c g) and FedMiD-OSP.  Entry k is w^m_{k+1}.
    """
    return _trajectory(kern, w, K, eta_c, spec, np.full(K, float(eta_c)), primal=True)


def _trajectory(kern: Kernel, x: Array, K: int, eta_c: float, spec: MapSpec, ts: Array,
                primal: bool) -> Array:
    """Both families' pass, split over the kernel's thread pool.

    In blocks of ``BLOCK`` clients, or one part per core when there are fewer (each client's steps
    are its own, so the split changes no bit) — when the pass reads at least ``PARALLEL_WORK`` data
    elements (rows × coordinates × K); below that a hand-off to the pool costs more than the pass.
    """
    p = kern.problem
    ts = np.asarray(ts, dtype=float)
    if ts.shape != (K,):
        raise ValueError(f"fused steps: {ts.shape[0] if ts.ndim == 1 else ts.shape} weights η̃ for "
                         f"K = {K} steps; the rule is one weight per local step")
    taus = ts * spec.lam  # t·λ as L1.prox forms it
    active = ts != 0.0  # make_composite: t = 0 is ∇h*
    traj = np.empty((K, kern.size, p.dim))
    x = np.ascontiguousarray(x, dtype=float)
    args = (x, taus, active, spec.kind, spec.head, float(eta_c), float(p.ridge_lam or 0.0), bool(p.intercept),
            bool(primal), traj)
    stacked = kern.dense_squares()
    if stacked is not None:
        def block(s: slice) -> None:
            _block(*stacked, *args, s.start, s.stop)
    else:
        rows, y, offsets, clients = kern.pooled_squares()

        def block(s: slice) -> None:
            _block_pooled(rows, y, offsets, clients, *args, s.start, s.stop)

    work = K * (stacked[0].size if stacked is not None else rows.shape[0] * p.d * kern.size / p.M)
    parts = (os.cpu_count() or 1) if work >= PARALLEL_WORK else 1
    over_blocks(block, kern.size, min(BLOCK, -(-kern.size // parts)))
    return traj


#: data elements (rows × coordinates × K) from which a compiled pass is split over the cores: ~1 ms of
#: work (a small conformance case, 2 clients × 3 rows × 3 coordinates, went to the pool each round)
PARALLEL_WORK = 2**20
