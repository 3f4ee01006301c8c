"""Sweeps: keys, the store's atomicity and refusals, resumption after SIGKILL, executors agree bit for bit."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from fcocheck.verify.sweep import ProblemSpec, RunConfig, Store, StoreError, grid, run_sweep
from fcocheck.verify.sweep.config import InvalidSweepError
from fcocheck.verify.sweep.executors import Dask, Pool, Serial
from fcocheck.verify.sweep.task import execute

BASE = {
    "algorithm": "fedavg",
    "problem": {"generator": "quadratics", "params": {"clients": 4, "d": 6}},
    "hp": {"eta_c": 0.1, "local_steps": 2},
    "rounds": 15,
    "oracle": "gaussian:0.3",
}


def small_grid() -> list[RunConfig]:
    # three algorithms × two steps × two seeds; eta 50 diverges, scaffold has no eta_c (an error)
    return grid(
        BASE, {"algorithm": ["fedavg", "feddualavg", "scaffold"], "hp.eta_c": [0.1, 50.0]}, seeds=[0, 1]
    )


def contents(path: Path) -> dict[str, tuple]:
    """key → (status, error, rounds_done, diverged_at, metrics) — everything but timings."""
    with Store(path) as st:
        return {
            r["key"]: (
                r["status"],
                r["error"],
                r["rounds_done"],
                r["diverged_at"],
                {k: v.tobytes() for k, v in st.metrics(r["id"]).items()},
            )
            for r in st.runs()
        }


def test_key_is_canonical_and_covers_every_field():
    a = RunConfig.from_dict({**BASE, "hp": {"local_steps": 2, "eta_c": 0.1}})
    b = RunConfig.from_dict(json.loads(json.dumps(BASE)))
    assert a.key == b.key and len(a.key) == 64
    for change in (
        {"seed": 1},
        {"rounds": 16},
        {"oracle": "exact"},
        {"hp": {"eta_c": 0.1000000001, "local_steps": 2}},
        {"problem": {"generator": "quadratics", "params": {"clients": 5, "d": 6}}},
        {"tags": {"x": 1}},
    ):
        assert RunConfig.from_dict({**BASE, **change}).key != a.key, change
    assert RunConfig.from_dict(a.as_dict()).key == a.key


def test_grid_product_seeds_and_dedup():
    cfgs = grid(BASE, {"hp.eta_c": [0.1, 0.2, 0.1], "problem.zeta": [1.0, 2.0]}, seeds=range(3))
    assert len(cfgs) == 2 * 2 * 3 and len({c.key for c in cfgs}) == 12
    assert {c.problem.params["zeta"] for c in cfgs} == {1.0, 2.0}
    with pytest.raises(InvalidSweepError, match="grid axis 'eta_c'"):
        grid(BASE, {"eta_c": [0.1]}, seeds=[0])
    with pytest.raises(InvalidSweepError, match="non-empty list"):
        grid(BASE, {"hp.eta_c": []}, seeds=[0])
    with pytest.raises(InvalidSweepError, match="fields"):
        RunConfig.from_dict({**BASE, "eta": 1})


def test_failing_and_diverging_runs_are_recorded_and_the_sweep_goes_on(tmp_path):
    cfgs = small_grid()
    with Store(tmp_path / "s.sqlite") as st:
        s = run_sweep(cfgs, st, Serial(), progress=False)
        assert s.executed == {"completed": 4, "diverged": 4, "error": 4}
        rows = st.runs()
        err = [r for r in rows if r["status"] == "error"]
        assert all("scaffold has no hyper-parameter 'eta_c'" in r["error"] for r in err)
        div = [r for r in rows if r["status"] == "diverged"]
        assert all(r["config"]["hp"]["eta_c"] == 50.0 and r["diverged_at"] >= 1 for r in div)
        # the long table: one row per (run, metric, round); a diverged run keeps its completed rounds
        for r in div:
            assert len(st.metrics(r["id"])["gap"]) == r["rounds_done"] + 1
        again = run_sweep(cfgs, st, Serial(), progress=False)
        # results are reused; errored runs are executed again (and reported again), never duplicated
        assert again.reused == 8 and again.executed == {"error": 4} and len(again.errors) == 4
        assert len(st.runs()) == 12


def test_run_record_matches_the_engine_bit_for_bit(tmp_path):
    from fcocheck.solvers.engine.run import run
    from fcocheck.verify.sweep.task import instance

    cfg = small_grid()[0]
    rec = execute(cfg)
    problem, ref = instance(cfg)
    t = run(
        cfg.algorithm,
        problem,
        dict(cfg.hp),
        rounds=cfg.rounds,
        oracle=cfg.oracle,
        seed=cfg.seed,
        reference=ref,
    )
    for k, v in rec.metrics.items():
        assert np.array_equal(v, t[k], equal_nan=True), k
    with Store(tmp_path / "s.sqlite") as st:
        st.put(rec, "v")
        back = st.metrics(st.runs()[0]["id"])
        assert back.keys() == rec.metrics.keys()
        assert all(np.array_equal(back[k], rec.metrics[k], equal_nan=True) for k in back)
        assert st.put(rec, "v") is False and len(st.runs()) == 1  # no duplicate


def test_unusual_metric_values_come_back_bit_for_bit(tmp_path):
    """NaN (stored as NULL), ±inf, subnormals, integers and booleans: what is stored is what was put, but
    −0.0, which comes back as +0.0 (SQLite keeps a REAL that is a whole number as an integer: the store's
    behaviour before and after its NaN test moved to ``_reals``); a value changed in its last bit shows."""
    import dataclasses

    rec = execute(small_grid()[0])
    odd = {"odd": np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, 5e-324, 1.0 + 2**-52]),
           "count": np.array([3, 0, 2**53 + 1]), "flag": np.array([True, False, True])}
    rec = dataclasses.replace(rec, metrics={**rec.metrics, **odd})
    with Store(tmp_path / "s.sqlite") as st:
        st.put(rec, "v")
        back = st.metrics(st.runs()[0]["id"])
    for k, v in odd.items():
        want = np.asarray(v, dtype=float) + 0.0  # as float() rounds 2⁵³ + 1; −0 + 0 = +0
        assert back[k].tobytes() == want.tobytes(), k
    nudged = np.asarray(odd["odd"]) + 0.0
    nudged[-1] = np.nextafter(nudged[-1], 2.0)
    assert back["odd"].tobytes() != nudged.tobytes()


def test_dask_local_cluster_equals_the_local_pool_and_serial(tmp_path):
    cfgs = small_grid()
    for name, ex in (("serial", Serial()), ("pool", Pool(2)), ("dask", Dask(local=2))):
        try:
            with Store(tmp_path / f"{name}.sqlite") as st:
                s = run_sweep(cfgs, st, ex, progress=False)
                assert s.executor == name and sum(s.executed.values()) == len(cfgs)
        finally:
            ex.close()
    serial = contents(tmp_path / "serial.sqlite")
    assert contents(tmp_path / "pool.sqlite") == serial
    assert contents(tmp_path / "dask.sqlite") == serial


def _store_bytes(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_corrupted_store_is_refused_and_left_untouched(tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    before = _store_bytes(bad)
    with pytest.raises(StoreError, match="not an fcocheck results store.*left untouched"):
        Store(bad)
    assert _store_bytes(bad) == before
    # a truncated real store
    good = tmp_path / "good.sqlite"
    with Store(good) as st:
        run_sweep(small_grid()[:2], st, Serial(), progress=False)
    data = good.read_bytes()
    cut = tmp_path / "cut.sqlite"
    cut.write_bytes(data[:1000] + b"\x00garbage" * 50)
    with pytest.raises(StoreError):
        Store(cut)


def test_foreign_sqlite_file_is_refused_and_left_untouched(tmp_path):
    foreign = tmp_path / "other.sqlite"
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE runs(id INTEGER, name TEXT)")
    con.execute("INSERT INTO runs VALUES (1, 'theirs')")
    con.commit()
    con.close()
    before = _store_bytes(foreign)
    with pytest.raises(StoreError, match="foreign SQLite file.*left untouched"):
        Store(foreign)
    assert _store_bytes(foreign) == before
    # ours, but another schema
    other = _other_schema_store(tmp_path / "schema.sqlite")
    with pytest.raises(StoreError, match="schema '99'"):
        Store(other)


def _other_schema_store(path: Path) -> Path:
    """One of our stores whose meta says schema 99."""
    with Store(path):
        pass
    con = sqlite3.connect(path)
    con.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
    con.commit()
    con.close()
    return path


def test_a_refused_store_gets_no_sidecar_files(tmp_path):
    """Regression (issue 32): refusing a WAL-mode file (a foreign one, or one of ours of another
    schema) left ``-wal``/``-shm`` files beside it; the directory must be exactly as found."""
    foreign = tmp_path / "wal.sqlite"
    con = sqlite3.connect(foreign)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("CREATE TABLE t(x)")
    con.commit()
    con.close()
    other = _other_schema_store(tmp_path / "schema.sqlite")
    before = {p.name: _store_bytes(p) for p in tmp_path.iterdir()}
    assert sorted(before) == ["schema.sqlite", "wal.sqlite"]
    for path, rule in ((foreign, "foreign SQLite file"), (other, "schema '99'")):
        with pytest.raises(StoreError, match=rule):
            Store(path)
    assert {p.name: _store_bytes(p) for p in tmp_path.iterdir()} == before


def test_a_store_open_elsewhere_is_read_through_its_write_ahead_log(tmp_path):
    """Legal and unusual: a store another process holds open (its ``-wal`` present, the meta rows
    possibly only in the log) is ours and opens; the quiet read is only for files without a log."""
    path = tmp_path / "s.sqlite"
    holder = Store(path)
    try:
        holder.con.execute("PRAGMA wal_autocheckpoint=0")
        with Store(path) as again:
            run_sweep(small_grid()[:1], again, Serial(), progress=False)
        assert path.with_name("s.sqlite-wal").exists()
        with Store(path) as third:
            assert len(third.runs()) == 1
    finally:
        holder.close()


def test_cli_refuses_a_foreign_store_with_exit_2(tmp_path):
    from fcocheck.reports.cli import main

    foreign = tmp_path / "x.sqlite"
    foreign.write_text("hello")
    sweep = tmp_path / "sweep.json"
    sweep.write_text(json.dumps({"base": BASE, "axes": {"hp.eta_c": [0.1]}, "seeds": 1}))
    assert main(["sweep", str(sweep), "--store", str(foreign), "--workers", "1"]) == 2
    assert foreign.read_text() == "hello"


def test_export_one_row_per_run_and_round_with_every_config_field(tmp_path):
    """Regression (issue 20): the export dropped the sweep parameters (key, algorithm, seed, status,
    metric, round, value only) and was one row per metric value (150 runs made 102 MB of CSV)."""
    import csv

    import pyarrow.parquet as pq

    with Store(tmp_path / "s.sqlite") as st:
        run_sweep(small_grid()[:4], st, Serial(), progress=False)
        n_runs = len(st.runs())
        rounds = sum(r["rounds_done"] + 1 for r in st.runs())
        n_metrics = st.con.execute("SELECT COUNT(DISTINCT metric) FROM metrics").fetchone()[0]
        st.export(tmp_path / "m.csv")
        st.export(tmp_path / "m.parquet")
        with pytest.raises(StoreError, match="csv or .parquet"):
            st.export(tmp_path / "m.xlsx")
        gap0 = st.metrics(st.runs()[0]["id"])["gap"]
    rows = list(csv.DictReader((tmp_path / "m.csv").open()))
    assert len(rows) == rounds and n_runs == 4
    header = list(rows[0])
    for col in ("key", "code_version", "algorithm", "problem", "problem.clients", "problem.d", "hp.eta_c",
                "hp.local_steps", "rounds", "oracle", "seed", "status", "round", "gap"):
        assert col in header, col
    metric_names = {m for (m,) in sqlite3.connect(tmp_path / "s.sqlite").execute(
        "SELECT DISTINCT metric FROM metrics")}
    assert len(metric_names) == n_metrics and metric_names <= set(header)
    first = [r for r in rows if r["key"] == rows[0]["key"]]
    assert [float(r["gap"]) for r in first] == pytest.approx(list(gap0), rel=1e-15)
    assert {r["hp.eta_c"] for r in rows} == {"0.1", "50.0"}
    assert {r["oracle"] for r in rows} == {"gaussian:0.3"}
    table = pq.read_table(tmp_path / "m.parquet")
    assert table.num_rows == rounds and table.column_names == header
    assert table.column("gap").to_pylist()[: len(first)] == list(gap0)


def _kill_when(cmd: list[str], store: Path, at_least: int) -> None:
    """Start the sweep, SIGKILL its process group once the store holds ``at_least`` runs."""
    proc = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
        if store.exists():
            try:
                con = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=1)
                done = con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
                con.close()
            except sqlite3.Error:
                continue
            if done >= at_least:
                break
    assert proc.poll() is None, "the sweep finished before it could be killed; make it longer"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def test_sigkill_mid_sweep_resumes_without_loss_or_duplicates(tmp_path):
    """kill -9 the sweep process group while runs are in flight; the rerun completes the rest only."""
    store = tmp_path / "s.sqlite"
    sweep = tmp_path / "sweep.json"
    base = {**BASE, "rounds": 400, "algorithm": "feddualavg"}
    sweep.write_text(json.dumps({"base": base, "axes": {"hp.eta_c": [0.01, 0.02, 0.05, 0.1]}, "seeds": 6}))
    cmd = [
        sys.executable,
        "-m",
        "fcocheck.reports.cli",
        "sweep",
        str(sweep),
        "--store",
        str(store),
        "--workers",
        "2",
        "--no-progress",
    ]
    _kill_when(cmd, store, 3)
    before = contents(store)
    assert 3 <= len(before) < 24
    # every stored run is whole: its metrics are all there
    for status, _, rounds_done, _, metrics in before.values():
        assert status == "completed" and len(np.frombuffer(metrics["gap"])) == rounds_done + 1 == 401
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert f"{len(before)} reused from the store" in out.stdout
    after = contents(store)
    assert len(after) == 24 and set(before) <= set(after)
    assert all(after[k] == v for k, v in before.items())  # nothing completed was lost or rewritten
    with Store(store) as st:
        n = st.con.execute("SELECT COUNT(*), COUNT(DISTINCT key) FROM runs").fetchone()
        assert n == (24, 24)
    # and the resumed store equals a clean serial run of the same sweep
    fresh = tmp_path / "fresh.sqlite"
    with Store(fresh) as st:
        run_sweep(grid(base, {"hp.eta_c": [0.01, 0.02, 0.05, 0.1]}, range(6)), st, Serial(), progress=False)
    assert contents(fresh) == after


def test_problem_spec_json_round_trip():
    c = RunConfig("fedavg", ProblemSpec("quadratics", {"d": 3}), {"eta_c": 0.1}, 5)
    assert RunConfig.from_dict(json.loads(json.dumps(c.as_dict()))) == c


def test_sigkill_at_two_points_then_resume_equals_a_fresh_run(tmp_path):
    """Issue 20: kill -9 twice (early, then after the first resume made progress), resume: no run lost
    or duplicated, and the store equals a clean serial run."""
    store, sweep = tmp_path / "s.sqlite", tmp_path / "sweep.json"
    base = {**BASE, "rounds": 400, "algorithm": "feddualavg"}
    axes = {"hp.eta_c": [0.01, 0.02, 0.05, 0.1]}
    sweep.write_text(json.dumps({"base": base, "axes": axes, "seeds": 6}))
    cmd = [sys.executable, "-m", "fcocheck.reports.cli", "sweep", str(sweep), "--store", str(store),
           "--workers", "2",
           "--no-progress"]
    _kill_when(cmd, store, 3)
    first = contents(store)
    _kill_when(cmd, store, len(first) + 3)
    second = contents(store)
    assert len(first) < len(second) < 24 and all(second[k] == v for k, v in first.items())
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    after = contents(store)
    with Store(store) as st:
        assert st.con.execute("SELECT COUNT(*), COUNT(DISTINCT key) FROM runs").fetchone() == (24, 24)
    fresh = tmp_path / "fresh.sqlite"
    with Store(fresh) as st:
        run_sweep(grid(base, axes, range(6)), st, Serial(), progress=False)
    assert contents(fresh) == after


def test_a_multi_worker_sweep_solves_each_instance_once_before_its_runs(tmp_path, monkeypatch):
    """With several workers the references are solved first, one task per distinct instance, and
    handed to every run (the results equal the serial sweep's, above); an instance that cannot be
    certified is handed over as None and its runs solve it themselves (recording any failure)."""
    from fcocheck.verify.sweep import runner, task

    solved = []

    class TwoWorkers(Serial):
        workers = 2

    def counting(spec):
        solved.append(spec)
        return real(spec)

    real = task.solve_reference
    monkeypatch.setattr(runner, "solve_reference", counting)
    cfgs = small_grid()
    fn = runner._with_references(TwoWorkers(), cfgs)
    assert len(solved) == 1 and fn.keywords["references"][solved[0]] is not None  # one instance, once
    with Store(tmp_path / "two.sqlite") as st, Store(tmp_path / "one.sqlite") as one:
        run_sweep(cfgs, st, TwoWorkers(), progress=False)
        run_sweep(cfgs, one, Serial(), progress=False)
    assert contents(tmp_path / "two.sqlite") == contents(tmp_path / "one.sqlite")
    monkeypatch.setattr(runner, "solve_reference", lambda spec: None)  # uncertifiable: runs still try
    with Store(tmp_path / "none.sqlite") as st:
        run_sweep(cfgs[:2], st, TwoWorkers(), progress=False)
        assert all(r["status"] != "error" or "scaffold" in r["algorithm"] for r in st.runs())
