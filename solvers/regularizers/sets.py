"""Indicators χ_C of convex sets; prox_{tχ_C} = Π_C for every t (FCO §5.5).

ψ*(v) is the support function σ_C(v) = sup_{w∈C} ⟨v, w⟩: finite everywhere for bounded C,
the indicator of the polar cone for a cone C.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from fcocheck.solvers.errors import InvalidRegularizerError
from fcocheck.solvers.regularizers.base import Regularizer, check_nonnegative, feasibility_tolerance


def _ranks(n: int) -> np.ndarray:
    """1, 2, …, n as int64 (the divisors ρ + 1 of the simplex projection), cached per n."""
    ranks = _RANKS.get(n)
    if ranks is None:
        ranks = np.arange(1, n + 1)
        ranks.flags.writeable = False
        ranks = _RANKS.setdefault(n, ranks)
    return ranks


_RANKS: dict[int, np.ndarray] = {}

#: the longest row ``L1Ball.project`` hands the compiled kernel (``ball_rows.l1_ball_rows``: an insertion
#: sort, quadratic in the row's length; NumPy's sort is faster beyond)
MAX_COMPILED_ROW = 64


def _at_last_axis(a: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``a[..., index[...]]`` with a trailing axis of one (``take_along_axis`` without its checks)."""
    if a.ndim == 1:
        return a[index : index + 1]
    n = a.shape[-1]
    rows = a.reshape(-1, n)
    picked = rows[np.arange(rows.shape[0]), index.reshape(-1)]
    return picked.reshape(index.shape + (1,))


def project_simplex(v: np.ndarray, radius: float = 1.0) -> np.ndarray:
    """Euclidean projection onto {w ≥ 0, Σ w = radius} along the last axis.

    Sort-based: θ = (Σ_{j≤ρ} u_j − r)/ρ with u sorted descending and ρ the last index with
    u_ρ > (Σ_{j≤ρ} u_j − r)/ρ; then w = max(v − θ, 0).  θ is read from the same quotients the
    test compares (css_ρ / (ρ + 1) computed once), so it has the bits of the division done apart.
    """
    v = np.asarray(v, dtype=float)
    n = v.shape[-1]
    u = np.negative(v)
    u.sort(axis=-1)
    np.negative(u, out=u)
    css = np.add.accumulate(u, axis=-1) - radius
    quotients = css / _ranks(n)
    cond = u - quotients > 0
    rho = n - 1 - cond[..., ::-1].argmax(axis=-1)
    out = v - _at_last_axis(quotients, rho)
    return np.maximum(out, 0.0, out=out)


class _Indicator(Regularizer):
    """Shared behaviour of χ_C: value 0 on C (to a relative 1e-9), prox = projection."""

    is_indicator: ClassVar[bool] = True

    def _value(self, w: np.ndarray) -> np.ndarray:
        gap = np.maximum.reduce(np.abs(self.project(w) - w), axis=-1)  # np.max's reduction, unwrapped
        return np.where(gap <= feasibility_tolerance(w), 0.0, np.inf)

    def _prox(self, v: np.ndarray, t: Any) -> np.ndarray:
        return self.project(v)

    def project(self, v: np.ndarray) -> np.ndarray:
        """Π_C(v)."""
        raise NotImplementedError

    def subgradient(self, w: np.ndarray) -> np.ndarray:
        """0 ∈ N_C(w) for w ∈ C."""
        return np.zeros_like(np.asarray(w, dtype=float))


def row_major(v: np.ndarray) -> bool:
    """Whether NumPy lays v's element-wise results out row-major (C order), as the compiled rows read them.

    Its ``K`` order follows v's memory: with positive strides that strictly decrease from the first axis
    to the last (axes of length 1 aside) — a C-ordered array, or a view of rows, columns or every k-th
    element of one — |v| and v² come out C-ordered, so NumPy sums each row pairwise as
    ``ball_rows`` does.  A column-major, reversed or broadcast view sums in another order: NumPy's path.
    (A non-empty C-contiguous array meets the rule — the callers ask for non-empty arrays only —: answered
    from its flag, 30× faster than reading the strides.)
    """
    return v.flags.c_contiguous or _decreasing_strides(v)


def _decreasing_strides(v: np.ndarray) -> bool:
    """``row_major``'s rule read from the strides: positive, strictly decreasing over axes longer than 1."""
    strides = [s for s, n in zip(v.strides, v.shape, strict=True) if n > 1]
    return all(s > 0 for s in strides) and all(a > b for a, b in zip(strides[:-1], strides[1:], strict=True))


@dataclass(frozen=True, eq=False)
class L1Ball(_Indicator):
    """χ{‖w‖₁ ≤ r}; σ_C(v) = r‖v‖_∞."""

    radius: float = 1.0
    name: ClassVar[str] = "l1_ball"

    def __post_init__(self) -> None:
        object.__setattr__(self, "radius", check_nonnegative("l1_ball", self.radius, "radius"))

    def project(self, v: np.ndarray) -> np.ndarray:
        """Π onto the ℓ1 ball through the simplex projection of |v|.

        Rows of at most ``MAX_COMPILED_ROW`` coordinates of a row-major array (``row_major``) go through
        the compiled kernel when numba is loaded already (the engine loads it; a projection never does):
        the same bits, 5–17× faster.  (Another layout sums |v| in another order here: NumPy's path keeps
        its bits.)
        """
        v = np.asarray(v, dtype=float)
        if "numba" in sys.modules and v.size and v.shape[-1] <= MAX_COMPILED_ROW and row_major(v):
            from fcocheck.solvers.regularizers.ball_rows import l1_ball_rows

            rows = np.ascontiguousarray(v).reshape(-1, v.shape[-1])
            out = np.empty(rows.shape)
            if l1_ball_rows(rows, float(self.radius), out):
                return out.reshape(v.shape)
        size = np.abs(v)
        inside = np.add.reduce(size, axis=-1, keepdims=True) <= self.radius
        n_inside = np.count_nonzero(inside)
        if n_inside == inside.size:
            return v.copy()
        proj = np.sign(v)
        proj *= project_simplex(size, self.radius)
        return proj if n_inside == 0 else np.where(inside, v, proj)

    def conjugate(self, v: np.ndarray) -> np.ndarray:
        """r‖v‖_∞."""
        return self.radius * np.max(np.abs(np.asarray(v, dtype=float)), axis=-1)

    def spec(self) -> dict[str, Any]:
        """JSON description."""
        return {"name": self.name, "radius": self.radius}


@dataclass(frozen=True, eq=False)
class L2Ball(_Indicator):
    """χ{‖w‖₂ ≤ r}; σ_C(v) = r‖v‖₂."""

    radius: float = 1.0
    name: ClassVar[str] = "l2_ball"

    def __post_init__(self) -> None:
        object.__setattr__(self, "radius", check_nonnegative("l2_ball", self.radius, "radius"))

    def project(self, v: np.ndarray) -> np.ndarray:
        """v·min(1, r/‖v‖₂) (compiled when numba is loaded already: ``ball_rows.l2_ball_rows``, same bits)."""
        v = np.asarray(v, dtype=float)
        if "numba" in sys.modules and v.size and row_major(v):  # another layout: another sum order
            from fcocheck.solvers.regularizers.ball_rows import l2_ball_rows

            out = np.empty(v.shape)
            l2_ball_rows(np.ascontiguousarray(v).reshape(-1, v.shape[-1]), float(self.radius),
                         out.reshape(-1, v.shape[-1]))
            return out
        n = np.linalg.norm(v, axis=-1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(n > self.radius, v * (self.radius / n), v)

    def conjugate(self, v: np.ndarray) -> np.ndarray:
        """r‖v‖₂."""
        return self.radius * np.linalg.norm(np.asarray(v, dtype=float), axis=-1)

    def spec(self) -> dict[str, Any]:
        """JSON description."""
        return {"name": self.name, "radius": self.radius}


@dataclass(frozen=True, eq=False)
class Box(_Indicator):
    """χ{lo ≤ w ≤ hi} (bounds may be ±inf); σ_C(v) = Σ_j max(lo·v_j, hi·v_j)."""

    lo: float = -1.0
    hi: float = 1.0
    name: ClassVar[str] = "box"
    separable: ClassVar[bool] = True

    def __post_init__(self) -> None:
        lo, hi = float(self.lo), float(self.hi)
        if np.isnan(lo) or np.isnan(hi) or lo > hi:
            raise InvalidRegularizerError(
                f"box: bounds lo = {self.lo!r}, hi = {self.hi!r} are invalid; the rule is lo <= hi"
            )
        object.__setattr__(self, "lo", lo)
        object.__setattr__(self, "hi", hi)

    def project(self, v: np.ndarray) -> np.ndarray:
        """Coordinate-wise clipping."""
        return np.clip(np.asarray(v, dtype=float), self.lo, self.hi)

    def conjugate(self, v: np.ndarray) -> np.ndarray:
        """Σ_j (hi·v_j if v_j > 0, lo·v_j if v_j < 0, else 0)."""
        v = np.asarray(v, dtype=float)
        with np.errstate(invalid="ignore"):
            terms = np.where(v > 0, self.hi * v, np.where(v < 0, self.lo * v, 0.0))
        return np.sum(terms, axis=-1)

    def dual_project(self, v: np.ndarray) -> np.ndarray:
        """Zero the signs the support function cannot take (infinite bounds)."""
        v = np.asarray(v, dtype=float)
        if np.isinf(self.hi):
            v = np.minimum(v, 0.0)
        if np.isinf(self.lo):
            v = np.maximum(v, 0.0)
        return v

    def dual_scale(self, v: np.ndarray) -> np.ndarray:
        """1 for finite bounds; otherwise only v already in the barrier cone."""
        v = np.asarray(v, dtype=float)
        return np.where(np.isfinite(self.conjugate(v)), 1.0, 0.0)

    def spec(self) -> dict[str, Any]:
        """JSON description."""
        return {"name": self.name, "lo": self.lo, "hi": self.hi}


@dataclass(frozen=True, eq=False)
class Simplex(_Indicator):
    """χ{w ≥ 0, Σ w = r}; σ_C(v) = r·max_j v_j."""

    radius: float = 1.0
    name: ClassVar[str] = "simplex"

    def __post_init__(self) -> None:
        r = check_nonnegative("simplex", self.radius, "radius")
        if r == 0:
            raise InvalidRegularizerError("simplex: radius = 0 is invalid; the rule is radius > 0")
        object.__setattr__(self, "radius", r)

    def project(self, v: np.ndarray) -> np.ndarray:
        """Sort-based simplex projection."""
        return project_simplex(v, self.radius)

    def conjugate(self, v: np.ndarray) -> np.ndarray:
        """r·max_j v_j."""
        return self.radius * np.max(np.asarray(v, dtype=float), axis=-1)

    def spec(self) -> dict[str, Any]:
        """JSON description."""
        return {"name": self.name, "radius": self.radius}


class _Cone(_Indicator):
    """χ_K for a closed convex cone K: ψ* = χ_{K°}, Π_{K°}(v) = v − Π_K(v) (Moreau)."""

    def polar_violation(self, v: np.ndarray) -> np.ndarray:
        """‖v − Π_{K°}(v)‖_∞ = ‖Π_K(v)‖_∞."""
        return np.max(np.abs(self.project(v)), axis=-1)

    def conjugate(self, v: np.ndarray) -> np.ndarray:
        """χ_{K°}(v), to a relative rounding tolerance of 1e-12."""
        v = np.asarray(v, dtype=float)
        tol = 1e-12 * (1.0 + np.max(np.abs(v), axis=-1))
        return np.where(self.polar_violation(v) <= tol, 0.0, np.inf)

    def dual_project(self, v: np.ndarray) -> np.ndarray:
        """Π_{K°}(v) = v − Π_K(v)."""
        v = np.asarray(v, dtype=float)
        return v - self.project(v)

    def dual_scale(self, v: np.ndarray) -> np.ndarray:
        """Scaling cannot enter a polar cone: 1 if already inside, else 0."""
        return np.where(np.isfinite(self.conjugate(v)), 1.0, 0.0)


@dataclass(frozen=True, eq=False)
class NonNegative(_Cone):
    """χ{w ≥ 0}; polar cone {v ≤ 0}."""

    name: ClassVar[str] = "nonneg"
    separable: ClassVar[bool] = True

    def project(self, v: np.ndarray) -> np.ndarray:
        """max(v, 0)."""
        return np.maximum(np.asarray(v, dtype=float), 0.0)


@dataclass(frozen=True, eq=False)
class Monotone(_Cone):
    """χ{w₁ ≤ w₂ ≤ … ≤ w_d}: projection by pool-adjacent-violators (isotonic regression)."""

    name: ClassVar[str] = "monotone"

    def project(self, v: np.ndarray) -> np.ndarray:
        """Isotonic (non-decreasing) least-squares fit of each row."""
        from scipy.optimize import isotonic_regression  # lazy: scipy.optimize costs 0.2 s to import

        v = np.asarray(v, dtype=float)
        flat = v.reshape(-1, v.shape[-1])
        out = np.empty_like(flat)
        for i, row in enumerate(flat):
            out[i] = isotonic_regression(row, increasing=True).x
        return out.reshape(v.shape)
