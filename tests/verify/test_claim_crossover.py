"""A crossover claim: "the run beats its twin iff x ≲ x*" (the remark after FCO Thm 4.2).

The rule (``rates.sides``) is fuzzed: legal ratios — any value the claim allows at every point, the
points within the margin of x* anything at all — are never rejected, and one judged point on the wrong
side always is.  The claim path: a measure that is not a ratio, a crossover in the swept name and random
runs are refused; each instance is judged at its own crossover; the pair's gap ratio reads resolution.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcocheck.rates.sides import MARGIN, crossover_sides
from fcocheck.verify import claim_measure
from fcocheck.verify.claim import InvalidClaimError
from fcocheck.verify.claim_check import check
from fcocheck.verify.claim_judge import judge_data
from fcocheck.verify.paper_claims.fco_4_2_vs_4_1 import CLAIM

X = (1.0, 2.0, 4.0, 32.0, 128.0, 512.0)


def _legal(x_star: float, wins: list[float], loses: list[float], free: list[float]) -> np.ndarray:
    """Ratios the claim allows at x*: < 1 at x ≤ x*/MARGIN, > 1 at x ≥ MARGIN·x*, anything between."""
    out = []
    for i, x in enumerate(X):
        out.append(wins[i] if x <= x_star / MARGIN else loses[i] if x >= MARGIN * x_star else free[i])
    return np.array(out)


RATIOS = st.lists(st.floats(1e-6, 0.999), min_size=6, max_size=6)
ABOVE = st.lists(st.floats(1.001, 1e6), min_size=6, max_size=6)
ANY = st.lists(st.one_of(st.floats(1e-6, 1e6), st.just(float("nan"))), min_size=6, max_size=6)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.floats(0.1, 5000.0), RATIOS, ABOVE, ANY)
def test_legal_ratios_are_never_rejected_and_one_wrong_point_always_is(x_star, wins, loses, free):
    ratio = _legal(x_star, wins, loses, free)
    v = crossover_sides(X, ratio, x_star, "R")
    judged = [i for i, x in enumerate(X) if x <= x_star / MARGIN or x >= MARGIN * x_star]
    assert v.status == ("consistent" if judged else "inconclusive"), v.reason
    for i in judged:  # the violation: one judged point on the wrong side
        bad = ratio.copy()
        bad[i] = 1.0 / bad[i]
        w = crossover_sides(X, bad, x_star, "R")
        assert w.status == "inconsistent" and f"R = {X[i]:g}" in w.reason, w.reason


def test_the_sides_measured_are_named_and_unmeasured_points_are_not_judged():
    both = crossover_sides(X, np.array([0.5, 0.6, 0.7, 1.2, 1.5, 2.0]), 16.0, "R")
    assert both.status == "consistent" and "R ≲ R*, R ≳ R*" in both.reason and "5 of 5" in both.reason
    # a crossover beyond the sweep: one side only, said
    one = crossover_sides(X, np.array([0.5, 0.6, 0.7, 0.8, 0.9, 0.95]), 5000.0, "R")
    assert one.status == "consistent" and one.evidence["sides"] == ["R ≲ R*"]
    # both runs within their resolution (nan) and a tie are not judged, nor R = 32 (within 4× of 16);
    # 0 and ∞ are decisive
    mixed = crossover_sides(X, np.array([float("nan"), 1.0, 0.0, 5.0, float("inf"), float("nan")]), 16.0, "R")
    assert mixed.status == "consistent" and "2 of 2" in mixed.reason, mixed.reason
    assert crossover_sides(X, np.array([float("inf"), 1, 1, 1, 0.0, 1]), 16.0).status == "inconsistent"
    assert crossover_sides(X, np.full(6, np.nan), 16.0).status == "inconclusive"


def test_each_instance_is_judged_at_its_own_crossover_and_random_runs_are_not_judged():
    """Two instances with crossovers 16 and 200: the same ratios are legal on the first and wrong at
    R = 32 on the second (≤ 200/4: the run must win there; 128 is within its margin) — inconsistent,
    naming the instance and the point."""
    x = np.asarray(X)
    ok = np.where(x < 16, 0.5, 2.0)
    G3 = np.array([[ok], [np.where(x < 200, 0.5, 2.0)]])
    b = np.array([[16.0] * 6, [200.0] * 6])
    v, measured = judge_data(CLAIM, G3, np.zeros((2, 6)), b, 0, [0, 1], random=False)
    assert v.status == "consistent" and "power: rejects the run and its twin swapped" in v.reason, v.reason
    wrong = np.array([[ok], [ok]])
    v, _ = judge_data(CLAIM, wrong, np.zeros((2, 6)), b, 0, [0, 1], random=False)
    assert v.status == "inconsistent" and "(not at R = 32)" in v.reason and "seed 1" in v.reason, v.reason
    v, _ = judge_data(CLAIM, G3, np.zeros((2, 6)), b, 0, [0, 1], random=True)
    assert v.status == "inconclusive" and "random numbers" in v.reason


def test_a_crossover_is_a_ratio_of_two_runs_at_a_point_free_of_the_swept_name():
    with pytest.raises(InvalidClaimError, match="the rule is a ratio of the run to its twin"):
        check(dataclasses.replace(CLAIM, measure="gap_avg", twin={}))
    with pytest.raises(InvalidClaimError, match="the rule is the crossover's location, free of R"):
        check(dataclasses.replace(CLAIM, bound="L**2*B/G**2 + R"))
    with pytest.raises(InvalidClaimError, match="and vanishes; the rule is a ratio"):
        check(dataclasses.replace(CLAIM, vanishes=True))
    with pytest.raises(InvalidClaimError, match="the rule is a ratio of the run to its twin"):
        check(dataclasses.replace(CLAIM, measure="gap_ratio"))  # no resolution: a tie at 0 would be a win
    for noisy in ({"oracle": "gaussian:1.0", "repeats": 2}, {"participation": 4}, {"redraw": 3}):
        with pytest.raises(InvalidClaimError, match="the rule is exact, None, 0"):
            check(dataclasses.replace(CLAIM, **noisy))
    check(CLAIM)


def test_a_crossover_per_point_judges_each_point_against_its_own():
    """A sweep of a class parameter draws each point's instance: x* differs by point (16, then 200)."""
    stars = np.array([16.0, 16.0, 16.0, 200.0, 200.0, 200.0])
    # R = 32 ≤ 200/4: the run must win there, and does; 128 and 512 are within 4× of 200: not judged
    ratio = np.array([0.5, 0.5, 0.5, 0.5, 0.5, 2.0])
    v = crossover_sides(X, ratio, stars, "R")
    assert v.status == "consistent" and "R* = 16…200 (each point's)" in v.reason, v.reason
    assert v.evidence["crossover"] == stars.tolist()
    assert crossover_sides(X, ratio, 16.0, "R").status == "inconsistent"  # one crossover: 128 ≥ 4·16


class _T(dict):
    """A trace's metrics and status, as a twin measure reads them."""

    def __init__(self, gap: float, status: str = "completed") -> None:
        super().__init__(gap_avg=np.array([1.0, gap]))
        self.status = status


@pytest.mark.parametrize("own,other,want", [
    (2e-3, 1e-3, 2.0), (1e-9, 1e-3, 0.0), (1e-3, 1e-9, float("inf")),
    (1e-9, 2e-9, float("nan")), (0.0, 0.0, float("nan")),
    # a run that did not complete loses, whatever its last recorded gap; two failed runs: no measurement
    (("diverged", 1e-9), 1e-3, float("inf")), (1e-3, ("diverged", 1e-9), 0.0),
    (("diverged", 1e-3), ("diverged", 1e-3), float("nan"))])
def test_the_gap_avg_ratio_reads_each_gap_against_its_resolution(own, other, want):
    def trace(x):  # noqa: ANN001, ANN202
        return _T(x[1], x[0]) if isinstance(x, tuple) else _T(x)

    got = claim_measure.twin_measure(CLAIM, trace(own), trace(other), resolution=1e-6)
    assert (np.isnan(got) if np.isnan(want) else got == pytest.approx(want)), got


def test_the_figure_marks_the_judged_margins():
    """x/x* on each instance's own crossover, the tie at 1, and vertical lines at 1/MARGIN and MARGIN."""
    from fcocheck.reports.plotdata import experiment_figure
    from fcocheck.verify.claim_text import plot

    along = CLAIM.along[1]
    measured = {"bound": [[16.0] * len(along)] * 2, "instances": [[0.5] * len(along), [2.0] * len(along)],
                "seeds": [0, 1]}
    spec = plot(CLAIM, measured)
    assert spec["marks"]["x"] == [1 / MARGIN, MARGIN] and spec["level"]["y"] == 1.0
    fig = experiment_figure({"name": CLAIM.name, "measured": {"plot": spec}})
    (panel,) = fig.panels
    vertical = [ln for ln in panel.lines if ln.x[0] == ln.x[-1]]
    assert sorted(ln.x[0] for ln in vertical) == [1 / MARGIN, MARGIN]
    assert [ln.median for ln in vertical] == [[0.5, 2.0]] * 2  # the data's span
    assert sum(not ln.label.startswith("_") for ln in vertical) == 1
    assert "vertical grey lines" in fig.caption
