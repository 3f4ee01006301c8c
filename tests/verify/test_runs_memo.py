"""A configuration run twice in one process is run once: the same trace, and the bits of a fresh run."""

from __future__ import annotations

import numpy as np

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
    assert base.runs("feddualavg", p, hp, 30, "gaussian:0.1", [5], ref, w0=w0)[0] is not one  # arrays: no
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
