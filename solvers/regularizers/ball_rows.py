"""Π onto the ℓ1 and ℓ2 balls row by row, compiled: ``L1Ball.project``'s and ``L2Ball.project``'s bits.

ℓ1 (``l1_ball_rows``), for each row v: inside when Σ_j |v_j| ≤ r, the sum as NumPy's ``add.reduce``
takes it (pairwise: eight partial sums over blocks of at most 128, halves cut to a multiple of 8 above);
else, u the |v_j| sorted descending and css_k = u_1 + … + u_k in order, θ = (css_ρ − r)/ρ for the last ρ
with u_ρ − (css_ρ − r)/ρ > 0, and w_j = sign(v_j)·max(|v_j| − θ, 0) — each operation the one
``project_simplex`` makes on that row, so the result is its bits (signed zeros included;
``tests/solvers/test_simplex_bits.py``).  A row holding a NaN or an infinity is left to NumPy (its sort
orders them another way): the kernel then says so.

ℓ2 (``l2_ball_rows``): v·(r/‖v‖₂) where ‖v‖₂ = √(Σ v_j²) > r, the sum pairwise as ``np.linalg.norm``'s.

Why compiled: the engine projects a few rows of ~20 coordinates several times per local step; NumPy's
calls per projection cost 6–16 µs whatever the size, these loops 0.4–2.5 µs (1–40 rows of 20).
"""

from __future__ import annotations

import numba
import numpy as np

from fcocheck.solvers.algorithms.dense_kernel import BLOCK, _block_sum, _pairwise_sum


@numba.njit(cache=True, nogil=True)
def pairwise_sum(a: np.ndarray) -> float:  # pragma: no cover - compiled
    """Σ a as ``np.add.reduce`` sums a contiguous row (``dense_kernel._pairwise_sum``'s transcription).

    Rows of at most ``BLOCK`` terms (every row ``L1Ball`` compiles; longer ℓ2 rows recurse) sum without
    the recursion's scratch (2584da1 allocated it for every row: three arrays, each projection's each row).
    """
    n = a.shape[0]
    if n <= BLOCK:
        return _block_sum(a, 0, n)
    return _pairwise_sum(a, n, np.empty(192, np.int64), np.empty(192, np.int64), np.empty(64))


@numba.njit(cache=True, nogil=True)
def l1_ball_rows(V: np.ndarray, radius: float, out: np.ndarray) -> bool:  # pragma: no cover - compiled
    """out[i] ← Π(V[i]) for every row (module docstring); False, out unfinished, if a value is not finite.

    V: C-contiguous ``(rows, n)``, n ≤ ``sets.MAX_COMPILED_ROW`` (any n is exact; beyond, slower than NumPy).
    """
    rows, n = V.shape
    size = np.empty(n)
    u = np.empty(n)
    q = np.empty(n)
    for i in range(rows):
        for j in range(n):
            x = V[i, j]
            if not np.isfinite(x):
                return False
            size[j] = abs(x)
        if pairwise_sum(size) <= radius:
            for j in range(n):
                out[i, j] = V[i, j]
            continue
        for j in range(n):  # −|v| ascending (insertion sort: the same values as any sort)
            x = -size[j]
            k = j - 1
            while k >= 0 and u[k] > x:
                u[k + 1] = u[k]
                k -= 1
            u[k + 1] = x
        css = 0.0
        for k in range(n):
            css += -u[k]
            q[k] = (css - radius) / (k + 1)
        rho = n - 1
        for k in range(n - 1, -1, -1):
            if -u[k] - q[k] > 0:
                rho = k
                break
        theta = q[rho]
        for j in range(n):
            x = size[j] - theta
            if not (x >= 0.0 or x != x):  # np.maximum(x, 0): −0.0 and NaN stay
                x = 0.0
            v = V[i, j]
            s = 1.0 if v > 0 else (-1.0 if v < 0 else 0.0)  # np.sign (of ±0: +0)
            out[i, j] = s * x
    return True


@numba.njit(cache=True, nogil=True)
def l2_ball_rows(V: np.ndarray, radius: float, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """out[i] ← Π(V[i]) onto {‖w‖₂ ≤ r}: v·(r/‖v‖₂) where ‖v‖₂ > r, else v (``L2Ball.project``'s bits).

    ‖v‖₂ = √(Σ_j v_j·v_j), the sum as ``np.linalg.norm(v, axis=-1)`` takes it (``pairwise_sum``).
    """
    rows, n = V.shape
    sq = np.empty(n)
    for i in range(rows):
        for j in range(n):
            sq[j] = V[i, j] * V[i, j]
        norm = np.sqrt(pairwise_sum(sq))
        if norm > radius:
            scale = radius / norm
            for j in range(n):
                out[i, j] = V[i, j] * scale
        else:
            for j in range(n):
                out[i, j] = V[i, j]
