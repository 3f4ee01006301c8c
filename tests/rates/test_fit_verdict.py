import numpy as np
import pytest

from fcocheck.rates.fit import contraction, floor, loglog_slope
from fcocheck.rates.inequality import bounded_by
from fcocheck.rates.verdict import (
    CONSISTENT,
    INCONCLUSIVE,
    INCONSISTENT,
    exponent_verdict,
)

X = np.geomspace(10, 1000, 8)


def _noisy(p, noise, seeds=6, seed=0):
    rng = np.random.default_rng(seed)
    return 3.0 * X**p * np.exp(noise * rng.standard_normal((seeds, X.size)))


@pytest.mark.parametrize("p", [-1.0, -0.5, 2.0 / 3.0, 2.0])
def test_slope_recovered_within_ci(p):
    fit = loglog_slope(X, _noisy(p, 0.1))
    assert fit.lo <= p <= fit.hi and fit.hi - fit.lo < 0.3
    assert exponent_verdict(fit, p).status == CONSISTENT


def test_flat_data_contradicts_a_two_sided_exponent_and_planted_violation_is_inconsistent():
    flat = loglog_slope(X, _noisy(0.0, 0.05))
    assert exponent_verdict(flat, -1.0).status == INCONSISTENT  # was "no trend: inconclusive" (issue 16)
    steep = loglog_slope(X, _noisy(-0.5, 0.05))  # decays like R^{-1/2} where 1/R was promised
    v = exponent_verdict(steep, -1.0)
    assert v.status == INCONSISTENT and "excludes" in v.reason
    # an upper bound 1/R along growing R: a slower decay breaks it too …
    assert exponent_verdict(steep, -1.0, "upper").status == INCONSISTENT
    # … while a faster decay does not (the bound is just not tight)
    assert exponent_verdict(loglog_slope(X, _noisy(-2.0, 0.05)), -1.0, "upper").status == CONSISTENT
    # growing faster than predicted → inconsistent, even far below the bound with constants 1: the
    # constants are free, only the shape is checked (issue 16: ζ³ floors came back inconclusive)
    grow = loglog_slope(X, _noisy(3.0, 0.05))
    assert exponent_verdict(grow, 2.0, "upper").status == INCONSISTENT
    assert exponent_verdict(grow, 2.0, "upper", ratio_max=0.1).status == INCONSISTENT


def test_noisy_data_too_wide_is_inconclusive():
    fit = loglog_slope(X[:4], _noisy(-1.0, 3.0)[:, :4], seed=1)
    assert exponent_verdict(fit, -1.0).status == INCONCLUSIVE


def test_contraction_and_floor():
    t = np.arange(60)
    y = 5.0 * 0.8**t + 1e-3
    c = contraction(y[None, :], 0, 25)
    assert abs(c.factor - 0.8) < 0.01
    f = floor((5.0 * 0.5**t + 1e-3)[None, :])  # transient 0.5^45 ≈ 3e-14 by the tail
    assert f.value == pytest.approx(1e-3, rel=1e-3) and f.stationary
    falling = floor((1.0 / (t + 1))[None, :])
    assert not falling.stationary


def test_inequality_verdict():
    lhs = np.array([1.0, 2.0])
    assert bounded_by(lhs, {"rhs": np.array([3.0, 2.5])}, [], ["a", "b"]).status == CONSISTENT
    v = bounded_by(np.array([1.0, 2.0]), {"rhs": np.array([3.0, 1.5])}, [], ["a", "b"])
    assert v.status == INCONSISTENT and "b" in v.reason


def test_bad_input_named():
    with pytest.raises(ValueError, match="at least 3"):
        loglog_slope(np.array([1.0, 2.0]), np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="> 0"):
        loglog_slope(X, -np.ones(8))


def test_closed_form_slopes_equal_per_row_least_squares():
    """The closed-form slopes of every row (here random resamples) equal numpy's lstsq on the same row
    (1e-12), and a row whose x does not vary is NaN."""
    from fcocheck.rates.fit import _line, _slopes

    rng = np.random.default_rng(7)
    lx = np.log(np.array([1.0, 2.0, 4.0, 8.0, 16.0]))
    ly = -0.7 * lx + 0.05 * rng.standard_normal(5)
    idx = rng.integers(0, 5, size=(300, 5))
    got = _slopes(lx[idx], ly[idx])
    for b, i in enumerate(idx):
        if np.ptp(lx[i]) > 0:
            assert abs(got[b] - _line(lx[i], ly[i])[0]) <= 1e-12 * max(1.0, abs(got[b]))
        else:
            assert np.isnan(got[b])


@pytest.mark.parametrize("states,overall", [
    (["consistent", "error"], "error"),  # a check that raised is never hidden by one that held
    (["error", "consistent", "inconclusive"], "error"),
    (["known disagreement", "error"], "error"),
    (["inconsistent", "error", "consistent"], "inconsistent"),
    (["known disagreement", "consistent"], "known disagreement"),
    (["does not apply", "consistent"], "consistent"),
    (["does not apply", "does not apply"], "does not apply"),
    (["consistent", "inconclusive"], "inconclusive"),
    (["consistent", "consistent"], "consistent"),
])
def test_a_result_s_status_is_its_worst_check_s(states, overall):
    from fcocheck.rates.verdict import Verdict, combine

    assert combine([Verdict(s, "rule", "reason") for s in states]) == overall
