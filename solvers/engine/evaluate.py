"""Metrics that need the problem: objective gaps, proximal-gradient norm, recovery.

One fused pass over the data gives F(w_r), ∇F(w_r) and F(ŵ) (``Kernel.at_two_points``); ``evaluate_many``
gives B runs' metrics with one pass over their stacked clients.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fcocheck.solvers.kernels import Kernel
from fcocheck.solvers.metrics import matrix_scores, nonzero_fraction, recovery
from fcocheck.solvers.problem import Problem

Array = np.ndarray


def structure(problem: Problem, w: Array) -> dict[str, float]:
    """Density (exact zeros) of the model coordinates, or the rank of a matrix model."""
    model = np.asarray(w)[: problem.d]
    if problem.shape is not None:
        return {"rank": matrix_scores(model, model, problem.shape)["rank"]}
    return {"density": float(nonzero_fraction(model))}


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


def evaluate_many(evaluators: Sequence[Evaluator], kernel: Kernel, W: Array, W_hat: Array
                  ) -> tuple[dict[str, Array], list[dict[str, Any]] | None]:
    """``evaluators[i].evaluate(W[i], W_hat[i])`` for B runs whose M clients each ``kernel`` stacks.

    Returns (key → the B values, NaN for a run without Φ*; each run's own structure and recovery
    metrics where they are not a density: a matrix model's rank, the ground truth's scores — None when no
    run has any).

    The runs' problems share their loss, shapes and ψ (``engine.batch.batch_key``).  The passes over the
    data (F_m and ∇F_m at w_i, F_m at ŵ_i) are one call on the stacked clients, ψ(w_i) and ψ(ŵ_i) one call
    on the B points, prox_{ηψ} one call for an indicator or a separable ψ, else one per distinct η
    (``batched_dual.by_weight``); the sums over clients and the norms
    are each run's own call on the arrays ``evaluate`` reduces, ∇F_m's rows laid out as the run alone lays
    them out (another layout takes another BLAS path, with other last bits), made for all runs by one
    stacked ``matmul`` (``batched_dual.stacked_dot``: each run's the very BLAS call ``evaluate`` makes),
    the norm √(sᵀs) as ``np.linalg.norm`` takes it.  So every value is ``evaluate``'s.
    """
    from fcocheck.solvers.algorithms.batched_dual import by_weight, stacked_dot

    p0 = evaluators[0].problem
    B, M, d = len(evaluators), p0.M, p0.d
    vals, G = kernel.values_and_grads(np.repeat(W, M, axis=0))
    vals_hat = kernel.values(np.repeat(W_hat, M, axis=0))
    psi_w, psi_hat = p0.psi.value(W), p0.psi.value(W_hat)
    weights = np.stack([ev.problem.weights for ev in evaluators])
    G3 = G.reshape(B, M, -1)
    if p0.loss != "quadratic":  # ``Kernel._batched`` writes into np.empty_like of the broadcast point
        G3 = _like_broadcast(G3)
    grads = stacked_dot(weights, G3)
    etas = [ev.eta for ev in evaluators]
    eta_col = np.array(etas)[:, None]
    V = W - eta_col * grads
    prox = (p0.psi.prox(V, etas[0]) if p0.psi.is_indicator
            else by_weight(p0.psi.prox, V, etas, 1, rowwise=p0.psi.separable))
    objective = stacked_dot(weights, vals.reshape(B, M)) + psi_w
    objective_avg = stacked_dot(weights, vals_hat.reshape(B, M)) + psi_hat
    step = (W - prox) / eta_col
    phi_star = np.array([np.nan if ev.phi_star is None else ev.phi_star for ev in evaluators], dtype=float)
    out = {"objective": objective, "prox_grad_norm": np.sqrt(stacked_dot(step, step)),
           "objective_avg": objective_avg, "gap": objective - phi_star, "gap_avg": objective_avg - phi_star}
    if p0.shape is None:
        out["density"] = np.count_nonzero(W[:, :d], axis=1) / d
    if p0.shape is None and not any("w" in ev.problem.truth for ev in evaluators):
        return out, None
    own = [{**({} if p0.shape is None else structure(ev.problem, W[i])), **recovery(ev.problem, W[i])}
           for i, ev in enumerate(evaluators)]
    return out, own


def _like_broadcast(G3: Array) -> Array:
    """``(B, M, dim)`` G, each run's block laid out as ``np.empty_like(np.broadcast_to(w, (M, dim)))``.

    Column-major blocks (``Kernel._batched`` writes a run alone's gradients there; another layout takes
    another BLAS path, with other last bits).
    """
    B, M, dim = G3.shape
    out = np.empty((B, dim, M)).transpose(0, 2, 1)
    out[...] = G3
    return out

