"""Recovery metrics against a ground truth: support precision/recall/F1, density, rank."""

from __future__ import annotations

from typing import Any

import numpy as np


def nonzero_fraction(x: np.ndarray, axis: int | None = None) -> Any:
    """The fraction of entries of x that are not 0 (over ``axis``): ``np.mean(x != 0.0, axis)``'s bits.

    The count of non-zeros divided by the number of entries, as ``np.mean`` of the boolean array computes it
    (an exact float sum of ones, one division), without its Python-level overhead.  An empty x: ``np.mean``.
    """
    x = np.asarray(x)
    if x.size == 0:
        return np.mean(x != 0.0, axis=axis)
    n = x.size if axis is None else x.shape[axis]
    return np.count_nonzero(x, axis=axis) / n


def support(w: np.ndarray, tol: float = 0.0) -> np.ndarray:
    """Boolean support {j : |w_j| > tol}."""
    return np.abs(np.asarray(w)) > tol


def support_scores(w: np.ndarray, truth: np.ndarray, tol: float = 0.0) -> dict[str, float]:
    """Density of w and precision, recall, F1 of its support against the true support.

    Conventions: precision = 1 when w is all zero, recall = 1 when the truth is all zero,
    F1 = 0 when precision + recall = 0.
    """
    s, t = support(w, tol), support(truth)
    tp = float(np.sum(s & t))
    precision = tp / s.sum() if s.sum() else 1.0
    recall = tp / t.sum() if t.sum() else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"density": float(s.mean()), "precision": precision, "recall": recall, "f1": f1}


def matrix_scores(w: np.ndarray, truth: np.ndarray, shape: tuple[int, int],
                  rel_tol: float = 1e-8) -> dict[str, float]:
    """Numerical rank of W (σ_i > rel_tol·σ_1) and the recovery error ‖W − W_true‖_F."""
    s = np.linalg.svd(np.reshape(w, shape), compute_uv=False)
    rank = int(np.sum(s > rel_tol * s[0])) if s.size and s[0] > 0 else 0
    return {"rank": float(rank), "recovery_error": float(np.linalg.norm(w - truth))}


def recovery(problem: Any, w: np.ndarray) -> dict[str, float]:
    """The metrics that apply to ``problem``'s ground truth (empty when it has none)."""
    if "w" not in problem.truth:
        return {}
    model = np.asarray(w)[: problem.d]
    truth = problem.truth["w"]
    if problem.shape is not None:
        return matrix_scores(model, truth, problem.shape)
    return support_scores(model, truth)
