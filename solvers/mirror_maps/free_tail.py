"""A mirror map on the model coordinates, Euclidean on free trailing coordinates."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from fcocheck.solvers.mirror_maps.base import MirrorMap


@dataclass(frozen=True, eq=False)
class FreeTailMirror(MirrorMap):
    """h̃(w, b) = h(w) + ½‖b‖²: 1-strongly convex in √(‖w‖² + ‖b‖₂²), dual √(‖u‖_*² + ‖s‖₂²)."""

    base: MirrorMap = None  # type: ignore[assignment]
    n_free: int = 1
    name: ClassVar[str] = "free_tail"

    def split(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(model coordinates, free coordinates)."""
        w = np.asarray(w, dtype=float)
        return w[..., : -self.n_free], w[..., -self.n_free :]

    def _join(self, head: np.ndarray, tail: np.ndarray) -> np.ndarray:
        return np.concatenate([head, tail], axis=-1)

    def h(self, w: np.ndarray) -> np.ndarray:
        """h(head) + ½‖tail‖²."""
        head, tail = self.split(w)
        return self.base.h(head) + 0.5 * np.sum(tail * tail, axis=-1)

    def grad(self, w: np.ndarray) -> np.ndarray:
        """(∇h(head), tail)."""
        head, tail = self.split(w)
        return self._join(self.base.grad(head), tail.copy())

    def grad_conj(self, z: np.ndarray) -> np.ndarray:
        """(∇h*(head), tail)."""
        head, tail = self.split(z)
        return self._join(self.base.grad_conj(head), tail.copy())

    def bregman(self, u: np.ndarray, w: np.ndarray) -> np.ndarray:
        """D_h(head) + ½‖Δtail‖²."""
        uh, ut = self.split(u)
        wh, wt = self.split(w)
        return self.base.bregman(uh, wh) + 0.5 * np.sum((ut - wt) ** 2, axis=-1)

    def norm(self, w: np.ndarray) -> np.ndarray:
        """√(‖head‖² + ‖tail‖₂²)."""
        head, tail = self.split(w)
        return np.sqrt(self.base.norm(head) ** 2 + np.sum(tail * tail, axis=-1))

    def dual_norm(self, z: np.ndarray) -> np.ndarray:
        """√(‖head‖_*² + ‖tail‖₂²)."""
        head, tail = self.split(z)
        return np.sqrt(self.base.dual_norm(head) ** 2 + np.add.reduce(tail * tail, axis=-1))

    def in_domain(self, w: np.ndarray) -> np.ndarray:
        """The base domain on the head."""
        return self.base.in_domain(self.split(w)[0])

    def spec(self) -> dict[str, Any]:
        """The base map's description."""
        return self.base.spec()
