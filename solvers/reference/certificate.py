"""Certificates that a point is near-optimal: Fenchel duality gaps and KKT residuals.

Weak duality: for a dual point u, P(w) − D(u) ≥ P(w) − P* ≥ 0 with D(u) = −F*(u) − ψ*(−u).
The gap is computed as the sum of two Fenchel–Young gaps, each ≥ 0 in exact arithmetic,

    P(w) − D(u) = [F(w) + F*(u) − ⟨u, w⟩] + [ψ(w) + ψ*(−u) + ⟨u, w⟩],

and never as the difference of two large numbers: a constant offset in y (which moves F and
F* by the same large amount) cannot make the certificate lie.  For sample losses the first
term is a sum over samples Σ ω_i [φ(z_i) + φ*(θ_i) − θ_i z_i] with u = AᵀΩθ (for squares it is
½Σ ω_i (r_i − θ_i)², r the residuals); for quadratics it is ½ δᵀH⁺δ with δ = u − ∇F(w).
The dual point is θ = φ'(z) (residuals), centred (squares) or class-balanced (logistic) so
that an unpenalised intercept is dual-feasible, then scaled into dom ψ*; cones, which scaling
cannot enter, are projected onto their polar and use the quadratic form.

The value reported is max(gap, 0) + a bound on the rounding of the computed sums (from the
rounding of the residuals, of ∇F and of each term), so it is an upper bound on Φ(w) − Φ* and is
never exactly 0.  A computed gap below
−bound contradicts weak duality and raises ``CertificationError``; a non-finite one too.

Where neither dual applies, the certificate is the KKT residual ‖G_η(w)‖ (η = 1/L), which does
not bound Φ(w) − Φ* by itself and is labelled as such.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fcocheck.solvers.errors import CertificationError
from fcocheck.solvers.problem import Problem
from fcocheck.solvers.reference.gram import GramForm
from fcocheck.solvers.regularizers import FreeTail
from fcocheck.solvers.sparse import issparse

EPS = float(np.finfo(float).eps)
ROUNDING = 64.0 * EPS
RESIDUAL_LOSSES = ("squares", "matrix", "ridge")
#: a measured gap Φ(w) − Φ(w_ref) is resolved when it sits this far above the reference's certificate
RESOLVED = 1e3


@dataclass(frozen=True)
class Certificate:
    """kind: ``duality-gap`` or ``kkt-residual``; value ≥ 0; relative = value/|Φ(w)|.

    ``rounding`` is the part of ``value`` that bounds floating-point error: no iteration can
    push the certificate below it.
    """

    kind: str
    value: float
    relative: float
    primal: float
    dual: float | None = None
    rounding: float = 0.0

    @property
    def rounding_relative(self) -> float:
        """The rounding floor relative to |Φ(w)|."""
        return _relative(self.rounding, self.primal)

    def as_dict(self) -> dict:
        """JSON form."""
        return {"kind": self.kind, "value": self.value, "relative": self.relative,
                "primal": self.primal, "dual": self.dual, "rounding": self.rounding}


def _relative(value: float, primal: float) -> float:
    return value / abs(primal) if primal != 0 else value


def _base(problem: Problem):
    psi = problem.psi
    return psi.base if isinstance(psi, FreeTail) else psi


def _psi_gap(problem: Problem, w_model: np.ndarray, v: np.ndarray) -> tuple[float, float]:
    """ψ(w) + ψ*(v) − ⟨v, w⟩ ≥ 0 and a bound on its rounding error."""
    base = _base(problem)
    terms = (float(base.value(w_model)), float(base.conjugate(v)), float(v @ w_model))
    mag = abs(terms[0]) + abs(terms[1]) + float(np.abs(v) @ np.abs(w_model))
    return terms[0] + terms[1] - terms[2], ROUNDING * mag


def _square_error(diff: np.ndarray, err: np.ndarray, omega: np.ndarray) -> float:
    """Bound on |½Σω(diff+ε)² − ½Σω diff²| for |ε_i| ≤ err_i: Σω|diff|·err + ½Σω err²."""
    return float(omega @ (np.abs(diff) * err + 0.5 * err * err))


def _gap_certificate(problem: Problem, w: np.ndarray, parts: list[tuple[float, float]]
                     ) -> Certificate:
    """Sum the Fenchel–Young parts (value, rounding bound); refuse a negative or NaN gap.

    The value is max(gap, 0) + the summed rounding bounds: an upper bound on Φ(w) − Φ*.
    """
    primal = problem.Phi(w)
    gap = sum(p[0] for p in parts)
    bound = sum(p[1] for p in parts) + ROUNDING * abs(gap)
    if np.isnan(gap) or np.isnan(bound) or not np.isfinite(primal):
        raise CertificationError(
            f"{problem.name}: duality gap {gap!r} at primal {primal!r}; the rule is a finite "
            "certificate")
    if gap < -bound:
        raise CertificationError(
            f"{problem.name}: duality gap {gap:.6e} is negative beyond the rounding bound "
            f"{bound:.3e}; weak duality says gap >= 0, so the dual computation is wrong")
    value = max(gap, 0.0) + bound
    return Certificate("duality-gap", value, _relative(value, primal), primal, primal - value, bound)


def _residuals(problem: Problem, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The residuals r = Aw + b − y and a bound on each one's rounding, ~ε(|A||w| + |Aw + b| + |y|)."""
    A, y, _ = problem.pooled
    wm = w[: problem.d]
    fitted = np.asarray(A @ wm).ravel() + (w[problem.d] if problem.intercept else 0.0)
    err = 4.0 * EPS * (_abs_product(A, np.abs(wm)) + np.abs(fitted) + np.abs(y))
    return fitted - y, err


#: rows of |A| formed at a time by ``_abs_product`` (2 MB at d = 1024: the block stays in cache)
ABS_ROWS = 256


def _abs_product(A, v: np.ndarray) -> np.ndarray:
    """|A| @ v; a dense A a block of rows at a time.

    No copy of the whole |A| (lasso-paper's is 64 MB, and a certificate is taken every 10 FISTA
    iterations): each block is formed in one cache-sized buffer.  It only enters the residuals'
    rounding bound, whose factor 4ε covers this product's own rounding however it is blocked.
    """
    if issparse(A) or A.dtype != np.float64:
        return np.asarray(abs(A) @ v).ravel()
    out = np.empty(A.shape[0])
    buf = np.empty((min(ABS_ROWS, A.shape[0]), A.shape[1]))
    for i in range(0, A.shape[0], ABS_ROWS):
        block = buf[: min(ABS_ROWS, A.shape[0] - i)]
        np.abs(A[i: i + len(block)], out=block)
        np.matmul(block, v, out=out[i: i + len(block)])
    return out


def _residual_parts(problem: Problem, w: np.ndarray) -> list[tuple[float, float]] | None:
    """Squares-type losses: θ = s·(r − r̄), u = AᵀΩθ + s·λ_ridge·w; None when scaling cannot reach dom ψ*."""
    A, y, omega = problem.pooled
    d = problem.d
    wm = w[:d]
    r, err = _residuals(problem, w)
    theta = r - omega @ r if problem.intercept else r
    u = np.asarray(A.T @ (omega * theta)).ravel() + problem.ridge_lam * wm
    v = -u
    base = _base(problem)
    s = float(base.dual_scale(v))
    if s == 0.0 and np.any(v != 0):
        return None
    diff = r - s * theta
    data = 0.5 * float(omega @ (diff * diff))
    ridge = 0.5 * problem.ridge_lam * (1.0 - s) ** 2 * float(wm @ wm)
    # r carries its rounding err (θ is held exactly as computed)
    return [(data + ridge, _square_error(diff, err, omega) + ROUNDING * (data + ridge)),
            _psi_gap(problem, wm, s * v)]


def evaluation_error(problem: Problem, w: np.ndarray) -> float:
    """A bound on the rounding in the computed Φ(w) (the gap's own bound does not cover Φ's value).

    For squares-type losses the residuals r = Aw − y carry ~ε(|A||w| + |y|) each, which moves
    ½Σω r² by Σω|r|·err + ½Σω err²: where the data are fitted almost exactly (Φ* ≪ ½Σω y²) this is
    far above ε|Φ|.  Other losses: ``ROUNDING``·|Φ(w)|.
    """
    value = abs(float(problem.Phi(w)))
    if problem.loss not in RESIDUAL_LOSSES:
        return ROUNDING * value
    r, err = _residuals(problem, w)
    return _square_error(r, err, problem.pooled[2]) + ROUNDING * value


def _quadratic_parts(problem: Problem, gram: GramForm, w: np.ndarray) -> list[tuple[float, float]]:
    """Dual point u = −Π_{dom ψ*}(−∇F(w)); F's Fenchel–Young gap ½δᵀH⁺δ with δ = u − ∇F(w)."""
    d = problem.d
    grad = gram.grad(w)
    v = _base(problem).dual_project(-grad[:d])
    delta = -grad
    delta[:d] -= v
    e, V = gram.eig
    q = V.T @ delta
    keep = e > 1e-12 * max(e[-1], 1e-300)
    if np.any(np.abs(q[~keep]) > 1e-9 * (1.0 + np.linalg.norm(q))):
        return [(float("inf"), 0.0), _psi_gap(problem, w[:d], v)]
    fy = 0.5 * float(np.sum(q[keep] ** 2 / e[keep]))
    # ∇F(w) = Hw − g carries rounding ε_g ≤ 4ε·‖|H||w| + |g|‖; FY moves by at most
    # √(2 FY)·‖ε_g‖/√e_min + ½‖ε_g‖²/e_min
    eg = 4.0 * EPS * float(np.linalg.norm(np.abs(gram.H) @ np.abs(w) + np.abs(gram.g)))
    emin = float(e[keep][0])
    err = np.sqrt(2.0 * fy) * eg / np.sqrt(emin) + 0.5 * eg * eg / emin
    return [(fy, err + ROUNDING * fy), _psi_gap(problem, w[:d], v)]


def gram_gap(problem: Problem, gram: GramForm, w: np.ndarray) -> Certificate:
    """Duality gap of a quadratic-type F, from residuals where the data allow (see module doc)."""
    parts = _residual_parts(problem, w) if problem.loss in RESIDUAL_LOSSES else None
    if parts is None:
        parts = _quadratic_parts(problem, gram, w)
    return _gap_certificate(problem, w, parts)


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
    if problem.ridge_lam:
        raise ValueError("glm_gap: ridge belongs to the Gram dual")
    z = np.asarray(A @ w[:d]).ravel() + (w[d] if problem.intercept else 0.0)
    theta = problem.phi.dphi(z, y)
    if problem.intercept:
        theta = _balance_intercept(theta, y, omega)
    base = _base(problem)
    v = -np.asarray(A.T @ (omega * theta)).ravel()
    s = float(base.dual_scale(v))
    if s == 0.0 and np.any(v != 0):
        return None
    if not np.isfinite(float(base.conjugate(s * v))):
        return None
    phi, conj, lin = problem.phi.phi(z, y), problem.phi.conj(s * theta, y), s * theta * z
    data = float(omega @ (phi + conj - lin))
    mag = float(omega @ (np.abs(phi) + np.abs(conj) + np.abs(lin)))
    return _gap_certificate(problem, w, [(data, ROUNDING * mag), _psi_gap(problem, w[:d], s * v)])


def prox_grad_norm(problem: Problem, w: np.ndarray, eta: float) -> float:
    """‖G_η(w)‖ = ‖w − prox_{ηψ}(w − η∇F(w))‖/η (the stationarity measure of FedCanon Thm 1)."""
    step = problem.psi.prox(w - eta * problem.grad_F(w), eta)
    return float(np.linalg.norm(w - step) / eta)


def kkt_certificate(problem: Problem, w: np.ndarray, eta: float) -> Certificate:
    """The KKT residual ‖G_η(w)‖ as a certificate (relative to |Φ(w)|)."""
    primal = problem.Phi(w)
    r = prox_grad_norm(problem, w, eta)
    if not (np.isfinite(r) and np.isfinite(primal)):
        raise CertificationError(
            f"{problem.name}: KKT residual {r!r} at primal {primal!r}; the rule is a finite certificate")
    return Certificate("kkt-residual", r, _relative(r, primal), primal, None)
