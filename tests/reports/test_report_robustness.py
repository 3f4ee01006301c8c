"""Issue 20: a report records what went wrong and goes on; stored file names never escape ``--out``.

Before the fixes, a diverged run crashed the FedCanon reproduction (IndexError), a reference that
failed to certify crashed the report (KeyError), and a crafted store wrote counterexample files
to an absolute path and through ``../``.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pytest

from fcocheck.reports.cli import main
from fcocheck.solvers.errors import CertificationError
from fcocheck.solvers.files import UnsafePathError, Writer
from fcocheck.verify.report_jobs import write_files

ARGS = ["--experiment", "fco-eq-4.5", "--algorithm", "none", "--reproduction", "fedcanon-table3",
        "--reproduction", "fedcanon-fig1", "--reproduction", "fco-curse", "--workers", "1", "--no-progress"]


def _report(tmp_path: Path) -> tuple[int, dict]:
    out = tmp_path / "rep"
    code = main(["report", "--out", str(out), "--store", str(tmp_path / "s.sqlite"), *ARGS])
    data = json.loads((out / "report.json").read_text())
    assert (out / "index.html").is_file() and (out / "report.md").is_file()
    return code, data


def test_every_run_diverging_is_a_result_not_a_crash(tmp_path, monkeypatch):
    import importlib

    engine = importlib.import_module("fcocheck.solvers.engine.run")  # the module, not the function it exports
    batch = importlib.import_module("fcocheck.solvers.engine.batch")
    monkeypatch.setattr(engine, "diverged", lambda log, scale: True)  # runs alone
    monkeypatch.setattr(batch, "diverged_rows", lambda W, Z, scales: np.ones(len(W), dtype=bool))  # batched
    code, data = _report(tmp_path)
    reps = {r["name"]: r["status"] for r in data["reproductions"]}
    # fco-curse declares that it consumes fco-fig3's tuned steps: the plan adds fco-fig3 before it
    assert set(reps) == {"fedcanon-table3", "fedcanon-fig1", "fco-fig3", "fco-curse"}
    assert reps["fedcanon-table3"] == "inconclusive"  # no per-round counts: every run diverged at round 1
    assert reps["fedcanon-fig1"] == "inconclusive"
    assert code in (0, 1)


def test_references_that_fail_to_certify_are_recorded_errors(tmp_path, monkeypatch):
    from fcocheck.verify.sweep import task

    def uncertified(config, references=None):
        raise CertificationError("planted: the reference could not be certified")

    monkeypatch.setattr(task, "instance", uncertified)
    code, data = _report(tmp_path)
    assert code == 1  # parts could not be computed, and the command says so
    reps = {r["name"]: r for r in data["reproductions"]}
    assert reps["fedcanon-table3"]["status"] == "inconclusive"
    assert all("planted" in f["evidence"] for f in reps["fedcanon-table3"]["findings"])
    html = (tmp_path / "rep" / "index.html").read_text()
    assert "planted: the reference could not be certified" in html or "fedcanon-table3" in html


@pytest.mark.parametrize("name", ["../evil.json", "/tmp/fcocheck-evil-abs.json", "a/../../evil.json",
                                  "counterexamples/../../evil.json", ""])
def test_unsafe_stored_file_names_are_refused(tmp_path, name):
    out = tmp_path / "out"
    out.mkdir()
    payload = {"p": {"files": {"counterexamples/ok.json": base64.b64encode(b"{}").decode(),
                               name: base64.b64encode(b"pwned").decode()}}}
    with pytest.raises(UnsafePathError):
        write_files(payload, out)
    assert not (tmp_path / "evil.json").exists() and not Path("/tmp/fcocheck-evil-abs.json").exists()
    assert not (out / "counterexamples" / "ok.json").exists()  # all or nothing


def test_symlink_escape_is_refused(tmp_path):
    out = tmp_path / "out"
    (out / "counterexamples").mkdir(parents=True)
    (out / "counterexamples" / "link").symlink_to(tmp_path)
    with pytest.raises(UnsafePathError, match="symbolic link"):
        Writer(out).path("counterexamples/link/evil.json")
    assert Writer(out).path("counterexamples/x.json") == out / "counterexamples" / "x.json"


def test_crafted_store_cannot_make_the_report_write_outside_out(tmp_path, capsys):
    """A well-formed store whose conformance payload names ../ and absolute files: exit 2."""
    from fcocheck.verify.sweep import Store
    from fcocheck.verify.sweep.version import code_version

    store = tmp_path / "s.sqlite"
    evil = {"status": "done", "cells": [], "files": {
        "../escaped.json": base64.b64encode(b"x").decode(),
        str(tmp_path / "abs.json"): base64.b64encode(b"x").decode()}}
    with Store(store) as st:
        for what in ("invariants", "fedavg"):
            st.put_result("conformance", what, "quick", 0, code_version(), "done", evil, 0.0)
    out = tmp_path / "rep"
    code = main(["report", "--out", str(out), "--store", str(store), "--experiment", "fco-eq-4.5",
                 "--algorithm", "fedavg", "--reproduction", "none", "--budget", "quick", "--workers", "1",
                 "--no-progress"])
    assert code == 2 and "leaves the output directory" in capsys.readouterr().err
    assert not (tmp_path / "escaped.json").exists() and not (tmp_path / "abs.json").exists()
