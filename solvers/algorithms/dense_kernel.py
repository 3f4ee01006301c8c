"""The dense SVRG pass of FO16 compiled step by step (numba): SVRG's and dense FSVRG's inner loop.

``samples._dense`` moves the clients in lockstep, step j of every client in one vectorised numpy
operation on one dense row per client.  With one client (SVRG on one machine) each step is a single
row, and the ~20 numpy calls of a step cost ~19 µs while its arithmetic costs O(dim) flops.  Here the
same steps run in one compiled loop over the lockstep sequence; step (i, k) on pooled row x_i is

    t     = 0 + Σ_j x_ij W_kj                      (numpy's pairwise order, ``_pairwise_sum``),
    δ     = φ'(t; y_i) − φ'(x_iᵀw^t; y_i),
    d_j   = δ x_ij  [+ (λ_ridge (W_kj − w^t_j)) m_j]  [· S_kj],
    v_j   = W_kj − h_k (ρ_i d_j + g_j),
    W_kj ← prox_{h_k ψ}(v)_j,

coordinate by coordinate in the order and association the numpy expressions use, so every rounding
is the same (no fast-math, no fused multiply-add: numba leaves LLVM's contraction off).  Each
client's steps only touch its own row W_k, so visiting the lockstep order element by element is the
vectorised pass exactly (tested bit for bit in ``tests/solvers/test_dense_kernel.py``).

``np.sum(P, axis=1)`` on a contiguous row starts its accumulator at 0.0 and adds numpy's pairwise sum
of the row (``pairwise_sum`` in numpy/_core/src/umath/loops_utils.h.src): below 8 terms a plain sum
from −0.0; up to 128 terms eight strided accumulators combined as ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))
and the remainder added in order; above, the halves at n/2 rounded down to a multiple of 8, summed
recursively.  ``_pairwise_sum`` transcribes it (numpy 2.4; a numpy that sums otherwise fails the
tests, which compare against ``np.sum`` itself).

ψ is compiled when its prox is elementwise arithmetic reproducible operation for operation:
``PSI_CODES`` (0, (λ/2)‖·‖², λ‖·‖₁, elastic net; inside ``FreeTail`` the trailing coordinates are
left as they are).  φ' is ``lazy_kernel._dphi`` (bit-equal to every scalar loss's numpy ``dphi``).
Compiled functions are cached on disk (``cache=True``); numba is imported only here.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from fcocheck.solvers.algorithms.lazy_kernel import LOSS_CODES, _dphi
from fcocheck.solvers.regularizers import L1, ElasticNet, FreeTail, L2Squared, Regularizer, Zero

Array = np.ndarray

#: regulariser class → branch of ``_prox``; any other ψ keeps the numpy pass
PSI_CODES: dict[type, int] = {Zero: 0, L2Squared: 1, L1: 2, ElasticNet: 3}

#: numpy's pairwise-summation block (PW_BLOCKSIZE)
BLOCK = 128


def psi_code(psi: Regularizer) -> tuple[int, float, float, int] | None:
    """(branch, a, b, free trailing coordinates) of ψ's compiled prox, or None when it has none.

    a, b are λ for l2sq and l1, (λ₁, λ₂) for the elastic net.  The class must match exactly: a
    subclass may override its prox.
    """
    n_free = 0
    if type(psi) is FreeTail:
        psi, n_free = psi.base, int(psi.n_free)
    code = PSI_CODES.get(type(psi))
    if code is None:
        return None
    if code == 3:
        return code, float(psi.lam1), float(psi.lam2), n_free
    return code, float(getattr(psi, "lam", 0.0)), 0.0, n_free


def compiled_ok(loss: str, psi: Regularizer) -> bool:
    """Whether the compiled pass reproduces the numpy pass for this loss and ψ."""
    return loss in LOSS_CODES and psi_code(psi) is not None


@numba.njit(cache=True, nogil=True)
def _block_sum(a: Array, lo: int, n: int) -> float:
    """The pairwise sum (numpy's) of a[lo:lo+n] for n ≤ 128 (the non-recursive cases)."""
    if n < 8:
        res = -0.0
        for i in range(n):
            res += a[lo + i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    stop = n - n % 8
    while i < stop:
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@numba.njit(cache=True, nogil=True)
def _pairwise_sum(a: Array, n: int, los: Array, ns: Array, vals: Array) -> float:
    """The pairwise sum (numpy's) of a[:n], the recursion of n > 128 run on explicit stacks.

    The recursion s(lo, n) = s(lo, n₂) + s(lo + n₂, n − n₂), n₂ = ⌊n/2⌋ − ⌊n/2⌋ mod 8, is evaluated in
    post-order: a node is pushed with a negative length when its halves are pending, and on its
    second visit the two values on top of ``vals`` (left below right) are added, left + right.
    ``los``, ``ns``, ``vals`` are scratch of length ≥ 2·log2(n) + 2.
    """
    if n <= BLOCK:
        return _block_sum(a, 0, n)
    top = 0
    los[0], ns[0] = 0, n
    nv = 0
    while top >= 0:
        lo, m = los[top], ns[top]
        top -= 1
        if m < 0:  # both halves done: combine
            right = vals[nv - 1]
            left = vals[nv - 2]
            nv -= 2
            vals[nv] = left + right
            nv += 1
        elif m <= BLOCK:
            vals[nv] = _block_sum(a, lo, m)
            nv += 1
        else:
            m2 = m // 2
            m2 -= m2 % 8
            top += 1
            los[top], ns[top] = lo, -m  # combine after the halves
            top += 1
            los[top], ns[top] = lo + m2, m - m2  # right half: popped second
            top += 1
            los[top], ns[top] = lo, m2  # left half: popped first
    return vals[0]


@numba.njit(cache=True, nogil=True)
def _prox(code: int, v: float, t: float, a: float, b: float) -> float:
    """prox_{tψ}(v) for one coordinate, as the numpy prox evaluates it (``PSI_CODES``).

    0: v.  l2sq: v/(1 + tλ).  l1: copysign(max(|v| − tλ, 0), v).  elastic net: the l1 value
    divided by (1 + tλ₂).  (max keeps a NaN, as ``np.maximum`` does.)
    """
    if code == 0:
        return v
    if code == 1:
        return v / (1.0 + t * a)
    s = abs(v) - t * a
    if s < 0.0:
        s = 0.0
    s = math.copysign(s, v)
    if code == 2:
        return s
    return s / (1.0 + t * b)


@numba.njit(cache=True, nogil=True)
def _steps(code: int, pcode: int, pa: float, pb: float, n_free: int, rows: Array, clients: Array,
           indptr: Array, indices: Array, data: Array, y: Array, d0: Array, rho: Array, h: Array, g: Array,
           w_t: Array, model: Array, lam: float, S: Array, scaled: bool, W: Array) -> None:
    """Every step of the lockstep sequence (rows[e], clients[e]), in array order, in place on W."""
    dim = W.shape[1]
    x = np.zeros(dim)
    prod = np.empty(dim)
    depth = 2 * (int(math.log2(max(dim, 1))) + 2)
    los = np.empty(depth, dtype=np.int64)
    ns = np.empty(depth, dtype=np.int64)
    vals = np.empty(depth)
    head = dim - n_free
    for e in range(rows.shape[0]):
        k = clients[e]
        row = rows[e]
        lo, hi = indptr[row], indptr[row + 1]
        for p in range(lo, hi):
            x[indices[p]] = data[p]
        for j in range(dim):
            prod[j] = x[j] * W[k, j]
        t = 0.0 + _pairwise_sum(prod, dim, los, ns, vals)
        delta = _dphi(code, t, y[row]) - d0[row]
        hk = h[k]
        r = rho[row]
        for j in range(dim):
            wj = W[k, j]
            dj = delta * x[j]
            if lam != 0.0:
                dj = dj + (lam * (wj - w_t[j])) * model[j]
            if scaled:
                dj = dj * S[k, j]
            v = wj - hk * (r * dj + g[j])
            W[k, j] = _prox(pcode, v, hk, pa, pb) if j < head else v
        for p in range(lo, hi):
            x[indices[p]] = 0.0


def dense_steps(loss: str, psi: Regularizer, rows: Array, clients: Array, indptr: Array, indices: Array,
                data: Array, y: Array, d0: Array, rho: Array, h: Array, g: Array, w_t: Array, model: Array,
                lam: float, S: Array | None, W: Array) -> None:
    """Run the lockstep sequence (rows, clients) on the points W (``(M, dim)``) in place.

    Args:
        loss: the scalar loss (a key of ``lazy_kernel.LOSS_CODES``).
        psi: ψ on the full vector (``compiled_ok``).
        rows: pooled row of each step, in lockstep order (each client's steps in order).
        clients: client of each step.
        indptr: CSR row pointers of the pooled design.
        indices: CSR column indices in [0, dim) (not checked: a scipy CSR matrix of width dim),
            no duplicates within a row.
        data: CSR values.
        y: labels.
        d0: φ'(x_iᵀw^t; y_i) per row.
        rho: ρ_i per row.
        h: step size per client.
        g: ∇F(w^t).
        w_t: the round's starting point.
        model: mask of the model coordinates (the ridge term's).
        lam: λ of the ridge loss (0 when none).
        S: FSVRG's dense S_k ``(M, dim)``, or None.
        W: the clients' points, updated in place (C-contiguous float64).

    Float inputs are taken as float64 (an integer step h converts as numpy's mixed arithmetic does).

    Raises:
        ValueError: the loss or ψ has no compiled form, or a row or client is out of range (the compiled
            loop does not check bounds).

    """
    code = psi_code(psi)
    if loss not in LOSS_CODES or code is None:
        raise ValueError(f"no compiled dense pass for loss {loss!r} and ψ {psi.name!r}")
    M = W.shape[0]
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    clients = np.ascontiguousarray(clients, dtype=np.int64)
    n_rows = len(indptr) - 1
    if len(rows) and not (0 <= clients.min() and clients.max() < M and 0 <= rows.min()
                          and rows.max() < n_rows):
        raise ValueError(f"clients must lie in [0, {M}) and rows in [0, {n_rows})")
    if W.dtype != np.float64 or not W.flags.c_contiguous:
        raise ValueError("W must be a C-contiguous float64 array")
    scale = np.empty((0, 0)) if S is None else np.ascontiguousarray(S, dtype=float)
    y, d0, rho, h, g, w_t = (np.ascontiguousarray(a, dtype=float) for a in (y, d0, rho, h, g, w_t))
    _steps(LOSS_CODES[loss], code[0], code[1], code[2], code[3], rows, clients, indptr, indices,
           np.ascontiguousarray(data, dtype=float), y, d0, rho, h, g, w_t, model.astype(float), float(lam),
           scale, S is not None, W)
