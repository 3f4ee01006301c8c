"""Gradient kernels: every client's ∇F_m, F_m and minibatch gradient in one call.

Two strategies compute the same quantities (up to floating-point reassociation):

* ``batched`` — one ``einsum`` over the stacked ``(M, n, d)`` data: wins when each client's
  block is small (thousands of tiny clients; the Python loop would dominate);
* ``loop``    — a per-client loop that computes ``t = X_m w + b`` and ``X_mᵀ φ'(t)`` back to
  back while ``X_m`` is still in cache: wins when blocks are large (64 × 128 × 1024 on this
  machine, where the batched form reads the data from memory twice).

``choose_strategy`` picks one from the data's shape alone (never from timings, so the choice,
and therefore every bit of a run, is reproducible); ``benchmarks/engine.py`` measures both.

A ``Kernel`` acts on a subset of clients fixed at construction (``subset``), so partial
participation pays any data gather once per round, not once per local step.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from solvers.errors import InvalidHyperparameterError

Array = np.ndarray
STRATEGIES = ("auto", "batched", "loop")
#: Per-client block size (bytes of X_m) from which the cache-friendly loop is chosen.
#: Measured (benchmarks/engine.py): 1 MiB blocks (128 × 1024) loop 4.6 ms vs einsum 5.2 ms;
#: 64 KiB blocks (32 × 256) and below the batched einsum wins by 1.1–4×.
LOOP_BLOCK_BYTES = 256 * 1024


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

    """

    problem: Any
    strategy: str = "auto"
    clients: Array | None = None
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
            return self if self.clients is None else Kernel(self.problem, self.strategy)
        return Kernel(self.problem, self.strategy, np.asarray(clients, dtype=np.int64))

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
        Wm, b = self._split(W)
        if self.strategy == "batched":
            T = np.einsum("mnd,md->mn", self._stacked(), Wm) + b[:, None]
            vals = np.mean(p.phi.phi(T, self._labels()), axis=1)
        else:
            vals = np.array([np.mean(p.phi.phi(p.X[m] @ Wm[i] + b[i], p.y[m]))
                             for i, m in enumerate(self.index)])
        if p.ridge_lam:
            vals = vals + 0.5 * p.ridge_lam * np.sum(Wm * Wm, axis=1)
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
        else:
            vals, G = self._loop(W, [p.X[m] for m in self.index], [p.y[m] for m in self.index], values)
        if values and p.ridge_lam:
            vals = vals + 0.5 * p.ridge_lam * np.sum(W[:, : p.d] ** 2, axis=1)
        return vals, self._ridge(W, G)

    def grads_rows(self, W: Array, rows: Array) -> Array:
        """Minibatch gradients: client ``index[i]`` averages ∇f over its rows ``rows[i]``."""
        p = self.problem
        W = np.asarray(W, dtype=float)
        if self.strategy == "batched":
            i = np.arange(self.size)[:, None]
            _, G = self._batched(self._stacked()[i, rows], self._labels()[i, rows], W, False)
        else:
            Xs = [p.X[m][rows[i]] for i, m in enumerate(self.index)]
            ys = [p.y[m][rows[i]] for i, m in enumerate(self.index)]
            _, G = self._loop(W, Xs, ys, False)
        return self._ridge(W, G)

    # --- strategies ----------------------------------------------------------------------
    def _batched(self, X: Array, Y: Array, W: Array, values: bool) -> tuple[Array | None, Array]:
        p = self.problem
        Wm, b = self._split(W)
        T = np.einsum("mnd,md->mn", X, Wm) + b[:, None]
        n = X.shape[1]
        vals = np.mean(p.phi.phi(T, Y), axis=1) if values else None
        Rr = p.phi.dphi(T, Y) / n
        G = np.empty_like(W)
        G[:, : p.d] = np.einsum("mnd,mn->md", X, Rr)
        if p.intercept:
            G[:, p.d] = Rr.sum(axis=1)
        return vals, G

    def _loop(self, W: Array, Xs: list, ys: list, values: bool) -> tuple[Array | None, Array]:
        p = self.problem
        Wm, b = self._split(W)
        G = np.empty_like(W)
        vals = np.empty(len(Xs)) if values else None
        for i, (Xm, ym) in enumerate(zip(Xs, ys, strict=True)):
            t = Xm @ Wm[i] + b[i]
            if values:
                vals[i] = np.mean(p.phi.phi(t, ym))
            r = p.phi.dphi(t, ym) / len(ym)
            G[i, : p.d] = Xm.T @ r
            if p.intercept:
                G[i, p.d] = r.sum()
        return vals, G

    def _quadratic(self) -> tuple[Array, Array]:
        p = self.problem
        if self.clients is None:
            return p.Q, p.c
        if "Q" not in self._cache:
            self._cache["Q"] = (p.Q[self.clients], p.c[self.clients])
        return self._cache["Q"]
