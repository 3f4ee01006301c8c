"""Client participation: S_r of size P drawn uniformly without replacement each round."""

from __future__ import annotations

import numpy as np

from fcocheck.solvers.errors import InvalidHyperparameterError


def check_participation(P: int | None, M: int) -> int | None:
    """None (everyone) or an integer 1 <= P <= M."""
    if P is None:
        return None
    if isinstance(P, bool) or int(P) != P or not 1 <= P <= M:
        raise InvalidHyperparameterError(
            f"clients per round P = {P!r} is invalid; the rule is an integer 1 <= P <= M = {M}"
        )
    return int(P)


def sample_clients(rng: np.random.Generator, M: int, P: int | None) -> np.ndarray:
    """Sorted S_r; all M clients (drawing nothing from ``rng``) when P is None or P = M."""
    if P is None or P == M:
        return np.arange(M)
    return np.sort(rng.choice(M, size=P, replace=False))
