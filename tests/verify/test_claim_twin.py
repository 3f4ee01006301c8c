"""A claim read off a run and its twin: FCO Thm 4.3's noise share η_cσ²/M at ζ = 0.

The twin is the same run on the same instance with the noise removed; ½‖ŵ_σ − ŵ_0‖² is the noise's share
of the output.  Fed real runs: the law −1 holds, the exponents ±½ away fail, a twin identical to the run
measures nothing (inconclusive, never consistent); and a twin that changes the instance is refused.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from fcocheck.verify.claim import InvalidClaimError
from fcocheck.verify.claim_judge import judge, judge_data
from fcocheck.verify.claim_measure import measure, twin_measure
from fcocheck.verify.paper_claims.fco_4_3_variance_m import CLAIM

#: eight instances are enough for the tests' questions (the claim draws 16)
SMALL = dataclasses.replace(CLAIM, seeds=8)


def test_the_noise_share_falls_like_one_over_m_and_half_a_power_either_way_fails():
    """On the claim's 16 instances (8 leave the interval too wide: inconclusive, no power)."""
    m = measure(CLAIM, 3)
    assert np.all(m.G > 0) and m.random  # a noisy oracle: every run is a row of the fit
    v = judge_data(CLAIM, m.G, m.floor, m.bound, 3, m.seeds, m.random)[0]
    # the exponent rule's exact size: 1% on the legal edge's own side by construction (LEVEL = 0.98), plus
    # the far side's tail (2e-6 here)
    assert v.status == "consistent" and v.evidence["oc"]["size"] < 0.01 + 1e-5, v.reason
    for wrong in ("eta_c*sigma**2/M**0.5", "eta_c*sigma**2/M**1.5"):
        c = dataclasses.replace(CLAIM, bound=wrong)
        v = judge_data(c, m.G, m.floor, m.bound, 3, m.seeds, m.random)[0]
        assert v.status == "inconsistent", v.reason


def test_a_twin_identical_to_the_run_measures_nothing_and_is_never_consistent():
    same = dataclasses.replace(SMALL, name="same", oracle="exact",
                               twin={"hp": {"eta_c": 0.2, "local_steps": 2}})
    vs, measured = judge(same, 0)
    assert np.all(np.array(measured["instances"]) == 0.0)
    assert vs[0].status == "inconclusive" and "unresolved" in vs[0].reason


def test_the_pair_measures_are_what_they_say():
    class T:
        def __init__(self, w_hat, w):
            self.meta, self.final_w = {"w_hat": w_hat}, np.asarray(w, dtype=float)

    a, b = T([1.0, 2.0], [3.0, 4.0]), T([0.0, 0.0], [0.0, 4.0])
    assert twin_measure(CLAIM, a, b) == 2.5
    assert twin_measure(dataclasses.replace(CLAIM, measure="w_distance_relative"), a, b) == 0.75


@pytest.mark.parametrize(("change", "rule"), [
    ({"twin": {"problem": ("quadratics", {})}}, "the twin runs on the same instance"),
    ({"twin": {}}, "a twin exactly with a measure of a pair"),
    ({"measure": "gap_avg"}, "a twin exactly with a measure of a pair"),
    ({"statistic": "mean"}, "a pair of runs gives one number"),
])
def test_a_twin_that_cannot_be_read_is_a_clean_error(change, rule):
    with pytest.raises(InvalidClaimError, match=rule):
        judge(dataclasses.replace(CLAIM, **change))


def test_a_twin_method_that_does_not_exist_or_a_twin_r_that_would_be_overwritten_is_refused():
    with pytest.raises(InvalidClaimError, match="twin method 'nosuch'"):
        judge(dataclasses.replace(CLAIM, twin={"method": "nosuch"}))
    with pytest.raises(InvalidClaimError, match="twin rounds with a sweep of rounds"):
        judge(dataclasses.replace(CLAIM, along=("rounds", (10, 20, 40, 80)), twin={"rounds": 5}))


def test_a_twin_that_ends_at_zero_reads_zero_or_infinity():
    class T:
        def __init__(self, w):
            self.meta, self.final_w = {"w_hat": w}, np.asarray(w, dtype=float)

    rel = dataclasses.replace(CLAIM, measure="w_distance_relative")
    assert twin_measure(rel, T([0.0, 0.0]), T([0.0, 0.0])) == 0.0
    assert twin_measure(rel, T([1.0, 0.0]), T([0.0, 0.0])) == np.inf


@pytest.mark.parametrize(("twin", "swept", "want"), [
    # the same method with hp of its own: it follows the sweep (η_s swept, the twin's own η_c)
    ({"hp": {"eta_c": 0.02, "local_steps": 2}}, ("eta_s", (0.5, 1.0, 2.0, 4.0)),
     {"eta_s": 2.0, "eta_c": 0.02}),
    # another method without the swept hp: it runs without it (PGM has no η_c)
    ({"method": "pgm", "hp": {"eta": 0.5, "local_steps": 2}}, ("eta_c", (0.01, 0.02, 0.04, 0.08)),
     {"eta": 0.5}),
])
def test_a_twin_takes_the_swept_hp_exactly_when_its_method_has_it(monkeypatch, twin, swept, want):
    from fcocheck.verify import claim_measure
    from fcocheck.verify.experiments import base

    seen = []
    monkeypatch.setattr(base, "runs", lambda method, q, hp, *a, **k: seen.append((method, hp)) or [])
    c = dataclasses.replace(CLAIM, along=swept, hp={"eta_c": 0.05, "eta_s": 1.0, "local_steps": 2},
                            twin=twin, oracle="exact")
    q, r = claim_measure.instances_at(c, 0)[0]
    claim_measure._twin_runs(c, swept[1][2], {}, q, r, 0, "round")
    (method, hp), = seen
    assert method == twin.get("method", "feddualavg") and {k: hp.get(k) for k in want} == want, hp
    assert twin.get("method") != "pgm" or "eta_c" not in hp
