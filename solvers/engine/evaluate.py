"""Metrics that need the problem: objective gaps, proximal-gradient norm, recovery.

One fused pass over the data gives F(w_r), ∇F(w_r) and F(ŵ) (``Kernel.at_two_points``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fcocheck.solvers.metrics import matrix_scores, recovery
from fcocheck.solvers.problem import Problem

Array = np.ndarray


def structure(problem: Problem, w: Array) -> dict[str, float]:
    """Density (exact zeros) of the model coordinates, or the rank of a matrix model."""
    model = np.asarray(w)[: problem.d]
    if problem.shape is not None:
        return {"rank": matrix_scores(model, model, problem.shape)["rank"]}
    return {"density": float(np.mean(model != 0.0))}


@dataclass(frozen=True)
class Evaluator:
    """Evaluates points of one problem against an optional reference value Φ*.

    Attributes:
        problem: the FCO instance.
        phi_star: Φ* (certified optimum, or the stationary value for non-convex problems);
            None to skip gaps.
        eta: the step of the proximal-gradient norm ‖G_η(w)‖ = ‖w − prox_{ηψ}(w − η∇F(w))‖/η;
            1/L, shrunk to 1/(2ρ) for a ρ-weakly convex ψ.

    """

    problem: Problem
    phi_star: float | None
    eta: float

    def evaluate(self, w: Array, w_hat: Array) -> dict[str, float]:
        """Objective, gap, ‖G_η(w)‖ and structure at a server point; objective and gap at ŵ."""
        p = self.problem
        vals, G, vals_hat = p.kernel.at_two_points(w, w_hat)
        objective = float(p.weights @ vals) + float(p.psi.value(w))
        objective_avg = float(p.weights @ vals_hat) + float(p.psi.value(w_hat))
        grad = p.weights @ G
        step = (w - p.psi.prox(w - self.eta * grad, self.eta)) / self.eta
        out = {"objective": objective, "prox_grad_norm": float(np.linalg.norm(step)),
               "objective_avg": objective_avg}
        if self.phi_star is not None:
            out["gap"] = objective - self.phi_star
            out["gap_avg"] = objective_avg - self.phi_star
        out.update(structure(p, w))
        out.update(recovery(p, w))
        return out
