"""Separable convex norms: λ‖w‖₁, (λ/2)‖w‖², elastic net."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from fcocheck.solvers.regularizers.base import DUAL_SHRINK, Regularizer, check_nonnegative


def soft_threshold(v: np.ndarray, tau: Any) -> np.ndarray:
    """S_τ(v) = sign(v)·max(|v| − τ, 0), elementwise, in one new array (copysign carries the sign).

    The same values as sign(v)·max(|v| − τ, 0), a zero output possibly as −0.0 (equal to 0 for every
    comparison and density count); one allocation instead of four (an (M, d) block per local step).
    """
    out = np.abs(v)
    out -= tau
    np.maximum(out, 0.0, out=out)
    return np.copysign(out, v, out=out)


def linf_scale(v: np.ndarray, radius: float) -> np.ndarray:
    """Largest s ∈ [0, 1] with ‖s·v‖_∞ ≤ radius (strictly inside, see DUAL_SHRINK)."""
    m = np.max(np.abs(v), axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(m > radius, DUAL_SHRINK * radius / m, 1.0)
    return s


@dataclass(frozen=True, eq=False)
class L1(Regularizer):
    """ψ(w) = λ‖w‖₁.  prox: soft-thresholding; ψ* = χ{‖v‖_∞ ≤ λ} (FCO §5.1, §5.3)."""

    lam: float = 1.0
    name: ClassVar[str] = "l1"
    separable: ClassVar[bool] = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "lam", check_nonnegative("l1", self.lam, "lam"))

    def _value(self, w: np.ndarray) -> np.ndarray:
        return self.lam * np.add.reduce(np.abs(w), axis=-1)  # np.sum's reduction, without its wrapper

    def _prox(self, v: np.ndarray, t: Any) -> np.ndarray:
        return soft_threshold(v, t * self.lam)

    def subgradient(self, w: np.ndarray) -> np.ndarray:
        """λ·sign(w) (0 at w_j = 0, which lies in [−λ, λ])."""
        return self.lam * np.sign(np.asarray(w, dtype=float))

    def conjugate(self, v: np.ndarray) -> np.ndarray:
        """χ{‖v‖_∞ ≤ λ}."""
        v = np.asarray(v, dtype=float)
        return np.where(np.max(np.abs(v), axis=-1) <= self.lam, 0.0, np.inf)

    def dual_scale(self, v: np.ndarray) -> np.ndarray:
        """min(1, λ/‖v‖_∞)."""
        return linf_scale(np.asarray(v, dtype=float), self.lam)

    def spec(self) -> dict[str, Any]:
        """JSON description."""
        return {"name": self.name, "lam": self.lam}


@dataclass(frozen=True, eq=False)
class L2Squared(Regularizer):
    """ψ(w) = (λ/2)‖w‖² (weight decay).  prox v/(1 + tλ); ψ*(v) = ‖v‖²/(2λ)."""

    lam: float = 1.0
    name: ClassVar[str] = "l2sq"
    separable: ClassVar[bool] = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "lam", check_nonnegative("l2sq", self.lam, "lam"))

    def _value(self, w: np.ndarray) -> np.ndarray:
        return 0.5 * self.lam * np.sum(w * w, axis=-1)

    def _prox(self, v: np.ndarray, t: Any) -> np.ndarray:
        return v / (1.0 + t * self.lam)

    def subgradient(self, w: np.ndarray) -> np.ndarray:
        """∇ψ(w) = λw."""
        return self.lam * np.asarray(w, dtype=float)

    def conjugate(self, v: np.ndarray) -> np.ndarray:
        """‖v‖²/(2λ) (χ{0} when λ = 0)."""
        v = np.asarray(v, dtype=float)
        if self.lam == 0:
            return np.where(np.all(v == 0, axis=-1), 0.0, np.inf)
        return np.sum(v * v, axis=-1) / (2.0 * self.lam)

    def dual_scale(self, v: np.ndarray) -> np.ndarray:
        """1 (ψ* finite) unless λ = 0."""
        v = np.asarray(v, dtype=float)
        if self.lam == 0:
            return np.where(np.all(v == 0, axis=-1), 1.0, 0.0)
        return np.ones(v.shape[:-1])

    def spec(self) -> dict[str, Any]:
        """JSON description."""
        return {"name": self.name, "lam": self.lam}


@dataclass(frozen=True, eq=False)
class ElasticNet(Regularizer):
    """ψ(w) = λ₁‖w‖₁ + (λ₂/2)‖w‖².

    prox_{tψ}(v) = S_{tλ₁}(v)/(1 + tλ₂);  ψ*(v) = Σ_j (|v_j| − λ₁)₊² / (2λ₂).
    """

    lam1: float = 1.0
    lam2: float = 1.0
    name: ClassVar[str] = "elastic_net"
    separable: ClassVar[bool] = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "lam1", check_nonnegative("elastic_net", self.lam1, "lam1"))
        object.__setattr__(self, "lam2", check_nonnegative("elastic_net", self.lam2, "lam2"))

    def _value(self, w: np.ndarray) -> np.ndarray:
        return self.lam1 * np.sum(np.abs(w), axis=-1) + 0.5 * self.lam2 * np.sum(w * w, axis=-1)

    def _prox(self, v: np.ndarray, t: Any) -> np.ndarray:
        return soft_threshold(v, t * self.lam1) / (1.0 + t * self.lam2)

    def subgradient(self, w: np.ndarray) -> np.ndarray:
        """λ₁ sign(w) + λ₂ w."""
        w = np.asarray(w, dtype=float)
        return self.lam1 * np.sign(w) + self.lam2 * w

    def conjugate(self, v: np.ndarray) -> np.ndarray:
        """Σ (|v| − λ₁)₊²/(2λ₂); the L1 conjugate when λ₂ = 0."""
        v = np.asarray(v, dtype=float)
        if self.lam2 == 0:
            return L1(self.lam1).conjugate(v)
        return np.sum(np.maximum(np.abs(v) - self.lam1, 0.0) ** 2, axis=-1) / (2 * self.lam2)

    def dual_scale(self, v: np.ndarray) -> np.ndarray:
        """1 when λ₂ > 0, else the L1 rule."""
        v = np.asarray(v, dtype=float)
        if self.lam2 == 0:
            return linf_scale(v, self.lam1)
        return np.ones(v.shape[:-1])

    def spec(self) -> dict[str, Any]:
        """JSON description."""
        return {"name": self.name, "lam1": self.lam1, "lam2": self.lam2}
