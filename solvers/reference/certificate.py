"""Certificates that a point is near-optimal: Fenchel duality gaps and KKT residuals.

Weak duality: for any dual point, P(w) − D(·) ≥ P(w) − P* ≥ 0, so the gap bounds the
sub-optimality of w.  Two duals are used:

* **Gram dual** (quadratic-type F):  D(u) = −F*(u) − ψ*(−u), with u = ∇F(w) moved into
  dom ψ* (scaled or projected, and the intercept component zeroed).
* **GLM dual** (logistic):  D(θ) = −Σ ω_i φ*(θ_i; y_i) − ψ*(−Aᵀ Ω θ) with θ_i = φ'(a_iᵀw)
  rescaled into dom ψ* (and class-balanced so that Σ ω_i θ_i = 0 with an intercept).

Where neither applies, the certificate is the KKT residual ‖G_η(w)‖ (η = 1/L), which does
not bound Φ(w) − Φ* by itself and is labelled as such.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solvers.problem import Problem
from solvers.reference.gram import GramForm
from solvers.regularizers import FreeTail


@dataclass(frozen=True)
class Certificate:
    """kind: ``duality-gap`` or ``kkt-residual``; value ≥ 0; relative = value/|Φ(w)|."""

    kind: str
    value: float
    relative: float
    primal: float
    dual: float | None = None

    def as_dict(self) -> dict:
        """JSON form."""
        return {"kind": self.kind, "value": self.value, "relative": self.relative,
                "primal": self.primal, "dual": self.dual}


def _relative(value: float, primal: float) -> float:
    return value / abs(primal) if primal != 0 else value


def _base(problem: Problem):
    psi = problem.psi
    return psi.base if isinstance(psi, FreeTail) else psi


def gram_gap(problem: Problem, gram: GramForm, w: np.ndarray) -> Certificate:
    """Duality gap via the Gram dual D(u) = −F*(u) − ψ*(−u)."""
    primal = problem.Phi(w)
    u = gram.grad(w)
    d = problem.d
    v = _base(problem).dual_project(-u[:d])
    u = np.zeros_like(u)
    u[:d] = -v
    dual = -gram.conjugate(u) - float(_base(problem).conjugate(v))
    gap = max(primal - dual, 0.0)
    return Certificate("duality-gap", gap, _relative(gap, primal), primal, dual)


def _balance_intercept(theta: np.ndarray, y: np.ndarray, omega: np.ndarray) -> np.ndarray:
    """Scale one label class of θ = −y·p down so that Σ ω θ = 0 (p stays in [0, 1])."""
    pos = np.sum(omega[y > 0] * -theta[y > 0] * y[y > 0])
    neg = np.sum(omega[y < 0] * -theta[y < 0] * y[y < 0])
    theta = theta.copy()
    if pos > neg and pos > 0:
        theta[y > 0] *= neg / pos
    elif neg > pos and neg > 0:
        theta[y < 0] *= pos / neg
    return theta


def glm_gap(problem: Problem, w: np.ndarray) -> Certificate | None:
    """Duality gap via the GLM dual; None when ψ* cannot be reached by scaling θ."""
    A, y, omega = problem.pooled
    d = problem.d
    b = w[d] if problem.intercept else 0.0
    theta = problem.phi.dphi(A @ w[:d] + b, y)
    if problem.intercept:
        theta = _balance_intercept(theta, y, omega)
    base = _base(problem)
    v = -np.asarray(A.T @ (omega * theta)).ravel()
    if problem.ridge_lam:
        raise ValueError("glm_gap: ridge belongs to the Gram dual")
    s = float(base.dual_scale(v))
    if s == 0.0 and np.any(v != 0):
        return None
    conj = float(base.conjugate(s * v))
    if not np.isfinite(conj):
        return None
    dual = -float(np.sum(omega * problem.phi.conj(s * theta, y))) - conj
    primal = problem.Phi(w)
    gap = max(primal - dual, 0.0)
    return Certificate("duality-gap", gap, _relative(gap, primal), primal, dual)


def prox_grad_norm(problem: Problem, w: np.ndarray, eta: float) -> float:
    """‖G_η(w)‖ = ‖w − prox_{ηψ}(w − η∇F(w))‖/η (the stationarity measure of SPEC 4)."""
    step = problem.psi.prox(w - eta * problem.grad_F(w), eta)
    return float(np.linalg.norm(w - step) / eta)


def kkt_certificate(problem: Problem, w: np.ndarray, eta: float) -> Certificate:
    """The KKT residual ‖G_η(w)‖ as a certificate (relative to |Φ(w)|)."""
    primal = problem.Phi(w)
    r = prox_grad_norm(problem, w, eta)
    return Certificate("kkt-residual", r, _relative(r, primal), primal, None)
