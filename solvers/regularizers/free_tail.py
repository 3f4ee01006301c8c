"""ψ acting on the model coordinates only, leaving trailing coordinates (an intercept) free."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from fcocheck.solvers.regularizers.base import Regularizer


@dataclass(frozen=True, eq=False)
class FreeTail(Regularizer):
    """ψ̃(w, b) = ψ(w) for w ∈ R^d and n_free unpenalised coordinates b.

    prox_{tψ̃}(v, c) = (prox_{tψ}(v), c);  ψ̃*(u, s) = ψ*(u) + χ{s = 0}.
    An intercept is never penalised (FCO §5.1: the bias b is free).
    """

    base: Regularizer = None  # type: ignore[assignment]
    n_free: int = 1
    name: ClassVar[str] = "free_tail"

    @property
    def separable(self) -> bool:  # type: ignore[override]
        """Separable exactly when the base regulariser is."""
        return self.base.separable

    @property
    def convex(self) -> bool:  # type: ignore[override]
        """Convex exactly when the base regulariser is."""
        return self.base.convex

    @property
    def is_indicator(self) -> bool:  # type: ignore[override]
        """An indicator exactly when the base is."""
        return self.base.is_indicator

    @property
    def rho(self) -> float:
        """ρ of the base regulariser."""
        return self.base.rho

    def split(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(model coordinates, free coordinates)."""
        w = np.asarray(w, dtype=float)
        return w[..., : -self.n_free], w[..., -self.n_free :]

    def _value(self, w: np.ndarray) -> np.ndarray:
        return self.base.value(self.split(w)[0])

    def prox(self, v: np.ndarray, t: Any) -> np.ndarray:
        """(prox_{tψ}(head), tail); a per-coordinate t is split the same way."""
        head, tail = self.split(v)
        th = t
        if np.ndim(t) > 0:
            th = np.broadcast_to(t, np.shape(v))[..., : -self.n_free]
        return np.concatenate([self.base.prox(head, th), tail], axis=-1)

    def subgradient(self, w: np.ndarray) -> np.ndarray:
        """(∂ψ(head), 0)."""
        head, tail = self.split(w)
        return np.concatenate([self.base.subgradient(head), np.zeros_like(tail)], axis=-1)

    def conjugate(self, v: np.ndarray) -> np.ndarray:
        """ψ*(head) + χ{tail = 0}."""
        head, tail = self.split(v)
        return np.where(np.all(tail == 0, axis=-1), self.base.conjugate(head), np.inf)

    def dual_scale(self, v: np.ndarray) -> np.ndarray:
        """The base rule on the head (the tail must be zeroed by the caller)."""
        return self.base.dual_scale(self.split(v)[0])

    def dual_project(self, v: np.ndarray) -> np.ndarray:
        """(base dual projection of the head, 0)."""
        head, tail = self.split(v)
        return np.concatenate([self.base.dual_project(head), np.zeros_like(tail)], axis=-1)

    def spec(self) -> dict[str, Any]:
        """The base regulariser's description (the intercept is a problem property)."""
        return self.base.spec()
