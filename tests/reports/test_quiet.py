"""``--quiet``: one summary line on stdout, nothing on stderr; without it the same commands say more."""

import json

import pytest

from fcocheck.reports.cli import main

BASE = {"algorithm": "fedavg", "problem": {"generator": "quadratics", "params": {"clients": 4, "d": 6}},
        "hp": {"eta_c": 0.1, "local_steps": 2}, "rounds": 5}


def _lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.strip()]


@pytest.mark.parametrize("quiet", [False, True])
def test_validate_quiet_prints_only_the_summary(quiet, capsys):
    assert main(["validate", "fco-eq-4.5", "--quick"] + (["--quiet"] if quiet else [])) == 0
    out, err = capsys.readouterr()
    if quiet:
        assert _lines(out) == [out.strip()] and out.startswith("1 experiments: 1 consistent") and err == ""
    else:
        assert len(_lines(out)) > 2 and "design:" in out  # the per-experiment lines the flag removes


def test_sweep_quiet_has_no_progress_lines_even_in_a_log(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CI", "1")  # not a terminal: progress would be plain lines on stderr
    sweep = tmp_path / "s.json"
    sweep.write_text(json.dumps({"base": BASE, "seeds": [0, 1, 2]}))
    args = ["sweep", str(sweep), "--store", str(tmp_path / "s.sqlite"), "--workers", "1"]
    assert main(args) == 0
    _, err = capsys.readouterr()
    assert "runs" in err  # the progress lines --quiet removes
    assert main(args[:3] + [str(tmp_path / "t.sqlite"), "--workers", "1", "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert len(_lines(out)) == 1 and err == ""


def test_check_quiet_prints_only_the_summary(tmp_path, capsys):
    args = ["check", "--quick", "--algorithm", "fedavg", "--workers", "1", "--out", str(tmp_path / "c")]
    assert main(args + ["--quiet"]) == 0
    out, err = capsys.readouterr()
    assert _lines(out) == [out.strip()] and "invariants (0 broken)" in out and err == ""
