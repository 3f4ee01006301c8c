"""Helpers shared by the synthetic generators."""

from __future__ import annotations

import numpy as np


def sparse_truth(d: int, nnz: int, rng: np.random.Generator) -> np.ndarray:
    """A vector with ``nnz`` non-zeros at random positions, magnitudes in [0.5, 1.5], random signs."""
    if not 0 <= nnz <= d:
        from fcocheck.solvers.errors import InvalidProblemError

        raise InvalidProblemError(
            f"nnz = {nnz!r} non-zeros in d = {d!r} coordinates; the rule is 0 <= nnz <= d"
        )
    w = np.zeros(d)
    support = rng.choice(d, size=nnz, replace=False)
    w[support] = rng.choice([-1.0, 1.0], size=nnz) * rng.uniform(0.5, 1.5, size=nnz)
    return w


def heterogeneous_features(
    M: int, n: int, d: int, heterogeneity: float, rng: np.random.Generator
) -> np.ndarray:
    """Client features x = μ_m + s_m ⊙ z, z ~ N(0, I): shape ``(M, n, d)``.

    The heterogeneity knob κ ≥ 0 sets client-specific shifts μ_m ~ N(0, (κ²/d)·I) (so
    ‖μ_m‖ ≈ κ whatever d) and per-feature scales s_m = exp(κ·v_m/4), v_m ~ N(0, I);
    κ = 0 gives identical N(0, I) clients.
    """
    shift = (heterogeneity / np.sqrt(d)) * rng.standard_normal((M, 1, d))
    scale = np.exp((heterogeneity / 4.0) * rng.standard_normal((M, 1, d)))
    return shift + scale * rng.standard_normal((M, n, d))
