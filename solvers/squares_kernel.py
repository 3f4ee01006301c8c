"""Per-client least-squares gradients compiled (numba): the ``loop`` strategy's hot path.

For each served client m (row i of W) with rows X_m (n_m × d), labels y_m and intercept b_i,

    t = X_m w_i + b_i,      r = (t − y_m)/n_m,      ∇ = (X_mᵀ r, Σ_j r_j),

computed with the same operations as the numpy loop it replaced: the two products by BLAS as
numpy's ``@`` calls it (``_matvec``: a dot product for a one-row matrix, else gemv), the residual
element by element as (t + b) − y then ÷ n, and the intercept's sum by numpy's own pairwise
summation (``_pairwise``, the algorithm of ``np.add.reduce`` on a contiguous vector).  So every bit
is the numpy loop's (tested on equal and unequal client sizes, d = 1, subsets, minibatch rows, any
layout of W).  What changes is that the loop over clients runs without the interpreter: ~4 µs a
client of Python calls, 0.3–0.4 ms a local step on lasso-paper's 64 clients (``benchmarks/engine.py``
part i: 4.19 → 3.79 ms a gradient of every client).

The data are the problem's pooled rows (``Problem.pooled``, shared with the reference solvers): the
stacked ``(M, n, d)`` array viewed as ``(M·n, d)`` when sizes are equal, else the clients' blocks
stacked once; client m's rows start at ``offsets(problem)[m]``.
"""

from __future__ import annotations

import numba
import numpy as np

Array = np.ndarray

#: numpy's pairwise-summation block (``PW_BLOCKSIZE`` in its loops)
PW_BLOCK = 128


@numba.njit(cache=True, nogil=True)
def _block_sum(a: Array, lo: int, n: int) -> float:
    """Pairwise sum (numpy's) of a[lo:lo+n] for n ≤ ``PW_BLOCK`` (the leaves of ``_pairwise``)."""
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    m = n - n % 8
    for i in range(lo + 8, lo + m, 8):
        r0 += a[i]
        r1 += a[i + 1]
        r2 += a[i + 2]
        r3 += a[i + 3]
        r4 += a[i + 4]
        r5 += a[i + 5]
        r6 += a[i + 6]
        r7 += a[i + 7]
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    for i in range(lo + m, lo + n):
        res += a[i]
    return res


@numba.njit(cache=True, nogil=True)
def _pairwise(a: Array, lo: int, n: int) -> float:
    """Σ a[lo:lo+n] exactly as ``np.add.reduce`` sums a contiguous float64 vector.

    Below 8 terms a plain running sum; up to ``PW_BLOCK`` eight running sums combined as
    ((r₀+r₁)+(r₂+r₃))+((r₄+r₅)+(r₆+r₇)) plus the tail; above, left half (a multiple of 8 terms) +
    right half, each summed the same way.  The recursion runs on an explicit stack (numba's on-disk
    cache cannot hold a recursive function: the cached copy crashed when loaded, measured).
    """
    if n <= PW_BLOCK:
        return _block_sum(a, lo, n)
    # post-order walk: frame = (lo, n, stage); values of finished left halves on a second stack
    f_lo = np.empty(64, dtype=np.int64)
    f_n = np.empty(64, dtype=np.int64)
    f_stage = np.empty(64, dtype=np.int64)
    vals = np.empty(64)
    top, nv = 0, 0
    f_lo[0], f_n[0], f_stage[0] = lo, n, 0
    while top >= 0:
        flo, fn = f_lo[top], f_n[top]
        if fn <= PW_BLOCK:
            vals[nv] = _block_sum(a, flo, fn)
            nv += 1
            top -= 1
            continue
        n2 = fn // 2
        n2 -= n2 % 8
        if f_stage[top] == 0:  # descend left
            f_stage[top] = 1
            top += 1
            f_lo[top], f_n[top], f_stage[top] = flo, n2, 0
        elif f_stage[top] == 1:  # then right
            f_stage[top] = 2
            top += 1
            f_lo[top], f_n[top], f_stage[top] = flo + n2, fn - n2, 0
        else:  # both done: left + right
            vals[nv - 2] = vals[nv - 2] + vals[nv - 1]
            nv -= 1
            top -= 1
    return vals[0]


def pairwise_sum(a: Array) -> float:
    """``_pairwise`` over a whole vector (for tests against ``np.add.reduce``)."""
    a = np.ascontiguousarray(a, dtype=float)
    return float(_pairwise(a, 0, a.shape[0]))


@numba.njit(cache=True, nogil=True)
def _matvec(A: Array, x: Array) -> Array:
    """A x as numpy's ``@`` computes it: one BLAS dot product when A has one row, else BLAS gemv."""
    if A.shape[0] == 1:
        out = np.empty(1)
        out[0] = np.dot(np.ascontiguousarray(A[0]), x)
        return out
    return np.dot(A, x)


@numba.njit(cache=True, nogil=True)
def client_grad(X: Array, yi: Array, w: Array, b: float, g: Array, T: Array, at: int) -> float:
    """One client (module docstring): g ← X_mᵀ r; returns Σ r (the intercept's gradient).

    Args:
        X: the client's rows ``(n, d)``.
        yi: its labels.
        w: the point's first d coordinates, contiguous.
        b: the intercept (0.0 without one).
        g: output ``(d,)``.
        T: when sized, t = X w + b is written to ``T[at:at + n]`` (for the values F_m).
        at: where.

    """
    n = X.shape[0]
    t = _matvec(X, w)
    for j in range(n):
        t[j] = t[j] + b
    if T.shape[0]:
        T[at:at + n] = t
    for j in range(n):
        t[j] = (t[j] - yi[j]) / n
    g[:] = _matvec(X.T, t)
    return _pairwise(t, 0, n)


@numba.njit(cache=True, nogil=True)
def _grads(rows: Array, offsets: Array, y: Array, clients: Array, select: Array, W: Array, b: Array,
           d: int, intercept: bool, G: Array, T: Array) -> None:
    """∇ of client ``clients[i]`` at W[i] into G[i] (module docstring); t = Xw + b into T if sized.

    ``select`` (S, k): client i uses its rows ``select[i]`` only (a minibatch), or (0, 0) for all.
    """
    at = 0
    for i in range(clients.shape[0]):
        lo, hi = offsets[clients[i]], offsets[clients[i] + 1]
        if select.shape[0]:
            X = np.ascontiguousarray(rows[lo + select[i]])
            yi = y[lo + select[i]]
        else:
            X = rows[lo:hi]
            yi = y[lo:hi]
        s = client_grad(X, yi, np.ascontiguousarray(W[i, :d]), b[i], G[i, :d], T, at)
        if T.shape[0]:
            at += X.shape[0]
        if intercept:
            G[i, d] = s


def offsets(problem) -> Array:
    """First pooled row of every client, and the row count: ``(M + 1,)`` int64."""
    return np.concatenate([[0], np.cumsum(problem.n)]).astype(np.int64)


def squares_grads(problem, clients: Array, W: Array, G: Array, values: bool = False,
                  select: Array | None = None) -> Array | None:
    """∇F_m(W[i]) (squares loss, data term) of ``clients`` into G; t = X_m W[i] + b per client if asked.

    Args:
        problem: a dense float64 problem with a squares-type loss.
        clients: client index of each row of W.
        W: points ``(S, dim)``; the last column is the intercept when ``problem.intercept``.
        G: output ``(S, dim)``, C-contiguous.
        values: also return t = X_m w + b of every client, concatenated (for F_m).
        select: per-client rows ``(S, k)`` of a minibatch, or None for every row.

    Returns:
        The concatenated t when ``values``, else None.

    Raises:
        IndexError: a client or a selected row out of range (the compiled loop does not check bounds;
            numpy's indexing, which it replaces, raised).

    """
    clients = np.ascontiguousarray(clients, dtype=np.int64)
    if len(clients) and (clients.min() < 0 or clients.max() >= problem.M):
        raise IndexError(f"clients must lie in [0, {problem.M}); got {clients.min()}..{clients.max()}")
    if select is not None and np.size(select):
        sizes = problem.n[clients][:, None]
        if np.any(select < 0) or np.any(select >= sizes):
            raise IndexError("minibatch rows must lie in [0, n_m) of their client; got "
                             f"{np.min(select)}..{np.max(select)} for sizes {sizes.min()}..{sizes.max()}")
    rows, y, _ = problem.pooled
    d = problem.d
    b = W[:, d] if problem.intercept else np.zeros(W.shape[0])
    sel = np.zeros((0, 0), dtype=np.int64) if select is None else np.ascontiguousarray(select, dtype=np.int64)
    T = np.empty((int(problem.n[clients].sum()) if select is None else sel.size) if values else 0)
    b = np.ascontiguousarray(b, dtype=float)
    _grads(rows, offsets(problem), y, clients, sel, W, b, d, bool(problem.intercept), G, T)
    return T if values else None
