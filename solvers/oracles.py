"""Stochastic gradient oracles ∇f(w; ξ), all driven by a numpy Generator.

* ``exact``          ∇F_m(w) (σ = 0).
* ``gaussian:σ``     ∇F_m(w) + N(0, σ²/dim · I): E‖noise‖₂² = σ² exactly (Assumption 1(d)).
* ``minibatch:b``    mean of ∇f over b rows of client m drawn with replacement.

An oracle is called on a group of clients at once: ``oracle.grads(source, W, rng)`` with
``source`` a ``Problem`` (every client) or a ``Kernel`` (the clients it serves) and W of shape
``(clients, dim)`` returns ``(clients, dim)``.  Every row is one gradient query.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fcocheck.solvers.errors import InvalidOracleError
from fcocheck.solvers.kernels import Kernel
from fcocheck.solvers.problem import Problem


def as_kernel(source: Problem | Kernel) -> Kernel:
    """The kernel of a problem (every client), or the kernel itself."""
    return source.kernel if isinstance(source, Problem) else source


@dataclass(frozen=True)
class Oracle:
    """Base oracle: exact gradients."""

    kind: str = "exact"

    def grads(self, source: Problem | Kernel, W: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Stochastic gradients for the clients of ``source`` at W (``(clients, dim)``)."""
        return as_kernel(source).grads(W)

    @property
    def sigma2(self) -> float | None:
        """The variance σ² when known exactly (None for minibatch)."""
        return 0.0

    @property
    def deterministic(self) -> bool:
        """Whether ``grads`` draws nothing from the generator (the exact gradient, σ = 0).

        Only then may a round query its clients in any order (``primitives.client_major``): a
        stochastic oracle's draws follow the order of the calls.
        """
        return self.sigma2 == 0.0

    def spec(self) -> str:
        """The CLI spelling, inverse of ``parse_oracle``."""
        return self.kind


@dataclass(frozen=True)
class GaussianOracle(Oracle):
    """Exact gradient plus isotropic Gaussian noise of total variance σ²."""

    sigma: float = 0.0
    kind: str = "gaussian"

    def grads(self, source: Problem | Kernel, W: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """∇F_m(W_m) + ξ_m, ξ_m ~ N(0, σ²/dim · I)."""
        G = as_kernel(source).grads(W)
        if self.sigma == 0:
            return G
        return G + rng.standard_normal(G.shape) * (self.sigma / np.sqrt(G.shape[1]))

    @property
    def sigma2(self) -> float:
        """σ²."""
        return self.sigma**2

    def spec(self) -> str:
        """``gaussian:σ``."""
        return f"gaussian:{self.sigma!r}"


@dataclass(frozen=True)
class MinibatchOracle(Oracle):
    """Mean gradient over b rows per client, drawn uniformly with replacement."""

    batch: int = 1
    kind: str = "minibatch"

    def grads(self, source: Problem | Kernel, W: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Per client: (1/b) Σ_{i∈batch} ∇f(W_m; ξ_i)."""
        kernel = as_kernel(source)
        problem = kernel.problem
        if problem.loss == "quadratic":
            raise InvalidOracleError(
                f"oracle minibatch:{self.batch} needs sample data; problem {problem.name!r} is "
                "'quadratic' (use exact or gaussian:σ)"
            )
        return kernel.grads_rows(W, self.rows(problem.n[kernel.index], rng))

    def rows(self, sizes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Row i: b indices into client i's n_i = ``sizes[i]`` rows, ⌊u · n_i⌋ with u ~ U[0, 1) each.

        One draw of ``(len(sizes), b)`` uniforms from ``rng`` per query: a batch of runs draws each run's
        rows from its own generator by this same call (``batched_dual.stacked_grads``).
        """
        return (rng.random((len(sizes), self.batch)) * sizes[:, None]).astype(np.int64)

    @property
    def sigma2(self) -> None:
        """Not known in closed form."""
        return None

    def spec(self) -> str:
        """``minibatch:b``."""
        return f"minibatch:{self.batch}"


#: the largest minibatch: b rows are drawn per client per query (beyond it memory, not the rule, fails)
MAX_BATCH = 1_000_000


def parse_oracle(text: str) -> Oracle:
    """Parse ``exact`` | ``gaussian:σ`` | ``minibatch:b``.

    Raises:
        InvalidOracleError: malformed text, σ < 0 or b < 1.

    """
    kind, _, arg = str(text).partition(":")
    if kind == "exact" and not arg:
        return Oracle()
    if kind == "gaussian":
        try:
            sigma = float(arg)
        except ValueError:
            sigma = float("nan")
        if not np.isfinite(sigma) or sigma < 0:
            raise InvalidOracleError(f"oracle {text!r}: σ = {arg!r}; the rule is gaussian:σ with σ >= 0")
        return GaussianOracle(sigma=sigma)
    if kind == "minibatch":
        if not (arg.isascii() and arg.isdigit()) or int(arg) < 1 or int(arg) > MAX_BATCH:
            raise InvalidOracleError(
                f"oracle {text!r}: b = {arg!r}; the rule is minibatch:b with integer b >= 1 and "
                f"b <= {MAX_BATCH}"
            )
        return MinibatchOracle(batch=int(arg))
    raise InvalidOracleError(
        f"oracle {text!r} is unknown; the rule is exact | gaussian:σ | minibatch:b"
    )
