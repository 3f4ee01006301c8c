"""Certified reference optima (issue 2): cvxpy and an independent first-order method.

For a convex instance:
1. cvxpy (Gram-reduced where the loss allows; CLARABEL with tight tolerances) solves it;
2. FISTA with adaptive restart, started from w0 and *not* from cvxpy's answer, runs until
   its duality gap certifies relative accuracy ``tol`` (default 1e-10);
3. cvxpy's answer is certified with the same duality gap; when it is less accurate than
   ``agree_tol`` it is polished by FISTA from its own point;
4. the two certified objectives must agree to ``agree_tol`` (1e-9) relative, and cvxpy may
   never beat the certified optimum by more than the certificate: otherwise
   ``CertificationError``.
Non-convex instances get a stationary point with ‖G_η‖ ≤ ``tol_stationary``, labelled
"stationary, not global".
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fcocheck.solvers.errors import CertificationError
from fcocheck.solvers.problem import Problem
from fcocheck.solvers.reference.centring import centred
from fcocheck.solvers.reference.certificate import (
    Certificate,
    evaluation_error,
    glm_gap,
    gram_gap,
    kkt_certificate,
    prox_grad_norm,
)
from fcocheck.solvers.reference.cvx_process import Pending
from fcocheck.solvers.reference.fista import fista, fista_backtracking, proximal_gradient
from fcocheck.solvers.reference.gram import QUADRATIC_LOSSES, GramForm, gram_form
from fcocheck.solvers.smoothness import global_smoothness

GLOBAL = "certified global optimum"
STATIONARY = "stationary, not global"
#: a rounding floor this large relative to Φ* means Φ* itself is rounding: the data are fitted exactly
ZERO_OPTIMUM = 1e-3


@dataclass
class ReferenceSolution:
    """A reference optimum with its certificate and the record of how it was obtained."""

    problem: str
    objective: float
    w: np.ndarray
    certificate: Certificate
    label: str
    solvers: list[dict[str, Any]] = field(default_factory=list)
    agreement: float | None = None
    seconds: float = 0.0
    cvx: Any = None  # cvxpy's answer (``CvxResult``), kept for a cache; not part of the JSON form
    alongside: Any = None  # what ``reference_solve``'s ``alongside(w)`` returned; not in the JSON form

    def as_dict(self, include_w: bool = True) -> dict[str, Any]:
        """JSON form (``w`` inline as a list)."""
        out = {"problem": self.problem, "objective": self.objective, "label": self.label,
               "certificate": self.certificate.as_dict(), "solvers": self.solvers,
               "agreement": self.agreement, "seconds": self.seconds}
        if include_w:
            out["w"] = self.w.tolist()
        return out


@dataclass(frozen=True)
class _Smooth:
    grad: Any
    L: float
    certify: Any
    gram: GramForm | None = None
    value: Any = None  # F, for the backtracking FISTA (GLM losses: local curvature ≪ the global L)


def _smooth_part(problem: Problem) -> _Smooth:
    if problem.loss in QUADRATIC_LOSSES:
        gram = gram_form(problem)
        return _Smooth(gram.grad, gram.L, lambda w: gram_gap(problem, gram, w), gram)
    L = global_smoothness(problem)
    eta_cert = 1.0 / L

    def certify(w: np.ndarray) -> Certificate:
        cert = glm_gap(problem, w)
        return cert if cert is not None else kkt_certificate(problem, w, eta_cert)

    return _Smooth(problem.grad_F, L, certify, value=problem.F)


def _run_fista(problem: Problem, smooth: _Smooth, w0: np.ndarray, tol: float,
               max_iter: int) -> tuple[np.ndarray, Certificate, int]:
    last: list = []  # (w, its certificate) of the latest stop test: the returned point's, reused

    def stop(w: np.ndarray) -> bool:
        if not np.all(np.isfinite(w)):
            raise CertificationError(f"{problem.name}: the first-order method produced a non-finite "
                                     "iterate; the rule is finite iterates")
        cert = smooth.certify(w)
        last[:] = [w, cert]
        # stop too once the gap is all rounding: no iteration can certify below that floor
        return cert.relative <= tol or (cert.rounding_relative > tol and cert.value <= 2 * cert.rounding)

    if smooth.value is None:  # Gram form: L is exact and the fixed step is already the best one
        res = fista(smooth.grad, problem.psi.prox, smooth.L, w0, stop=stop, max_iter=max_iter)
    else:
        res = fista_backtracking(smooth.value, smooth.grad, problem.psi.prox, smooth.L, w0, stop=stop,
                                 max_iter=max_iter)
    return res.w, last[1] if last and last[0] is res.w else smooth.certify(res.w), res.iterations


def _record(name: str, status: str, seconds: float, cert: Certificate | None,
            **extra: Any) -> dict[str, Any]:
    out = {"name": name, "status": status, "seconds": seconds,
           "objective": cert.primal if cert else None,
           "certificate": cert.as_dict() if cert else None}
    out.update(extra)
    return out


def reference_solve(problem: Problem, tol: float = 1e-10, agree_tol: float = 1e-9,
                    cvx_solver: str = "CLARABEL", max_iter: int = 200_000,
                    cached_cvx: Any = None, alongside: Any = None) -> ReferenceSolution:
    """Certified optimum of a convex instance, or a stationary point of a non-convex one.

    ``cached_cvx``: cvxpy's answer on this very instance from an earlier solve (a ``CvxResult`` with
    its ``solver``, ``status``, ``seconds``); it is certified and cross-checked exactly as a fresh one.
    A fresh cvxpy solve runs in a child process where that is safe and pays (``cvx_process``), while
    FISTA certifies and ``alongside(w)`` — work the caller needs at the certified optimum w, such as the
    problem constants — runs; its result is ``ReferenceSolution.alongside`` (None without it).  The
    answer is the same either way; a failed cross-check still raises.

    Raises:
        CertificationError: the methods disagree beyond ``agree_tol`` or a certificate
            contradicts cvxpy, or the target accuracy ``tol`` was not certified.

    """
    start = time.perf_counter()
    if not problem.convex:
        return _stationary(problem, start, max_iter)
    original, (problem, back) = problem, centred(problem)
    pending = Pending(problem, cvx_solver) if cached_cvx is None else None
    try:
        smooth = _smooth_part(problem)
        if pending is not None:
            pending.send_gram(smooth.gram)
        records: list[dict[str, Any]] = []

        t0 = time.perf_counter()
        w_fo, cert_fo, its = _run_fista(problem, smooth, problem.zero(), tol, max_iter)
        records.append(_record("fista-restart (from w0)", "certified" if cert_fo.relative <= tol
                               else "not certified", time.perf_counter() - t0, cert_fo,
                               iterations=its))
        side = alongside(back(w_fo)) if alongside is not None and cert_fo.relative <= tol else None
        cvx = cached_cvx if pending is None else pending.result()
    finally:
        if pending is not None:
            pending.close()
    cert_cvx = smooth.certify(cvx.w) if cvx.w is not None else None
    failed = pending.note if pending is not None else ""  # the child's failure: solved here instead
    where = {"note": f"solved in this process: {failed}"} if failed else {}
    records.append(_record(f"cvxpy/{cvx.solver}" + (" (cached)" if cached_cvx is not None else ""),
                           cvx.status, cvx.seconds, cert_cvx, gram_reduced=smooth.gram is not None,
                           **where))
    # a first-order run that did not certify is named as such, not as a disagreement with cvxpy
    if cert_fo.rounding_relative > tol:
        if cert_fo.rounding_relative >= ZERO_OPTIMUM:  # Φ* itself is at rounding level: Φ* = 0
            raise CertificationError(
                f"{problem.name}: the optimal value Φ* ≈ {cert_fo.primal:.3e} is at the rounding level of "
                f"the certificate ({cert_fo.rounding:.1e}): the data are fitted exactly (Φ* = 0), where a "
                "relative gap has no meaning; the rule is a relative gap <= tol, so Φ* must be away from 0 "
                "(labels with noise, or a regulariser with λ > 0)")
        raise CertificationError(
            f"{problem.name}: the certificate's rounding floor is {cert_fo.rounding_relative:.3e} "
            f"relative (float64 cannot resolve the data's scale or offset), above the target "
            f"{tol:.1e}; the rule is rounding floor <= tol: centre or rescale the data, or raise --tol")
    if not cert_fo.relative <= tol:
        raise CertificationError(
            f"{problem.name}: first-order method certified only {cert_fo.relative:.3e} relative "
            f"({cert_fo.kind}) after {its} iterations; target {tol:.1e}"
            + (f" (cvxpy/{cvx.solver}'s point has relative gap {cert_cvx.relative:.3e}; it is not "
               "accepted without an independent method agreeing)" if cert_cvx is not None else ""))
    agreement = _cross_check(problem, smooth, cert_fo, w_fo, cvx.w, cert_cvx, tol, agree_tol,
                             records, max_iter)
    w = back(w_fo)
    if problem is not original:
        cert_orig = _smooth_part(original).certify(w)
        records.append(_record("same point on the uncentred data (b = b' + ȳ − x̄ᵀw)",
                               "certified" if cert_orig.relative <= tol else "rounding-limited",
                               0.0, cert_orig))
    return ReferenceSolution(original.name, cert_fo.primal, w, cert_fo, GLOBAL, records,
                             agreement, time.perf_counter() - start, cvx, side)


def _cross_check(problem: Problem, smooth: _Smooth, cert_fo: Certificate, w_fo: np.ndarray,
                 w_cvx: np.ndarray | None, cert_cvx: Certificate | None, tol: float,
                 agree_tol: float, records: list, max_iter: int) -> float | None:
    """Compare cvxpy with the certified first-order optimum; raise on contradiction."""
    if w_cvx is None or cert_cvx is None:
        return None
    scale = abs(cert_fo.primal) if cert_fo.primal != 0 else 1.0
    # both objective values are computed: each carries its own rounding (evaluation_error), which
    # dominates where the data are fitted almost exactly (Φ* ≪ the data's size)
    slack = evaluation_error(problem, w_fo) + evaluation_error(problem, w_cvx)
    if cert_fo.kind == "duality-gap" and cert_cvx.primal < cert_fo.primal - cert_fo.value * (
            1 + 1e-6) - 1e-14 * scale - slack:
        raise CertificationError(
            f"{problem.name}: cvxpy objective {cert_cvx.primal!r} is below the certified lower "
            f"bound {cert_fo.primal - cert_fo.value!r} by more than both values' rounding "
            f"({slack:.1e}): the certificate is wrong")
    if cert_cvx.relative > agree_tol:
        t0 = time.perf_counter()
        w_pol, cert_pol, its = _run_fista(problem, smooth, w_cvx, tol, max_iter)
        records.append(_record("fista-restart (polish from cvxpy)", "certified"
                               if cert_pol.relative <= tol else "not certified",
                               time.perf_counter() - t0, cert_pol, iterations=its))
        cert_cvx = cert_pol
    agreement = abs(cert_cvx.primal - cert_fo.primal) / scale
    if agreement > agree_tol:
        raise CertificationError(
            f"{problem.name}: cvxpy ({cert_cvx.primal!r}) and the first-order method "
            f"({cert_fo.primal!r}) disagree by {agreement:.3e} relative; rule: <= {agree_tol:.0e}")
    return agreement


def _stationary(problem: Problem, start: float, max_iter: int,
                tol_stationary: float = 1e-10) -> ReferenceSolution:
    L = global_smoothness(problem) + problem.regularizer.rho
    L = max(L, 2.0 * problem.regularizer.rho)  # step 1/L keeps tρ ≤ ½ < 1
    t0 = time.perf_counter()
    res = proximal_gradient(problem.grad_F, problem.psi.prox, L, problem.zero(),
                            tol_stationary, max_iter)
    cert = kkt_certificate(problem, res.w, 1.0 / L)
    rec = _record("proximal-gradient (from w0)", "stationary" if res.converged
                  else "not converged", time.perf_counter() - t0, cert, iterations=res.iterations)
    if not res.converged:
        raise CertificationError(
            f"{problem.name}: ‖G_η‖ = {prox_grad_norm(problem, res.w, 1.0 / L):.3e} after "
            f"{res.iterations} iterations; target {tol_stationary:.0e}")
    return ReferenceSolution(problem.name, cert.primal, res.w, cert, STATIONARY, [rec], None,
                             time.perf_counter() - start)
