"""Metrics that need the problem: objective gaps, proximal-gradient norm, recovery.

One fused pass over the data gives F(w_r), ∇F(w_r) and F(ŵ) (``Kernel.at_two_points``); ``evaluate_many``
gives B runs' metrics with one pass over their stacked clients.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

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


def evaluate_many(evaluators: Sequence[Evaluator], kernel: Kernel, W: Array, W_hat: Array,
                  skip: Sequence[bool] | None = None) -> list[dict[str, float] | None]:
    """``[evaluators[i].evaluate(W[i], W_hat[i])]`` for B runs whose M clients each ``kernel`` stacks.

    The runs' problems share their loss, shapes and ψ (``engine.batch.batch_key``).  The passes over the
    data (F_m and ∇F_m at w_i, F_m at ŵ_i) are one call on the stacked clients, ψ(w_i) and ψ(ŵ_i) one call
    on the B points, prox_{ηψ} one call per distinct η (one for an indicator, whose prox ignores η); the
    sums over clients and the norms stay one call per run on the arrays ``evaluate`` reduces, ∇F_m's rows
    laid out as the run alone lays them out (another layout takes another BLAS path, with other last
    bits).  So every value is ``evaluate``'s.  ``skip[i]``: run i's metrics are not wanted (None).
    """
    p0 = evaluators[0].problem
    B, M = len(evaluators), p0.M
    skip = [False] * B if skip is None else skip
    vals, G = kernel.values_and_grads(np.repeat(W, M, axis=0))
    vals_hat = kernel.values(np.repeat(W_hat, M, axis=0))
    psi_w, psi_hat = p0.psi.value(W), p0.psi.value(W_hat)
    grads = np.empty(W.shape)
    for i, ev in enumerate(evaluators):
        Gi = G[i * M:(i + 1) * M]
        if p0.loss != "quadratic":  # ``Kernel._batched`` writes into np.empty_like of the broadcast point
            Gi = _like_broadcast(Gi, W[i])
        grads[i] = ev.problem.weights @ Gi
    etas = [ev.eta for ev in evaluators]
    V = W - np.array(etas)[:, None] * grads
    prox = p0.psi.prox(V, etas[0]) if p0.psi.is_indicator else _per_weight(p0.psi.prox, V, etas)
    out: list[dict[str, float] | None] = []
    for i, ev in enumerate(evaluators):
        if skip[i]:
            out.append(None)
            continue
        p, rows = ev.problem, slice(i * M, (i + 1) * M)
        objective = float(p.weights @ vals[rows]) + float(psi_w[i])
        objective_avg = float(p.weights @ vals_hat[rows]) + float(psi_hat[i])
        step = (W[i] - prox[i]) / ev.eta
        m = {"objective": objective, "prox_grad_norm": float(np.linalg.norm(step)),
             "objective_avg": objective_avg}
        if ev.phi_star is not None:
            m["gap"] = objective - ev.phi_star
            m["gap_avg"] = objective_avg - ev.phi_star
        m.update(structure(p, W[i]))
        m.update(recovery(p, W[i]))
        out.append(m)
    return out


def _like_broadcast(G: Array, w: Array) -> Array:
    """G in the memory layout of ``np.empty_like(np.broadcast_to(w, G.shape))`` (column-major)."""
    out = np.empty_like(np.broadcast_to(w, G.shape))
    out[...] = G
    return out


def _per_weight(prox, V: Array, ts: Sequence[float]) -> Array:  # noqa: ANN001
    """prox(V[i], ts[i]) for every row i, one call per distinct t over the rows sharing it."""
    out = np.empty(V.shape)
    for t in dict.fromkeys(ts):
        idx = [i for i, u in enumerate(ts) if u == t]
        out[idx] = prox(V[idx], t)
    return out
