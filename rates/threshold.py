"""Comparing a computed statistic with a rule's threshold, so that no verdict rests on a last bit.

A statistic (a span max/min, a CI bound, a slack ratio, a p-value) reaches its rule's threshold
through floating-point arithmetic whose last bits differ between machines: numpy's SIMD paths and
the C library's ``pow``/``log`` round differently (on one machine (80/10)^(2/3) is 4.0 through numpy
and 3.9999999999999996 through Python), and vector width and FMA change sums.  Designs, on the other
hand, often put a statistic *exactly* on a threshold in exact arithmetic (a bound spanning
(80/10)^(2/3) = 4 against a minimum span of 4).  A bare ``>=`` then answers differently on two
machines.

So every threshold on a computed statistic is applied with a relative tolerance ``REL_TOL``:

    value ≥ t   is read as   value ≥ t − REL_TOL·|t|
    value > t   is read as   value > t + REL_TOL·|t|

i.e. a value within REL_TOL·|t| of t *is* t, and the rule's own choice (inclusive or strict) decides
what happens at t.  ``REL_TOL = 1e-9`` is ~10⁷ ulps, far above the rounding differences between
machines (a few ulps through a handful of operations), and far below any difference the rules are
meant to resolve (their slacks δ are ≥ 1e-3 relative).  A statistic can still land within a few ulps
of t ± REL_TOL·|t| by chance, but designs do not aim there: what is on an edge in exact arithmetic
is now inside the tolerance band.  A threshold of exactly 0 is compared exactly (the sign of a
statistic is not a rounding question: a relative band around 0 has no scale).
"""

from __future__ import annotations

from typing import Any

import numpy as np

REL_TOL = 1e-9


def _band(threshold: float) -> float:
    return REL_TOL * abs(float(threshold))


def at_least(value: float, threshold: float) -> bool:
    """``value ≥ threshold``, a value within ``REL_TOL·|threshold|`` counting as equal."""
    return float(value) >= float(threshold) - _band(threshold)


def at_most(value: float, threshold: float) -> bool:
    """``value ≤ threshold``, a value within ``REL_TOL·|threshold|`` counting as equal."""
    return float(value) <= float(threshold) + _band(threshold)


def above(value: float, threshold: float) -> bool:
    """``value > threshold`` by more than ``REL_TOL·|threshold|`` (``not at_most``)."""
    return not at_most(value, threshold)


def below(value: float, threshold: float) -> bool:
    """``value < threshold`` by more than ``REL_TOL·|threshold|`` (``not at_least``)."""
    return not at_least(value, threshold)


def above_each(value: Any, threshold: Any) -> np.ndarray:
    """``above`` elementwise on arrays (a rule applied to many simulated repetitions at once)."""
    t = np.asarray(threshold, dtype=float)
    return np.asarray(value, dtype=float) > t + REL_TOL * np.abs(t)


def below_each(value: Any, threshold: Any) -> np.ndarray:
    """``below`` elementwise on arrays."""
    t = np.asarray(threshold, dtype=float)
    return np.asarray(value, dtype=float) < t - REL_TOL * np.abs(t)
