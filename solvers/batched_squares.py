"""Least-squares gradients of the ``batched`` strategy, compiled (numba): sequential sums, client by client.

For a client with rows x_i (i < n), labels y_i and a point (w, b) ∈ R^d × R,

    t_i = (Σ_{j<d} x_ij w_j) + b,      r_i = (t_i − y_i) / n,
    ∇_w F = Σ_{i<n} r_i x_i,           ∇_b F = Σ_{i<n} r_i,

every sum accumulated **in index order starting from 0.0** — no pairwise or blocked reassociation,
no FMA contraction, no fast-math.  The order is part of the definition: the bits do not depend on
the CPU's vector width, on the number of threads, or on how clients are grouped into blocks, and
``tests/solvers/test_batched_squares.py`` pins them against a numpy transcription of these sums.

Speed comes from independent chains, not from reassociation: four rows' t_i are accumulated
together (four chains sharing each w_j), and the d coordinates of ∇_w F are independent lanes
(``g_j += x_ij r_i`` vectorises without changing any sum's order).  Tiny clients (20 × 100) are
compute-bound, so this beats numpy's two batched einsums, which stream the data twice per step;
``client_steps`` (the fused client-major FedDualAvg steps, ``solvers/algorithms/fused_steps.py``)
runs the same per-client routine K times while the client's rows stay in L1.

Only dense float64 squares-type losses (squares, ridge — whose λ‖w‖²/2 the kernel adds after —
and matrix sensing, whose W is stored flat) take this path; other losses keep the einsums.
"""

from __future__ import annotations

import numba
import numpy as np

Array = np.ndarray


@numba.njit(cache=True, nogil=True)
def predict_rows(X: Array, w: Array, b: float, t: Array) -> None:
    """t_i ← (Σ_j x_ij w_j) + b from the rows ``X (n, d)``: four rows at once, each summed in order over j."""
    n, d = X.shape
    n4 = n - n % 4
    for i0 in range(0, n4, 4):
        x0, x1, x2, x3 = X[i0], X[i0 + 1], X[i0 + 2], X[i0 + 3]
        a0 = a1 = a2 = a3 = 0.0
        for j in range(d):
            wj = w[j]
            a0 += x0[j] * wj
            a1 += x1[j] * wj
            a2 += x2[j] * wj
            a3 += x3[j] * wj
        t[i0], t[i0 + 1], t[i0 + 2], t[i0 + 3] = a0 + b, a1 + b, a2 + b, a3 + b
    for i in range(n4, n):
        a0 = 0.0
        x0 = X[i]
        for j in range(d):
            a0 += x0[j] * w[j]
        t[i] = a0 + b


@numba.njit(cache=True, nogil=True)
def predict_cols(XT: Array, w: Array, b: float, t: Array) -> None:
    """The same t from the columns ``XT = Xᵀ (d, n)``: t += x_{·j} w_j for j in order, rows as lanes.

    Each t_i receives the same products in the same order as in ``predict_rows`` (so the same bits),
    but the n rows are independent lanes (vectorised): the fast form when one client's Xᵀ is
    formed once and used for K steps (``fused_steps``).  Columns with w_j = ±0 are skipped, which
    changes no bit: for finite data (``problem.validate``'s rule) the term is ±0, and a partial sum
    that starts at +0.0 is never −0.0 (x + y = −0 needs x = y = −0), so adding ±0 returns it
    unchanged — and the iterates of an ℓ1 method are sparse.
    """
    d, n = XT.shape
    for i in range(n):
        t[i] = 0.0
    for j in range(d):
        wj = w[j]
        if wj == 0.0:  # the terms x_ij·(±0) = ±0 leave every t_i as it is (see below)
            continue
        xt = XT[j]
        for i in range(n):
            t[i] += xt[i] * wj
    for i in range(n):
        t[i] += b


@numba.njit(cache=True, nogil=True)
def transpose_into(X: Array, XT: Array) -> None:
    """XT ← Xᵀ (a client's rows, into a scratch buffer that stays in cache)."""
    n, d = X.shape
    for i in range(n):
        for j in range(d):
            XT[j, i] = X[i, j]


@numba.njit(cache=True, nogil=True)
def back(X: Array, y: Array, t: Array, g: Array) -> float:
    """Backward pass: g ← Σ_i r_i x_i, r_i = (t_i − y_i)/n (the d coordinates as lanes); returns Σ_i r_i.

    Args:
        X: the client's rows ``(n, d)``.
        y: its labels ``(n,)``.
        t: the predictions from ``predict_rows`` / ``predict_cols``.
        g: output ``(d,)``, ∇_w F.

    """
    n, d = X.shape
    for j in range(d):
        g[j] = 0.0
    s = 0.0
    for i in range(n):
        ri = (t[i] - y[i]) / n
        s += ri
        xi = X[i]
        for j in range(d):
            g[j] += xi[j] * ri
    return s


@numba.njit(cache=True, nogil=True)
def _all(X: Array, Y: Array, W: Array, intercept: bool, T: Array, G: Array, grads: bool) -> None:
    d = X.shape[2]
    for m in range(X.shape[0]):
        b = W[m, d] if intercept else 0.0
        predict_rows(X[m], W[m, :d], b, T[m])
        if grads:
            s = back(X[m], Y[m], T[m], G[m, :d])
            if intercept:
                G[m, d] = s


def squares_grads(X: Array, Y: Array, W: Array, intercept: bool, G: Array | None) -> Array:
    """Every client's predictions T (returned) and, when ``G`` is given, gradients written into G.

    Args:
        X: stacked client rows ``(M, n, d)``, float64, C-contiguous.
        Y: labels ``(M, n)``.
        W: points ``(M, d + intercept)``; any layout (copied to a contiguous array if needed).
        intercept: whether the last coordinate of W is a free intercept b.
        G: output gradients ``(M, d + intercept)`` (C-contiguous rows), or None for predictions only.

    Returns:
        T ``(M, n)``: t_i = x_iᵀw + b per client (the values F_m = mean ½(t_i − y_i)² use them).

    Raises:
        ValueError: shapes that do not match (the compiled loop does not check its indices).

    """
    M, n, d = X.shape
    dim = d + int(bool(intercept))
    if Y.shape != (M, n) or W.shape != (M, dim) or (G is not None and G.shape != (M, dim)):
        raise ValueError(
            f"batched squares kernel: X {X.shape}, Y {Y.shape}, W {W.shape}, G "
            f"{None if G is None else G.shape}; the rule is X (M, n, d), Y (M, n), W and G (M, d + intercept)"
        )
    T = np.empty((M, n))
    out = np.empty((M, dim)) if G is None else G
    _all(np.ascontiguousarray(X, dtype=np.float64), np.ascontiguousarray(Y, dtype=np.float64),
         np.ascontiguousarray(W, dtype=np.float64), bool(intercept), T, out, G is not None)
    return T
