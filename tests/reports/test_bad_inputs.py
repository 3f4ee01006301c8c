"""The bad-input audit (issue 20): every case exits 2 with a message naming the value and the rule,
never a traceback, and writes nothing."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from fcocheck.reports.cli import main

from .bad_inputs import all_cases

CASES = all_cases()


def listing(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*"))}


def run_case(argv: list[str], subs: dict[str, str]) -> tuple[int, str]:
    for key, value in subs.items():
        argv = [a.replace("{" + key + "}", value) for a in argv]
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's own refusals
            code = exc.code
    return code, err.getvalue()


def test_the_audit_has_at_least_130_distinct_cases():
    ids = [c[0] for c in CASES]
    assert len(ids) == len(set(ids)) and len(ids) >= 130, len(ids)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_input_exits_2_names_the_rule_and_writes_nothing(tmp_path, case):
    _, argv, setup, expected = case
    subs = {"TMP": str(tmp_path), **(setup(tmp_path) if setup is not None else {})}
    before = listing(tmp_path)  # the inputs exist before the snapshot
    code, err = run_case(argv, subs)
    assert code == 2, err
    assert "Traceback" not in err
    assert re.search(expected, err), f"message {err!r} does not match {expected!r}"
    assert listing(tmp_path) == before, "the command wrote something"
