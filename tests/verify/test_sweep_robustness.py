"""Issue 20: sweeps and the store refuse bad input before writing, and survive dead workers.

Each test failed before its fix: a typo in a sweep file became a store of error rows (exit 0 on
the rerun); the store was created before --workers 0 was refused; a store path with '#' was
refused as foreign on its second use; two processes creating one store raced; a corrupted page
behind a good header gave a traceback; one dead pool worker aborted the sweep; kill -9 of a pool
sweep left workers holding the caller's pipes.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fcocheck.reports.cli import main
from fcocheck.verify.sweep import Store, grid, run_sweep
from fcocheck.verify.sweep.executors import Pool, Serial
from fcocheck.verify.sweep.store import StoreError

from .crashing import always_die_on_three, die_once_then_square

BASE = {"algorithm": "fedavg", "problem": {"generator": "quadratics", "params": {"clients": 4, "d": 6}},
        "hp": {"eta_c": 0.1, "local_steps": 2}, "rounds": 10}


def sweep_file(tmp_path: Path, spec: dict | list, name: str = "sweep.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(spec))
    return str(path)


@pytest.mark.parametrize("spec,match", [
    ({"base": {**BASE, "algorithm": "fedavgg"}}, "unknown algorithm|did you mean"),
    ({"base": {**BASE, "hp": {"eta_cc": 0.1}}}, "no hyper-parameter 'eta_cc'"),
    ({"base": BASE, "axes": {"problem.zetaa": [1.0]}}, "no parameter 'zetaa'"),
    ({"base": {**BASE, "oracle": "minibatch:²"}}, "minibatch:b"),
    ({"base": {**BASE, "participation": 9}}, "1 <= P <= M = 4"),
    ({"base": {**BASE, "seed": 3}}, "given by 'seeds'"),
    ({"base": BASE, "seeds": [-1]}, r"\[0, 2\^63 - 1\]"),
    ({"base": BASE, "seeds": 2**70}, "seeds"),
    ({"base": BASE, "seeds": [1.5]}, "seeds"),
    ({"base": {**BASE, "rounds": "10"}}, "rounds"),
    ({"base": {**BASE, "problem": {"generator": "quadratics", "params": {"clients": "4"}}}}, "an integer"),
    ({"base": BASE, "axis": {}}, "nothing else"),
    ({"base": {**BASE, "problem": "missing.npz"}}, "No such file"),
])
def test_bad_sweep_files_exit_2_before_anything_is_written(tmp_path, capsys, spec, match):
    store = tmp_path / "s.sqlite"
    code = main(["sweep", sweep_file(tmp_path, spec), "--store", str(store), "--workers", "1"])
    err = capsys.readouterr().err
    assert code == 2 and __import__("re").search(match, err), err
    assert not store.exists()


def test_errored_runs_fail_the_command_every_time(tmp_path, monkeypatch, capsys):
    """A run that fails at run time is stored as an error, exits 1, and is retried (and fails, exit 1
    again) on the rerun instead of being 'reused'."""
    from fcocheck.verify.sweep import runner, task

    def failing(cfg):
        rec = task.crashed(cfg, "boom")
        return rec

    monkeypatch.setattr(runner, "execute", failing)
    # FedAvg's two seeds run as one batch (``run_batch``): each of its runs fails the same way
    monkeypatch.setattr(runner, "execute_batch", lambda group, references=None: [failing(c) for c in group])
    args = ["sweep", sweep_file(tmp_path, {"base": BASE, "seeds": 2}), "--store", str(tmp_path / "s.sqlite"),
            "--workers", "1"]
    assert main(args) == 1
    assert main(args) == 1
    out = capsys.readouterr()
    assert out.out.count("executed error 2") == 2 and "0 reused" in out.out
    with Store(tmp_path / "s.sqlite") as st:
        assert [r["status"] for r in st.runs()] == ["error", "error"]  # replaced, not duplicated


@pytest.mark.parametrize("flags", [["--workers", "0"], ["--dask-local", "0"], ["--workers", "-3"]])
def test_executor_errors_create_no_store_and_no_report_dir(tmp_path, capsys, flags):
    store, out = tmp_path / "s.sqlite", tmp_path / "rep"
    assert main(["sweep", sweep_file(tmp_path, {"base": BASE}), "--store", str(store), *flags]) == 2
    assert main(["report", "--out", str(out), "--store", str(store), *flags]) == 2
    assert not store.exists() and not out.exists()


def test_unreachable_scheduler_is_refused_before_the_store_exists(tmp_path, monkeypatch, capsys):
    from fcocheck.verify.sweep import executors

    monkeypatch.setattr(executors, "CONNECT_TIMEOUT", 1.0)
    store = tmp_path / "s.sqlite"
    code = main(["sweep", sweep_file(tmp_path, {"base": BASE}), "--store", str(store), "--scheduler",
                 "tcp://127.0.0.1:9"])
    assert code == 2 and "cannot connect" in capsys.readouterr().err and not store.exists()


def test_report_budget_and_unwritable_outputs_are_refused(tmp_path, capsys):
    assert main(["report", "--budget", "garbage", "--out", str(tmp_path / "r"),
                 "--store", str(tmp_path / "s.sqlite")]) == 2
    (tmp_path / "file").write_text("x")
    assert main(["report", "--out", str(tmp_path / "file"), "--store", str(tmp_path / "s.sqlite")]) == 2
    assert main(["sweep", sweep_file(tmp_path, {"base": BASE}), "--store",
                 str(tmp_path / "file" / "s.sqlite"), "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert "--budget 'garbage'" in err and err.count("is a file") == 2
    assert not (tmp_path / "s.sqlite").exists() and not (tmp_path / "r").exists()


@pytest.mark.parametrize("name", ["a#b.sqlite", "a?b.sqlite", "a b%20.sqlite"])
def test_store_paths_with_uri_characters_work_every_time(tmp_path, name):
    path = tmp_path / name
    for _ in range(3):
        with Store(path) as st:
            run_sweep(grid(BASE, {}, [0]), st, Serial(), progress=False)
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(("-wal", "-shm"))) == [name]


def _create(path: str, barrier) -> str:  # noqa: ANN001
    barrier.wait()
    try:
        with Store(path):
            return "ok"
    except Exception as exc:  # noqa: BLE001 - the test reports what went wrong
        return f"{type(exc).__name__}: {exc}"


def test_two_processes_creating_one_new_store_both_succeed(tmp_path):
    ctx = mp.get_context("spawn")
    for i in range(5):
        path = str(tmp_path / f"race{i}.sqlite")
        barrier = ctx.Manager().Barrier(2)
        with ctx.Pool(2) as pool:
            results = pool.starmap(_create, [(path, barrier), (path, barrier)])
        assert results == ["ok", "ok"], results


def test_two_sweeps_writing_one_store_at_once_lose_nothing(tmp_path):
    store = tmp_path / "s.sqlite"
    a = sweep_file(tmp_path, {"base": BASE, "axes": {"hp.eta_c": [0.01, 0.02, 0.05]}, "seeds": 3}, "a.json")
    b = sweep_file(tmp_path, {"base": BASE, "axes": {"hp.eta_c": [0.05, 0.1, 0.2]}, "seeds": 3}, "b.json")
    cmd = [sys.executable, "-m", "fcocheck.reports.cli", "sweep", "--store", str(store), "--workers", "1",
           "--no-progress"]
    procs = [subprocess.Popen([*cmd, f], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for f in (a, b)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    with Store(store) as st:
        n, distinct = st.con.execute("SELECT COUNT(*), COUNT(DISTINCT key) FROM runs").fetchone()
    # 15 distinct configurations (eta 0.05 is in both); the shared ones are stored once
    assert distinct == 15 and n == 15
    # and counted once: a shared run both executed is "executed" by the one that stored it first
    # (regression, issue 32: each sweep reported all its runs as executed, 18 in all)
    def count(pattern: str, out: str) -> int:
        return sum(int(n) for m in re.findall(pattern, out) for n in re.findall(r"\d+", m))

    executed = [count(r"executed (.*?)(?:;| on )", out) for out, _ in outs]
    others = [count(r"(\d+) reused", out) + count(r"(\d+) also executed", out) for out, _ in outs]
    assert sum(executed) == 15 and [e + o for e, o in zip(executed, others, strict=True)] == [9, 9], outs


def test_a_run_another_process_recorded_first_is_not_counted_as_executed(tmp_path):
    """The race made deterministic: this sweep read the store before the other process recorded
    every run, so each of its ``put`` finds the row there — all are counted as raced, none as
    executed, the other process's rows are kept, and the summary says so."""
    configs = grid(BASE, {"hp.eta_c": [0.01, 0.02]}, range(2))
    path = tmp_path / "s.sqlite"
    with Store(path) as first:
        run_sweep(configs, first, Serial(), progress=False)
        kept = {r["key"]: r["started"] for r in first.runs()}
    with Store(path) as late:
        late.done = lambda code_version: set()  # its look at the store came before the other's writes
        summary = run_sweep(configs, late, Serial(), progress=False)
        rows = {r["key"]: r["started"] for r in late.runs()}
    assert (summary.requested, summary.reused, sum(summary.executed.values()), summary.raced) == (4, 0, 0, 4)
    assert "4 also executed but recorded first by another process" in summary.line()
    assert rows == kept


def test_corrupted_page_behind_a_good_header_is_refused(tmp_path, capsys):
    path = tmp_path / "s.sqlite"
    with Store(path) as st:
        run_sweep(grid(BASE, {"hp.eta_c": [0.01, 0.02]}, range(4)), st, Serial(), progress=False)
    con = sqlite3.connect(path)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    for p in range(2, len(data) // page):  # every b-tree page header but page 1's (the file header)
        for i in range(p * page, p * page + 8):
            data[i] ^= 0x5A
    path.write_bytes(bytes(data))
    before = path.read_bytes()
    with pytest.raises(StoreError, match="damaged|not an fcocheck"):
        Store(path)
    assert main(["store", "info", "--store", str(path)]) == 2
    assert path.read_bytes() == before


def test_a_dead_pool_worker_is_replaced_and_its_item_retried(tmp_path):
    marker = str(tmp_path / "died")
    ex = Pool(2)
    try:
        got = dict(ex.imap(die_once_then_square, [(i, marker) for i in range(8)]))
    finally:
        ex.close()
    assert Path(marker).exists()  # the worker did die
    assert {k[0]: v for k, v in got.items()} == {i: i * i for i in range(8)}


def test_an_item_that_always_kills_its_worker_is_reported_not_retried_forever():
    ex = Pool(2)
    try:
        got = dict(ex.imap(always_die_on_three, range(8), on_crash=lambda item, msg: f"crashed: {msg}"))
    finally:
        ex.close()
    assert got[3].startswith("crashed:") and "died while it ran alone" in got[3]
    assert all(got[i] == i * i for i in range(8) if i != 3)


def test_kill_9_of_a_pool_sweep_releases_the_callers_pipes(tmp_path):
    """Workers watch the driver: after kill -9 of the driver alone they exit, so a reader of the
    sweep's stdout sees end-of-file instead of hanging."""
    store = tmp_path / "s.sqlite"
    spec = {"base": {**BASE, "rounds": 3000}, "axes": {"hp.eta_c": [0.01, 0.02, 0.03, 0.04]}, "seeds": 4}
    cmd = [sys.executable, "-m", "fcocheck.reports.cli", "sweep", sweep_file(tmp_path, spec),
           "--store", str(store),
           "--workers", "2", "--no-progress"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while time.time() < deadline and not store.exists():
        time.sleep(0.05)
    time.sleep(2.0)  # workers are up and running
    assert proc.poll() is None
    proc.send_signal(signal.SIGKILL)
    t0 = time.time()
    proc.communicate(timeout=30)  # EOF on both pipes: no worker holds them any more
    assert time.time() - t0 < 15


def test_default_store_directory_is_created_on_a_fresh_checkout(tmp_path, monkeypatch):
    """Regression: the store's directory (out/ by default) may not exist yet; it is created."""
    monkeypatch.chdir(tmp_path)
    assert main(["sweep", sweep_file(tmp_path, {"base": BASE}), "--workers", "1", "--no-progress"]) == 0
    assert (tmp_path / "out" / "fcocheck.sqlite").is_file()


def test_a_metric_that_is_not_a_number_is_refused_naming_the_run(tmp_path):
    """SQLite keeps any value in a REAL column: a metric edited to text is a StoreError, not a traceback;
    the numbers fcocheck wrote (NULL as NaN, integers) read back as floats."""
    import json
    import sqlite3

    from fcocheck.reports.cli import main
    from fcocheck.verify.sweep import Store
    from fcocheck.verify.sweep.store import StoreError

    sweep = tmp_path / "s.json"
    sweep.write_text(json.dumps({"base": {"algorithm": "fedavg", "problem": {"generator": "quadratics"},
                                          "hp": {"eta_c": 0.1, "local_steps": 2}, "rounds": 5}, "seeds": 1}))
    store = tmp_path / "s.sqlite"
    assert main(["sweep", str(sweep), "--store", str(store), "--workers", "1", "--quiet"]) == 0
    with Store(store) as st:
        run_id = st.runs()[0]["id"]
        assert all(v.dtype == float for v in st.metrics(run_id).values())
    con = sqlite3.connect(store)
    con.execute("UPDATE metrics SET value = 'abc' WHERE run = ? AND round = 1", (run_id,))
    con.commit()
    con.close()
    with Store(store) as st, pytest.raises(StoreError, match=f"run {run_id}'s metric .* holds str 'abc'"):
        st.metrics(run_id)
