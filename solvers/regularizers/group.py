"""Group lasso ψ(w) = λ Σ_g ‖w_g‖₂ with block soft-thresholding."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from fcocheck.solvers.errors import InvalidRegularizerError
from fcocheck.solvers.regularizers.base import DUAL_SHRINK, Regularizer, check_nonnegative


@dataclass(frozen=True, eq=False)
class GroupLasso(Regularizer):
    """ψ(w) = λ Σ_g ‖w_g‖₂ for a partition of the coordinates into groups.

    prox: w_g = max(0, 1 − tλ/‖v_g‖₂)·v_g;  ψ* = χ{max_g ‖v_g‖₂ ≤ λ}.

    Args:
        lam: λ ≥ 0.
        groups: integer label of each coordinate (length d); labels need not be contiguous.

    """

    lam: float = 1.0
    groups: tuple[int, ...] = ()
    _onehot: np.ndarray = field(init=False, repr=False)
    name: ClassVar[str] = "group_lasso"

    def __post_init__(self) -> None:
        object.__setattr__(self, "lam", check_nonnegative("group_lasso", self.lam, "lam"))
        labels = np.asarray(self.groups)
        if labels.ndim != 1 or labels.size == 0 or not np.issubdtype(labels.dtype, np.integer):
            raise InvalidRegularizerError(
                f"group_lasso: groups = {self.groups!r} is invalid; the rule is a non-empty "
                "sequence of integer labels, one per coordinate"
            )
        _, inverse = np.unique(labels, return_inverse=True)
        onehot = np.zeros((labels.size, inverse.max() + 1))
        onehot[np.arange(labels.size), inverse] = 1.0
        object.__setattr__(self, "groups", tuple(int(g) for g in labels))
        object.__setattr__(self, "_onehot", onehot)

    def _check_dim(self, w: np.ndarray) -> None:
        if w.shape[-1] != self._onehot.shape[0]:
            raise InvalidRegularizerError(
                f"group_lasso: vector of length {w.shape[-1]} but groups label "
                f"{self._onehot.shape[0]} coordinates; the rule is one label per coordinate"
            )

    def group_norms(self, w: np.ndarray) -> np.ndarray:
        """‖w_g‖₂ for every group, shape ``(..., n_groups)``."""
        self._check_dim(w)
        return np.sqrt((w * w) @ self._onehot)

    def _value(self, w: np.ndarray) -> np.ndarray:
        return self.lam * np.sum(self.group_norms(w), axis=-1)

    def _prox(self, v: np.ndarray, t: Any) -> np.ndarray:
        norms = self.group_norms(v)
        with np.errstate(divide="ignore", invalid="ignore"):
            factor = np.where(norms > 0, np.maximum(0.0, 1.0 - t * self.lam / norms), 0.0)
        return v * (factor @ self._onehot.T)

    def subgradient(self, w: np.ndarray) -> np.ndarray:
        """λ w_g/‖w_g‖ on non-zero groups, 0 on zero groups."""
        w = np.asarray(w, dtype=float)
        norms = self.group_norms(w)
        with np.errstate(divide="ignore", invalid="ignore"):
            inv = np.where(norms > 0, 1.0 / norms, 0.0)
        return self.lam * w * (inv @ self._onehot.T)

    def conjugate(self, v: np.ndarray) -> np.ndarray:
        """χ{max_g ‖v_g‖₂ ≤ λ}."""
        v = np.asarray(v, dtype=float)
        return np.where(np.max(self.group_norms(v), axis=-1) <= self.lam, 0.0, np.inf)

    def dual_scale(self, v: np.ndarray) -> np.ndarray:
        """min(1, λ / max_g ‖v_g‖₂)."""
        m = np.max(self.group_norms(np.asarray(v, dtype=float)), axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(m > self.lam, DUAL_SHRINK * self.lam / m, 1.0)

    def spec(self) -> dict[str, Any]:
        """JSON description."""
        return {"name": self.name, "lam": self.lam, "groups": list(self.groups)}
