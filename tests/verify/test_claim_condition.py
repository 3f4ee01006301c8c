"""A claim's class condition, a round budget tuned to each point, and a pair's gap ratio (the curse study).

The curse of primal averaging speaks only of instances whose clients cross λ off the optimum's support:
drawn instances without it are replaced from the study seed's own stream, and a class (or a user's
instance) without it does not apply.  Its runs must reach their floors: R = ⌈8/(μη_cK)⌉ is an expression
of the point.  FedDualAvg's floor is compared with FedMiD-avg's on the same instance: a twin's gap ratio.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from fcocheck.verify import claim_judge, claim_measure
from fcocheck.verify.claim import Claim, InvalidClaimError
from fcocheck.verify.claim_check import check
from fcocheck.verify.claim_expr import point
from fcocheck.verify.experiments.base import REPLACEMENT_BASE
from fcocheck.verify.paper_claims import fco_curse_rate as curse

#: FedDualAvg's floor over FedMiD-avg's on the same instance, each run beside its twin (a pair's measure)
DUAL = Claim("dual-below", method="feddualavg", bound=1e-3, sense="=", along=curse.ETA_C,
             hp={"eta_s": 1.0, "local_steps": 4}, rounds="ceiling(24/(mu*eta_c*K))", twin=curse.MID,
             measure="gap_ratio", **curse.SHARED)


def _fake_row(c, s, plan=None):  # noqa: ANN001, ANN202 - no runs: the draw is what is tested
    P = len(c.along[1])
    return claim_measure._Row(np.full((1, P), 1e-5), np.zeros(P), np.ones(P), 1.0, np.zeros(P), False)


def test_instances_without_the_condition_are_replaced_from_the_seeds_own_stream(monkeypatch):
    """Instance 7 of the class has no client crossing λ off the support (margin ≤ 0): it is replaced by a
    draw from study seed 7's stream — not by instance 8, which slot 1 draws anyway — and reported."""
    law = curse.GROUP.claims[0]
    p7, r7 = claim_measure.instances_at(law, 7)[0]
    assert curse.curse_margin(p7, r7) <= 0 and "crosses λ" in curse.crosses_lambda(p7, r7)
    assert curse.crosses_lambda(*claim_measure.instances_at(law, 8)[0]) is None
    monkeypatch.setattr(claim_measure, "measure_instance", _fake_row)
    m = claim_measure.measure(law, 7)
    assert m.skipped == [7] and m.seeds[1:] == list(range(8, 7 + law.seeds)), m.seeds
    assert m.seeds[0] == REPLACEMENT_BASE + (law.redraw + 1) * 7  # the stream's first: base + cap·seed
    assert "instance 7: no client's gradient at w* crosses λ" in m.lacking[0]
    without = dataclasses.replace(law, condition=None)  # the check can fail: without it, 7 is kept
    assert claim_measure.measure(without, 7).seeds == list(range(7, 7 + law.seeds))


def test_a_class_or_an_instance_without_the_condition_does_not_apply(monkeypatch):
    """Not 'inconclusive': the verdict says the claim does not apply, and names what was lacking."""
    monkeypatch.setattr(claim_measure, "measure_instance", _fake_row)
    never = dataclasses.replace(DUAL, condition=lambda p, ref: "a margin it lacks", redraw=3)
    (v,), measured = claim_judge.judge(never, 0)
    assert v.status == "does not apply" and "a margin it lacks" in v.reason, v.reason
    assert "0 of 4 draws have it, 3 instances needed" in v.reason
    assert measured["skipped"] == v.evidence["skipped"]
    p7 = claim_measure.instances_at(curse.GROUP.claims[0], 7)[0]
    (v,), _ = claim_judge.judge(dataclasses.replace(curse.GROUP.claims[0], instance=p7), 0)
    assert v.status == "does not apply" and "the fixed instance lacks it" in v.reason, v.reason
    from fcocheck.verify.experiments import claim_experiment  # validate --problem's path: a line, no crash

    res = claim_experiment(curse.GROUP.claims[0], needs=lambda p, r: None).body(True, 0, p7)
    assert res.status == "does not apply" and "instance quadratics" in res.design
    assert "oracle seed" not in res.design
    p0 = claim_measure.instances_at(curse.GROUP.claims[0], 0)[0]  # one that has it is judged
    assert claim_measure.measure(dataclasses.replace(curse.GROUP.claims[0], instance=p0), 0).seeds == [0]


def test_draws_rejected_for_resolution_too_are_inconclusive_not_outside_the_claim(monkeypatch):
    """One draw lacks the condition, the others are unresolved: the class has the condition, so the
    verdict is inconclusive (resolution), counting both causes — never 'does not apply'."""
    law = dataclasses.replace(curse.GROUP.claims[0], redraw=3)
    monkeypatch.setattr(claim_measure, "lacks", lambda c, s: "a margin it lacks" if s == 0 else None)

    def unresolved(c, s, plan=None):  # noqa: ANN001, ANN202
        P = len(c.along[1])
        return claim_measure._Row(np.zeros((1, P)), np.full(P, 1e-12), np.ones(P), 1.0, np.zeros(P), False)

    monkeypatch.setattr(claim_measure, "measure_instance", unresolved)
    (v,), _ = claim_judge.judge(law, 0)
    assert v.status == "inconclusive" and "1 of them lacking the claim's condition" in v.reason, v.reason


def test_rounds_tuned_to_each_point_are_the_expressions_whole_value():
    law = curse.GROUP.claims[0]
    for v in law.along[1]:
        hp, rounds, ctx = point(law, v, {})
        assert rounds == int(np.ceil(8 / (0.1 * v * 4))) and ctx["R"] == rounds and "R" not in hp
    dual = DUAL
    assert point(dual, 0.02, {})[1] == 3000  # FedDualAvg: ⌈24/(μη_cK)⌉
    assert point(dataclasses.replace(dual, **dual.twin), 0.02, {})[1] == 1000  # its twin, FedMiD-avg
    # an hp may use R once R is known
    uses_r = dataclasses.replace(law, hp={**law.hp, "eta_s": "100/R"})
    assert point(uses_r, 0.02, {})[0]["eta_s"] == pytest.approx(0.1)
    with pytest.raises(InvalidClaimError, match=r"rounds '8/\(3\*mu\*eta_c\*K\)' = 333.33.* the rule is a "
                                                r"positive integer"):
        point(dataclasses.replace(law, rounds="8/(3*mu*eta_c*K)"), 0.02, {})
    for bad in (0, True, 2.5):
        with pytest.raises(InvalidClaimError, match="the rule is an integer ≥ 1, or an expression"):
            check(dataclasses.replace(law, rounds=bad))
    swept = dataclasses.replace(law, along=("rounds", (10, 20, 40, 80)), sense="≲", bound="1/R")
    with pytest.raises(InvalidClaimError, match="the rule is an integer ≥ 1, or an expression"):
        check(swept)  # a sweep of R has no R of its own to tune
    with pytest.raises(InvalidClaimError, match="condition 3; the rule is a function"):
        check(dataclasses.replace(law, condition=3))


class _T(dict):
    """A trace's metrics, as a twin measure reads them."""


@pytest.mark.parametrize("own,other,want", [(2e-9, 1e-4, 2e-5), (0.0, 1e-4, 0.0), (0.0, 0.0, 0.0),
                                            (1e-9, 0.0, float("inf")), (-1e-16, 1e-4, 0.0)])
def test_the_gap_ratio_of_a_run_and_its_twin(own, other, want):
    c = DUAL
    got = claim_measure.twin_measure(c, _T(gap=np.array([1.0, own])), _T(gap=np.array([1.0, other])))
    assert got == pytest.approx(want) if np.isfinite(want) else got == want


def test_a_groups_figure_draws_its_laws_or_else_its_first_claims_figure(monkeypatch):
    """The curse group's figure holds the two laws' series (an identity added keeps its bars); a group
    without a law (Thm 4.1's two bounds) shows its first claim's figure, not a merge of other axes."""
    from fcocheck.rates.verdict import CONSISTENT, Verdict
    from fcocheck.verify import claim_text
    from fcocheck.verify.paper_claims import fco_4_1_speedup as speedup

    def fake_plot(c, measured):  # noqa: ANN001, ANN202
        kind = {"Θ": "slope", "=": "bars", "≲": "bound"}[c.sense]
        return {"kind": kind, "xlabel": c.along[0], "ylabel": "y", "series": [{"label": c.name}]}

    monkeypatch.setattr(claim_judge, "judge", lambda c, seed, quick: ([Verdict(CONSISTENT, "r", "ok")], {}))
    monkeypatch.setattr(claim_text, "plot", fake_plot)
    _, measured = curse.GROUP.judge(0)
    labels = [s["label"] for s in measured["plot"]["series"]]
    assert labels == ["fco-curse-rate-eta-c (η_cK along η_c)", "fco-curse-rate-K (η_cK along K)"]
    with_identity = dataclasses.replace(curse.GROUP, claims=(*curse.GROUP.claims, DUAL))
    _, measured = with_identity.judge(0)  # an identity's bars are not merged into the laws' axes
    assert [s["label"] for s in measured["plot"]["series"]] == labels
    assert measured["plot"]["xlabel"] == "eta_c or local_steps"
    _, measured = speedup.GROUP.judge(0)
    assert measured["plot"]["kind"] == "bound"
    assert measured["plot"]["series"] == [{"label": "fco-4.1-speedup-M"}]


def test_a_start_at_distance_rho_and_a_participation_reach_every_run():
    """``start`` = ρ puts w₀ at distance ρ from each instance's w* along the seed's own direction (the
    same along the sweep, another at another seed); ``participation`` goes to the engine."""
    from fcocheck.verify.paper_claims import fco_4_1_speedup as speedup

    c = speedup.GROUP.claims[0]
    (p1, r1), (p2, r2) = claim_measure.instances_at(c, 0)[:2]
    o1, o2 = claim_measure.run_options(c, p1, r1, 0), claim_measure.run_options(c, p2, r2, 0)
    assert np.linalg.norm(o1["w0"] - r1.w) == pytest.approx(1.0) and "participation" not in o1
    assert np.allclose(o1["w0"] - r1.w, o2["w0"] - r2.w)  # one direction per instance seed
    assert not np.allclose(claim_measure.run_options(c, p1, r1, 1)["w0"] - r1.w, o1["w0"] - r1.w)
    control = dataclasses.replace(c, **c.controls["one client per round"])
    assert claim_measure.run_options(control, p2, r2, 0)["participation"] == 1
    for bad, rule in (({"participation": 0}, "participation = 0; the rule is an integer ≥ 1"),
                      ({"start": -1.0}, "start = -1.0; the rule is a distance ρ > 0"),
                      ({"start": float("inf")}, "start = inf; the rule is a distance ρ > 0")):
        with pytest.raises(InvalidClaimError, match=rule):
            check(dataclasses.replace(c, **bad))


def test_a_twins_rounds_follow_the_rules_and_its_names_are_measured():
    """A twin's R is checked like the claim's, and an instance constant its expressions name is measured."""
    from fcocheck.verify.claim_expr import bound_varies, own_constants

    dual = DUAL
    for bad in (0, 2.5, True):
        with pytest.raises(InvalidClaimError, match=f"twin rounds = {bad!r}; the rule is an integer ≥ 1"):
            check(dataclasses.replace(dual, twin={**dual.twin, "rounds": bad}))
    named = dataclasses.replace(dual, twin={**dual.twin, "rounds": "ceiling(8/(mu*eta_c*K*L))"})
    assert own_constants(named) == {"L"}
    # a bound the same on every instance although R names the instance's μ: no repetitions asked
    law = dataclasses.replace(curse.GROUP.claims[0], constants={}, oracle="gaussian:0.1", sense="≲",
                              bound="eta_c*K")
    assert own_constants(law) == {"mu"} and not bound_varies(law)
    check(law)
    r_bound = dataclasses.replace(law, bound="eta_c*K/R")  # through R, it varies: repeats ≥ 2
    assert bound_varies(r_bound)
    with pytest.raises(InvalidClaimError, match=r"a bound that varies with the instance's \['mu'\]"):
        check(r_bound)
