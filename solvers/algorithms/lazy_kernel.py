"""The lazy SVRG pass of FO16 compiled client by client (numba): the hot loop of FSVRG.

Each client k keeps its point as w_k = s_k u_k + β_k ∇F(w^t), with u_k stored on the columns its
data touch (``U[pos]``, compact per client).  One stochastic step on row i of client k
(``samples._lazy`` gives the derivation) is, with t_i = s_k ⟨x_i, u_k⟩ + β_k ⟨x_i, ∇F(w^t)⟩,

    δ = ρ_i (φ'(t_i; y_i) − φ'(x_iᵀw^t; y_i)),
    u_k ← u_k − (h_k δ / s_k) S_k x_i,      s_k ← c_k s_k,      β_k ← c_k (β_k − h_k),

with c_k = 1/(1 + h_k λ) for ψ = (λ/2)‖·‖² and 1 for ψ = 0.  The loop visits the sequence in array
order; each client's steps touch only its own (s_k, β_k, u_k), so any interleaving of clients gives
the same bits as long as each client's steps come in the order j = 0, 1, …: ``lazy_steps`` checks that
(``_first_out_of_order``) and otherwise visits the sequence sorted by (client, step).  The arithmetic
is the vectorised lockstep pass's operation for operation (⟨x_i, u_k⟩ summed in stored-entry order
from 0.0, no fused multiply-add, no fast-math), so the two give identical bits (tested against a
lockstep transcription in ``tests/solvers/test_lazy_kernel.py``).  A client's rows and compact
columns are contiguous, so when the sequence is grouped by client the pass streams memory instead
of gathering it at random: 40 M stored entries a round in ~0.4 s where the lockstep pass needed
4–5 s (``benchmarks/engine.py --parts v``).

φ' is compiled per loss: ``LOSS_CODES`` maps every scalar loss of ``solvers.losses.scalar`` to its
branch of ``_dphi``, each the same expression as the loss's numpy ``dphi`` (bit-equality tested for
every loss).  Compiled functions are cached on disk (``cache=True``); numba is imported only here.
"""

from __future__ import annotations

import math

import numba
import numpy as np

Array = np.ndarray

#: loss name → branch of ``_dphi``; a scalar loss missing here cannot take the lazy path
LOSS_CODES = {"squares": 0, "matrix": 0, "ridge": 0, "logistic": 1, "sigmoid": 2, "cauchy": 3}


@numba.njit(cache=True, nogil=True)
def _expit(x: float) -> float:
    """σ(x) = 1/(1 + e^{−x}), as ``scipy.special.expit`` evaluates it."""
    return 1.0 / (1.0 + math.exp(-x))


@numba.njit(cache=True, nogil=True)
def _dphi(code: int, t: float, y: float) -> float:
    """φ'(t; y) of loss ``code`` (``LOSS_CODES``); same expressions as ``solvers.losses.scalar``."""
    if code == 0:  # squares: t − y
        return t - y
    if code == 1:  # logistic: −y σ(−yt)
        return -y * _expit(-y * t)
    if code == 2:  # sigmoid: −y σ(−yt)(1 − σ(−yt))
        s = _expit(-y * t)
        return -y * s * (1.0 - s)
    r = t - y  # cauchy: r/(1 + r²)
    return r / (1.0 + r * r)


@numba.njit(cache=True, nogil=True)
def _first_out_of_order(seq_client: Array, seq_step: Array, clients: int) -> int:
    """−1 when every client's steps appear as 0, 1, … in array order, else the first index that does not."""
    done = np.zeros(clients, dtype=np.int64)
    for i in range(seq_client.shape[0]):
        k = seq_client[i]
        if seq_step[i] != done[k]:
            return i
        done[k] += 1
    return -1


@numba.njit(cache=True, nogil=True)
def _steps(code: int, seq_rows: Array, seq_client: Array, indptr: Array, data: Array, pos_entry: Array,
           entry_scale: Array, scaled: bool, xg: Array, y: Array, d0: Array, rho: Array, h: Array, c: Array,
           U: Array, s: Array, beta: Array) -> None:
    """Every step of the sequence, in array order, in place on (U, s, β)."""
    for i in range(seq_rows.shape[0]):
        k = seq_client[i]
        row = seq_rows[i]
        lo, hi = indptr[row], indptr[row + 1]
        dots = 0.0
        for e in range(lo, hi):
            dots += data[e] * U[pos_entry[e]]
        t = s[k] * dots + beta[k] * xg[row]
        delta = rho[row] * (_dphi(code, t, y[row]) - d0[row])
        coef = h[k] * delta / s[k]
        for e in range(lo, hi):
            sval = data[e] * entry_scale[e] if scaled else data[e]
            U[pos_entry[e]] = U[pos_entry[e]] - coef * sval
        s[k] *= c[k]
        beta[k] = c[k] * (beta[k] - h[k])


def dphi(loss: str, t: Array, y: Array) -> Array:
    """The compiled φ' of ``loss`` on arrays (element by element): for tests of bit-equality."""
    return _dphi_many(LOSS_CODES[loss], np.ascontiguousarray(t, dtype=float),
                      np.ascontiguousarray(y, dtype=float))


@numba.njit(cache=True)
def _dphi_many(code: int, t: Array, y: Array) -> Array:
    out = np.empty_like(t)
    for i in range(t.shape[0]):
        out[i] = _dphi(code, t[i], y[i])
    return out


def lazy_steps(loss: str, seq_rows: Array, seq_client: Array, seq_step: Array, indptr: Array, data: Array,
               pos_entry: Array, entry_scale: Array | None, xg: Array, y: Array, d0: Array, rho: Array,
               h: Array, c: Array, U: Array, s: Array, beta: Array) -> None:
    """Run every client's sequence on (U, s, β) in place (module docstring).

    The sequence is visited in the order given; when some client's steps are not in the order
    0, 1, … there, it is visited in (client, step) order instead, which is the same pass.

    Raises:
        ValueError: the loss has no compiled φ', a client or row index is out of range (the compiled loop
            does not check bounds), or a client's steps are not 0, 1, …, m_k − 1.

    """
    if loss not in LOSS_CODES:
        raise ValueError(f"loss {loss!r} has no compiled φ' (known: {sorted(LOSS_CODES)})")
    rows, client, step = (np.ascontiguousarray(a, dtype=np.int64) for a in (seq_rows, seq_client, seq_step))
    if len(rows) and not (0 <= client.min() and client.max() < len(s) and 0 <= rows.min()
                          and rows.max() < len(indptr) - 1):
        raise ValueError(f"clients must lie in [0, {len(s)}) and rows in [0, {len(indptr) - 1}); got clients "
                         f"{client.min()}..{client.max()}, rows {rows.min()}..{rows.max()}")
    if _first_out_of_order(client, step, len(s)) >= 0:
        order = np.lexsort((step, client))
        rows, client, step = rows[order], client[order], step[order]
        bad = _first_out_of_order(client, step, len(s))
        if bad >= 0:
            raise ValueError(f"sequence element {int(order[bad])} (client {client[bad]}, step {step[bad]}): "
                             "each client's steps must be 0, 1, …, m_k − 1")
    scale = np.empty(0) if entry_scale is None else entry_scale
    _steps(LOSS_CODES[loss], rows, client, indptr.astype(np.int64, copy=False), data, pos_entry, scale,
           entry_scale is not None, xg, y, d0, rho, h, c, U, s, beta)
