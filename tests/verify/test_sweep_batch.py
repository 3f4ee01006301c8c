"""A sweep executes FedDualAvg configurations as batches (``batching.batches``) and stores, run by run,
what executing each alone stores: the same rows, the same metrics bit for bit, diverged runs included."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from fcocheck.solvers.engine import batch as engine_batch
from fcocheck.verify.sweep import Store, grid, run_sweep, task
from fcocheck.verify.sweep.batching import batches
from fcocheck.verify.sweep.executors import Serial
from fcocheck.verify.sweep.task import execute
from fcocheck.verify.sweep.version import code_version

BASE = {
    "algorithm": "feddualavg",
    "problem": {"generator": "quadratics", "params": {"clients": 4, "d": 6, "zeta": 4.0}},
    "hp": {"eta_c": 0.1, "local_steps": 2},
    "rounds": 15,
}


def configs():
    """Three instance draws × two steps (the larger diverges) × two oracles × every client or 2 of the 4 each
    round × two seeds, for FedDualAvg, FedAvgM (server momentum: batched) and SCAFFOLD (a client memory:
    alone)."""
    return grid(BASE, {"problem.seed": [0, 1, 2], "hp.eta_c": [0.1, 9.0], "oracle": ["exact", "gaussian:0.3"],
                       "participation": [None, 2], "algorithm": ["feddualavg", "fedavgm", "scaffold"]},
                seeds=[0, 1])


def rows(path: Path) -> dict[str, tuple]:
    """key → (status, error, rounds_done, diverged_at, metrics as bytes): everything but timings."""
    with Store(path) as st:
        return {r["key"]: (r["status"], r["error"], r["rounds_done"], r["diverged_at"],
                           {k: v.tobytes() for k, v in st.metrics(r["id"]).items()}) for r in st.runs()}


def test_feddualavg_configurations_are_grouped_the_others_alone():
    cfgs = configs()
    cut = batches(cfgs)
    for name in ("feddualavg", "fedavgm"):  # per (oracle, P): 3 instances × 2 steps × 2 seeds
        assert sorted(len(g) for g in cut if g[0].algorithm == name) == [12] * 4
    dual = [g for g in cut if g[0].algorithm == "feddualavg"]
    assert all(len(g) == 1 for g in cut if g[0].algorithm == "scaffold")
    assert sorted(c.key for g in cut for c in g) == sorted(c.key for c in cfgs)
    assert max(len(g) for g in batches(cfgs, workers=4)) == 3  # a pool's workers share a group
    sampled = [g for g in dual if g[0].participation == 2]
    assert len(sampled) == 2 and all(c.participation == 2 for g in sampled for c in g)
    minibatch = grid({**BASE, "oracle": "minibatch:2", "problem": {"generator": "ridge", "params": {}}},
                     {"problem.seed": [0, 1]}, seeds=[0, 1])
    assert [len(g) for g in batches(minibatch)] == [4]  # minibatch runs batch too
    steps = grid(BASE, {"hp.local_steps": [1, 2], "hp.eta_c": [0.1, 0.2]}, seeds=[0])  # K: in ``batch_key``
    assert sorted([c.hp["local_steps"] for c in g] for g in batches(steps)) == [[1, 1], [2, 2]]


def test_a_batched_sweep_stores_what_each_run_alone_stores(tmp_path):
    cfgs = configs()
    with Store(tmp_path / "batched.sqlite") as st:
        summary = run_sweep(cfgs, st, Serial(), progress=False)
    assert summary.executed["diverged"] > 0 and summary.executed["completed"] > 0
    with Store(tmp_path / "alone.sqlite") as st:
        for c in cfgs:
            assert st.put(execute(c), code_version())
    assert rows(tmp_path / "batched.sqlite") == rows(tmp_path / "alone.sqlite")


def test_a_batched_minibatch_sweep_stores_what_each_run_alone_stores(tmp_path, monkeypatch):
    """FedDualAvg with minibatch:2 on ridge clients: three draws × two steps × two seeds in one batch."""
    ridge = {"generator": "ridge", "params": {"clients": 4}}
    cfgs = grid({**BASE, "oracle": "minibatch:2", "problem": ridge},
                {"problem.seed": [0, 1, 2], "hp.eta_c": [0.01, 0.02]}, seeds=[0, 1])
    assert [len(g) for g in batches(cfgs)] == [12]
    with monkeypatch.context() as m, Store(tmp_path / "batched.sqlite") as st:
        m.setattr(task, "execute", lambda *a: pytest.fail("the batch fell back to runs alone"))
        m.setattr(engine_batch, "run", lambda *a, **k: pytest.fail("run_batch ran a run alone"))
        summary = run_sweep(cfgs, st, Serial(), progress=False)
    assert summary.executed["completed"] == 12
    with Store(tmp_path / "alone.sqlite") as st:
        for c in cfgs:
            assert st.put(execute(c), code_version())
    assert rows(tmp_path / "batched.sqlite") == rows(tmp_path / "alone.sqlite")


#: FedDualAvg on ridge clients with the exact oracle: ``batches`` groups them (same generator, R, oracle), but
#: each run alone takes the compiled client-major pass, so ``run_batch`` batches none of them
RIDGE = grid({**BASE, "problem": {"generator": "ridge", "params": {"clients": 4}}, "rounds": 5},
             {"hp.eta_c": [0.01, 0.02, 0.03]}, seeds=[0, 1])


class Recording(Serial):
    """The serial executor, noting the configurations of every item it executes."""

    def __init__(self) -> None:
        self.items: list[list[str]] = []

    def imap(self, fn, items, on_crash=None):
        for item in items:
            self.items.append([c.key for c in item])
            yield item, fn(item)


def test_runs_no_batch_takes_are_executed_each_as_its_own_item(tmp_path):
    """Grouped by the sweep, refused by ``run_batch``: handed back, then one item each, right after their
    batch (a pool's workers share them; each is stored as soon as it finishes); the quadratics' group stays
    one item."""
    quad = grid({**BASE, "rounds": 5}, {"hp.eta_c": [0.1, 0.2]}, seeds=[0, 1])
    assert [len(g) for g in batches(RIDGE + quad)] == [6, 4]
    ex = Recording()
    with Store(tmp_path / "s.sqlite") as st:
        summary = run_sweep(RIDGE + quad, st, ex, progress=False)
    assert summary.executed["completed"] == 10
    assert ex.items == [[c.key for c in RIDGE], *[[c.key] for c in RIDGE], [c.key for c in quad]]
    with Store(tmp_path / "alone.sqlite") as st:
        for c in RIDGE + quad:
            assert st.put(execute(c), code_version())
    assert rows(tmp_path / "s.sqlite") == rows(tmp_path / "alone.sqlite")


def test_a_batch_the_instances_split_runs_its_first_group_and_hands_back_the_rest(tmp_path, monkeypatch):
    """A sweep batch holding two ``run_batch`` groups (a grouping forced wrong: K = 1 and K = 2 together):
    the item computes the first group only, the other group's runs come back and run one by one, and every
    run stores what it stores alone."""
    from fcocheck.verify.sweep import runner

    cfgs = grid({**BASE, "rounds": 5}, {"hp.local_steps": [1, 2], "hp.eta_c": [0.1, 0.2]}, seeds=[0])
    monkeypatch.setattr(runner, "batches", lambda todo, workers: [list(todo)])
    ex = Recording()
    with Store(tmp_path / "s.sqlite") as st:
        assert run_sweep(cfgs, st, ex, progress=False).executed["completed"] == 4
    second = [c.key for c in cfgs if c.hp["local_steps"] == 2]
    assert ex.items == [[c.key for c in cfgs], *[[k] for k in second]]
    with Store(tmp_path / "alone.sqlite") as st:
        for c in cfgs:
            assert st.put(execute(c), code_version())
    assert rows(tmp_path / "s.sqlite") == rows(tmp_path / "alone.sqlite")


def test_a_refused_batch_solves_each_reference_once(tmp_path, monkeypatch):
    """Twenty instances a batch refuses (more than the per-process cache of 16): each reference is solved
    once — the handed-back runs follow their batch while the cache still holds their instances."""
    from fcocheck.solvers import reference

    task._instance.cache_clear()
    solved = []
    real = reference.reference_solve
    monkeypatch.setattr(reference, "reference_solve", lambda p, *a, **k: solved.append(1) or real(p, *a, **k))
    cfgs = grid({**BASE, "problem": {"generator": "ridge", "params": {"clients": 4}}, "rounds": 2},
                {"problem.seed": list(range(20))}, seeds=[0])
    with Store(tmp_path / "s.sqlite") as st:
        assert run_sweep(cfgs, st, Serial(), progress=False).executed["completed"] == 20
    assert len(solved) == 20
    task._instance.cache_clear()


def test_ctrl_c_keeps_every_run_finished_before_it(tmp_path, monkeypatch):
    """Ctrl-C during the third run of a group ``run_batch`` refused: the two finished runs are stored, the
    sweep reports itself interrupted, and running it again executes only the other four (when the batch ran
    its refused runs one after another inside one item, the Ctrl-C took the finished two down with it)."""
    engine_run = importlib.import_module("fcocheck.solvers.engine.run")  # the module (the package: run)
    calls = []
    real = engine_run.run

    def cut_third(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    with monkeypatch.context() as m, Store(tmp_path / "s.sqlite") as st:
        m.setattr(engine_run, "run", cut_third)
        m.setattr(engine_batch, "run", cut_third)
        summary = run_sweep(RIDGE, st, Serial(), progress=False)
    assert summary.interrupted and summary.executed["completed"] == 2
    with Store(tmp_path / "s.sqlite") as st:
        assert st.done(code_version()) == {c.key for c in RIDGE[:2]}
        again = run_sweep(RIDGE, st, Serial(), progress=False)
    assert again.reused == 2 and again.executed["completed"] == 4 and not again.interrupted
