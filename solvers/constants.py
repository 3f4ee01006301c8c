"""Problem constants: L, μ, ζ, G and B = D_h(w*, w0), each labelled by how it is known.

* ``L``: sup‖∇²F‖₂ (exact for quadratic-type losses, a curvature bound for GLMs); also
  ``L_clients`` = max_m L_m and ``L_sample`` = max_i L of a single sample (Assumption 1(c)).
* ``mu``: λ_min(∇²F) for quadratic-type losses (None for GLMs, whose curvature is not bounded
  below globally).
* ``zeta`` = sup_w max_m ‖∇F_m(w) − ∇F(w)‖_* (in h's dual norm).  Exact for per-client
  quadratics with a common Hessian (the gradient difference is constant); otherwise the sup
  is taken over the ball B(w_c, ρ) (w_c = w* when given), as an upper bound for quadratic
  losses (‖δ_m(w_c)‖ + ρ‖H_m − H‖₂, ℓ2) and as a sampled estimate for every loss.
* ``G``: a bound on ‖∇f(w; ξ)‖_* — global for losses with bounded φ' (logistic, sigmoid,
  Cauchy), on the same ball for quadratic-type losses.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, eigsh

from fcocheck.solvers.kernels import Kernel
from fcocheck.solvers.problem import Problem
from fcocheck.solvers.reference.gram import QUADRATIC_LOSSES, gram_form
from fcocheck.solvers.smoothness import (
    client_smoothness_max,
    client_smoothnesses,
    global_smoothness,
    lanczos_start,
    sample_smoothness,
    second_moment_operator,
)

PHI_PRIME_BOUND = {"logistic": 1.0, "sigmoid": 0.25, "cauchy": 0.5}


@dataclass(frozen=True)
class ProblemConstants:
    """The constants and how each is known."""

    L: float
    L_clients: float
    L_sample: float
    mu: float | None
    zeta: float
    zeta_kind: str
    zeta_sampled: float
    G: float | None
    G_kind: str
    B: float | None
    radius: float

    def as_dict(self) -> dict:
        """JSON form."""
        return asdict(self)


#: relative margin on a client's spread bound before its Lanczos run is skipped (covers L_m's own
#: Lanczos tolerance, 1e-10, and rounding)
SKIP_MARGIN = 1e-6


def _hessian_spread(problem: Problem, seed: int = 0) -> tuple[float, float]:
    """(max_m ‖H_m − H‖₂, ‖H‖₂) for quadratic-type losses, matrix-free (Lanczos).

    Only the maximum is needed.  For sample losses every H_m (rows' second moment + ridge) and H are
    positive semidefinite, so Weyl's inequality bounds a client's spread before any run:
    −λ_max(H) ≤ λ(H_m − H) ≤ λ_max(H_m) − λ_min(H), i.e. ‖H_m − H‖₂ ≤ max(L_m − λ_min(H), L) with
    L_m = λ_max(H_m).  Clients run in decreasing order of that bound, and the runs stop once a bound
    (with ``SKIP_MARGIN``) is below the largest spread found: no client skipped could have raised the
    maximum, which is the one every client's run would have given (lasso-paper: 12 runs of 64).  Each
    client's Lanczos run starts from its own seeded vector (``seed``, m), so ζ is reproducible.
    """
    gram = gram_form(problem)
    Hbar, e = gram.H, gram.eigenvalues
    hnorm = float(max(abs(e[0]), abs(e[-1])))
    if problem.loss == "quadratic":
        return max(_spectral_norm(problem.Q[m] - Hbar, (seed, m)) for m in range(problem.M)), hnorm
    lam_min = max(float(e[0]), 0.0)
    bounds = [max(L_m - lam_min, float(e[-1])) for L_m in client_smoothnesses(problem)]
    ridge = np.r_[np.full(problem.d, problem.ridge_lam), np.zeros(problem.dim - problem.d)]
    spread = 0.0
    for m in sorted(range(problem.M), key=lambda m: -bounds[m]):
        if bounds[m] * (1.0 + SKIP_MARGIN) < spread:
            break
        Xm = problem.X[m]
        base = second_moment_operator(Xm, np.full(Xm.shape[0], 1 / Xm.shape[0]), problem.intercept)
        op = LinearOperator(Hbar.shape, dtype=float,
                            matvec=lambda v, b=base: b @ np.ravel(v) + ridge * np.ravel(v)
                            - Hbar @ np.ravel(v))
        spread = max(spread, _spectral_norm(op, (seed, m)))
    return spread, hnorm


def _spectral_norm(op: LinearOperator | np.ndarray, seed: tuple[int, int]) -> float:
    if isinstance(op, np.ndarray) and op.shape[0] <= 400:
        return float(np.max(np.abs(np.linalg.eigvalsh(op))))
    return float(abs(eigsh(op, k=1, which="LM", tol=1e-8, v0=lanczos_start(op.shape[0], seed),
                           return_eigenvectors=False)[0]))


def heterogeneity(problem: Problem, center: np.ndarray, radius: float, samples: int = 32,
                  seed: int = 0) -> tuple[float, str, float]:
    """(ζ, how it is known, sampled estimate) on B(center, radius).

    The gradients run through numpy (``Kernel(compiled=False)``): a solve needs these 33 points only,
    and the compiled kernels' import (numba, ≈ 0.6 s) would cost more than they save; ``grads_at``
    reads each client's rows once for all of them.
    """
    rng = np.random.default_rng(seed)
    dirs = rng.standard_normal((samples, problem.dim))
    dirs *= radius / np.linalg.norm(dirs, axis=1, keepdims=True)
    pts = np.vstack([center, center + dirs])
    kernel = Kernel(problem, compiled=False)
    sampled, G0 = 0.0, None
    for G in kernel.grads_at(pts):
        G0 = G if G0 is None else G0  # pts[0] is the center
        sampled = max(sampled, float(np.max(problem.h.dual_norm(G - problem.weights @ G))))
    if problem.loss not in QUADRATIC_LOSSES:
        return sampled, "sampled on ball", sampled
    spread, hnorm = _hessian_spread(problem, seed)
    at_center = float(np.max(problem.h.dual_norm(G0 - problem.weights @ G0)))
    if spread <= 1e-12 * max(hnorm, 1e-300):
        return at_center, "exact (common Hessian)", sampled
    dev = np.max(np.linalg.norm(G0 - problem.weights @ G0, axis=1))
    return float(dev + radius * spread), "upper bound on ball (l2)", sampled


def gradient_bound(problem: Problem, center: np.ndarray, radius: float) -> tuple[float | None, str]:
    """(G, how it is known): sup ‖∇f(w; ξ)‖_* over all w, or over B(center, radius)."""
    if problem.loss == "quadratic":
        vals = [np.linalg.norm(problem.Q[m], 2) * (np.linalg.norm(center) + radius)
                + np.linalg.norm(problem.c[m]) for m in range(problem.M)]
        return float(max(vals)), "bound on ball (l2)"
    A, y, _ = problem.pooled
    dense = A.toarray() if sp.issparse(A) else A
    # rows a_i = (x_i, 1) without forming them (an 8192 × 1025 copy): h's dual norm on a free
    # intercept is √(‖x_i‖_*² + 1), the Euclidean row norm √(‖x_i‖² + 1)
    head = problem.mirror.dual_norm(dense)
    dual = np.sqrt(head * head + 1.0) if problem.intercept else head
    if problem.loss in PHI_PRIME_BOUND:
        return float(PHI_PRIME_BOUND[problem.loss] * dual.max()), "global bound"
    row_sq = np.einsum("ij,ij->i", dense, dense) + float(problem.intercept)
    fitted = dense @ center[: problem.d] + (center[problem.d] if problem.intercept else 0.0)
    resid = np.abs(fitted - y) + np.sqrt(row_sq) * radius
    ridge = problem.ridge_lam * (np.linalg.norm(center) + radius)
    return float(np.max(resid * dual) + ridge), "bound on ball (l2)"


def compute_constants(problem: Problem, w_star: np.ndarray | None = None,
                      radius: float | None = None, seed: int = 0) -> ProblemConstants:
    """All constants of ``problem``; B and the ball need ``w_star`` (else centred at w0)."""
    w0 = problem.zero()
    center = w0 if w_star is None else np.asarray(w_star, dtype=float)
    if radius is None:
        radius = float(np.linalg.norm(center - w0)) or 1.0
    gram = gram_form(problem) if problem.loss in QUADRATIC_LOSSES else None
    mu = gram.mu if gram is not None else None
    zeta, kind, sampled = heterogeneity(problem, center, radius, seed=seed)
    G, gkind = gradient_bound(problem, center, radius)
    B = float(problem.h.bregman(center, w0)) if w_star is not None else None
    return ProblemConstants(
        L=gram.L if gram is not None else global_smoothness(problem),
        L_clients=client_smoothness_max(problem),
        L_sample=sample_smoothness(problem), mu=mu, zeta=zeta, zeta_kind=kind,
        zeta_sampled=sampled, G=G, G_kind=gkind, B=B, radius=radius,
    )
