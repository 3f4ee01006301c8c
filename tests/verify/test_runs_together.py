"""The experiments' ``runs`` / ``runs_together`` batch their runs (``run_batch``) and return, and record
inside ``collect``, what running each alone returns and records (wall times aside)."""

from __future__ import annotations

import numpy as np

from fcocheck.solvers.engine.run import run
from fcocheck.verify.experiments.base import collect, runs, runs_together
from fcocheck.verify.experiments.instances import drift_quadratics


def same(a, b) -> bool:
    """Every array equal bit for bit, every meta entry but the wall time equal."""
    meta_a, meta_b = ({k: v for k, v in t.meta.items() if k != "seconds"} for t in (a, b))
    return set(a.arrays) == set(b.arrays) and meta_a == meta_b and all(
        np.array_equal(a.arrays[k], b.arrays[k], equal_nan=True) for k in a.arrays)


def test_several_seeds_and_points_give_the_runs_alone():
    (p, ref), (q, qref) = drift_quadratics(8.0, seed=0), drift_quadratics(8.0, seed=1)
    hp, hq = {"eta_c": 0.05, "local_steps": 3}, {"eta_c": 0.02, "local_steps": 3}
    with collect() as sink:
        got = runs("feddualavg", p, hp, 10, "gaussian:1.0", [0, 1, 2], ref)
        pts = runs_together("feddualavg", [(p, hp, [5], ref), (q, hq, [6, 7], qref)], 10, "exact")
    want = [run("feddualavg", p, hp, 10, "gaussian:1.0", seed=s, reference=ref) for s in (0, 1, 2)]
    assert all(same(a, b) for a, b in zip(got, want, strict=True))
    assert len({t.meta["seconds"] for t in got}) == 1  # one batch: its wall time shared equally
    assert [len(x) for x in pts] == [1, 2]
    assert same(pts[0][0], run("feddualavg", p, hp, 10, seed=5, reference=ref))
    alone_q = [run("feddualavg", q, hq, 10, seed=s, reference=qref) for s in (6, 7)]
    assert all(same(t, u) for t, u in zip(pts[1], alone_q, strict=True))
    assert [(r["seed"], r["oracle"]) for r in sink] == [(0, "gaussian:1.0"), (1, "gaussian:1.0"),
                                                        (2, "gaussian:1.0"), (5, "exact"), (6, "exact"),
                                                        (7, "exact")]
    assert sink[1]["curves"]["gap"] == want[1]["gap"].tolist()


def test_a_start_point_is_passed_and_recorded():
    p, ref = drift_quadratics(8.0, seed=2)
    hp, w0 = {"eta_c": 0.05, "local_steps": 2}, ref.w + 0.25
    with collect() as sink:
        got = runs("feddualavg", p, hp, 8, "gaussian:1.0", [3, 4], ref, w0=w0, participation=None)
    want = [run("feddualavg", p, hp, 8, "gaussian:1.0", seed=s, reference=ref, w0=w0) for s in (3, 4)]
    assert all(same(a, b) for a, b in zip(got, want, strict=True))
    assert [(r["w0"], r["participation"]) for r in sink] == [(w0.tolist(), None)] * 2
    assert len({t.meta["seconds"] for t in got}) == 1  # batched (Thm 4.1's speed-up study calls it so)
