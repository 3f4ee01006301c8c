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
from typing import Any, NamedTuple

import numba
import numpy as np

from solvers.batched_squares import back, predict_cols, transpose_into
from solvers.kernels import Kernel, over_blocks
from solvers.mirror_maps import Euclidean, FreeTailMirror, MirrorMap
from solvers.oracles import Oracle
from solvers.regularizers import L1, FreeTail, Regularizer, Zero

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
    """Coordinates of a Euclidean h before its free tail (None unless h is Euclidean there)."""
    if isinstance(h, Euclidean):
        return dim
    if isinstance(h, FreeTailMirror) and isinstance(h.base, Euclidean):
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
        if not (isinstance(psi, FreeTail) and psi.n_free == h.n_free):
            return None
        base = psi.base
    if isinstance(base, Zero):
        return MapSpec(IDENTITY, 0.0, dim)
    if type(base) is L1 and np.ndim(base.lam) == 0:
        return MapSpec(SOFT, float(base.lam), head)
    return None


def plan(env: Any, kern: Kernel, spec: MapSpec | None) -> bool:
    """Whether ``dual_trajectory`` may replace the numpy client-major schedule for this round.

    It may for a known map, the exact oracle (no draws, no added zeros) and a kernel whose gradients
    are ``batched_squares``' (dense float64 squares-type clients on the batched strategy).
    """
    return spec is not None and type(env.oracle) is Oracle and kern.dense_squares() is not None


@numba.njit(cache=True, nogil=True)
def _dual_block(X: Array, Y: Array, z: Array, taus: Array, active: Array, kind: int, head: int,
                eta: float, ridge: float, intercept: bool, traj: Array, lo: int, hi: int) -> None:
    K = traj.shape[0]
    n, d = X.shape[1], X.shape[2]
    dim = z.shape[0]
    zm = np.empty(dim)
    w = np.empty(dim)
    t = np.empty(n)
    g = np.empty(d)
    XT = np.empty((d, n))
    for m in range(lo, hi):
        transpose_into(X[m], XT)  # once per client, used for its K steps
        for j in range(dim):
            zm[j] = z[j]
        for k in range(K):
            if kind == SOFT and active[k]:
                tau = taus[k]
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
            b = w[d] if intercept else 0.0
            predict_cols(XT, w[:d], b, t)
            s = back(X[m], Y[m], t, g)
            if ridge != 0.0:
                for j in range(d):
                    g[j] += ridge * w[j]
            for j in range(d):
                zm[j] -= eta * g[j]
            if intercept:
                zm[d] -= eta * s
            for j in range(dim):
                traj[k, m, j] = zm[j]


def dual_trajectory(kern: Kernel, z: Array, K: int, eta_c: float, spec: MapSpec, ts: Array) -> Array:
    """The trajectory (K, |S|, dim) of K FedDualAvg local steps from z on every served client.

    Entry k is z^m_{k+1}.  ``ts[k]`` is η̃ of step k (the map's weight t; its threshold is t·λ).
    """
    X, Y = kern.dense_squares()
    p = kern.problem
    ts = np.asarray(ts, dtype=float)
    if ts.shape != (K,):
        raise ValueError(f"fused steps: {ts.shape[0] if ts.ndim == 1 else ts.shape} weights η̃ for "
                         f"K = {K} steps; the rule is one weight per local step")
    taus = ts * spec.lam  # t·λ as L1.prox forms it
    active = ts != 0.0  # make_composite: t = 0 is ∇h*
    traj = np.empty((K, kern.size, p.dim))
    z = np.ascontiguousarray(z, dtype=float)

    def block(s: slice) -> None:
        _dual_block(X, Y, z, taus, active, spec.kind, spec.head, float(eta_c), float(p.ridge_lam or 0.0),
                    bool(p.intercept), traj, s.start, s.stop)

    over_blocks(block, kern.size)
    return traj
