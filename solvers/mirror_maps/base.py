"""The mirror-map contract: h, ∇h, ∇h*, D_h, the norm and its dual."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np


@dataclass(frozen=True, eq=False)
class MirrorMap:
    """A distance-generating function h, 1-strongly convex w.r.t. ``norm``.

    All methods act on the last axis and broadcast over leading (client) axes.
    """

    name: ClassVar[str] = "base"

    def h(self, w: np.ndarray) -> np.ndarray:
        """h(w)."""
        raise NotImplementedError

    def grad(self, w: np.ndarray) -> np.ndarray:
        """∇h(w): primal → dual."""
        raise NotImplementedError

    def grad_conj(self, z: np.ndarray) -> np.ndarray:
        """∇h*(z): dual → primal."""
        raise NotImplementedError

    def bregman(self, u: np.ndarray, w: np.ndarray) -> np.ndarray:
        """D_h(u, w) = h(u) − h(w) − ⟨∇h(w), u − w⟩."""
        u, w = np.asarray(u, dtype=float), np.asarray(w, dtype=float)
        return self.h(u) - self.h(w) - np.sum(self.grad(w) * (u - w), axis=-1)

    def norm(self, w: np.ndarray) -> np.ndarray:
        """The norm in which h is 1-strongly convex."""
        raise NotImplementedError

    def dual_norm(self, z: np.ndarray) -> np.ndarray:
        """Its dual norm ‖·‖_* (used for the discrepancy of Lemma 4.4–4.5)."""
        raise NotImplementedError

    def in_domain(self, w: np.ndarray) -> np.ndarray:
        """Whether w lies in dom h (all of R^d unless overridden)."""
        return np.ones(np.shape(w)[:-1], dtype=bool)

    def default_start(self, dim: int) -> np.ndarray:
        """A canonical starting point w0 = ∇h*(0) in dom h."""
        return self.grad_conj(np.zeros(dim))

    def spec(self) -> dict[str, Any]:
        """JSON description, inverse of ``mirror_maps.make``."""
        return {"name": self.name}
