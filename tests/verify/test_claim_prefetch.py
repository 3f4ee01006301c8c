"""A claim's runs batched across its instances give the measurement of its instances measured one by one.

``claim_measure.measure`` runs first, as few ``run_batch`` calls, every run its first draws will ask for
(``planned_runs``, ``verify.experiments.base.prefetch``) and holds them in the run memo; ``measured``
(instance by instance, as before) then recalls them.  Each test compares ``measure`` with ``measured``
from an empty memo, array by array (``np.array_equal``): several instances with noise repetitions, a
sweep of R with a step tuned to R, a start point per instance, a twin, draws replaced (``condition``,
``redraw``).  That the comparison can fail is shown with another study seed.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from fcocheck.verify import claim_measure
from fcocheck.verify.claim import Claim
from fcocheck.verify.claim_measure import Measurement, first_seeds, measure, measured, planned_runs
from fcocheck.verify.experiments import base

CLASS = ("quadratics", {"d": 8, "clients": 4, "mu": 0.2, "zeta": 1.0, "lam": 0.01})
HP = {"eta_c": 0.05, "local_steps": 2}

#: several instances, three noise repetitions each, a sweep of the step (one R: within an instance too)
REPEATS = Claim("prefetch-repeats", method="feddualavg", bound="eta_c", along=("eta_c", (0.02, 0.04, 0.08)),
                problem=CLASS, hp={"local_steps": 2}, oracle="gaussian:0.5", repeats=3, seeds=4, rounds=12,
                measure="gap", worst=False)
#: a sweep of R with a step tuned to R (no prefix run: each R its own runs, one R per batch)
ROUNDS = Claim("prefetch-rounds", method="feddualavg", bound="1/sqrt(R)", along=("rounds", (6, 12, 24)),
               problem=CLASS, hp={"eta_c": "0.2/sqrt(R)", "local_steps": 2}, oracle="gaussian:0.5", repeats=2,
               seeds=3, worst=False)
#: every run from the claim's own start point (each instance its own w0): runs outside ``_points_together``
START = dataclasses.replace(ROUNDS, name="prefetch-start", start=0.5)
#: P = 2 of the 4 clients each round (each run its own S_r): prefetched and batched like the others
PARTICIPATION = dataclasses.replace(REPEATS, name="prefetch-participation", participation=2)
#: per-step records (a step statistic): run ahead as batches too, each held apart until its one recall
STEPS = dataclasses.replace(REPEATS, name="prefetch-steps", measure="discrepancy_steps",
                            statistic="last_step_mean", bound="eta_c**2")
#: a sweep of the class's clients (each point its own instance) read off every run and its exact twin
TWIN = Claim("prefetch-twin", method="feddualavg", bound="1/M", along=("problem.clients", (2, 4)),
             problem=("quadratics", {"d": 8, "zeta": 0.0, "lam": 0.01}), hp=HP, oracle="gaussian:1.0",
             twin={"oracle": "exact"}, measure="w_hat_distance_sq", rounds=10, seeds=3, worst=False)


def _not_instance_one(p: Any, ref: Any) -> str | None:
    """A condition instance 1 lacks (its draw is replaced: ``draw_instances``)."""
    return "instance 1" if p.meta["seed"] == 1 else None


#: a draw replaced for lacking the condition: its replacement measured after the prefetch, as before
CONDITION = dataclasses.replace(REPEATS, name="prefetch-condition", seeds=3, condition=_not_instance_one,
                                redraw=2)


def one_by_one(c: Claim, seed: int, instances: list[int] | None = None) -> Measurement:
    """The measurement instance by instance from fresh runs (no prefetch: what ``measure`` was)."""
    base._MEMO.clear()
    return measured(c, seed, instances)


def batched(c: Claim, seed: int, instances: list[int] | None = None) -> Measurement:
    """The measurement with its runs batched across its instances, from fresh runs."""
    base._MEMO.clear()
    return measure(c, seed, instances)


def assert_same(a: Measurement, b: Measurement) -> None:
    """Every array of the two measurements equal bit for bit, every other field equal."""
    for name in ("G", "floor", "bound", "residual"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert (a.B, a.seeds, a.skipped, a.random, a.lacking) == (b.B, b.seeds, b.skipped, b.random, b.lacking)


@pytest.mark.parametrize("claim", [REPEATS, ROUNDS, START, TWIN, PARTICIPATION, STEPS], ids=lambda c: c.name)
def test_batched_across_instances_is_instance_by_instance(claim):
    assert_same(batched(claim, 2), one_by_one(claim, 2))


@pytest.mark.parametrize("claim", [REPEATS, ROUNDS, START, TWIN, PARTICIPATION, STEPS], ids=lambda c: c.name)
def test_the_instances_ask_for_no_run_the_prefetch_did_not_run(claim, monkeypatch):
    """``planned_runs`` lists what ``measure_instance`` asks for: after the prefetch no run is fresh, and
    the prefetch ran every instance's runs in one ``run_batch`` per (method, R, oracle)."""
    calls: list[int] = []
    real = base.run_batch
    monkeypatch.setattr(base, "run_batch", lambda *a, **k: calls.append(len(a[1])) or real(*a, **k))
    seeds = first_seeds(claim, 0)
    planned = [r for s in seeds for r in planned_runs(claim, s)]
    with base.holding(len(planned)):
        assert base.prefetch(planned) == len(planned) == sum(calls)
        batches = {(r.algorithm, r.rounds, r.oracle) for r in planned}
        assert len(calls) == len(batches)
        claim_measure.measured(claim, 0)
    assert len(calls) == len(batches)  # nothing run after the prefetch
    assert len(base._MEMO) <= base.MEMO  # held for the claim only


def test_a_draw_replaced_for_its_condition_is_measured_as_before():
    m = batched(CONDITION, 0)
    assert m.skipped == [1] and m.seeds[0] == 0 and m.seeds[2] == 2 and m.lacking
    assert first_seeds(CONDITION, 0) == [0, 2]  # the draw that lacks it is not prefetched
    assert_same(m, one_by_one(CONDITION, 0))


def test_a_draw_replaced_as_unresolved_is_measured_as_before(monkeypatch):
    """``redraw``: instance 1 (prefetched, then rejected as unresolved) is replaced by a fresh draw."""
    real = claim_measure.measure_instance

    def unresolved_one(c, s, plan=None):  # noqa: ANN001, ANN202
        row = real(c, s, plan)
        return row._replace(G=np.zeros_like(row.G)) if s == 1 else row

    monkeypatch.setattr(claim_measure, "measure_instance", unresolved_one)
    c = dataclasses.replace(REPEATS, name="prefetch-redraw", seeds=3, redraw=1)
    m = batched(c, 0)
    assert m.skipped == [1] and len(m.seeds) == 3
    assert_same(m, one_by_one(c, 0))


def test_a_control_on_the_claims_instances_is_measured_as_before():
    """``measure(variant, seed, seeds)``: a control's instances are given, not drawn."""
    variant = dataclasses.replace(REPEATS, hp={"local_steps": 3})
    assert_same(batched(variant, 0, [4, 6]), one_by_one(variant, 0, [4, 6]))


def test_the_comparison_can_fail():
    """Another study seed draws other instances: other bits, which ``assert_same`` tells apart."""
    with pytest.raises(AssertionError):
        assert_same(batched(REPEATS, 2), one_by_one(REPEATS, 3))
    with pytest.raises(AssertionError):  # one noise repetition fewer: another array
        assert_same(batched(dataclasses.replace(REPEATS, repeats=2), 2), one_by_one(REPEATS, 2))


def test_runs_the_batched_round_does_not_cover_are_left_to_the_instances():
    """A method ``run_batch`` runs alone (SCAFFOLD: a client memory), an unknown one, an engine option it does
    not take: nothing to gain ahead of the instances, so nothing is run ahead."""
    planned = planned_runs(REPEATS, 0)
    assert base.prefetch([r._replace(algorithm="scaffold") for r in planned]) == 0
    assert base.prefetch([r._replace(algorithm="no-such-method") for r in planned]) == 0
    assert base.prefetch([r._replace(kw={"gradient": "loop"}) for r in planned]) == 0
    assert not base._MEMO
    assert base.prefetch(planned) == len(planned)  # the check can fail: these are run


#: ``statistic="limit"``: each point's first per-step run prefetched across the instances (``_ONCE``)
LIMIT_CLASS = ("quadratics", {"d": 6, "clients": 4, "zeta": 1.0, "hessian_spread": 0.5, "ball": 3.0})
LIMIT = Claim("prefetch-limit", method="feddualavg", bound="zeta**2",
              along=("problem.zeta", (0.25, 0.5, 1.0)), problem=LIMIT_CLASS,
              hp={"eta_c": "1/(4*L_clients)", "local_steps": 3}, constants_over="sweep", rounds=16,
              statistic="limit", seeds=3, worst=False)


def test_limits_batched_across_instances_are_instance_by_instance():
    assert_same(batched(LIMIT, 0), one_by_one(LIMIT, 0))


def test_a_limits_first_runs_are_prefetched_once_and_none_is_kept(monkeypatch):
    """Each point's first limit run (per-step records) is run ahead in one batch, recalled once by its
    instance (no fresh run of that R after the prefetch) and not kept: ``_ONCE`` is empty after the claim."""
    calls: list[tuple[int, int, str]] = []
    real = base.run_batch

    def counting(*a, **k):  # noqa: ANN002, ANN003, ANN202
        calls.append((len(a[1]), a[3], k.get("record", "round")))
        return real(*a, **k)

    monkeypatch.setattr(base, "run_batch", counting)
    fresh: list[int] = []
    real_run = base.run
    monkeypatch.setattr(base, "run", lambda *a, **k: fresh.append(k["rounds"]) or real_run(*a, **k))
    base._MEMO.clear()
    planned = [r for s in first_seeds(LIMIT, 0) for r in planned_runs(LIMIT, s)]
    assert len(planned) == 9 and {r.record for r in planned} == {"step"}
    measure(LIMIT, 0)
    assert calls == [(9, 16, "step")]
    assert LIMIT.rounds not in fresh  # the doublings (2R, 4R), if any, run as they are asked for
    assert not base._ONCE and not base._MEMO


def test_per_step_runs_run_ahead_and_never_asked_for_are_dropped():
    planned = [r for s in first_seeds(LIMIT, 0) for r in planned_runs(LIMIT, s)]
    with base.holding(len(planned)):
        assert base.prefetch(planned) == len(planned) == len(base._ONCE)
        assert base.prefetch(planned) == 0  # run ahead already
    assert not base._ONCE
