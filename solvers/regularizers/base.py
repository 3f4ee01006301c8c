"""The regulariser contract: value, prox, subgradient, ρ, conjugate.

Every method is vectorised over leading axes: ``w`` has shape ``(..., d)`` and ``value``
returns shape ``(...)``.  A *separable* regulariser also accepts a per-coordinate step
``t`` broadcastable to ``v`` (used by the diagonal mirror map's composite map).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from fcocheck.solvers.errors import InvalidRegularizerError, InvalidStepSizeError

# Relative slack used when a dual point is scaled into dom ψ*: strictly inside, so that
# rounding can never push it out (the price is < 1e-15 relative in the duality gap).
DUAL_SHRINK = 1.0 - 8.0 * np.finfo(float).eps


def check_nonnegative(name: str, value: float, what: str) -> float:
    """Return ``value`` as float, raising if it is negative or not finite.

    Args:
        name: the regulariser's name, for the message.
        value: the parameter value.
        what: the parameter's name (``lam``, ``radius`` ...).

    """
    v = float(value)
    if not np.isfinite(v) or v < 0:
        raise InvalidRegularizerError(
            f"{name}: {what} = {value!r} is invalid; the rule is {what} >= 0 and finite"
        )
    return v


def check_step(t: Any, rho: float, name: str) -> np.ndarray | float:
    """Validate a prox step ``t``: finite, ``t > 0`` and ``t·ρ < 1`` when ρ > 0.

    Args:
        t: scalar or array of steps.
        rho: weak-convexity modulus ρ of the regulariser (0 when convex).
        name: the regulariser's name, for the message.

    Returns:
        ``t`` as a float or float array.

    """
    if type(t) is float or type(t) is np.float64:  # the engine's common case, without array checks
        if 0.0 < t < math.inf and (rho <= 0 or t * rho < 1.0):
            return float(t)
    ta = np.asarray(t, dtype=float)
    if not np.all(np.isfinite(ta)) or np.any(ta <= 0):
        bad = ta if ta.ndim == 0 else ta[~(np.isfinite(ta) & (ta > 0))].flat[0]
        raise InvalidStepSizeError(
            f"{name}: prox step t = {float(bad)!r} is invalid; the rule is t > 0 and finite"
        )
    if rho > 0 and np.any(ta * rho >= 1.0):
        bad = float(np.max(ta))
        raise InvalidStepSizeError(
            f"{name}: prox step t = {bad!r} with weak-convexity ρ = {rho!r} gives tρ = "
            f"{bad * rho!r}; the prox is single-valued only when tρ < 1"
        )
    return float(ta) if ta.ndim == 0 else ta


@dataclass(frozen=True, eq=False)
class Regularizer:
    """Base class of every ψ.  Subclasses implement ``_value``, ``_prox``, ``subgradient``.

    The conjugate ψ*(v) = sup_w ⟨v, w⟩ − ψ(w) is used by duality-gap certificates;
    ``dual_scale(v)`` returns the largest s ∈ [0, 1] with ψ*(s·v) < ∞ (1 when ψ* is finite
    everywhere) and ``dual_project(v)`` maps v into dom ψ* (a cone's polar, for instance).
    """

    name: ClassVar[str] = "base"
    separable: ClassVar[bool] = False
    convex: ClassVar[bool] = True
    is_indicator: ClassVar[bool] = False

    @property
    def rho(self) -> float:
        """Weak-convexity modulus ρ: ψ + (ρ/2)‖·‖² is convex (0 for convex ψ)."""
        return 0.0

    def value(self, w: np.ndarray) -> np.ndarray:
        """ψ(w) over the last axis."""
        return self._value(np.asarray(w, dtype=float))

    def prox(self, v: np.ndarray, t: Any) -> np.ndarray:
        """prox_{tψ}(v) = argmin_w tψ(w) + ½‖w − v‖², refusing invalid t.

        Args:
            v: point(s), shape ``(..., d)``.
            t: step; scalar, or (separable ψ only) broadcastable to ``v``.

        """
        tt = check_step(t, self.rho, self.name)
        if not np.isscalar(tt) and not self.separable:
            raise InvalidStepSizeError(
                f"{self.name}: a per-coordinate step needs a separable regulariser"
            )
        return self._prox(np.asarray(v, dtype=float), tt)

    def subgradient(self, w: np.ndarray) -> np.ndarray:
        """One element of ∂ψ(w) (the regular subdifferential for weakly convex ψ)."""
        raise NotImplementedError

    def conjugate(self, v: np.ndarray) -> np.ndarray:
        """ψ*(v); ``inf`` outside dom ψ*."""
        raise NotImplementedError(f"{self.name}: no conjugate in closed form")

    def dual_scale(self, v: np.ndarray) -> np.ndarray:
        """Largest s ∈ [0, 1] with ψ*(s·v) finite (shape ``(...)``)."""
        return np.ones(np.shape(v)[:-1])

    def dual_project(self, v: np.ndarray) -> np.ndarray:
        """A point of dom ψ* equal to v when v ∈ dom ψ* (default: scaling)."""
        v = np.asarray(v, dtype=float)
        return v * self.dual_scale(v)[..., None]

    def spec(self) -> dict[str, Any]:
        """JSON-able description, inverse of ``regularizers.make``."""
        return {"name": self.name}

    # --- to implement -------------------------------------------------------------
    def _value(self, w: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _prox(self, v: np.ndarray, t: Any) -> np.ndarray:
        raise NotImplementedError


def feasibility_tolerance(w: np.ndarray) -> np.ndarray:
    """Tolerance used when an indicator's value is evaluated numerically."""
    return 1e-9 * (1.0 + np.max(np.abs(w), axis=-1))


@dataclass(frozen=True, eq=False)
class Zero(Regularizer):
    """ψ ≡ 0: prox is the identity; ψ* = χ_{0}.  Reduces FCO to plain FL."""

    name: ClassVar[str] = "zero"
    separable: ClassVar[bool] = True

    def _value(self, w: np.ndarray) -> np.ndarray:
        return np.zeros(w.shape[:-1])

    def _prox(self, v: np.ndarray, t: Any) -> np.ndarray:
        return v.copy()

    def subgradient(self, w: np.ndarray) -> np.ndarray:
        """∂0 = {0}."""
        return np.zeros_like(np.asarray(w, dtype=float))

    def conjugate(self, v: np.ndarray) -> np.ndarray:
        """χ_{0}(v)."""
        v = np.asarray(v, dtype=float)
        return np.where(np.all(v == 0, axis=-1), 0.0, np.inf)

    def dual_scale(self, v: np.ndarray) -> np.ndarray:
        """Only s = 0 is feasible unless v = 0."""
        v = np.asarray(v, dtype=float)
        return np.where(np.all(v == 0, axis=-1), 1.0, 0.0)
