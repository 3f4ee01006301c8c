"""The exponent rule's size and power, measured by simulation at the designs the studies use.

The claim "y ∝ x^p up to an asymptotic slack δ" is legal for every exponent in [p − δ, p + δ]; the
rule must reject a curve on the edge of that range in at most 1% of repetitions (its t interval's
one-sided level, ``rates.fit.LEVEL``) — whatever the noise, the number of rows or their constants —
and must reject exponents ½ away.  The percentile bootstrap it replaced rejected edge curves in 12%
of repetitions over 3 seeds.
"""

from __future__ import annotations

import numpy as np
import pytest

from fcocheck.rates.fit import LEVEL, loglog_slope
from fcocheck.rates.verdict import DELTA, INCONSISTENT, exponent_verdict

REPS = 2000
ALPHA = (1 - LEVEL) / 2  # one side
SLACK = 3 * np.sqrt(ALPHA * (1 - ALPHA) / REPS)  # three Monte-Carlo standard errors
THREE, SEVEN, FIVE = np.array([0.1, 0.01, 0.001]), np.geomspace(1, 64, 7), np.array([2.0, 4, 8, 16, 32])
DESIGNS = [(1, SEVEN), (1, THREE), (3, THREE), (3, SEVEN), (4, FIVE), (16, FIVE)]


def rejection_rate(x, rows, slope_of_row, sigma, predicted, seed, sense="two-sided"):
    rng = np.random.default_rng(seed)
    lx = np.log(x)
    bad = 0
    for _ in range(REPS):
        s = slope_of_row(rng, rows)
        noise = sigma * rng.standard_normal((rows, x.size))
        LY = rng.normal(0.0, 3.0, (rows, 1)) + s[:, None] * lx[None, :] + noise
        bad += exponent_verdict(loglog_slope(x, np.exp(LY)), predicted, sense).status == INCONSISTENT
    return bad / REPS


@pytest.mark.parametrize("rows,x", DESIGNS)
@pytest.mark.parametrize("edge", [-1, 1])
def test_an_exponent_on_the_edge_of_the_legal_range_is_rejected_at_most_1_percent_of_the_time(rows, x, edge):
    """Each row with its own constant (a random intercept, spread e³): slopes are blind to it."""
    rate = rejection_rate(x, rows, lambda rng, n: np.full(n, 1.0 + edge * DELTA), 0.1, 1.0, seed=rows)
    assert rate <= ALPHA + SLACK, rate


def test_rows_whose_exponents_differ_inside_the_legal_range_are_legal():
    """Instances of a class bending differently, every one legal: still ≤ 1%."""
    x = np.geomspace(1, 64, 7)
    rate = rejection_rate(x, 3, lambda rng, n: rng.uniform(1.0 - DELTA, 1.0 + DELTA, n), 0.05, 1.0, seed=7)
    assert rate <= ALPHA + SLACK, rate


@pytest.mark.parametrize("rows,x", [(3, SEVEN), (16, FIVE)])
@pytest.mark.parametrize("off", [-0.5, 0.5])
def test_an_exponent_half_away_is_rejected_at_the_studies_noise(rows, x, off):
    rate = rejection_rate(x, rows, lambda rng, n: np.full(n, 1.0 + off), 0.05, 1.0, seed=11)
    assert rate >= 0.95, rate


@pytest.mark.parametrize("rows,x,sigma,off",
                         [(3, SEVEN, 0.3, 0.5), (4, FIVE, 0.5, -0.5), (1, SEVEN, 0.4, 0.5)])
def test_the_reported_power_matches_the_simulated_rejection_rate(rows, x, sigma, off):
    """``exponent_oc`` (what validate --json and the report print), given the design's se: its power at
    a violation is the simulated rejection rate (within 3 Monte-Carlo s.e. + 0.01), its size the level's
    one-sided 1% (plus the far edge's share)."""
    from scipy.stats import t as student

    from fcocheck.rates.fit import SlopeFit
    from fcocheck.rates.verdict import exponent_oc

    lx = np.log(x)
    sxx = float(np.sum((lx - lx.mean()) ** 2))
    se = sigma / np.sqrt(sxx * rows)  # of the mean of the rows' slopes (or of one row's fit)
    dof = rows - 1 if rows >= 2 else x.size - 2
    half = float(student.ppf(1 - (1 - LEVEL) / 2, dof)) * se
    oc = exponent_oc(SlopeFit(1.0 + off, 0.0, 1.0 + off - half, 1.0 + off + half, 1.0, "", x.size, rows),
                     1.0, "two-sided")
    simulated = rejection_rate(x, rows, lambda rng, n: np.full(n, 1.0 + off), sigma, 1.0, seed=13)
    p = oc["power"][f"slope {1.0 + off:+g}"]
    assert abs(p - simulated) <= 3 * np.sqrt(p * (1 - p) / REPS) + 0.01, (oc, simulated)
    assert ALPHA <= oc["size"] <= ALPHA + 1e-3
