"""A configuration run twice in one process is run once: the same trace, and the bits of a fresh run."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from fcocheck.verify.experiments import base
from fcocheck.verify.experiments.instances import drawn


def test_a_repeated_configuration_is_the_memo_and_its_bits_are_a_fresh_runs(monkeypatch):
    p, ref = drawn("quadratics", 3, None, d=10, clients=4)
    hp = {"eta_c": 0.1, "local_steps": 2}
    monkeypatch.setattr(base, "_MEMO", base.OrderedDict())
    (first,) = base.runs("feddualavg", p, hp, 30, "gaussian:0.1", [5], ref)
    (again,) = base.runs("feddualavg", p, dict(reversed(list(hp.items()))), 30, "gaussian:0.1", [5], ref)
    assert again is first  # the hp's order is not part of the configuration
    base._MEMO.clear()
    (fresh,) = base.runs("feddualavg", p, hp, 30, "gaussian:0.1", [5], ref)
    assert fresh is not first and np.array_equal(fresh["gap"], first["gap"])
    # the check can fail: one ulp of a step, another seed, another R, a start point are other runs
    ulp = {**hp, "eta_c": np.nextafter(0.1, 1.0)}
    assert base.runs("feddualavg", p, ulp, 30, "gaussian:0.1", [5], ref)[0] is not fresh
    assert base.runs("feddualavg", p, hp, 30, "gaussian:0.1", [6], ref)[0] is not fresh
    assert base.runs("feddualavg", p, hp, 31, "gaussian:0.1", [5], ref)[0] is not fresh
    w0 = np.zeros(p.dim)
    one = base.runs("feddualavg", p, hp, 30, "gaussian:0.1", [5], ref, w0=w0)[0]
    assert one is not fresh
    # a start point is keyed by its bits: the same bits (another array) are the run, one ulp off is not
    assert base.runs("feddualavg", p, hp, 30, "gaussian:0.1", [5], ref, w0=w0.copy())[0] is one
    w1 = w0.copy()
    w1[3] = np.nextafter(0.0, 1.0)
    assert base.runs("feddualavg", p, hp, 30, "gaussian:0.1", [5], ref, w0=w1)[0] is not one
    assert len(base._MEMO) <= base.MEMO


def test_the_memo_keeps_the_most_recent_runs_only(monkeypatch):
    p, ref = drawn("quadratics", 3, None, d=10, clients=4)
    monkeypatch.setattr(base, "_MEMO", base.OrderedDict())
    monkeypatch.setattr(base, "MEMO", 2)
    a = base.runs("feddualavg", p, {"eta_c": 0.1}, 5, "exact", [1], ref)[0]
    base.runs("feddualavg", p, {"eta_c": 0.2}, 5, "exact", [1], ref)
    assert base.runs("feddualavg", p, {"eta_c": 0.1}, 5, "exact", [1], ref)[0] is a  # used again: kept
    base.runs("feddualavg", p, {"eta_c": 0.3}, 5, "exact", [1], ref)  # evicts 0.2, the least recent
    assert len(base._MEMO) == 2
    assert base.runs("feddualavg", p, {"eta_c": 0.1}, 5, "exact", [1], ref)[0] is a


def test_a_card_registered_again_under_its_name_is_another_run(monkeypatch):
    """The memo keys the method by its registry object: a new card under an old name is run, not recalled."""
    from fcocheck.solvers import algorithms
    from fcocheck.solvers.methods.fedavgm import CARD

    p, ref = drawn("quadratics", 3, None, d=10, clients=4)
    hp = {"eta_c": 0.1, "local_steps": 2, "beta": 0.5}
    first_card = dataclasses.replace(CARD, name="memo-mine")
    algorithms.register_card(first_card)
    try:
        a = base.runs("memo-mine", p, hp, 5, "exact", [1], ref)[0]
        assert base.runs("memo-mine", p, hp, 5, "exact", [1], ref)[0] is a
        algorithms.unregister("memo-mine")
        algorithms.register_card(dataclasses.replace(CARD, name="memo-mine"))
        assert base.runs("memo-mine", p, hp, 5, "exact", [1], ref)[0] is not a
    finally:
        algorithms.unregister("memo-mine")


def test_a_run_cut_by_ctrl_c_is_an_interrupt_not_a_result(monkeypatch):
    """The engine ends a run on Ctrl-C with status ``interrupted``: ``runs`` raises it on, keeps nothing."""
    from fcocheck.solvers.engine.trace import INTERRUPTED

    p, ref = drawn("quadratics", 3, None, d=10, clients=4)
    real = base.run

    def cut(*args, **kw):  # noqa: ANN002, ANN003, ANN202
        t = real(*args, **kw)
        t.meta["status"] = INTERRUPTED
        return t

    monkeypatch.setattr(base, "run", cut)
    with pytest.raises(KeyboardInterrupt):
        base.runs("feddualavg", p, {"eta_c": 0.1}, 5, "exact", [1], ref)
    assert not base._MEMO
    monkeypatch.setattr(base, "run", real)  # the check can fail: a completed run is kept
    base.runs("feddualavg", p, {"eta_c": 0.1}, 5, "exact", [1], ref)
    assert len(base._MEMO) == 1


def test_per_step_records_are_not_kept():
    p, ref = drawn("quadratics", 3, None, d=10, clients=4)
    a = base.runs("feddualavg", p, {"eta_c": 0.1}, 5, "exact", [1], ref, record="step")[0]
    assert base.runs("feddualavg", p, {"eta_c": 0.1}, 5, "exact", [1], ref, record="step")[0] is not a


def test_several_seeds_run_together_and_are_kept_one_by_one(monkeypatch):
    """A multi-seed call is one ``run_batch`` of the runs not kept; each run is kept on its own key."""
    p, ref = drawn("quadratics", 3, None, d=10, clients=4)
    hp = {"eta_c": 0.1, "local_steps": 2}
    (one,) = base.runs("feddualavg", p, hp, 20, "exact", [1], ref)
    calls = []
    real = base.run_batch
    monkeypatch.setattr(base, "run_batch", lambda *a, **k: calls.append(a[4]) or real(*a, **k))
    both = base.runs("feddualavg", p, hp, 20, "exact", [1, 2], ref)
    assert both[0] is one and calls == [[2]]  # seed 1 recalled, seed 2 batched
    assert base.runs("feddualavg", p, hp, 20, "exact", [1, 2], ref) == both and calls == [[2]]
    base._MEMO.clear()
    fresh = base.runs("feddualavg", p, hp, 20, "exact", [1, 2], ref)
    assert all(np.array_equal(a["gap"], b["gap"]) for a, b in zip(fresh, both, strict=True))


def test_a_batched_run_cut_by_ctrl_c_is_an_interrupt(monkeypatch):
    from fcocheck.solvers.engine.trace import INTERRUPTED

    p, ref = drawn("quadratics", 3, None, d=10, clients=4)
    real = base.run_batch

    def cut(*args, **kw):  # noqa: ANN002, ANN003, ANN202
        out = real(*args, **kw)
        out[-1].meta["status"] = INTERRUPTED
        return out

    monkeypatch.setattr(base, "run_batch", cut)
    with pytest.raises(KeyboardInterrupt):
        base.runs("feddualavg", p, {"eta_c": 0.1}, 5, "exact", [1, 2], ref)
