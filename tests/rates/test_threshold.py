"""No verdict may rest on the last bits of a computed float (issue 29).

The same statistic computed through numpy's SIMD ``pow`` and through the C library's differs in its
last bit on some machines: (80/10)^(2/3) is 4.0 one way and 3.9999999999999996 the other, and the
one-constant rule's minimum span is 4.  Every threshold on a computed statistic is applied through
``rates.threshold`` (a value within REL_TOL·|t| of t is t), so both roundings give one verdict; the
power side shows the same data *does* split the verdict when the tolerance is switched off.
"""

from __future__ import annotations

import numpy as np
import pytest

import fcocheck.rates.threshold as threshold
from fcocheck.rates.threshold import REL_TOL, above, at_least, at_most, below
from fcocheck.rates.verdict import (
    CONSISTENT,
    INCONCLUSIVE,
    MIN_SPAN,
    SLOWDOWN,
    inequality_verdict,
    local_slopes_verdict,
    one_constant_verdict,
)
from fcocheck.verify.experiments import judge

ROUNDINGS = [4.0, 3.9999999999999996]  # numpy's vectorised (80/10)**(2/3), and Python's / libm's


def test_the_two_roundings_are_one_ulp_apart_and_on_the_rule_s_threshold():
    assert ROUNDINGS[1] == np.nextafter(4.0, 0.0) and MIN_SPAN == 4.0
    assert (80 / 10) ** (2 / 3) in ROUNDINGS  # whichever this machine gives


def _bound_with_span(span: float) -> np.ndarray:
    """A decreasing bound over 5 points whose max/min is exactly ``span`` (as a float)."""
    b = np.geomspace(1.0, 4.0, 5)[::-1].copy()
    b[0], b[-1] = span, 1.0
    return b


@pytest.mark.parametrize("span", ROUNDINGS)
def test_one_constant_rule_gives_one_verdict_whichever_way_the_span_rounds(span):
    b = _bound_with_span(span)
    assert float(b.max() / b.min()) == span
    rng = np.random.default_rng(0)
    Y = 0.1 * b[None, :] * np.exp(0.03 * rng.standard_normal((3, b.size)))
    assert one_constant_verdict(b, Y).status == CONSISTENT
    assert judge.bound(b, Y).status == CONSISTENT


@pytest.mark.parametrize("span", ROUNDINGS)
@pytest.mark.parametrize("law", ["R^-0.3", "flat", "rising"])
def test_one_constant_rule_rejects_violations_whichever_way_the_span_rounds(span, law):
    b = _bound_with_span(span)
    x = np.arange(1.0, 6.0)
    y = {"R^-0.3": x**-0.3, "flat": np.ones(5), "rising": x**0.3}[law]
    assert judge.bound(b, 1e-3 * y[None, :] * np.ones((3, 1))).status == "inconsistent"


def test_without_the_tolerance_the_two_roundings_split_the_verdict(monkeypatch):
    """Power: the test above would fail with a bare comparison (REL_TOL = 0)."""
    monkeypatch.setattr(threshold, "REL_TOL", 0.0)
    got = {span: one_constant_verdict(b, 0.1 * b[None, :] * np.ones((3, 1))).status
           for span in ROUNDINGS for b in [_bound_with_span(span)]}
    assert got == {4.0: CONSISTENT, ROUNDINGS[1]: INCONCLUSIVE}


@pytest.mark.parametrize("span,status", [(3.6, INCONCLUSIVE), (4.4, CONSISTENT)])
def test_minimum_span_both_sides_with_a_margin(span, status):
    b = _bound_with_span(span)
    assert one_constant_verdict(b, 0.1 * b).status == status


def test_comparisons_read_a_value_within_the_band_as_the_threshold():
    t = 4.0
    inside = [t * (1 - REL_TOL / 2), t, t * (1 + REL_TOL / 2)]
    assert all(at_least(v, t) and at_most(v, t) for v in inside)
    assert not any(above(v, t) or below(v, t) for v in inside)
    assert below(t * (1 - 2 * REL_TOL), t) and above(t * (1 + 2 * REL_TOL), t)
    assert at_least(0.0, 0.0) and not at_least(-1e-300, 0.0)  # 0 is compared exactly
    nan = float("nan")
    assert not at_least(nan, t) and not at_most(nan, t) and above(nan, t) and below(nan, t)


def _ulps(a: np.ndarray, k: int) -> np.ndarray:
    """``a`` moved k ulps (k > 0 up, k < 0 down)."""
    out = np.asarray(a, dtype=float).copy()
    for _ in range(abs(k)):
        out = np.nextafter(out, np.inf if k > 0 else -np.inf)
    return out


@pytest.mark.parametrize("k", [-4, -1, 1, 4])
def test_rules_on_an_exact_threshold_do_not_move_with_a_few_ulps(k):
    """Data that put each rule's statistic exactly on its threshold, nudged by a few ulps: same verdict."""
    # inequality: slack exactly 1 on one run
    lhs, rhs = np.array([1.0, 2.0, 0.3]), np.array([1.0, 3.0, 0.9])
    base = inequality_verdict(lhs, rhs, ["a", "b", "c"]).status
    assert inequality_verdict(lhs, _ulps(rhs, k), ["a", "b", "c"]).status == base == CONSISTENT
    # local slopes exactly at predicted − δ = 1.9 over a doubling (2^1.9 is not exact: compare the
    # verdict at the computed curve with its nudged copies)
    x = np.array([1.0, 2.0, 4.0])
    y = x**1.9
    base = local_slopes_verdict(x, y, 2.0, "lower").status
    assert local_slopes_verdict(x, _ulps(y, k), 2.0, "lower").status == base == CONSISTENT
    # the linear rule's slowdown ratio sits on SLOWDOWN only by design; its threshold is banded too
    assert at_least(SLOWDOWN * (1 - REL_TOL / 4), SLOWDOWN)


def test_without_the_tolerance_a_few_ulps_split_the_same_rules(monkeypatch):
    """Power of the test above: with bare comparisons the nudged copies do change the verdicts."""
    monkeypatch.setattr(threshold, "REL_TOL", 0.0)
    lhs, rhs = np.array([1.0, 2.0, 0.3]), np.array([1.0, 3.0, 0.9])
    assert {inequality_verdict(lhs, _ulps(rhs, k), ["a", "b", "c"]).status for k in (-1, 1)} == {
        CONSISTENT, "inconsistent"}
    x = np.array([1.0, 2.0, 4.0])
    assert {local_slopes_verdict(x, _ulps(x**1.9, k), 2.0, "lower").status for k in (-4, -1, 1, 4)} == {
        CONSISTENT, "inconsistent"}
