"""No verdict may rest on the last bits of a computed float (issue 29).

The same statistic computed through numpy's SIMD ``pow`` and through the C library's differs in its
last bit on some machines: (80/10)^(2/3) is 4.0 one way and 3.9999999999999996 the other, and the rules'
minimum span is 4.  Every threshold on a computed statistic is applied through ``rates.threshold`` (a
value within REL_TOL·|t| of t is t), so both roundings give one verdict; the power side shows the same
data *does* split the verdict when the tolerance is switched off.
"""

from __future__ import annotations

import numpy as np
import pytest

import fcocheck.rates.threshold as threshold
from fcocheck.rates.fit import SlopeFit
from fcocheck.rates.inequality import bounded_by
from fcocheck.rates.oc import bounded_ratio
from fcocheck.rates.threshold import REL_TOL, above, at_least, at_most, below
from fcocheck.rates.verdict import (
    CONSISTENT,
    INCONCLUSIVE,
    MIN_SPAN,
    exponent_verdict,
)

ROUNDINGS = [4.0, 3.9999999999999996]  # numpy's vectorised (80/10)**(2/3), and Python's / libm's


def test_the_two_roundings_are_one_ulp_apart_and_on_the_rule_s_threshold():
    assert ROUNDINGS[1] == np.nextafter(4.0, 0.0) and MIN_SPAN == 4.0
    assert (80 / 10) ** (2 / 3) in ROUNDINGS  # whichever this machine gives


def _window(span: float) -> np.ndarray:
    """A 5-point direction whose max/min is exactly ``span`` (as a float)."""
    x = np.geomspace(1.0, 4.0, 5)
    x[-1] = span
    return x


@pytest.mark.parametrize("span", ROUNDINGS)
def test_the_bound_rule_gives_one_verdict_whichever_way_the_span_rounds(span):
    x = _window(span)
    assert float(x.max() / x.min()) == span
    b = x**-2.0
    rng = np.random.default_rng(0)
    Y = 0.1 * b[None, :] * np.exp(0.003 * rng.standard_normal((3, b.size)))
    v = bounded_ratio(x, b, Y)  # judged (weak on so short a window, never refused for its span)
    assert v.status in (CONSISTENT, INCONCLUSIVE) and "moves only" not in v.reason, v.reason
    assert bounded_ratio(x, b, 1e-3 * np.ones((3, 5))).status == "inconsistent"  # flat below the bound


def test_without_the_tolerance_the_two_roundings_split_the_verdict(monkeypatch):
    """Power: the test above would fail with a bare comparison (REL_TOL = 0)."""
    monkeypatch.setattr(threshold, "REL_TOL", 0.0)
    got = {span: "moves only" in bounded_ratio(x, x**-2.0, 0.1 * x[None, :] ** -2.0 * np.ones((3, 1))).reason
           for span in ROUNDINGS for x in [_window(span)]}
    assert got == {4.0: False, ROUNDINGS[1]: True}


@pytest.mark.parametrize("span,refused", [(3.6, True), (4.4, False)])
def test_minimum_span_both_sides_with_a_margin(span, refused):
    x = _window(span)
    v = bounded_ratio(x, x**-2.0, 0.1 * x**-2.0)
    assert ("moves only" in v.reason) == refused and (v.status == INCONCLUSIVE or not refused)


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


def _fit_at(lo: float) -> SlopeFit:
    return SlopeFit(0.0, 0.0, float(lo), float(lo) + 0.2, 1.0, "given", 5, 3)


@pytest.mark.parametrize("k", [-4, -1, 1, 4])
def test_rules_on_an_exact_threshold_do_not_move_with_a_few_ulps(k):
    """Data that put each rule's statistic exactly on its threshold, nudged by a few ulps: same verdict."""
    lhs, rhs = np.array([1.0, 2.0, 0.3]), np.array([1.0, 3.0, 0.9])  # slack exactly 1 on one run
    base = bounded_by(lhs, {"rhs": rhs}, [], ["a", "b", "c"]).status
    assert bounded_by(lhs, {"rhs": _ulps(rhs, k)}, [], ["a", "b", "c"]).status == base == CONSISTENT
    edge = 0.0 + 0.1  # the upper rule's threshold p + δ, computed as the rule computes it
    assert exponent_verdict(_fit_at(float(_ulps(np.array(edge), k))), 0.0, "upper").status == CONSISTENT


def test_without_the_tolerance_a_few_ulps_split_the_same_rules(monkeypatch):
    """Power of the test above: with bare comparisons the nudged copies do change the verdicts."""
    monkeypatch.setattr(threshold, "REL_TOL", 0.0)
    lhs, rhs = np.array([1.0, 2.0, 0.3]), np.array([1.0, 3.0, 0.9])
    assert {bounded_by(lhs, {"rhs": _ulps(rhs, k)}, [], ["a", "b", "c"]).status for k in (-1, 1)} == {
        CONSISTENT, "inconsistent"}
    edge = 0.0 + 0.1
    nudged = {exponent_verdict(_fit_at(float(_ulps(np.array(edge), k))), 0.0, "upper").status
              for k in (-1, 1)}
    assert nudged == {CONSISTENT, "inconsistent"}


def test_the_elementwise_forms_agree_with_the_scalar_rules_at_the_threshold():
    """``above_each``/``below_each`` (simulated repetitions) decide as ``above``/``below``, ulps included."""
    from fcocheck.rates.threshold import above_each, below_each

    t = np.array([4.0, -0.1, 1.0, 0.0])
    values = np.concatenate([_ulps(t, k) for k in (-4, -1, 0, 1, 4)] + [t * (1 + 1e-6), t * (1 - 1e-6)])
    ts = np.tile(t, values.size // t.size)
    assert list(above_each(values, ts)) == [above(v, x) for v, x in zip(values, ts, strict=True)]
    assert list(below_each(values, ts)) == [below(v, x) for v, x in zip(values, ts, strict=True)]
