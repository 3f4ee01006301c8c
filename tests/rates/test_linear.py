"""The linear-rate rule: its size on the legal family and its power against sub-linear decays, measured.

Polynomial decays must fail; stretched exponentials, which a legal mixture of rates ρ and ρ² mimics on
a finite window, must never pass (the rule it replaced passed exp(−t^0.75)); legal curves that look
unusual (accelerating, several modes, a transient at the family's edge, other seeds) must never fail.
"""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import fcocheck.rates.linear as linear
from fcocheck.rates.linear import SHARE, legal_shapes, linear_rate, violation_shapes, worst_mixture
from fcocheck.rates.verdict import CONSISTENT, INCONCLUSIVE, INCONSISTENT

N, RATE, SIGMA, SEEDS = 120, 0.08, 0.05, 3


def _noisy(logy: np.ndarray, rng: np.random.Generator, sigma: float = SIGMA,
           seeds: int = SEEDS) -> np.ndarray:
    return np.exp(logy[None, :] + sigma * rng.standard_normal((seeds, logy.size)))


def _rate(shape: np.ndarray, reps: int, seed: int, monkeypatch, sigma: float = SIGMA) -> dict[str, float]:
    """Share of ``reps`` noisy copies of ``shape`` judged each way.

    The inner simulation is cut to 20 repetitions: ``inconsistent`` does not depend on it.
    """
    monkeypatch.setattr(linear, "REPS", 20)
    rng = np.random.default_rng(seed)
    out = [linear_rate(_noisy(shape, rng, sigma), 0, shape.size, seed=i).status for i in range(reps)]
    return {s: out.count(s) / reps for s in (CONSISTENT, INCONSISTENT, INCONCLUSIVE)}


@pytest.mark.parametrize("name", list(legal_shapes(N, RATE)))
def test_size_on_the_legal_family_is_at_most_one_percent(name, monkeypatch):
    """600 noisy copies of each legal shape (the family's boundary included): rejected ≤ 1% + 3 s.e."""
    reps = 600
    got = _rate(legal_shapes(N, RATE)[name], reps, 7, monkeypatch)
    se = np.sqrt(0.01 * 0.99 / reps)
    assert got[INCONSISTENT] <= 0.01 + 3 * se, (name, got)


@pytest.mark.parametrize("name", list(violation_shapes(N, RATE * N * 2 / 3)))
def test_polynomial_decays_are_rejected_and_stretched_exponentials_never_pass(name, monkeypatch):
    """Each violation falls over the judged tail as the legal curve does; 200 noisy copies each."""
    got = _rate(violation_shapes(N, RATE * N * 2 / 3)[name], 200, 11, monkeypatch)
    if name.startswith("exp"):
        assert got[CONSISTENT] == 0.0, (name, got)
    else:
        assert got[INCONSISTENT] >= 0.95, (name, got)


def test_the_reported_size_and_power_are_the_simulated_ones():
    """A clean exponential: judged, with the power it has, and no power against exp(−t^0.75) said."""
    rng = np.random.default_rng(3)
    v = linear_rate(_noisy(-RATE * np.arange(N), rng), 0, N, seed=3)
    assert v.status == INCONCLUSIVE and "exp(−t^0.75)" in v.reason, v.reason
    oc = v.evidence["oc"]
    assert oc["size"] <= 0.02 and oc["power"]["1/t^p"] >= 0.95 and oc["power"]["exp(−t^0.75)"] < 0.95
    assert set(oc["power"]) == {"1/t^p", "1/log^p t", "exp(−t^0.5)", "exp(−t^0.75)"}


@settings(max_examples=60, deadline=None)
@given(rate=st.floats(0.001, 0.5), share=st.floats(0.0, SHARE), fast=st.floats(1.05, 50.0),
       n=st.integers(60, 240), third=st.floats(0.0, SHARE))
def test_legal_mixtures_that_look_unusual_are_never_inconsistent(rate, share, fast, n, third):
    """Exact sums of three exponentials whose faster modes carry ≤ SHARE where the middle third begins."""
    t = np.arange(n, dtype=float)
    m = n - (2 * n) // 3
    assume(rate * fast * m < 600)  # y(0) stays a float
    slow = -rate * t
    mode2 = np.log(max(share, 1e-12) / (1 - share)) - rate * fast * (t - m) - rate * m
    mode3 = np.log(max(third, 1e-12)) - rate * 1.5 * (t - m) - rate * m
    r2, r3 = np.exp(mode2[m] - slow[m]), np.exp(mode3[m] - slow[m])
    c = SHARE / (1 - SHARE)
    if r2 + r3 > c:  # the two together must stay inside the family: shrink the third mode to fit
        mode3 = mode3 + np.log(max(c - r2, 1e-300) / r3)
    logy = np.logaddexp(np.logaddexp(slow, mode2), mode3)
    v = linear_rate(np.exp(logy)[None, :], 0, n, deterministic=True)
    assert v.status != INCONSISTENT, v.reason


@settings(max_examples=60, deadline=None)
@given(beta=st.floats(0.3, 0.75), drop=st.floats(8.0, 30.0), n=st.integers(60, 240))
def test_stretched_exponentials_are_never_consistent(beta, drop, n):
    """exp(−c·t^β), β ≤ 0.75, falling by ≥ e^8 over the window (as the studies' windows do)."""
    s = np.arange(n, dtype=float) / (n - 1)
    v = linear_rate(np.exp(-drop * s**beta)[None, :], 0, n, deterministic=True)
    assert v.status != CONSISTENT, v.reason


def test_a_rising_tail_is_inconsistent_and_a_flat_noisy_one_inconclusive():
    rng = np.random.default_rng(5)
    t = np.arange(N, dtype=float)
    up = np.where(t < N / 3, -RATE * t, -RATE * N / 3 + 0.02 * (t - N / 3))  # falls, then rises
    rising = linear_rate(_noisy(up, rng), 0, N)
    assert rising.status == INCONSISTENT and "rises" in rising.reason
    flat = linear_rate(_noisy(np.zeros(N), rng), 0, N)
    assert flat.status == INCONCLUSIVE and "no fall resolved" in flat.reason


@pytest.mark.parametrize("slow,fast,share,n", [(0.0075, 1.0, 0.3, 120), (0.005, 0.2, 0.5, 120),
                                               (0.0005, 0.5, 0.6, 90)])
def test_a_slow_mode_that_barely_falls_is_never_rejected(slow, fast, share, n):
    """Found in review: κ went back to 1 as the slow rate went to 0 (the fast-rate grid scaled with it),
    so these exact legal mixtures were judged inconsistent."""
    t = np.arange(n, dtype=float)
    m = n - (2 * n) // 3
    logy = np.logaddexp(np.log(share / (1 - share)) - fast * (t - m) - slow * m, -slow * t)
    v = linear_rate(np.exp(logy)[None, :], 0, n, deterministic=True)
    assert v.status != INCONSISTENT, v.reason


def test_noise_correlated_along_rounds_is_allowed_for_with_several_seeds():
    """AR(1) log-noise (φ = 0.9) on the family's boundary, 3 seeds: the per-seed t rule keeps its size."""
    rng = np.random.default_rng(9)
    shape = legal_shapes(N, RATE)[f"two modes, fast share {SHARE:g} at mid-window"]
    bad, reps = 0, 300
    for i in range(reps):
        e = np.zeros((SEEDS, N))
        for k in range(1, N):
            e[:, k] = 0.9 * e[:, k - 1] + 0.1 * np.sqrt(1 - 0.81) * rng.standard_normal(SEEDS)
        bad += linear_rate(np.exp(shape[None, :] + e), 0, N, seed=i).status == INCONSISTENT
    assert bad / reps <= 0.01 + 3 * np.sqrt(0.01 * 0.99 / reps), bad / reps


def test_a_short_window_is_inconclusive():
    assert linear_rate(np.exp(-0.1 * np.arange(8.0))[None, :], 0, 8).status == INCONCLUSIVE


def test_the_worst_mixture_sits_on_the_family_boundary():
    """κ is d₃/d₂ of the returned curve, and a family with a larger transient share reaches below it."""
    L, kappa = worst_mixture(N, RATE)
    w2, w3 = linear.tail_weights(N)
    assert (L @ w3) / (L @ w2) == pytest.approx(kappa, rel=1e-12)
    assert worst_mixture(N, RATE, (1 + SHARE) / 2)[1] < kappa < worst_mixture(N, RATE, SHARE / 2)[1] < 1.0
