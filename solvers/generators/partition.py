"""Ways of splitting pooled samples across clients."""

from __future__ import annotations

import numpy as np

from fcocheck.solvers.errors import InvalidProblemError


def dirichlet_label_skew(
    labels: np.ndarray, M: int, alpha: float, rng: np.random.Generator, min_size: int = 2
) -> list[np.ndarray]:
    """Split sample indices across M clients with Dirichlet(α) label skew (FedCanon §IV-A3).

    For every class c, its samples are shuffled and cut in proportions q_c ~ Dir(α·1_M);
    small α gives clients dominated by one class, large α an i.i.d. split.  Draws are
    repeated (at most 100 times) until every client has at least ``min_size`` samples.

    Raises:
        InvalidProblemError: α ≤ 0, M < 1, or no draw gives every client min_size samples.

    """
    if not alpha > 0:
        raise InvalidProblemError(f"dirichlet alpha = {alpha!r}; the rule is alpha > 0")
    if M < 1 or M * min_size > len(labels):
        raise InvalidProblemError(
            f"cannot split {len(labels)} samples over M = {M} clients with at least {min_size} each"
        )
    classes = np.unique(labels)
    for _ in range(100):
        parts: list[list[int]] = [[] for _ in range(M)]
        for c in classes:
            idx = rng.permutation(np.flatnonzero(labels == c))
            q = rng.dirichlet(np.full(M, alpha))
            cuts = (np.cumsum(q)[:-1] * len(idx)).astype(int)
            for m, chunk in enumerate(np.split(idx, cuts)):
                parts[m].extend(chunk.tolist())
        if min(len(p) for p in parts) >= min_size:
            return [np.sort(np.array(p, dtype=int)) for p in parts]
    raise InvalidProblemError(
        f"dirichlet alpha = {alpha!r} left a client with fewer than {min_size} samples in 100 "
        "draws; raise alpha or lower M"
    )


def unbalanced_sizes(
    M: int, mean: float, lo: int, hi: int, rng: np.random.Generator
) -> np.ndarray:
    """Client sizes from a log-normal clipped to [lo, hi] with (roughly) the given mean."""
    if not (1 <= lo <= hi):
        raise InvalidProblemError(f"sizes lo = {lo}, hi = {hi}; the rule is 1 <= lo <= hi")
    raw = rng.lognormal(mean=np.log(max(mean, 1.0)) - 0.5, sigma=1.0, size=M)
    return np.clip(np.round(raw), lo, hi).astype(int)
