"""Gram reduction of quadratic-type losses: F(w) = ½ wᵀHw − gᵀw + c₀ over the full vector.

For squares/matrix/ridge with rows a_i = (x_i, 1) and weights ω_i = p_m/n_m:
H = Σ ω_i a_i a_iᵀ (+ λ on the model block for ridge), g = Σ ω_i y_i a_i, c₀ = ½ Σ ω_i y_i².
For quadratics: H = Σ p_m Q_m, g = −Σ p_m c_m, c₀ = 0.  The reduction turns an N×D data
problem into a D×D one (the 8192×1024 LASSO into 1025×1025), exactly.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp
from scipy.linalg.blas import dsyrk as syrk

from fcocheck.solvers.problem import Problem

QUADRATIC_LOSSES = ("squares", "matrix", "ridge", "quadratic")


@dataclass(frozen=True, eq=False)
class GramForm:
    """F(w) = ½ wᵀHw − gᵀw + c₀ with its eigen-decomposition cached."""

    H: np.ndarray
    g: np.ndarray
    c0: float

    @cached_property
    def eig(self) -> tuple[np.ndarray, np.ndarray]:
        """(eigenvalues ascending, eigenvectors) of H."""
        e, V = np.linalg.eigh(self.H)
        return e, V

    @cached_property
    def eigenvalues(self) -> np.ndarray:
        """Eigenvalues of H, ascending (from ``eig`` when it exists, else values only: ~3× cheaper)."""
        if "eig" in self.__dict__:
            return self.eig[0]
        return np.linalg.eigvalsh(self.H)

    @property
    def L(self) -> float:
        """Largest eigenvalue of H (smoothness of F)."""
        return float(max(self.eigenvalues[-1], 0.0))

    @property
    def mu(self) -> float:
        """Smallest eigenvalue of H (0 when H is singular to working precision)."""
        e = self.eigenvalues
        return float(e[0]) if e[0] > 1e-12 * max(e[-1], 1e-300) else 0.0

    def value(self, w: np.ndarray) -> float:
        """F(w)."""
        return float(0.5 * w @ (self.H @ w) - self.g @ w + self.c0)

    def grad(self, w: np.ndarray) -> np.ndarray:
        """∇F(w) = Hw − g."""
        return self.H @ w - self.g

    def conjugate(self, u: np.ndarray) -> float:
        """F*(u) = ½(u + g)ᵀH⁺(u + g) − c₀; +inf if u + g leaves range(H) (relative 1e-9)."""
        e, V = self.eig
        r = V.T @ (u + self.g)
        keep = e > 1e-12 * max(e[-1], 1e-300)
        if np.any(np.abs(r[~keep]) > 1e-9 * (1.0 + np.linalg.norm(r))):
            return float("inf")
        return float(0.5 * np.sum(r[keep] ** 2 / e[keep]) - self.c0)


_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
#: problem → (its centred twin, x̄, ȳ): its form is derived from the twin's instead of built
_TWINS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def gram_form(problem: Problem) -> GramForm:
    """The exact Gram form of a quadratic-type problem, built once per problem (cached).

    The reference solve, its certificates and the problem constants all need H; a problem is
    immutable, so the form (and its eigen-decomposition, computed on first use) is shared.  A
    problem registered with ``share_with_centred`` gets its form from its centred twin's in O(D²).

    Raises:
        ValueError: the loss is not quadratic (logistic, sigmoid).

    """
    if problem not in _CACHE:
        twin = _TWINS.get(problem)
        _CACHE[problem] = _uncentre(gram_form(twin[0]), *twin[1:], problem) if twin else _build(problem)
    return _CACHE[problem]


def share_with_centred(problem: Problem, twin: Problem, xbar: np.ndarray, ybar: float) -> None:
    """Derive ``problem``'s Gram form from ``twin`` = ``problem`` with x_i − x̄, y_i − ȳ (dense data).

    With Σ ω_i = 1, x̄ = Σ ω_i x_i and ȳ = Σ ω_i y_i, so Σ ω_i (x_i − x̄) = 0 and Σ ω_i (y_i − ȳ) = 0:
    H_xx = H'_xx + x̄x̄ᵀ, H_xb = x̄, H_bb = 1, g_x = g'_x + ȳ x̄, g_b = ȳ, c₀ = c₀' + ½ȳ² — exact,
    and the data are multiplied once instead of twice (the 8192 × 1025 product is the cost).
    """
    _TWINS[problem] = (twin, np.asarray(xbar, dtype=float), float(ybar))


def _uncentre(form: GramForm, xbar: np.ndarray, ybar: float, problem: Problem) -> GramForm:
    d = problem.d
    H = form.H.copy()
    H[:d, :d] += np.outer(xbar, xbar)
    H[:d, d] = H[d, :d] = xbar
    H[d, d] = form.H[d, d]  # Σ ω_i, the same in both
    g = form.g.copy()
    g[:d] += ybar * xbar
    g[d] = ybar * form.H[d, d]
    return GramForm(H=0.5 * (H + H.T), g=g, c0=form.c0 + 0.5 * ybar * ybar * form.H[d, d])


def _build(problem: Problem) -> GramForm:
    if problem.loss not in QUADRATIC_LOSSES:
        raise ValueError(f"no Gram form for loss {problem.loss!r}")
    if problem.loss == "quadratic":
        H = np.einsum("m,mde->de", problem.weights, problem.Q)
        g = -problem.weights @ problem.c
        return GramForm(H=0.5 * (H + H.T), g=g, c0=0.0)
    A, y, omega = problem.pooled
    d, D = problem.d, problem.dim
    H = np.empty((D, D))
    if sp.issparse(A):
        H[:d, :d] = (A.T @ (sp.diags(omega) @ A)).toarray()
    else:  # Aᵀ diag(ω) A = BᵀB with B = diag(√ω) A: a symmetric rank-k update, half a product's flops
        upper = syrk(1.0, (A * np.sqrt(omega)[:, None]).T)  # the transpose is Fortran-ordered: no copy
        H[:d, :d] = np.triu(upper) + np.triu(upper, 1).T
    g = np.empty(D)
    g[:d] = np.asarray(A.T @ (omega * y)).ravel()  # Aᵀ diag(ω) y, with no weighted copy of A
    if problem.intercept:
        col = np.asarray(A.T @ omega).ravel()
        H[:d, d] = H[d, :d] = col
        H[d, d] = omega.sum()
        g[d] = omega @ y
    if problem.ridge_lam:
        H[np.arange(d), np.arange(d)] += problem.ridge_lam
    return GramForm(H=0.5 * (H + H.T), g=g, c0=float(0.5 * omega @ (y * y)))
