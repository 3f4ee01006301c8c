"""Weakly convex penalties MCP and SCAD (FedCanon Assumption 3; docs/baselines.md).

Both are separable, ρ-weakly convex, with subgradients bounded by λ per coordinate.  Their
prox is single-valued only when tρ < 1, and the base class refuses larger steps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from fcocheck.solvers.errors import InvalidRegularizerError
from fcocheck.solvers.regularizers.base import Regularizer, check_nonnegative


@dataclass(frozen=True, eq=False)
class MCP(Regularizer):
    """Minimax concave penalty, per coordinate.

    p(x) = λ|x| − x²/(2γ) for |x| ≤ γλ, γλ²/2 otherwise;  ρ = 1/γ.  For τ < γ:
    prox = 0 if |v| ≤ τλ;  sgn(v)(|v| − τλ)/(1 − τ/γ) if τλ < |v| ≤ γλ;  v if |v| > γλ.
    """

    lam: float = 1.0
    gamma: float = 3.0
    name: ClassVar[str] = "mcp"
    separable: ClassVar[bool] = True
    convex: ClassVar[bool] = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "lam", check_nonnegative("mcp", self.lam, "lam"))
        g = float(self.gamma)
        if not np.isfinite(g) or g <= 0:
            raise InvalidRegularizerError(
                f"mcp: gamma = {self.gamma!r} is invalid; the rule is gamma > 0 and finite"
            )
        object.__setattr__(self, "gamma", g)

    @property
    def rho(self) -> float:
        """ρ = 1/γ."""
        return 1.0 / self.gamma

    def _value(self, w: np.ndarray) -> np.ndarray:
        a = np.abs(w)
        inner = self.lam * a - a * a / (2 * self.gamma)
        outer = 0.5 * self.gamma * self.lam**2
        return np.sum(np.where(a <= self.gamma * self.lam, inner, outer), axis=-1)

    def _prox(self, v: np.ndarray, t: Any) -> np.ndarray:
        a = np.abs(v)
        mid = np.sign(v) * (a - t * self.lam) / (1.0 - t / self.gamma)
        out = np.where(a <= t * self.lam, 0.0, mid)
        return np.where(a > self.gamma * self.lam, v, out)

    def subgradient(self, w: np.ndarray) -> np.ndarray:
        """p'(x) = sgn(x)(λ − |x|/γ)₊ (0 at x = 0)."""
        w = np.asarray(w, dtype=float)
        return np.sign(w) * np.maximum(self.lam - np.abs(w) / self.gamma, 0.0)

    def spec(self) -> dict[str, Any]:
        """JSON description."""
        return {"name": self.name, "lam": self.lam, "gamma": self.gamma}


@dataclass(frozen=True, eq=False)
class SCAD(Regularizer):
    """Smoothly clipped absolute deviation, per coordinate (a > 2).

    p(x) = λ|x| (|x| ≤ λ); (−x² + 2aλ|x| − λ²)/(2(a−1)) (λ < |x| ≤ aλ); (a+1)λ²/2 otherwise.
    ρ = 1/(a − 1).  For τ < a − 1: prox = sgn(v)·max(0, |v| − τλ) if |v| ≤ λ(1+τ);
    ((a−1)v − sgn(v)aτλ)/(a − 1 − τ) if λ(1+τ) < |v| ≤ aλ;  v if |v| > aλ.
    """

    lam: float = 1.0
    a: float = 3.7
    name: ClassVar[str] = "scad"
    separable: ClassVar[bool] = True
    convex: ClassVar[bool] = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "lam", check_nonnegative("scad", self.lam, "lam"))
        a = float(self.a)
        if not np.isfinite(a) or a <= 2:
            raise InvalidRegularizerError(f"scad: a = {self.a!r} is invalid; the rule is a > 2")
        object.__setattr__(self, "a", a)

    @property
    def rho(self) -> float:
        """ρ = 1/(a − 1)."""
        return 1.0 / (self.a - 1.0)

    def _value(self, w: np.ndarray) -> np.ndarray:
        x, lam, a = np.abs(w), self.lam, self.a
        p1 = lam * x
        p2 = (-x * x + 2 * a * lam * x - lam**2) / (2 * (a - 1))
        p3 = (a + 1) * lam**2 / 2
        return np.sum(np.where(x <= lam, p1, np.where(x <= a * lam, p2, p3)), axis=-1)

    def _prox(self, v: np.ndarray, t: Any) -> np.ndarray:
        x, lam, a = np.abs(v), self.lam, self.a
        low = np.sign(v) * np.maximum(0.0, x - t * lam)
        mid = ((a - 1) * v - np.sign(v) * a * t * lam) / (a - 1 - t)
        return np.where(x <= lam * (1 + t), low, np.where(x <= a * lam, mid, v))

    def subgradient(self, w: np.ndarray) -> np.ndarray:
        """p'(x) = λ sgn(x) (|x| ≤ λ); sgn(x)(aλ − |x|)₊/(a − 1) beyond (0 at x = 0)."""
        w = np.asarray(w, dtype=float)
        x = np.abs(w)
        beyond = np.maximum(self.a * self.lam - x, 0.0) / (self.a - 1)
        return np.sign(w) * np.where(x <= self.lam, self.lam, beyond)

    def spec(self) -> dict[str, Any]:
        """JSON description."""
        return {"name": self.name, "lam": self.lam, "a": self.a}
