"""Centring an intercept problem: the same optimum, computed without the data's offset.

With an unpenalised intercept b, F(w, b) = Σ ω_i φ(x_iᵀw + b; y_i) is unchanged by the change
of variables b' = b + x̄ᵀw − ȳ, x_i' = x_i − x̄, y_i' = y_i − ȳ (x̄ = Σ ω_i x_i, ȳ = Σ ω_i y_i,
Σ ω_i = 1) for the squares-type losses, since x_iᵀw + b − y_i = x_i'ᵀw + b' − y_i'.  The
centred problem has the same ψ (it acts on w only) and the same optimal value, but its Gram form
no longer holds the offsets (Σ ω y_i x_i with y ~ 10⁷ loses every digit the solver needs).
Sparse data are centred in y only (x̄ = 0 keeps the sparsity).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from fcocheck.solvers.problem import Problem
from fcocheck.solvers.reference.gram import share_with_centred

CENTRED_LOSSES = ("squares", "matrix", "ridge")


def centred(problem: Problem) -> tuple[Problem, Callable[[np.ndarray], np.ndarray]]:
    """The centred twin of an intercept problem and the map w' ↦ w back; identity otherwise."""
    if not problem.intercept or problem.loss not in CENTRED_LOSSES:
        return problem, lambda w: w
    A, y, omega = problem.pooled
    ybar = float(omega @ y)
    xbar = np.zeros(problem.d) if problem.is_sparse else omega @ A
    if problem.is_sparse:
        X = problem.X
    elif problem.stacked is not None:  # one subtraction, and the twin's blocks lie back to back (no stack)
        X = tuple(problem.stacked - xbar)
    else:
        X = tuple(Xm - xbar for Xm in problem.X)
    work = replace(problem, X=X, y=tuple(ym - ybar for ym in problem.y))
    if not problem.is_sparse and abs(float(omega.sum()) - 1.0) <= 1e-12:
        # Σ ω (x_i − x̄) = 0: the original's Gram form follows from the twin's
        share_with_centred(problem, work, xbar, ybar)

    def back(w: np.ndarray) -> np.ndarray:
        out = np.array(w, dtype=float)
        out[problem.d] = w[problem.d] + ybar - float(xbar @ w[: problem.d])
        return out

    return work, back
