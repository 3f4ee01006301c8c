"""Power (issue 16): every verdict rule rejects the violations of its claim at the experiments'
own windows and noise, and a rule that cannot prints ``inconclusive (no power: …)``.

The violations are the ones found in use: rates R^-0.3, flat and rising errors passed the
constant-1 bound rule; floors ∝ ζ³ or ζ⁴ and ∝ λ, λ^0.5 came back inconclusive; 1/t, 1/√t, 1/t²
and 1/log t all passed "linear"; a Lemma 4.4 check passed with its discrepancy term deleted.
"""

from __future__ import annotations

import numpy as np
import pytest

from fcocheck.rates.power import (
    Violation,
    exponent_violations,
    powered,
    retrend,
)
from fcocheck.rates.verdict import CONSISTENT, INCONCLUSIVE, INCONSISTENT, Verdict
from fcocheck.verify.experiments import judge

RNG = np.random.default_rng(0)


def noisy(y: np.ndarray, seeds: int = 3, noise: float = 0.08, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return y[None, :] * np.exp(noise * rng.standard_normal((seeds, y.size)))


# the windows of the quick experiments (fco-4.3-tuned-R runs R = 10 … 640, where the bounded-ratio rule
# has power against y ∝ bound^0.8; R = 10 … 80 sat exactly on the old rule's minimum span)
R_TUNED = np.geomspace(10.0, 640.0, 7)
ZETA = np.geomspace(4.0, 256.0, 13)[6:]
LAM = np.geomspace(0.003, 0.4, 8)
M_SVRG = np.array([200.0, 400.0, 800.0, 1600.0, 3200.0])


def test_retrend_keeps_the_noise_and_sets_the_slope():
    from fcocheck.rates.fit import loglog_slope

    Y = noisy(3.0 * R_TUNED**-0.7)
    Z = retrend(R_TUNED, Y, 0.4)
    assert loglog_slope(R_TUNED, Z).slope == pytest.approx(0.4, abs=1e-9)
    # Y/Z is a pure power of x, the same in every row: the per-point noise of Y is kept exactly
    s = loglog_slope(R_TUNED, Y).slope
    assert np.allclose(np.log(Y / Z), (s - 0.4) * np.log(R_TUNED / R_TUNED[0]), atol=1e-12)


@pytest.mark.parametrize("law,name", [(lambda r: r**-0.3, "R^-0.3"), (lambda r: 0 * r + 1.0, "flat"),
                                      (lambda r: r**0.3, "rising")])
def test_bound_rule_rejects_slow_flat_and_rising_errors_below_a_bound_with_constant_1(law, name):
    """At log-noise 0.01 (at 0.08 the quick window cannot tell R^-0.3 from a legal ratio saturating late:
    weak, ``tests/rates/test_oc.py``)."""
    rate = 2.0 * R_TUNED ** (-2 / 3)
    Y = noisy(1e-3 * law(R_TUNED), noise=0.01)  # far below the bound with constant 1
    v = judge.bound(R_TUNED, rate, Y, label="R")
    assert v.status == INCONSISTENT, (name, v.reason)


def test_bound_rule_accepts_a_curve_following_the_bound_and_shows_its_power():
    """On tuned-R's window continued to R = 5120 (the window a weak verdict there names) at its log-noise,
    with the 6 rows that verdict names for it (3 rows there: weak, excluding only bound^0.885)."""
    long = np.geomspace(10.0, 5120.0, 10)
    rate = 2.0 * long ** (-2 / 3)
    assert judge.bound(long, rate, noisy(0.1 * rate, noise=0.008), label="R").reason.startswith("weak")
    v = judge.bound(long, rate, noisy(0.1 * rate, seeds=6, noise=0.008), label="R")
    assert v.status == CONSISTENT and set(v.evidence["power"]["rejects"]) == {
        "y ∝ bound^0.5", "y ∝ bound^0.7", "y ∝ bound^0.8", "y flat", "y rising"}
    assert v.evidence["departure"]["eps_min"] <= 0.1 and "excludes y ∝ bound^0.9" in v.reason


@pytest.mark.parametrize("q", [3.0, 4.0])
def test_upper_floor_rule_rejects_zeta_cubed_and_fourth(q):
    Y = noisy(1e-6 * ZETA**q, noise=0.05)  # 300× below η²K²ζ² and growing faster
    _, v = judge.exponent(ZETA, Y, 2.0, "upper", label="ζ", ratio_max=1e-2)
    assert v.status == INCONSISTENT


# the small-ζ window of fco-4.3-floor-zeta (ζ → 0: the floor must vanish at least as fast as ζ²)
ZETA_SMALL = np.geomspace(0.125, 4.0, 6)[:4]


@pytest.mark.parametrize("q", [1.5, 1.0, 0.0])
def test_lower_floor_rule_rejects_floors_vanishing_slower_than_zeta_squared(q):
    Y = noisy(1e-4 * ZETA_SMALL**q, noise=0.05)  # far below η²K²ζ² with constant 1, but y/ζ² → ∞
    _, v = judge.exponent(ZETA_SMALL, Y, 2.0, "lower", label="ζ")
    assert v.status == INCONSISTENT, v.reason


@pytest.mark.parametrize("q", [2.0, 3.6, 4.0])
def test_lower_floor_rule_accepts_floors_vanishing_at_least_as_fast_and_shows_its_power(q):
    _, v = judge.exponent(ZETA_SMALL, noisy(1e-4 * ZETA_SMALL**q, noise=0.05), 2.0, "lower", label="ζ")
    assert v.status == CONSISTENT, v.reason
    assert set(v.evidence["power"]["rejects"]) == {"ζ^+1.5", "ζ^+1", "flat"}


@pytest.mark.parametrize("q", [1.0, 0.5])
def test_two_sided_floor_rule_rejects_lambda_and_sqrt_lambda(q):
    Y = noisy(LAM**q, noise=0.05)
    _, v = judge.exponent(LAM, Y, 2.0, "two-sided", label="λ")
    assert v.status == INCONSISTENT


def test_svrg_exponent_rejects_m_to_the_minus_0_3():
    Y = noisy(M_SVRG**-0.3, noise=0.03)
    _, v = judge.exponent(M_SVRG, Y, -1.0, "two-sided", label="m")
    assert v.status == INCONSISTENT


def test_two_sided_rule_rejects_a_floor_flat_in_M():
    Ms = np.array([2.0, 4.0, 8.0, 16.0, 32.0])
    _, v = judge.exponent(Ms, noisy(np.full(5, 0.3), noise=0.05), -1.0, label="M")
    assert v.status == INCONSISTENT  # "flat in M" was filed inconclusive


def test_inequality_with_an_idle_term_is_inconclusive_and_a_binding_one_consistent():
    lhs = np.array([1.0, 2.0, 3.0])
    terms = {"optimisation": np.array([2.0, 2.5, 3.5]), "discrepancy": np.array([0.05, 0.05, 0.05])}
    v = judge.inequality(lhs, terms, ["discrepancy"], ["a", "b", "c"])
    assert v.status == INCONCLUSIVE and "discrepancy deleted" in v.reason  # Lemma 4.4's quick grid
    terms["discrepancy"] = np.array([0.05, 0.05, 1.0])
    terms["optimisation"] = np.array([2.0, 2.5, 2.2])
    v = judge.inequality(lhs, terms, ["discrepancy"], ["a", "b", "c"])
    assert v.status == CONSISTENT and v.evidence["power"]["rejects"] == ["without discrepancy"]


def test_identity_and_must_differ_have_power():
    assert judge.identity(1e-15, 1e-12, "x").status == CONSISTENT
    assert judge.identity(1e-6, 1e-12, "x").status == INCONSISTENT
    assert judge.differs(1e-3, 1e-9, 1e-15, "x").status == CONSISTENT
    assert judge.differs(1e-15, 1e-9, 1e-15, "x").status == INCONSISTENT


def test_a_rule_without_power_cannot_print_consistent():
    always = lambda data: Verdict(CONSISTENT, "gullible", "anything goes")  # noqa: E731
    v = powered(always, np.ones(3), [Violation("flat", np.ones(3))])
    assert v.status == INCONCLUSIVE and v.reason.startswith("no power")
    assert powered(always, np.ones(3), []).status == INCONCLUSIVE


def test_violation_sets_name_what_they_break():
    names = [v.name for v in exponent_violations(R_TUNED, noisy(R_TUNED**-1.0), -1.0, label="R")]
    assert names == ["R^-1.5", "R^-0.5", "flat", "R^+0.5"]
    upper = exponent_violations(ZETA, noisy(ZETA**2), 2.0, "upper", "ζ")
    assert [v.name for v in upper] == ["ζ^+2.5", "ζ^+3"]


def test_a_wide_interval_that_excludes_the_claim_is_inconsistent_not_inconclusive():
    """A ζ^3…ζ^8 growth with a wide interval still contradicts 'flat' (the FedMiD-avg control)."""
    from fcocheck.rates.fit import SlopeFit
    from fcocheck.rates.verdict import exponent_verdict

    wide_far = SlopeFit(5.0, 0.0, 3.0, 7.9, 0.9, "bootstrap", 5, 1)
    assert exponent_verdict(wide_far, 0.0).status == INCONSISTENT
    wide_near = SlopeFit(0.5, 0.0, -1.0, 2.0, 0.5, "bootstrap", 5, 1)
    assert exponent_verdict(wide_near, 0.0).status == INCONCLUSIVE
    assert exponent_verdict(wide_far, 2.0, "upper").status == INCONSISTENT


# a window on the rule's minimum span (issue 29): the direction moves exactly 4× — as a float 4.0 one
# way and 3.9999999999999996 the other ((80/10)^(2/3) through numpy's vectorised pow and libm's)
def _edge_window(rounding: str) -> np.ndarray:
    return np.array([1.0, 1.5, 2.0, 3.0, 4.0 if rounding == "numpy" else float(np.nextafter(4.0, 0.0))])


@pytest.mark.parametrize("rounding", ["numpy", "libm"])
@pytest.mark.parametrize("law,name", [(lambda r: r**-0.3, "R^-0.3"), (lambda r: 0 * r + 1.0, "flat"),
                                      (lambda r: r**0.3, "rising")])
def test_bound_rule_on_the_edge_window_is_the_same_whichever_way_pow_rounds(rounding, law, name):
    x = _edge_window(rounding)
    assert x.max() / x.min() == (4.0 if rounding == "numpy" else np.nextafter(4.0, 0.0))
    rate = 2.0 * x**-2.0
    assert judge.bound(x, rate, noisy(1e-3 * law(x), noise=0.01), label="R").status == INCONSISTENT, name
    v = judge.bound(x, rate, noisy(0.1 * rate, noise=0.01), label="R")
    other = judge.bound(_edge_window("libm" if rounding == "numpy" else "numpy"), rate,
                        noisy(0.1 * rate, noise=0.01), label="R")
    assert "moves only" not in v.reason and (v.status, v.reason) == (other.status, other.reason)


def test_an_exponent_interval_without_power_against_half_a_power_is_not_consistent():
    """``exponent_verdict``'s own power gate: a 98% interval of width 0.6 around p contains p, and
    rejects p − ½ with less than 95% power (exact, at the fit's se): inconclusive (no power), naming it;
    width 0.4 has the power and is consistent."""
    from fcocheck.rates.fit import SlopeFit
    from fcocheck.rates.verdict import exponent_verdict

    wide = exponent_verdict(SlopeFit(-1.0, 0.0, -1.3, -0.7, 0.95, "t", 6, 3), -1.0)
    assert wide.status == INCONCLUSIVE and wide.reason.startswith("no power") and "-1.5" in wide.reason
    assert exponent_verdict(SlopeFit(-1.0, 0.0, -1.2, -0.8, 0.95, "t", 6, 3), -1.0).status == CONSISTENT
