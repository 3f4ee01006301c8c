"""Gradient kernels: every client's ∇F_m, F_m and minibatch gradient in one call.

Two strategies compute the same quantities (up to floating-point reassociation):

* ``batched`` — one ``einsum`` over the stacked ``(M, n, d)`` data: wins when each client's
  block is small (thousands of tiny clients; the Python loop would dominate); for dense
  squares-type losses the compiled sequential sums of ``batched_squares`` instead;
* ``loop``    — a per-client loop that computes ``t = X_m w + b`` and ``X_mᵀ φ'(t)`` back to
  back while ``X_m`` is still in cache: wins when blocks are large (64 × 128 × 1024 on this
  machine, where the batched form reads the data from memory twice).

``choose_strategy`` picks one from the data's shape alone (never from timings, so the choice,
and therefore every bit of a run, is reproducible); ``benchmarks/engine.py`` measures both.

A ``Kernel`` acts on a subset of clients fixed at construction (``subset``), so partial
participation pays any data gather once per round, not once per local step.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fcocheck.solvers.errors import InvalidHyperparameterError

Array = np.ndarray
STRATEGIES = ("auto", "batched", "loop")
#: X_mᵀ of each sparse client block, per problem (X_mᵀ r from a transposed view builds a new matrix
#: every call: ~4× the product itself for small blocks)
_TRANSPOSED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
#: Per-client block size (bytes of X_m) from which the cache-friendly loop is chosen.
#: Measured (benchmarks/engine.py): 1 MiB blocks (128 × 1024) loop 4.6 ms vs einsum 5.2 ms;
#: 64 KiB blocks (32 × 256) and below the batched einsum wins by 1.1–4×.
LOOP_BLOCK_BYTES = 256 * 1024
#: Dense data from which ``grads_at`` goes client by client: above a cache's size each point's pass
#: reads every row from memory again (lasso-paper, 64 MB: 0.2 s → 0.08 s for ζ's 33 points); below it
#: the per-point passes stay in cache and the client-major copies only add work (bag-of-words: +50%).
GRADS_AT_BYTES = 16 * 2**20


#: Clients per block of the batched strategy; blocks run on a thread pool (numpy's einsum
#: releases the GIL).  Every client's result is computed by the same einsum whatever the
#: number of threads, so the bits do not depend on the machine's core count.
BLOCK = 1024
_POOL: list[ThreadPoolExecutor] = []


def over_blocks(fn: Callable[[slice], None], M: int, block: int = BLOCK) -> None:
    """Call ``fn(slice)`` on consecutive blocks of ``block`` clients, in parallel when M > block."""
    if M <= block:
        fn(slice(0, M))
        return
    if not _POOL:
        _POOL.append(ThreadPoolExecutor(max_workers=os.cpu_count() or 1))
    list(_POOL[0].map(fn, [slice(s, min(s + block, M)) for s in range(0, M, block)]))


def choose_strategy(problem: Any) -> str:
    """``batched`` for quadratics and small equal-size dense blocks, ``loop`` otherwise."""
    if problem.loss == "quadratic":
        return "batched"
    if problem.stacked is None:
        return "loop"
    block = int(problem.n[0]) * problem.d * 8
    return "loop" if block >= LOOP_BLOCK_BYTES else "batched"


def check_strategy(strategy: str) -> str:
    """Validate a strategy name."""
    if strategy not in STRATEGIES:
        raise InvalidHyperparameterError(
            f"gradient strategy {strategy!r} is unknown; the rule is one of {list(STRATEGIES)}"
        )
    return strategy


@dataclass(frozen=True, eq=False)
class Kernel:
    """Per-client oracles of ``problem`` restricted to ``clients`` (all when None).

    Attributes:
        problem: the FCO instance.
        strategy: ``batched`` or ``loop`` (``auto`` is resolved at construction).
        clients: sorted client indices, or None for every client.
        compiled: run the compiled kernels where they apply (False: numpy only, and numba is never
            imported — for one-off uses such as a problem's constants; the numpy paths may differ from
            the compiled ones in the last bits, ~1e-15 relative on lasso-paper).

    """

    problem: Any
    strategy: str = "auto"
    clients: Array | None = None
    compiled: bool = True
    _cache: dict = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        check_strategy(self.strategy)
        if self.strategy == "auto":
            object.__setattr__(self, "strategy", choose_strategy(self.problem))
        if self.strategy == "batched" and self.problem.loss != "quadratic" and self.problem.stacked is None:
            object.__setattr__(self, "strategy", "loop")

    # --- shape ---------------------------------------------------------------------------
    @property
    def index(self) -> Array:
        """The client indices this kernel serves."""
        return np.arange(self.problem.M) if self.clients is None else self.clients

    @property
    def size(self) -> int:
        """Number of clients served."""
        return len(self.index)

    def subset(self, clients: Array | None) -> Kernel:
        """The same kernel on sorted, distinct ``clients`` (gathers the stacked data once)."""
        if clients is None or len(clients) == self.problem.M:
            return self if self.clients is None else Kernel(self.problem, self.strategy,
                                                            compiled=self.compiled)
        return Kernel(self.problem, self.strategy, np.asarray(clients, dtype=np.int64), self.compiled)

    def block(self, s: slice) -> Kernel:
        """The clients ``index[s]`` as a kernel over views of this kernel's data (nothing copied).

        A batched kernel's blocks of ``BLOCK`` clients are the very arrays ``over_blocks`` hands to
        its einsums, so a client's gradient is the same bits from the block as from the whole.
        """
        k = Kernel(self.problem, self.strategy, self.index[s], self.compiled)
        if self.problem.loss == "quadratic":
            Q, c = self._quadratic()
            k._cache["Q"] = (Q[s], c[s])
        elif self.strategy == "batched":
            k._cache["X"], k._cache["y"] = self._stacked()[s], self._labels()[s]
        return k

    def _stacked(self) -> Array:
        if "X" not in self._cache:
            X = self.problem.stacked
            self._cache["X"] = X if self.clients is None else X[self.clients]
        return self._cache["X"]

    def _labels(self) -> Array:
        if "y" not in self._cache:
            self._cache["y"] = np.stack([self.problem.y[m] for m in self.index])
        return self._cache["y"]

    def _split(self, W: Array) -> tuple[Array, Array]:
        d = self.problem.d
        if self.problem.intercept:
            return W[:, :d], W[:, d]
        return W, np.zeros(W.shape[0])

    def _ridge(self, W: Array, G: Array) -> Array:
        lam = self.problem.ridge_lam
        if lam:
            G[:, : self.problem.d] += lam * W[:, : self.problem.d]
        return G

    # --- gradients -----------------------------------------------------------------------
    def grads(self, W: Array) -> Array:
        """∇F_m(W[i]) for the served clients m = index[i]; W of shape ``(size, dim)``."""
        return self.values_and_grads(W, values=False)[1]

    def values(self, W: Array) -> Array:
        """F_m(W[i]) for the served clients, shape ``(size,)``."""
        p = self.problem
        W = np.asarray(W, dtype=float)
        if p.loss == "quadratic":
            Q, c = self._quadratic()
            return 0.5 * np.einsum("md,mde,me->m", W, Q, W) + np.einsum("md,md->m", c, W)
        if self.strategy == "batched":
            vals, _ = self._batched(self._stacked(), self._labels(), W, values=True, grads=False)
        else:
            vals, _ = self._loop(W, [p.X[m] for m in self.index], [p.y[m] for m in self.index],
                                 values=True, grads=False)
        if p.ridge_lam:
            vals = vals + 0.5 * p.ridge_lam * np.sum(W[:, : p.d] ** 2, axis=1)
        return vals

    def values_and_grads(self, W: Array, values: bool = True) -> tuple[Array | None, Array]:
        """(F_m(W[i]), ∇F_m(W[i])) in one pass over the data (values None when not asked)."""
        p = self.problem
        W = np.asarray(W, dtype=float)
        if p.loss == "quadratic":
            Q, c = self._quadratic()
            G = np.einsum("mde,me->md", Q, W) + c
            vals = 0.5 * np.einsum("md,md->m", W, G + c) if values else None
            return vals, G
        if self.strategy == "batched":
            vals, G = self._batched(self._stacked(), self._labels(), W, values)
        elif self._compiled_squares():
            vals, G = self._squares(W, values)
        else:
            vals, G = self._loop(W, [p.X[m] for m in self.index], [p.y[m] for m in self.index], values,
                                 XTs=self._transposes())
        if values and p.ridge_lam:
            vals = vals + 0.5 * p.ridge_lam * np.sum(W[:, : p.d] ** 2, axis=1)
        return vals, self._ridge(W, G)

    def at_two_points(self, w: Array, v: Array) -> tuple[Array, Array, Array]:
        """(F_m(w), ∇F_m(w), F_m(v)) for every served client at two shared points.

        The loop strategy reads each client block once: X_m [w v] is one product, and
        X_mᵀ φ'(X_m w) follows while X_m is in cache.  Used for the per-round metrics.
        """
        p = self.problem
        if self.strategy != "loop" or p.loss == "quadratic":
            vals, G = self.values_and_grads(np.broadcast_to(w, (self.size, p.dim)))
            return vals, G, self.values(np.broadcast_to(v, (self.size, p.dim)))
        P = np.stack([w[: p.d], v[: p.d]], axis=1)
        b = np.array([w[p.d], v[p.d]]) if p.intercept else np.zeros(2)
        vals, vals_v, G = np.empty(self.size), np.empty(self.size), np.empty((self.size, p.dim))
        XTs = self._transposes()
        for i, m in enumerate(self.index):
            T = np.asarray(p.X[m] @ P) + b
            ym = p.y[m]
            vals[i], vals_v[i] = np.mean(p.phi.phi(T[:, 0], ym)), np.mean(p.phi.phi(T[:, 1], ym))
            r = p.phi.dphi(T[:, 0], ym) / len(ym)
            G[i, : p.d] = XTs[i] @ r
            if p.intercept:
                G[i, p.d] = r.sum()
        if p.ridge_lam:
            vals = vals + 0.5 * p.ridge_lam * np.sum(w[: p.d] ** 2)
            vals_v = vals_v + 0.5 * p.ridge_lam * np.sum(v[: p.d] ** 2)
        return vals, self._ridge(np.broadcast_to(w, G.shape), G), vals_v

    def grads_at(self, points: Array, budget: int = 64 * 2**20) -> Iterator[Array]:
        """∇F_m(w_j) of every served client at each point w_j in turn, ``(size, dim)`` per point.

        The same bits as ``grads`` at each point broadcast to every client.  The numpy loop strategy on
        dense data of at least ``GRADS_AT_BYTES`` goes client by client over a chunk of points (at most
        ``budget`` bytes of gradients), so a client's block is read once per chunk instead of once per
        point: ζ's 33 sampled points on lasso-paper read its 64 MB of rows once instead of 33 times.
        """
        p = self.problem
        points = np.asarray(points, dtype=float)
        if (self.strategy != "loop" or p.loss == "quadratic" or self._compiled_squares() or p.is_sparse
                or sum(int(p.X[m].nbytes) for m in self.index) < GRADS_AT_BYTES):
            for w in points:
                yield self.grads(np.broadcast_to(w, (self.size, p.dim)))
            return
        chunk = max(1, budget // (8 * self.size * p.dim))
        XTs = self._transposes()
        for start in range(0, len(points), chunk):
            W = points[start: start + chunk]
            k = len(W)
            # each point's array laid out as ``grads`` lays it out (empty_like of the broadcast point):
            # a product such as weights @ G takes another BLAS path, with other last bits, on another layout
            out = [np.empty_like(np.broadcast_to(w, (self.size, p.dim))) for w in W]
            for i, m in enumerate(self.index):  # W[j] stands for w_j at client m: the same products
                G = self._loop(W, [p.X[m]] * k, [p.y[m]] * k, False, XTs=[XTs[i]] * k)[1]
                for j in range(k):
                    out[j][i] = G[j]
            for j in range(k):
                yield self._ridge(np.broadcast_to(W[j], out[j].shape), out[j])

    def grads_rows(self, W: Array, rows: Array) -> Array:
        """Minibatch gradients: client ``index[i]`` averages ∇f over its rows ``rows[i]``."""
        p = self.problem
        W = np.asarray(W, dtype=float)
        if self.strategy == "batched":
            i = np.arange(self.size)[:, None]
            _, G = self._batched(self._stacked()[i, rows], self._labels()[i, rows], W, False)
        elif self._compiled_squares():
            _, G = self._squares(W, False, select=rows)
        else:
            Xs = [p.X[m][rows[i]] for i, m in enumerate(self.index)]
            ys = [p.y[m][rows[i]] for i, m in enumerate(self.index)]
            _, G = self._loop(W, Xs, ys, False)
        return self._ridge(W, G)

    # --- strategies ----------------------------------------------------------------------
    def _batched(self, X: Array, Y: Array, W: Array, values: bool,
                 grads: bool = True) -> tuple[Array | None, Array | None]:
        p = self.problem
        G = np.empty_like(W) if grads else None
        vals = np.empty(W.shape[0]) if values else None

        compiled = self._compiled_batched()

        def block(s: slice) -> None:
            Xs, Ys = X[s], Y[s]
            if compiled:  # the sequential-sum kernel (batched_squares): T, and G[s] in place
                from fcocheck.solvers.batched_squares import squares_grads  # lazy: numba's import

                T = squares_grads(Xs, Ys, W[s], p.intercept, G[s] if grads else None)
                if values:
                    vals[s] = np.mean(p.phi.phi(T, Ys), axis=1)
                return
            Wm, b = self._split(W[s])
            T = np.einsum("mnd,md->mn", Xs, Wm) + b[:, None]
            if values:
                vals[s] = np.mean(p.phi.phi(T, Ys), axis=1)
            if not grads:
                return
            Rr = p.phi.dphi(T, Ys) / Xs.shape[1]
            G[s, : p.d] = np.einsum("mnd,mn->md", Xs, Rr)
            if p.intercept:
                G[s, p.d] = Rr.sum(axis=1)

        over_blocks(block, W.shape[0])
        return vals, G

    def _transposes(self) -> list:
        """X_mᵀ of the served clients: a free view for dense blocks, cached CSR for sparse ones."""
        p = self.problem
        if p not in _TRANSPOSED:
            _TRANSPOSED[p] = {}
        cache = _TRANSPOSED[p]
        out = []
        for m in self.index:
            Xm = p.X[m]
            if not hasattr(Xm, "tocsr"):
                out.append(Xm.T)
                continue
            if m not in cache:
                cache[m] = Xm.T.tocsr()
            out.append(cache[m])
        return out

    def _loop(self, W: Array, Xs: list, ys: list, values: bool,
              grads: bool = True, XTs: list | None = None) -> tuple[Array | None, Array | None]:
        p = self.problem
        Wm, b = self._split(W)
        G = np.empty_like(W) if grads else None
        vals = np.empty(len(Xs)) if values else None
        for i, (Xm, ym) in enumerate(zip(Xs, ys, strict=True)):
            t = Xm @ Wm[i] + b[i]
            if values:
                vals[i] = np.mean(p.phi.phi(t, ym))
            if not grads:
                continue
            r = p.phi.dphi(t, ym) / len(ym)
            G[i, : p.d] = (Xm.T if XTs is None else XTs[i]) @ r
            if p.intercept:
                G[i, p.d] = r.sum()
        return vals, G

    def dense_squares(self) -> tuple[Array, Array] | None:
        """(X, Y) stacked ``(size, n, d)``, ``(size, n)`` when the gradients are ``batched_squares``'.

        None for every other loss, layout or strategy.  The arrays are the kernel's own (gathered once
        for a subset); callers must not write to them.
        """
        if self.strategy != "batched" or not self._compiled_batched():
            return None
        return self._stacked(), self._labels()

    def pooled_squares(self) -> tuple[Array, Array, Array, Array] | None:
        """(rows, y, offsets, clients) when the gradients are ``squares_kernel``'s (loop strategy).

        The problem's pooled rows and labels (``Problem.pooled``), each client's first row
        (``squares_kernel.offsets``) and the served clients; None for every other case.
        """
        if self.strategy != "loop" or not self._compiled_squares():
            return None
        if "pooled" not in self._cache:  # asked twice a round (plan, pass): formed once per kernel
            from fcocheck.solvers.squares_kernel import offsets  # lazy: numba's import

            rows, y, _ = self.problem.pooled
            self._cache["pooled"] = (rows, y, offsets(self.problem),
                                     np.ascontiguousarray(self.index, dtype=np.int64))
        return self._cache["pooled"]

    def _compiled_batched(self) -> bool:
        """Whether the batched strategy's gradients run compiled (``batched_squares``).

        They do for dense float64 stacked data and a squares-type loss; other losses keep the einsums.
        """
        if "compiled_batched" not in self._cache:
            p = self.problem
            dense = p.stacked is not None and p.stacked.dtype == np.float64
            squares = p.loss in ("squares", "matrix", "ridge")
            self._cache["compiled_batched"] = self.compiled and squares and dense
        return self._cache["compiled_batched"]

    def _compiled_squares(self) -> bool:
        """Whether the loop strategy's gradients run compiled (``squares_kernel``).

        They do for dense float64 data and a squares-type loss.
        """
        if "compiled" not in self._cache:
            p = self.problem
            dense64 = all(isinstance(X, np.ndarray) and X.dtype == np.float64 for X in p.X)
            squares = p.loss in ("squares", "matrix", "ridge")
            self._cache["compiled"] = self.compiled and squares and not p.is_sparse and dense64
        return self._cache["compiled"]

    def _squares(self, W: Array, values: bool, select: Array | None = None) -> tuple[Array | None, Array]:
        """Loop-strategy (F_m, ∇F_m) of dense squares-type clients, compiled (the numpy loop's bits).

        ``select``: per-client minibatch rows.  Values are φ averaged over t = X_m w + b per client.
        """
        from fcocheck.solvers.squares_kernel import squares_grads  # lazy: numba's import

        p = self.problem
        G = np.empty(W.shape)
        T = squares_grads(p, self.index, W, G, values=values, select=select)
        if not values:
            return None, G
        vals = np.empty(self.size)
        at = 0
        for i, m in enumerate(self.index):
            n = int(p.n[m])
            vals[i] = np.mean(p.phi.phi(T[at:at + n], p.y[m]))
            at += n
        return vals, G

    def _quadratic(self) -> tuple[Array, Array]:
        p = self.problem
        if self.clients is None:
            return p.Q, p.c
        if "Q" not in self._cache:
            self._cache["Q"] = (p.Q[self.clients], p.c[self.clients])
        return self._cache["Q"]
