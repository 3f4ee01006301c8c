"""Scalar losses φ(t; y) of generalised linear models, t = xᵀw + b.

A sample loss is f(w; (x, y)) = φ(xᵀw + b; y), so ∇_w f = φ'(t; y)·x and f is
(sup|φ''|·‖x‖²)-smooth.  Loss names used by problems:

* ``squares``  φ = ½(t − y)²                        (FCO §5.1, with the ½ normalisation)
* ``matrix``   squares on ⟨X, W⟩ with W stored flat   (FCO §5.2)
* ``ridge``    squares + (λ/2)‖w‖² inside f           (FO16 eq. 16)
* ``logistic`` φ = log(1 + exp(−yt)), y ∈ {±1}       (FCO §5.3)
* ``sigmoid``  φ = 1/(1 + exp(yt)), y ∈ {±1}: smooth, non-convex, bounded (not coercive)
* ``cauchy``   φ = ½ log(1 + (t − y)²): smooth, non-convex robust regression, coercive
* ``quadratic`` F_m(w) = ½wᵀQ_m w + c_mᵀw             (FCO Assumption 2(b)); not a GLM
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np


def expit(x: np.ndarray) -> np.ndarray:
    """The logistic function 1/(1 + e^{−x}) (scipy.special, imported on first use: 0.2 s)."""
    from scipy.special import expit as f

    return f(x)


def xlogy(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x·log(y) with 0·log(0) = 0 (scipy.special, imported on first use)."""
    from scipy.special import xlogy as f

    return f(x, y)

LOSS_NAMES = ("squares", "matrix", "ridge", "logistic", "sigmoid", "cauchy", "quadratic")


@dataclass(frozen=True)
class ScalarLoss:
    """φ(t; y), its derivative, its conjugate in t (convex losses) and sup|φ''|."""

    name: ClassVar[str] = "base"
    convex: ClassVar[bool] = True
    curvature: ClassVar[float] = 1.0
    binary_labels: ClassVar[bool] = False

    def phi(self, t: np.ndarray, y: np.ndarray) -> np.ndarray:
        """φ(t; y)."""
        raise NotImplementedError

    def dphi(self, t: np.ndarray, y: np.ndarray) -> np.ndarray:
        """∂φ/∂t."""
        raise NotImplementedError

    def conj(self, theta: np.ndarray, y: np.ndarray) -> np.ndarray:
        """φ*(θ; y) = sup_t θt − φ(t; y); +inf outside its domain."""
        raise NotImplementedError


@dataclass(frozen=True)
class Squares(ScalarLoss):
    """φ = ½(t − y)²;  φ' = t − y;  φ*(θ) = ½θ² + θy;  φ'' = 1."""

    name: ClassVar[str] = "squares"

    def phi(self, t: np.ndarray, y: np.ndarray) -> np.ndarray:
        """½(t − y)²."""
        r = t - y
        return 0.5 * r * r

    def dphi(self, t: np.ndarray, y: np.ndarray) -> np.ndarray:
        """T − y."""
        return t - y

    def conj(self, theta: np.ndarray, y: np.ndarray) -> np.ndarray:
        """½θ² + θy."""
        return 0.5 * theta * theta + theta * y


@dataclass(frozen=True)
class Logistic(ScalarLoss):
    """φ = log(1 + e^{−yt}), y ∈ {±1};  φ' = −y·σ(−yt);  sup φ'' = 1/4.

    φ*(θ) = p log p + (1 − p) log(1 − p) with p = −θy ∈ [0, 1], +inf otherwise.
    """

    name: ClassVar[str] = "logistic"
    curvature: ClassVar[float] = 0.25
    binary_labels: ClassVar[bool] = True

    def phi(self, t: np.ndarray, y: np.ndarray) -> np.ndarray:
        """log(1 + exp(−yt)), computed stably."""
        return np.logaddexp(0.0, -y * t)

    def dphi(self, t: np.ndarray, y: np.ndarray) -> np.ndarray:
        """−y σ(−yt)."""
        return -y * expit(-y * t)

    def conj(self, theta: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Binary entropy of p = −θy (negative), +inf when p ∉ [0, 1]."""
        p = -theta * y
        ok = (p >= 0) & (p <= 1)
        pc = np.clip(p, 0.0, 1.0)
        return np.where(ok, xlogy(pc, pc) + xlogy(1 - pc, 1 - pc), np.inf)


@dataclass(frozen=True)
class Sigmoid(ScalarLoss):
    """φ = σ(−yt) = 1/(1 + e^{yt}): bounded, smooth, non-convex.

    φ' = −y σ(−yt)(1 − σ(−yt));  sup|φ''| = max_s |s(1 − s)(1 − 2s)| = 1/(6√3).
    """

    name: ClassVar[str] = "sigmoid"
    convex: ClassVar[bool] = False
    curvature: ClassVar[float] = 1.0 / (6.0 * np.sqrt(3.0))
    binary_labels: ClassVar[bool] = True

    def phi(self, t: np.ndarray, y: np.ndarray) -> np.ndarray:
        """σ(−yt)."""
        return expit(-y * t)

    def dphi(self, t: np.ndarray, y: np.ndarray) -> np.ndarray:
        """−y σ(−yt)(1 − σ(−yt))."""
        s = expit(-y * t)
        return -y * s * (1.0 - s)


@dataclass(frozen=True)
class Cauchy(ScalarLoss):
    """φ = ½ log(1 + r²), r = t − y: the Cauchy (Lorentzian) robust-regression loss.

    φ' = r/(1 + r²);  φ'' = (1 − r²)/(1 + r²)² ∈ [−1/8, 1], so sup|φ''| = 1.  Non-convex for
    |r| > 1, yet coercive in w when the design has full column rank (φ grows like log|r|),
    so a minimiser exists even with a bounded penalty such as MCP or SCAD.
    """

    name: ClassVar[str] = "cauchy"
    convex: ClassVar[bool] = False

    def phi(self, t: np.ndarray, y: np.ndarray) -> np.ndarray:
        """½ log(1 + (t − y)²)."""
        return 0.5 * np.log1p((t - y) ** 2)

    def dphi(self, t: np.ndarray, y: np.ndarray) -> np.ndarray:
        """r/(1 + r²)."""
        r = t - y
        return r / (1.0 + r * r)


_SCALAR = {"squares": Squares(), "matrix": Squares(), "ridge": Squares(),
           "logistic": Logistic(), "sigmoid": Sigmoid(), "cauchy": Cauchy()}


def scalar_loss(name: str) -> ScalarLoss:
    """The scalar φ behind a GLM loss name (``quadratic`` has none)."""
    return _SCALAR[name]
