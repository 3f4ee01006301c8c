"""The bounded-ratio rule (``rates.oc``): its size over the widened legal family, its smallest detected
departure ε_min checked by simulation, and the families issue 52 found it wrong on.

Issue 30's findings stay cases here (the one-constant rule rejected a ratio that rises then levels off and
passed y ∝ bound^0.7–0.8 at log-noise 0.2; the every-local-slope rule rejected a bounded floor
a·K/(K + 4)).  Issue 52's: on R^(−2/3) noise-free, y = bound^0.9 was consistent with "power 100%"; at
log-noise 0.05 on 1/R, bound^0.9 and bound·R^0.1 passed 94% and 92.5%; x/(x + 80) on R = 10 … 640 and R^0.5
capped at R = 160 — legal — were inconsistent in every noise-free repetition.  Now: a violation is never
consistent beyond 5% (it is inconsistent, or inconclusive naming the design that would decide), a legal
ratio never inconsistent beyond 1%, over 200 repetitions each at a fixed seed.
"""

from __future__ import annotations

import numpy as np
import pytest

from fcocheck.rates.departure import EPS_MAX, POWER, Detection, eps_min
from fcocheck.rates.oc import (
    KINK_SLOPES,
    REPS,
    bounded_ratio,
    characteristics,
    critical_values,
    design_help,
    legal_shapes,
    violation_shapes,
    weights,
)
from fcocheck.rates.verdict import CONSISTENT, INCONCLUSIVE, INCONSISTENT

R = np.geomspace(10.0, 640.0, 7)  # fco-4.3-tuned-R's quick window
R_LONG = np.geomspace(10.0, 5120.0, 10)  # three doublings more: the window the rule names for it
K = np.array([4.0, 8.0, 16.0, 32.0, 64.0])  # fco-4.3-floor-K's
RATE = 2.0 * R ** (-2 / 3)


def noisy(y: np.ndarray, seeds: int, noise: float, seed: int) -> np.ndarray:
    return y[None, :] * np.exp(noise * np.random.default_rng(seed).standard_normal((seeds, y.size)))


def outcomes(x: np.ndarray, b: np.ndarray, y: np.ndarray, seeds: int, noise: float, reps: int = 200,
             seed: int = 52, gate: bool = False) -> dict[str, float]:
    """The share of each outcome (consistent, inconsistent, inconclusive weak / rose) over ``reps``.

    ``gate=False`` runs the rule without its weak gate and reads the gate off the evidence (a consistent
    verdict whose ε_min exceeds ``EPS_MAX`` is weak): the same outcome without composing the weak
    verdict's design help 200 times; the tests check the gated rule on a few repetitions beside it.
    """
    count: dict[str, int] = {}
    for k in range(reps):
        v = bounded_ratio(x, b, noisy(y, seeds, noise, seed * 10_000 + k), seed=k, label="R",
                          deterministic=noise == 0 and seeds == 1, gate=gate)
        weak = v.reason.startswith("weak") or (
            v.status == CONSISTENT and not v.evidence["departure"]["eps_min"] <= EPS_MAX)
        kind = ("inconclusive weak" if weak else v.status) + (" rose" if v.reason.startswith("rose") else "")
        count[kind] = count.get(kind, 0) + 1
    return {k: n / reps for k, n in count.items()}


@pytest.mark.parametrize("noise", [0.001, 0.01, 0.05, 0.2])
def test_measured_size_is_at_most_one_percent_over_the_widened_legal_family(noise):
    """Every legal shape — flat, falling, saturating by the middle or any later point, levelling off at any
    point with any slope — is called inconsistent at most 1% of REPS repetitions."""
    t = np.log(R / R[0])
    oc = characteristics(t, RATE, 3, noise, seed=0)
    assert oc.reps == REPS and oc.size <= 0.01, oc.size_by
    assert set(oc.size_by) == {"ratio flat", "ratio falling", "ratio saturating", "ratio levelling off"}


@pytest.mark.parametrize("x,seeds,noise", [(R, 1, 0.001), (R, 3, 0.01), (R, 3, 0.05), (R_LONG, 1, 0.001),
                                           (R_LONG, 5, 0.02), (K, 3, 0.03)])
def test_the_smallest_departure_is_detected_95_percent_of_the_time_by_simulation(x, seeds, noise):
    """ε_min (exact, through Owen's T) against a simulation of the rule's decision on y = b^(1 − ε): 95%
    at ε_min within Monte-Carlo error, less at ε_min/2 — an independent check of the formula."""
    t, b = np.log(x / x[0]), x ** -0.7
    crit, dcrit = critical_values(t, b, seeds, noise)
    w_t, w_l = weights(t)
    found = Detection("bound", float(-np.log(b / b[0]) @ w_t), float(-np.log(b / b[0]) @ w_l),
                      *_spreads(t, seeds, noise), crit, dcrit)
    eps = eps_min([found])
    assert np.isfinite(eps)
    rng = np.random.default_rng(7)

    def rate(e: float) -> float:
        r = (np.log(b ** (1 - e) / b)[None, None, :] + noise * rng.standard_normal((20_000, seeds, t.size))
             ).mean(axis=1)
        return float(np.mean((r @ w_t > crit) & (r @ w_l <= dcrit)))

    assert abs(rate(eps) - POWER) < 0.01 and rate(eps / 2) < POWER - 0.02, (eps, rate(eps), rate(eps / 2))


def _spreads(t: np.ndarray, seeds: int, noise: float) -> tuple[float, float, float]:
    from fcocheck.rates.oc import _spreads as spreads

    return spreads(t, seeds, noise)


# --- issue 52's families, 200 repetitions each at a fixed seed ----------------------------------------
def test_bound_to_the_0_9_on_r_to_the_minus_two_thirds_is_never_consistent_noise_free():
    """It was consistent in 200/200 with "power 100%": now inconclusive (weak), naming a window — and on
    that window it is inconsistent."""
    b = R ** (-2 / 3)
    seen = outcomes(R, b, b**0.9, 1, 0.0)
    assert seen == {"inconclusive weak": 1.0} == outcomes(R, b, b**0.9, 1, 0.0, reps=3, gate=True), seen
    v = bounded_ratio(R, b, (b**0.9)[None, :], deterministic=True, label="R")
    named = float(R[0] * np.exp(v.evidence["design"]["window"]))
    assert "a window to R ≈ 5.12e+03" in v.reason and named == pytest.approx(5120.0)
    longer = np.geomspace(10.0, named, 10)
    bl = longer ** (-2 / 3)
    assert outcomes(longer, bl, bl**0.9, 1, 0.0, reps=20) == {"inconsistent": 1.0}
    assert outcomes(longer, bl, 3 * bl, 1, 0.0, reps=20) == {"consistent": 1.0}  # the claim itself passes


@pytest.mark.parametrize("name", ["bound^0.9", "bound·R^0.1"])
def test_a_tenth_too_fast_on_one_over_r_at_noise_0_05_is_never_consistent(name):
    """It passed 94% (bound^0.9) and 92.5% (bound·R^0.1): now at most 5% consistent."""
    b = 1 / R
    y = b**0.9 if name == "bound^0.9" else b * R**0.1
    seen = outcomes(R, b, y, 1, 0.05)
    assert seen.get("consistent", 0.0) <= 1 - POWER, seen
    assert outcomes(R, b, y, 1, 0.05, reps=5, gate=True) == outcomes(R, b, y, 1, 0.05, reps=5)


@pytest.mark.parametrize("noise", [0.0, 0.05])
@pytest.mark.parametrize("name,ratio", [
    ("x/(x + 80)", lambda r: r / (r + 80.0)),
    ("R^0.5 capped at R = 160", lambda r: np.minimum(r, 160.0) ** 0.5),
    ("R^0.5 capped at R = 320", lambda r: np.minimum(r, 320.0) ** 0.5),
    ("R capped at R = 40", lambda r: np.minimum(r, 40.0)),
])
def test_a_ratio_that_levels_off_inside_the_window_is_never_inconsistent(name, ratio, noise):
    """Legal ratios that rise after the window's middle and level off: inconsistent in 100% of noise-free
    repetitions before; now at most 1%, and a rise still visible is said to be one ("rose inside the
    window", with the window to extend to)."""
    b = 1 / R
    seen = outcomes(R, b, b * ratio(R), 1, noise)
    assert seen.get("inconsistent", 0.0) <= 0.01, seen
    assert outcomes(R, b, b * ratio(R), 1, noise, reps=5, gate=True) == outcomes(R, b, b * ratio(R), 1, noise,
                                                                                reps=5)
    if noise == 0.0 and name != "R capped at R = 40":
        v = bounded_ratio(R, b, (b * ratio(R))[None, :], deterministic=True, label="R")
        assert v.reason.startswith("rose inside the window") and "extend the window to R ≈" in v.reason


def test_the_violations_a_levelling_test_could_hide_are_still_rejected():
    """The levelling test never hides a power law (its end slope equals its tail slope): y ∝ bound^0.5 …
    0.8, flat and rising are inconsistent on every noise-free repetition, on the quick window and a long
    one."""
    for x in (R, R_LONG):
        b = x ** (-2 / 3)
        for name, y in violation_shapes(np.log(x / x[0]), b).items():
            assert outcomes(x, b, y, 1, 0.0, reps=5) == {"inconsistent": 1.0}, (len(x), name)


def test_a_weak_verdict_names_rows_when_rows_are_what_is_missing():
    """At log-noise 0.05 and 3 rows on R = 10 … 640·2³ the window suffices noise-free; the help names the
    rows, and with them ε_min falls to the threshold."""
    t, b = np.log(R_LONG / R_LONG[0]), R_LONG ** (-2 / 3)
    help_ = design_help(t, b, 3, 0.05)
    assert help_["seeds"] is not None and help_["seeds"] > 3
    crit, dcrit = critical_values(t, b, help_["seeds"], 0.05)
    w_t, w_l = weights(t)
    u = -np.log(b / b[0])
    found = Detection("bound", float(u @ w_t), float(u @ w_l), *_spreads(t, help_["seeds"], 0.05), crit,
                      dcrit)
    assert eps_min([found]) <= EPS_MAX


# --- the rule on legal and violating curves (issue 30's cases, on windows where it has power) ---------
@pytest.mark.parametrize("name,law", [
    ("follows the bound", lambda r: 2.0 * r ** (-2 / 3)),
    ("faster than the bound", lambda r: 2.0 * r ** (-2 / 3) * (r / r[0]) ** -0.7),
    ("saturating ratio", lambda r: 2.0 * r ** (-2 / 3) * r / (r + 15.0)),  # 84% of its plateau by R = 80
])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_legal_curves_that_look_unusual_pass_where_the_window_is_long_enough(name, law, seed):
    """On the window the rule names (R to 5120, three doublings more than tuned-R's quick one) a legal
    curve is consistent and excludes y ∝ bound^0.9; on the quick window it is weak, never inconsistent."""
    rate = 2.0 * R_LONG ** (-2 / 3)
    v = bounded_ratio(R_LONG, rate, noisy(0.3 * law(R_LONG), 3, 0.005, seed), seed=seed, label="R")
    assert v.status == CONSISTENT and v.evidence["departure"]["eps_min"] <= EPS_MAX, (name, v.reason)
    short = bounded_ratio(R, RATE, noisy(0.3 * law(R), 3, 0.005, seed), seed=seed, label="R")
    assert short.status == INCONCLUSIVE and short.reason.startswith("weak"), short.reason


@pytest.mark.parametrize("p", [0.5, 0.7, 0.8])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bound_to_a_power_below_one_is_rejected(p, seed):
    y = 1e-3 * RATE[0] * (RATE / RATE[0]) ** p  # far below the bound with constant 1
    v = bounded_ratio(R, RATE, noisy(y, 3, 0.01, seed), seed=seed, label="R")
    assert v.status == INCONSISTENT, v.reason


def test_without_power_the_rule_never_prints_consistent():
    """At log-noise 0.2 on 3 rows the design cannot tell bound^0.8 from a legal ratio: inconclusive
    (weak), naming what would decide — never consistent."""
    for seed in range(20):
        v = bounded_ratio(R, RATE, noisy(0.1 * RATE, 3, 0.2, seed), seed=seed, label="R")
        assert v.status in (INCONCLUSIVE, INCONSISTENT)
        if v.status == INCONCLUSIVE:
            assert v.reason.startswith("weak") and "it would with" in v.reason


def test_a_bounded_floor_a_k_over_k_plus_4_passes_and_growing_floors_fail():
    """The floor-K claim: the bound term is constant along K (fixed η_cK); a·K/(K + 4) is bounded."""
    b = np.full(K.size, 0.3)
    assert bounded_ratio(K, b, 0.02 * K / (K + 4.0), deterministic=True, label="K").status != INCONSISTENT
    for q in (0.2, 0.5):
        v = bounded_ratio(K, b, 0.02 * K**q, deterministic=True, label="K")
        assert v.status == INCONSISTENT, (q, v.reason)


def test_a_floor_that_saturates_as_zeta_shrinks_is_legal_and_one_that_lingers_is_not():
    """floor-ζ: y ≲ ζ² as ζ → 0 (direction 1/ζ); a floor ζ⁴/(1 + ζ²) vanishes faster, ζ^1.5 more slowly."""
    zeta = np.geomspace(4.0, 1 / 16, 7)
    b = zeta**2
    assert bounded_ratio(1 / zeta, b, zeta**4 / (1 + zeta**2), deterministic=True).status == CONSISTENT
    # ζ²/(1 + (ζ/ζ₀)²): the ratio saturates (to 94% by the window's middle, ζ = 0.5, with ζ₀ = 2)
    saturating = zeta**2 / (1 + (zeta / 2.0) ** 2)
    assert bounded_ratio(1 / zeta, b, saturating, deterministic=True).status == CONSISTENT
    assert bounded_ratio(1 / zeta, b, zeta**1.5, deterministic=True).status == INCONSISTENT


def test_a_one_sided_rate_accepts_faster_contraction_and_rejects_slower():
    """fedcanon-pl-rate: −log q ≳ μη_g as μη_g → 0 (time constant ≲ 1/(μη_g)); faster is legal."""
    x = np.geomspace(0.01, 0.16, 6)  # μη_g
    inv = (1 / x)[::-1]
    faster, slower = (x**0.7)[::-1], (x**1.5)[::-1]  # −log q
    legal = bounded_ratio(inv, inv, 1 / (0.5 * faster), deterministic=True)
    assert legal.status == CONSISTENT or legal.reason.startswith("weak"), legal.reason
    assert bounded_ratio(inv, inv, 1 / (0.5 * slower), deterministic=True).status == INCONSISTENT
    long = np.geomspace(0.01 / 16, 0.16, 10)  # the sweep four doublings longer: consistent
    inv_l, faster_l = (1 / long)[::-1], (long**0.7)[::-1]
    assert bounded_ratio(inv_l, inv_l, 1 / (0.5 * faster_l), deterministic=True).status == CONSISTENT


def test_the_same_data_give_the_same_verdict_and_figures():
    Y = noisy(0.1 * RATE, 3, 0.02, 7)
    a, b = bounded_ratio(R, RATE, Y, seed=3), bounded_ratio(R, RATE, Y, seed=3)
    assert a == b and a.evidence["oc"]["reps"] == REPS


def test_the_shape_families_are_what_they_say():
    t = np.log(R / R[0])
    legal = legal_shapes(t, RATE)
    assert np.allclose(legal["ratio flat"] / RATE, 1.0)
    sat = legal["ratio saturating"] / RATE
    assert np.all(np.diff(sat) > 0) and sat[-1] < 1.0
    late = legal["ratio saturating by point 5"] / RATE
    assert late[5] == pytest.approx(0.8, rel=1e-12) and np.all(np.diff(late) > 0)  # 80% at R = 320
    a = KINK_SLOPES[8]
    kink = np.diff(np.log(legal[f"ratio levelling off at point 4, slope {a:.3g}"] / RATE))
    assert np.allclose(kink[4:], 0.0) and np.allclose(kink[:4], a * np.log(2))
    viol = violation_shapes(t, RATE)
    assert set(viol) == {"y ∝ bound^0.5", "y ∝ bound^0.7", "y ∝ bound^0.8", "y flat", "y rising"}
    assert set(violation_shapes(t, np.ones(t.size))) == {"y ∝ x^0.08", "y ∝ x^0.2", "y ∝ x^0.5"}
