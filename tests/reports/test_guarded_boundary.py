"""Issue 32's defects, each with the input that showed it: a crafted store, a planted symlink, a
malformed instance file, a coerced value.  Every one must end in a clean refusal (exit 2, the value
and the rule named) with nothing written outside ``--out`` — and legal inputs of the same kind pass.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fcocheck.reports.cli import main
from fcocheck.reports.draw import draw
from fcocheck.reports.plotdata import Figure, Line, Panel
from fcocheck.solvers.files import UnsafePathError, Writer, is_counterexample_link, safe_stem
from tests.reports.stored import run_report as _report


def _crafted(stored: Path, tmp_path: Path, kind: str, edit) -> Path:  # noqa: ANN001
    """A copy of ``stored`` with every ``kind`` payload rewritten by ``edit``."""
    store = tmp_path / "crafted.sqlite"
    store.write_bytes(stored.read_bytes())
    con = sqlite3.connect(store)
    rows = con.execute("SELECT rowid, payload FROM results WHERE kind = ?", (kind,)).fetchall()
    for rowid, payload in rows:
        con.execute("UPDATE results SET payload = ? WHERE rowid = ?", (json.dumps(edit(json.loads(payload))),
                                                                        rowid))
    con.commit()
    con.close()
    return store


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def test_a_stored_experiment_name_cannot_place_a_figure_outside_out(stored, tmp_path, capsys):
    def rename(p):
        p["name"] = "../../escaped_figure"
        return p

    before = _files(tmp_path)
    code = _report(tmp_path / "rep", _crafted(stored, tmp_path, "experiment", rename))
    assert code == 2 and "escaped_figure" in capsys.readouterr().err
    assert not [f for f in _files(tmp_path) - before if "escaped_figure" in f]


def test_figure_stems_must_be_one_plain_name(tmp_path):
    fig = Figure("../x", "t", [Panel("p", "x", "y", [Line("a", [1.0, 2.0], [1.0, 2.0])])])
    with pytest.raises(UnsafePathError, match="not a plain file name"):
        draw(fig, tmp_path / "out")
    assert not (tmp_path / "x.png").exists()
    for bad in ("../x", "/etc/x", "a/b", ".hidden", "", "x" * 200, "x\x00"):
        with pytest.raises(UnsafePathError):
            safe_stem(bad)
    fig.stem = "fco-4.3-floor-K"  # legal names, including dots and dashes, pass
    png, svg, _ = draw(fig, tmp_path / "out")
    assert png.is_file() and svg.is_file() and not list((tmp_path / "out").glob(".*tmp"))


def test_a_stored_link_cannot_inject_a_url_scheme(stored, tmp_path):
    def inject(p):
        for c in p.get("cells", []):
            c["counterexample"] = "javascript:alert(document.cookie)"
        return p

    out = tmp_path / "rep"
    _report(out, _crafted(stored, tmp_path, "conformance", inject))
    for page in ("index.html", "report.md"):
        assert "javascript:" not in (out / page).read_text(), page


@pytest.mark.parametrize("link,ok", [("counterexamples/written-fedmid__0.json", True),
                                     ("javascript:alert(1)", False), ("JAVASCRIPT:x", False),
                                     ("counterexamples/../x.json", False), ("/etc/passwd", False),
                                     ("https://evil/x", False), ("counterexamples/a/b.json", False),
                                     ("counterexamples/x.json?q=1", False), (None, False), (3, False)])
def test_counterexample_links_are_plain_names_under_their_folder(link, ok):
    assert is_counterexample_link(link) is ok


def test_a_symlink_planted_in_out_is_refused_not_followed(stored, tmp_path, capsys):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    precious = elsewhere / "precious.txt"
    precious.write_text("keep me")
    out = tmp_path / "rep"
    out.mkdir()
    (out / "report.md").symlink_to(precious)
    code = _report(out, stored)
    assert code == 2 and "symbolic link" in capsys.readouterr().err
    assert precious.read_text() == "keep me"


def test_the_writer_refuses_special_files_and_leaves_nothing_partial(tmp_path):
    import os

    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / "fifo")
    with pytest.raises(UnsafePathError, match="not a regular file"):
        Writer(out).write_text("fifo", "x")
    with pytest.raises(RuntimeError, match="boom"), Writer(out).open("half.txt", "w") as fh:
        fh.write("half")
        raise RuntimeError("boom")
    assert sorted(p.name for p in out.iterdir()) == ["fifo"]  # no half.txt, no temporary file
    assert Writer(out).write_text("sub/ok.txt", "ok").read_text() == "ok"


# --- instance files ----------------------------------------------------------------------------------
META = {"loss": "squares", "regularizer": {"name": "l1", "lam": 0.05}, "mirror": {"name": "euclidean"}}


def _csr(tmp_path: Path, indices: list[int], d: int = 3) -> Path:
    path = tmp_path / "sparse.npz"
    np.savez(path, meta=json.dumps(META), X_0_data=np.ones(len(indices)), X_0_indices=np.array(indices),
             X_0_indptr=np.array([0, len(indices)]), X_0_shape=np.array([1, d]), y_0=np.ones(1))
    return path


@pytest.mark.parametrize("indices", [[0, 7], [0, 3], [-1, 1], [0, 10**9]])
def test_a_sparse_column_index_outside_d_is_refused_not_a_crash(tmp_path, indices):
    """In a fresh process: the unchecked CSR block crashed the interpreter (segfault) or was certified."""
    path = _csr(tmp_path, indices)
    r = subprocess.run([sys.executable, "-m", "fcocheck.reports.cli", "solve", str(path), "--no-cache"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 2 and "the rule is 0 <= index < d = 3" in r.stderr, (r.returncode, r.stderr[-400:])


def test_a_valid_sparse_block_still_loads(tmp_path):
    from fcocheck.solvers.instance_io import load_instance

    p = load_instance(_csr(tmp_path, [0, 2]))
    assert p.X[0].toarray().tolist() == [[1.0, 0.0, 1.0]]


def _save(tmp_path: Path, meta: dict, **arrays) -> Path:  # noqa: ANN003
    path = tmp_path / "inst.npz"
    np.savez(path, meta=json.dumps(meta), **arrays)
    return path


X2, Y2 = np.ones((4, 3)), np.ones(4)


@pytest.mark.parametrize("case,arrays,meta,rule", [
    ("a client left out", {"X_0": X2, "X_2": X2, "y_0": Y2, "y_2": Y2}, META, "X_1 is missing"),
    ("both layouts", {"X": np.ones((2, 4, 3)), "y": np.ones((2, 4)), "X_0": X2, "y_0": Y2}, META,
     "both 'X' and X_0"),
    ("lam true", {"X_0": X2, "y_0": Y2}, {**META, "regularizer": {"name": "l1", "lam": True}},
     "lam = True (bool)"),
    ("lam a string", {"X_0": X2, "y_0": Y2}, {**META, "regularizer": {"name": "l1", "lam": "0.1"}},
     "lam = '0.1' (str)"),
    ("nuclear shape off", {"X_0": np.ones((4, 6)), "y_0": Y2},
     {**META, "loss": "matrix", "regularizer": {"name": "nuclear", "lam": 0.1, "shape": [3, 2]},
      "shape": [2, 3]}, "differs from the model shape"),
])
def test_malformed_instances_are_refused_with_the_rule(tmp_path, capsys, case, arrays, meta, rule):
    path = _save(tmp_path, meta, **arrays)
    assert main(["solve", str(path), "--no-cache"]) == 2, case
    assert rule in capsys.readouterr().err, case


def test_a_boolean_hyper_parameter_is_not_one(tmp_path, capsys):
    sweep = tmp_path / "sweep.json"
    sweep.write_text(json.dumps({"base": {"algorithm": "feddualavg", "problem": {"generator": "quadratics"},
                                          "hp": {"eta_c": True, "local_steps": 2}, "rounds": 2}}))
    assert main(["sweep", str(sweep), "--store", str(tmp_path / "s.sqlite"), "--no-progress"]) == 2
    assert "eta_c = True is a boolean" in capsys.readouterr().err
    assert not (tmp_path / "s.sqlite").exists()


def test_a_full_disk_is_a_clean_exit_1_with_nothing_partial(tmp_path, monkeypatch, capsys):
    """ENOSPC in the middle of writing a trace: exit 1 naming the file, no partial file left."""
    import errno
    import os

    import numpy as np_

    real = np_.savez_compressed

    def full(fh, **arrays):  # noqa: ANN001, ANN003
        real(fh, **arrays)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(np_, "savez_compressed", full)
    out = tmp_path / "trace.npz"
    code = main(["run", "feddualavg", "--problem", "quadratics", "--rounds", "2", "--eta-c", "0.1",
                 "--out", str(out)])
    assert code == 1 and "the disk is full" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # neither the trace nor a temporary file


# --- untrusted files, bounded work (issue 32) ---------------------------------------------------------
SWEEP = {"base": {"algorithm": "fedavg", "problem": "quadratics", "hp": {"eta_c": 0.1}, "rounds": 2},
         "seeds": 1}


def _sweep(tmp_path: Path, doc: object | str) -> Path:
    path = tmp_path / "sweep.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return path


@pytest.mark.parametrize("extra,rule", [
    (["--scheduler", "::::"], "the rule is the address of a running dask scheduler"),
    (["--workers", "100000"], "--workers 100000; the rule is 1"),
    (["--dask-local", "100000"], "--dask-local 100000; the rule is 1"),
])
def test_executor_settings_are_bounded_and_named(tmp_path, capsys, extra, rule):
    store = tmp_path / "s.sqlite"
    assert main(["sweep", str(_sweep(tmp_path, SWEEP)), "--store", str(store), "--no-progress", *extra]) == 2
    assert rule in capsys.readouterr().err and not store.exists()


@pytest.mark.parametrize("doc,rule", [
    ({**SWEEP, "axes": {"hp.eta_c": [0.1] * 1000, "rounds": [1] * 1000}}, "declares 1000000 runs"),
    ("[" * 100_000 + "]" * 100_000, "nested 100000 deep"),
    ({**SWEEP, "base": {**SWEEP["base"], "oracle": "minibatch:1000000000000"}}, "and b <= 1000000"),
    ({**SWEEP, "base": {**SWEEP["base"], "hp": {"eta_c": 0.1, "local_steps": 10**12}}}, "at most 1000000"),
])
def test_a_sweep_beyond_the_caps_is_refused_before_it_is_built(tmp_path, capsys, doc, rule):
    store = tmp_path / "s.sqlite"
    assert main(["sweep", str(_sweep(tmp_path, doc)), "--store", str(store), "--no-progress"]) == 2
    assert rule in capsys.readouterr().err and not store.exists()


def test_special_files_are_refused_not_read(tmp_path, capsys):
    import os

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert main(["sweep", str(fifo), "--store", str(tmp_path / "s.sqlite"), "--no-progress"]) == 2
    assert "is a FIFO; the rule is a regular file" in capsys.readouterr().err
    assert main(["sweep", "/dev/zero", "--store", str(tmp_path / "s.sqlite"), "--no-progress"]) == 2
    assert "is a device" in capsys.readouterr().err
    assert main(["sweep", str(_sweep(tmp_path, SWEEP)), "--store", str(fifo), "--no-progress"]) == 2
    assert "store" in capsys.readouterr().err
    assert main(["solve", str(fifo), "--no-cache"]) == 2


def _entry(tmp_path: Path, capsys, monkeypatch) -> tuple[list[str], Path]:
    monkeypatch.setenv("FCOCHECK_CACHE", str(tmp_path / "cache"))
    argv = ["solve", "quadratics", "--param", "d=6", "--seed", "3", "--json"]
    assert main(argv) == 0
    capsys.readouterr()
    (entry,) = (tmp_path / "cache" / "solve").glob("*.json")
    return argv, entry


@pytest.mark.parametrize("tamper,what", [
    (lambda e: e["cvx"].update(w=None), "a solved status without its point switched the cross-check off"),
    (lambda e: e["constants"].update(L=1e-9, mu=5.0), "μ > L"),
    (lambda e: e["constants"].update(L=float("nan")), "a NaN constant"),
    (lambda e: e["cvx"].update(w=e["cvx"]["w"][:-1]), "a point of the wrong length"),
    (lambda e: e.update(extra=1), "a foreign field"),
])
def test_a_tampered_cache_entry_is_a_miss_and_is_replaced(tmp_path, capsys, monkeypatch, tamper, what):
    from fcocheck.reports import solve_cache

    argv, entry_file = _entry(tmp_path, capsys, monkeypatch)
    entry = json.loads(entry_file.read_text())
    tamper(entry)
    entry_file.write_text(json.dumps(entry))
    assert solve_cache.load(entry_file, dim=6) is None, what
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["cache"]["reused"] is False and out["agreement"] <= 1e-9, what
    assert any(r["name"].startswith("cvxpy") and not r["name"].endswith("(cached)") for r in out["solvers"])
    assert solve_cache.load(entry_file, dim=6) is not None  # rewritten whole


def test_the_cache_is_keyed_by_the_instance_s_content_not_its_name(tmp_path, monkeypatch):
    """Two draws of one generator share a name; each has its own entry (a name-keyed cache served
    seed 0's cvxpy point for seed 1, 'optimal' with a relative gap of 0.98)."""
    from fcocheck.reports import solve_cache
    from fcocheck.solvers.generators import generate

    monkeypatch.setenv("FCOCHECK_CACHE", str(tmp_path / "cache"))
    a, b = generate("quadratics", seed=0, d=6), generate("quadratics", seed=1, d=6)
    assert a.name == b.name
    assert solve_cache.entry_path(a, 1e-10, "CLARABEL") != solve_cache.entry_path(b, 1e-10, "CLARABEL")
    assert solve_cache.entry_path(a, 1e-10, "CLARABEL") == solve_cache.entry_path(
        generate("quadratics", seed=0, d=6), 1e-10, "CLARABEL")


def test_check_evidence_is_the_same_in_any_process():
    """``check --workers 1`` and ``--workers 2`` reported different oracles cells: Hypothesis drew
    constants from whichever of the project's modules the process had loaded.  A unit's cells computed
    here (a test process, every module loaded) equal a fresh process's with only what the unit needs."""
    import subprocess
    import sys

    from fcocheck.verify.conformance import unit_cells

    here = unit_cells(("invariant", "oracles"), "quick", None, 0)
    code = ("import json; from fcocheck.verify.conformance import unit_cells; "
            "print(json.dumps(unit_cells(('invariant', 'oracles'), 'quick', None, 0)))")
    fresh = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                      check=True).stdout)
    assert [(c["residual"], c["detail"], c["examples"]) for c in here] == [
        (c["residual"], c["detail"], c["examples"]) for c in fresh]


def test_every_counterexample_name_the_checks_write_is_a_link_the_report_keeps():
    """Counterexample files are named from algorithm and check names (``cocoa+``, ``beta=0.5``); every such
    name must pass the report's link rule, or one failing check of CoCoA+ stops the report."""
    from fcocheck.solvers.algorithms import ALGORITHMS
    from fcocheck.solvers.files import plain_name

    names = [plain_name(alg, check) for alg in ALGORITHMS for check in ("B", "written-out", "hp:beta=0.5")]
    assert "cocoa+__B" in names
    assert all(is_counterexample_link(f"counterexamples/{n}.json") for n in names)
    hostile = plain_name("../x", "javascript:y/z")
    assert safe_stem(hostile) == hostile and is_counterexample_link(f"counterexamples/{hostile}.json")


def test_a_stored_payload_of_another_shape_is_refused_and_nothing_is_written(stored, tmp_path, capsys):
    """A stored experiment without its checks (KeyError after figures and report.json were written, before):
    exit 2 naming the payload, and --out left as it was."""
    def drop(p):
        p.pop("checks", None)
        return p

    out = tmp_path / "rep"
    assert _report(out, _crafted(stored, tmp_path, "experiment", drop)) == 2
    err = capsys.readouterr().err
    assert "the experiment payload 'fco-eq-4.5' cannot be rendered (KeyError" in err
    assert "Traceback" not in err
    assert not out.exists()


@pytest.mark.parametrize("pages,kept", [(2, False), (40, True)])
def test_a_full_disk_under_sweep_is_a_clean_exit_1(tmp_path, monkeypatch, capsys, pages, kept):
    """SQLite's "database or disk is full" (a page limit stands in for the disk): exit 1 naming the store and
    the cause, never a traceback; a store this sweep created and stored nothing in is removed, with its
    -wal/-shm (at 2 pages: full while creating it), one holding the runs finished before is kept."""
    from fcocheck.verify.sweep import store as store_module

    real = store_module._set_wal

    def small(con):  # noqa: ANN001, ANN202
        real(con)
        con.execute(f"PRAGMA max_page_count = {pages}")

    monkeypatch.setattr(store_module, "_set_wal", small)
    doc = {**SWEEP, "axes": {"hp.eta_c": [0.01 * k for k in range(1, 40)]}, "base": {**SWEEP["base"],
                                                                                       "rounds": 50}}
    path = tmp_path / "s.sqlite"
    code = main(["sweep", str(_sweep(tmp_path, doc)), "--store", str(path), "--no-progress",
                 "--workers", "1"])
    err = capsys.readouterr().err
    assert code == 1 and "the disk is full" in err and "Traceback" not in err, err
    assert path.exists() == kept and not path.with_name("s.sqlite-wal").exists() and \
        not path.with_name("s.sqlite-shm").exists()
