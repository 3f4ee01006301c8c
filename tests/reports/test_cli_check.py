"""``fcocheck check``: exit codes, JSON, interruption-safe log."""

from __future__ import annotations

import json

from fcocheck.reports.cli import main
from fcocheck.verify import invariants
from fcocheck.verify.evidence import Evidence
from fcocheck.verify.invariants.base import Invariant


def test_check_one_algorithm_json(tmp_path, capsys):
    code = main(["check", "--quick", "--algorithm", "scaffold", "--json", "--out", str(tmp_path)])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["broken"] == []
    assert {c["column"] for c in out["properties"]} == {"A", "B", "C", "D"}
    assert {c["column"] for c in out["invariants"]} == {
        "scaffold=fedcanon", "scaffold=gd", "written-scaffold", "exercised-scaffold", "scaffold-c",
        "client-split-scaffold", "counts-scaffold", "zero-weight-scaffold",
        "oracles", "oracle-moments", "sampling",  # the shared components guard every algorithm
    }
    lines = (tmp_path / "check.jsonl").read_text().splitlines()
    assert len(lines) == len(out["properties"]) + len(out["invariants"])


def test_a_broken_invariant_exits_1_and_is_named(tmp_path, capsys, monkeypatch):
    from hypothesis import strategies as st

    bad = Invariant(
        "planted",
        "test",
        "always violated",
        ("scaffold",),
        "holds",
        lambda: st.just(None),
        lambda case: Evidence("planted", "fails", 1.0, 0.0, "planted violation"),
    )
    monkeypatch.setitem(invariants.INVARIANTS, "planted", bad)
    # the planted invariant lives in this process: run the units here (--workers 1)
    code = main(["check", "--quick", "--algorithm", "scaffold", "--out", str(tmp_path), "--workers", "1"])
    captured = capsys.readouterr()
    assert code == 1 and "planted" in captured.err and "BROKEN" in captured.out


def test_unknown_algorithm_exits_2(tmp_path, capsys):
    assert main(["check", "--quick", "--algorithm", "fedavgg", "--out", str(tmp_path)]) == 2
    assert "fedavgg" in capsys.readouterr().err
