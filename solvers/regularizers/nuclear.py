"""Nuclear norm ψ(W) = λ‖W‖_nuc on a matrix stored flat (FCO §5.2)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from fcocheck.solvers.errors import InvalidRegularizerError
from fcocheck.solvers.regularizers.base import DUAL_SHRINK, Regularizer, check_nonnegative


@dataclass(frozen=True, eq=False)
class Nuclear(Regularizer):
    """ψ(W) = λ Σ_i σ_i(W), W ∈ R^{d1×d2} stored row-major as a vector of length d1·d2.

    prox: singular-value soft-thresholding (Cai et al. 2010);  ψ* = χ{‖V‖₂ ≤ λ}.
    """

    lam: float = 1.0
    shape: tuple[int, int] = (1, 1)
    name: ClassVar[str] = "nuclear"

    def __post_init__(self) -> None:
        object.__setattr__(self, "lam", check_nonnegative("nuclear", self.lam, "lam"))
        shape = tuple(int(s) for s in self.shape)
        if len(shape) != 2 or min(shape) < 1:
            raise InvalidRegularizerError(
                f"nuclear: shape = {self.shape!r} is invalid; the rule is (d1, d2) with d1, d2 >= 1"
            )
        object.__setattr__(self, "shape", shape)

    def as_matrix(self, w: np.ndarray) -> np.ndarray:
        """Reshape ``(..., d1·d2)`` to ``(..., d1, d2)``."""
        w = np.asarray(w, dtype=float)
        if w.shape[-1] != self.shape[0] * self.shape[1]:
            raise InvalidRegularizerError(
                f"nuclear: vector of length {w.shape[-1]} does not hold a {self.shape} matrix; "
                "the rule is length d1·d2"
            )
        return w.reshape(w.shape[:-1] + self.shape)

    def singular_values(self, w: np.ndarray) -> np.ndarray:
        """σ(W), shape ``(..., min(d1, d2))``."""
        return np.linalg.svd(self.as_matrix(w), compute_uv=False)

    def _value(self, w: np.ndarray) -> np.ndarray:
        return self.lam * np.sum(self.singular_values(w), axis=-1)

    def _prox(self, v: np.ndarray, t: Any) -> np.ndarray:
        U, s, Vt = np.linalg.svd(self.as_matrix(v), full_matrices=False)
        s = np.maximum(s - t * self.lam, 0.0)
        out = (U * s[..., None, :]) @ Vt
        return out.reshape(v.shape)

    def subgradient(self, w: np.ndarray) -> np.ndarray:
        """λ U_+ V_+ᵀ over the non-zero singular values."""
        w = np.asarray(w, dtype=float)
        U, s, Vt = np.linalg.svd(self.as_matrix(w), full_matrices=False)
        tol = 1e-12 * np.max(s, axis=-1, keepdims=True) if s.size else 0.0
        keep = (s > tol).astype(float)
        return (self.lam * (U * keep[..., None, :]) @ Vt).reshape(w.shape)

    def conjugate(self, v: np.ndarray) -> np.ndarray:
        """χ{σ_max(V) ≤ λ}."""
        smax = np.max(self.singular_values(v), axis=-1)
        return np.where(smax <= self.lam, 0.0, np.inf)

    def dual_scale(self, v: np.ndarray) -> np.ndarray:
        """min(1, λ/σ_max(V))."""
        smax = np.max(self.singular_values(v), axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(smax > self.lam, DUAL_SHRINK * self.lam / smax, 1.0)

    def spec(self) -> dict[str, Any]:
        """JSON description."""
        return {"name": self.name, "lam": self.lam, "shape": list(self.shape)}
