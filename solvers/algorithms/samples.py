"""Per-sample view of a GLM problem and the SVRG inner loop of FO16 (Algs. 1, 3, 4).

``SampleView`` pools every client's rows into one CSR matrix (an intercept becomes a column
of ones), with per-row labels, weights ω_i = p_m/n_m and owners, so ∇f_i(w) = φ'(x_iᵀw; y_i)x_i
(+ λ_ridge w on the model coordinates).

``svrg_pass`` runs, for every client k at once, the stochastic steps

    w_k ← prox_{h_k ψ}( w_k − h_k ( ρ_i S_k[∇f_i(w_k) − ∇f_i(w^t)] + ∇F(w^t) ) ),   i = i_{k,1..m_k},

from w_k = w^t, and returns Δ = Σ_k p_k (w_k − w^t) (and the w_k when asked).  Two paths give
the same iterates up to rounding (tested):

* ``lazy`` (ψ ∈ {0, l2sq}, no ridge term in f, no intercept with l2sq): each client's point is
  kept as w_k = s_k u_k + β_k ∇F(w^t) with scalars s_k, β_k and u_k stored only on the columns
  client k's data touch; the dense ∇F(w^t) term and the l2sq prox (a scaling) become scalar
  updates, so a step costs O(nnz(x_i)) — the hint of issue 4 made exact.  The steps run compiled,
  client by client over each client's contiguous rows and columns (``lazy_kernel``), so 10,000
  clients cost one streaming pass over the sampled rows, not Σ_k m_k Python iterations;
* ``dense`` (any ψ with a prox, ridge terms, intercepts): clients move in lockstep — step j updates
  every client that has a j-th sample in one vectorised operation on one dense row per client.  When
  ψ ∈ {0, l2sq, l1, elastic net} (with or without an intercept) the same steps run compiled, one
  sequence element at a time (``dense_kernel``: the numpy expressions' operations in their order, numpy's
  pairwise row sum included), with the same bits (tested) — SVRG's single sequence, one row a step, took
  ~19 µs a step in numpy calls and takes ~0.2 µs; ``compiled=False`` keeps the numpy pass.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from fcocheck.solvers.algorithms.local_solvers import prox_rows
from fcocheck.solvers.errors import InvalidProblemError
from fcocheck.solvers.problem import Problem
from fcocheck.solvers.regularizers import FreeTail, L2Squared, Zero
from fcocheck.solvers.regularizers.base import check_step

Array = np.ndarray
_VIEWS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


#: at most this many rows are gathered row by row (``SampleView.rows``)
FEW_ROWS = 8


@dataclass(frozen=True, eq=False)
class SampleView:
    """Pooled rows of a GLM problem.

    Attributes:
        A: pooled design, CSR ``(n, dim)`` (canonical; the intercept as a column of ones).
        y: labels ``(n,)``.
        omega: per-row weight ω_i = p_m/n_m, so F = Σ_i ω_i f_i.
        owner: client of each row.
        starts: first pooled row of each client (length M + 1).
        model: mask of the model coordinates (False on the intercept).

    """

    A: Any
    y: Array
    omega: Array
    owner: Array
    starts: Array
    model: Array
    cache: dict

    @property
    def n(self) -> int:
        """Total number of rows."""
        return int(self.A.shape[0])

    def row(self, i: int) -> Array:
        """Pooled row ``i`` as a dense ``(dim,)`` vector, straight from the CSR arrays.

        The single-sample loops of SGD, SVRG and DANE's local SVRG call this once per step; scipy's
        ``A[i].toarray()`` built a CSR matrix each time (170 µs a step).
        """
        A = self.A
        out = np.zeros(A.shape[1])
        lo, hi = A.indptr[i], A.indptr[i + 1]
        out[A.indices[lo:hi]] = A.data[lo:hi]
        return out

    def rows(self, rows: Array) -> Array:
        """The pooled rows ``rows`` as a dense ``(len(rows), dim)`` array (``A[rows].toarray()``).

        One vectorised gather over their stored entries (one row per client and step in FSVRG's dense
        pass); for a handful of rows (SVRG on one machine: one a step) row by row, which costs 3 µs a
        row where the gather's set-up costs 20 µs.
        """
        rows = np.asarray(rows, dtype=np.int64).ravel()
        if len(rows) <= FEW_ROWS:
            return np.array([self.row(i) for i in rows]).reshape(len(rows), self.A.shape[1])
        out = np.zeros((len(rows), self.A.shape[1]))
        idx, offsets = _gather_entries(self, rows)
        out[np.repeat(np.arange(len(rows)), np.diff(offsets)), self.A.indices[idx]] = self.A.data[idx]
        return out


def sample_view(problem: Problem, who: str) -> SampleView:
    """The (cached) per-sample view; refuses problems without sample data."""
    if problem.loss == "quadratic":
        raise InvalidProblemError(f"{who} needs per-sample data (a GLM loss); problem {problem.name!r} "
                                  "is 'quadratic'")
    if problem not in _VIEWS:
        import scipy.sparse as sp  # lazy: start-up time

        blocks = [sp.csr_matrix(X) for X in problem.X]
        A = sp.vstack(blocks, format="csr")
        if problem.intercept:
            A = sp.hstack([A, np.ones((A.shape[0], 1))], format="csr")
        A.sum_duplicates()
        A.sort_indices()
        n = problem.n
        starts = np.concatenate([[0], np.cumsum(n)])
        omega = np.repeat(problem.weights / n, n)
        model = np.ones(problem.dim, dtype=bool)
        if problem.intercept:
            model[-1] = False
        _VIEWS[problem] = SampleView(A, np.concatenate(problem.y), omega,
                                     np.repeat(np.arange(problem.M), n), starts, model, {})
    return _VIEWS[problem]


def full_gradient(problem: Problem, view: SampleView, w: Array) -> tuple[Array, Array]:
    """(∇F(w), φ'(x_iᵀw; y_i) for every row) in one pass over the data."""
    t = view.A @ w
    d0 = problem.phi.dphi(t, view.y)
    g = np.asarray(view.A.T @ (view.omega * d0))
    if problem.ridge_lam:
        g = g + problem.ridge_lam * w * view.model
    return g, d0


def lazy_ok(problem: Problem) -> bool:
    """Whether the lazy path applies (ψ ∈ {0, l2sq}, no ridge in f, no intercept with l2sq)."""
    psi = problem.regularizer
    if problem.ridge_lam:
        return False
    return isinstance(psi, Zero) or (isinstance(psi, L2Squared) and not problem.intercept)


def client_columns(view: SampleView) -> tuple[Array, Array, Array, Array, Array]:
    """The distinct (client, column) pairs of the stored entries, computed once per view.

    Returns (client of each entry, pair index of each entry, column of each pair, client of
    each pair, entries per pair) — shared by FSVRG's S_k/A and the lazy path's layout.
    """
    if "pairs" not in view.cache:
        A = view.A
        dim = A.shape[1]
        client_of_entry = view.owner[np.repeat(np.arange(view.n), np.diff(A.indptr))]
        key = client_of_entry.astype(np.int64) * dim + A.indices
        uniq, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
        view.cache["pairs"] = (client_of_entry, inverse.astype(np.int64), uniq % dim, uniq // dim, counts)
    return view.cache["pairs"]


def frequency_scaling(problem: Problem, view: SampleView) -> tuple[Array, Array]:
    """FSVRG's S_k per stored entry and A's diagonal (FO16 §3.6.1), cached.

    s_jk = φ^j/φ^j_k with φ^j = n^j/n and φ^j_k = n^j_k/n_k, evaluated on the entries of client
    k's rows (where n^j_k > 0); a_j = K/ω_j with ω_j the number of clients holding feature j
    (a_j = 1 for a feature no client holds).
    """
    if "fsvrg" not in view.cache:
        cols, dim = view.A.indices, view.A.shape[1]
        client_of_entry, pair, pair_col, _, counts = client_columns(view)
        n_j = np.bincount(cols, minlength=dim).astype(float)
        n_jk = counts[pair].astype(float)
        nk = problem.n[client_of_entry].astype(float)
        s_entry = (n_j[cols] / view.n) / (n_jk / nk)
        omega_j = np.bincount(pair_col, minlength=dim).astype(float)
        a = np.where(omega_j > 0, problem.M / np.maximum(omega_j, 1.0), 1.0)
        view.cache["fsvrg"] = (s_entry, a)
    return view.cache["fsvrg"]


def dense_scaling(problem: Problem, view: SampleView) -> Array:
    """S_k as a dense ``(M, dim)`` array (1 where client k has no entry in column j), cached."""
    if "fsvrg_dense" not in view.cache:
        s_entry, _ = frequency_scaling(problem, view)
        S = np.ones((problem.M, view.A.shape[1]))
        S[client_columns(view)[0], view.A.indices] = s_entry
        view.cache["fsvrg_dense"] = S
    return view.cache["fsvrg_dense"]


@dataclass(frozen=True)
class Pass:
    """Inputs of one SVRG pass.

    Attributes:
        seq_rows: pooled row ids of every client's sequence, concatenated client by client.
        seq_client: the client of each sequence element.
        seq_step: the position j of each element in its client's sequence.
        h: step size per client ``(M,)``.
        rho: multiplier per pooled row (SVRG's n·ω_i; 1 for the federated methods).
        entry_scale: S_k per stored entry of ``view.A`` (FSVRG), or None.
        weights: aggregation weights p_k ``(M,)``.

    """

    seq_rows: Array
    seq_client: Array
    seq_step: Array
    h: Array
    rho: Array
    entry_scale: Array | None
    weights: Array


def sequences(rng: np.random.Generator, view: SampleView, clients: Array, lengths: Array,
              permutation: bool) -> tuple[Array, Array, Array]:
    """Every client's sample sequence: a random permutation of P_k, or m_k uniform draws from P_k.

    Returns (rows, client, step) concatenated client by client; one vectorised draw.
    """
    nk = view.starts[clients + 1] - view.starts[clients]
    if permutation:
        lengths = nk
    client = np.repeat(clients, lengths)
    step = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    if permutation:  # client blocks are contiguous: sorting by (client, key) permutes each block
        order = np.argsort(permutation_keys(rng, client), kind="stable")
        return (np.repeat(view.starts[clients], lengths) + step)[order], client, step
    offsets = (rng.random(len(client)) * np.repeat(nk, lengths)).astype(np.int64)
    return np.repeat(view.starts[clients], lengths) + offsets, client, step


def permutation_keys(rng: np.random.Generator, client: Array) -> Array:
    """Sort keys (client, u) packed in one int64: the client in the high bits, u uniform in the rest.

    A stable argsort of the keys permutes each client's block uniformly (ties of u, probability
    2⁻³⁶ a pair at most, keep the draw order): one integer sort, 3–4× faster than ``np.lexsort`` on
    (uniform float, client) for 2.4 M rows.  u has 63 − bits(max client) ≥ 36 bits.
    """
    if client.size == 0:
        return np.zeros(0, dtype=np.int64)
    shift = 63 - max(1, int(client.max()).bit_length())
    return (client.astype(np.int64) << shift) | rng.integers(0, 1 << shift, client.size, dtype=np.int64)


def _order(spec: Pass) -> tuple[Array, Array]:
    """Lockstep order (by step j, then client) and the row boundaries of each step."""
    order = np.lexsort((spec.seq_client, spec.seq_step))
    steps = spec.seq_step[order]
    bounds = np.concatenate([[0], np.flatnonzero(np.diff(steps)) + 1, [len(order)]])
    return order, bounds


def svrg_pass(problem: Problem, view: SampleView, w_t: Array, g: Array, d0: Array, spec: Pass,
              lazy: bool, keep_points: bool = False, compiled: bool = True) -> tuple[Array, Array | None]:
    """Δ = Σ_k p_k (w_k − w^t) after every client's sequence (module docstring); w_k if asked.

    ``compiled=False`` keeps the dense pass on numpy (the reference its compiled loop is tested against).
    """
    if lazy:
        return _lazy(problem, view, w_t, g, d0, spec, keep_points)
    return _dense(problem, view, w_t, g, d0, spec, compiled)


def _compiled_dense_ok(problem: Problem) -> bool:
    """Whether ``dense_kernel`` has this problem's φ' and prox (imports numba only when ψ qualifies)."""
    from fcocheck.solvers.regularizers import L1, ElasticNet

    psi = problem.psi
    base = psi.base if type(psi) is FreeTail else psi
    if type(base) not in (Zero, L2Squared, L1, ElasticNet):
        return False
    from fcocheck.solvers.algorithms.dense_kernel import compiled_ok

    return compiled_ok(problem.loss, psi)


def _check_steps(problem: Problem, h: Array, clients: Array) -> None:
    """Refuse what ψ's prox would refuse at the first step of a client with an invalid h_k.

    The numpy pass calls ``psi.prox`` (which checks its step) on every step; the compiled loop does not,
    so the steps of the clients that move are checked here, each value once.
    """
    if len(clients):
        psi = problem.psi
        psi = psi.base if type(psi) is FreeTail else psi  # the prox that checks the step
        for t in np.unique(h[clients]):
            check_step(float(t), psi.rho, psi.name)


def _psi_factor(problem: Problem, h: Array) -> Array:
    psi = problem.regularizer
    lam = psi.lam if isinstance(psi, L2Squared) else 0.0
    return 1.0 / (1.0 + h * lam)


def _gather_entries(view: SampleView, rows: Array) -> tuple[Array, Array]:
    """Entry indices of ``rows`` (in order) and the running entry offset of each row."""
    indptr = view.A.indptr
    starts, lens = indptr[rows], indptr[rows + 1] - indptr[rows]
    offsets = np.concatenate([[0], np.cumsum(lens)])
    idx = np.repeat(starts - offsets[:-1], lens) + np.arange(offsets[-1])
    return idx, offsets


def _local_layout(problem: Problem, view: SampleView) -> tuple[Array, Array, Array]:
    """Per-client compact columns: position of every stored entry, and each position's column/client."""
    _, pair, pair_col, pair_client, _ = client_columns(view)
    return pair, pair_col, pair_client


def _lazy(problem: Problem, view: SampleView, w_t: Array, g: Array, d0: Array, spec: Pass,
          keep_points: bool) -> tuple[Array, Array | None]:
    from fcocheck.solvers.algorithms.lazy_kernel import lazy_steps  # lazy: numba's import and compiled cache

    A = view.A
    pos_entry, flat_cols, flat_client = _local_layout(problem, view)
    xg = A @ g
    U = w_t[flat_cols]  # fancy indexing already copies
    M = problem.M
    s, beta = np.ones(M), np.zeros(M)
    c = _psi_factor(problem, spec.h)
    lazy_steps(problem.phi.name, spec.seq_rows, spec.seq_client, spec.seq_step, A.indptr, A.data, pos_entry,
               spec.entry_scale, xg, view.y, d0, spec.rho, spec.h, c, U, s, beta)
    p = spec.weights
    scat = np.bincount(flat_cols, weights=(p * s)[flat_client] * (U - w_t[flat_cols]),
                       minlength=len(w_t))
    delta_sum = float(p @ (s - 1.0)) * w_t + float(p @ beta) * g + scat
    points = None
    if keep_points:
        points = (s - 1.0)[:, None] * w_t[None, :] + beta[:, None] * g[None, :] + w_t[None, :]
        points[flat_client, flat_cols] += s[flat_client] * (U - w_t[flat_cols])
    return delta_sum, points


def _dense(problem: Problem, view: SampleView, w_t: Array, g: Array, d0: Array, spec: Pass,
           compiled: bool = True) -> tuple[Array, Array]:
    """The lockstep pass; compiled (``dense_kernel``) when loss and ψ allow, with the same bits."""
    phi, y = problem.phi, view.y
    order, bounds = _order(spec)
    rows_o, client_o = spec.seq_rows[order], spec.seq_client[order]
    W = np.repeat(w_t[None, :], problem.M, axis=0)
    S = None if spec.entry_scale is None else dense_scaling(problem, view)
    lam = problem.ridge_lam
    if compiled and W.dtype == np.float64 and _compiled_dense_ok(problem):
        from fcocheck.solvers.algorithms.dense_kernel import dense_steps  # lazy: numba's import

        _check_steps(problem, spec.h, client_o)
        A = view.A
        dense_steps(problem.loss, problem.psi, rows_o, client_o, A.indptr, A.indices, A.data, y, d0, spec.rho,
                    spec.h, g, w_t, view.model, lam, S, W)
        return spec.weights @ (W - w_t[None, :]), W
    for j in range(len(bounds) - 1):
        ck, rows = client_o[bounds[j]:bounds[j + 1]], rows_o[bounds[j]:bounds[j + 1]]
        Xr = view.rows(rows)
        Wa = W[ck]
        t = np.sum(Xr * Wa, axis=1)
        diff = (phi.dphi(t, y[rows]) - d0[rows])[:, None] * Xr
        if lam:
            diff = diff + lam * (Wa - w_t[None, :]) * view.model
        if S is not None:
            diff = diff * S[ck]
        h = spec.h[ck]
        V = Wa - h[:, None] * (spec.rho[rows][:, None] * diff + g[None, :])
        W[ck] = prox_rows(problem, V, h)
    return spec.weights @ (W - w_t[None, :]), W
