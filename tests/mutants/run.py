"""Apply each planted bug to a copy of the tree and see whether ``fcocheck check --quick`` catches it.

``python -m tests.mutants.run [NAME ...]`` prints one line per mutant: caught (exit code 1, or a cell
whose outcome differs from the clean tree's) or missed.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.mutants.catalog import MUTANTS, Mutant
from tests.mutants.make import ROOT

PACKAGES = ("solvers", "rates", "verify", "reports")


def copy_tree(dest: Path) -> Path:
    """The installed layout (``dest/fcocheck/`` with the four packages inside; no tests, no caches).

    ``PYTHONPATH=dest`` then imports ``fcocheck.*`` from the copy, ahead of the project's own
    editable install.  Patches apply inside ``dest/fcocheck`` (their paths are the folders').
    """
    shutil.copytree(ROOT / "fcocheck", dest / "fcocheck", ignore=shutil.ignore_patterns("__pycache__"))
    for pkg in PACKAGES:
        shutil.copytree(ROOT / pkg, dest / "fcocheck" / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


CRASH = ("crash", "stderr")  # the cell a run that printed no report (a traceback) is filed under


def check(tree: Path, algorithms: tuple[str, ...], out: Path) -> tuple[int, dict[tuple[str, str], str]]:
    """Exit code and {(algorithm, column): outcome} of ``check --quick`` on ``tree`` (``CRASH`` if none)."""
    cmd = [sys.executable, "-m", "fcocheck.reports.cli", "check", "--quick", "--json", "--out", str(out)]
    for a in algorithms:
        cmd += ["--algorithm", a]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    proc = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
    try:
        data = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return proc.returncode, {CRASH: proc.stderr[-300:]}
    cells = {(c["algorithm"], c["column"]): c["outcome"] for c in data["invariants"] + data["properties"]}
    return proc.returncode, cells


@functools.cache
def baseline(algorithms: tuple[str, ...]) -> tuple[int, dict[tuple[str, str], str]]:
    """The clean tree's exit code and cells for ``algorithms`` (once per process and algorithm set)."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        code, cells = check(copy_tree(tmp / "clean"), algorithms, tmp / "out-clean")
    if CRASH in cells:  # every mutant would look caught against a crashed baseline
        raise RuntimeError(f"the clean tree's check crashed for {algorithms}: {cells[CRASH]}")
    return code, cells


def run_one(m: Mutant) -> dict:
    """Baseline and mutated matrices for ``m``'s algorithms; what changed.

    ``caught``: the check exits non-zero or a cell changes — but a mutant that makes the tool crash
    (no report printed) is ``crashed``, not caught: a traceback is not a check's finding.  ``changed``
    lists ``algorithm:column`` cells whose outcome moved, so a test can assert *which* check caught it.
    """
    base_code, base = baseline(m.algorithms)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        bad = copy_tree(tmp / "mutant")
        patch = ROOT / "tests" / "mutants" / f"{m.name}.patch"
        subprocess.run(["patch", "-p1", "-s", "-i", str(patch)], cwd=bad / "fcocheck", check=True)
        code, cells = check(bad, m.algorithms, tmp / "out-mutant")
    crashed = CRASH in cells
    moved = sorted({f"{a}:{c}" for (a, c), o in cells.items() if (a, c) != CRASH and base.get((a, c)) != o}
                   | {f"{a}:{c}" for (a, c) in base if (a, c) not in cells and not crashed})
    changed = sorted(
        f"{a}:{c} {base.get((a, c))} → {o}" for (a, c), o in cells.items() if base.get((a, c)) != o
    )
    return {"name": m.name, "caught": not crashed and (code != base_code or bool(moved)), "crashed": crashed,
            "exit": (base_code, code), "cells": moved, "changed": changed}


def main(names: list[str]) -> None:
    chosen = [m for m in MUTANTS if not names or m.name in names]
    caught = 0
    for m in chosen:
        r = run_one(m)
        caught += r["caught"]
        mark = "CAUGHT" if r["caught"] else "missed"
        print(f"{mark:<7} {m.name:<32} exit {r['exit']}  {'; '.join(r['changed'])[:200]}", flush=True)
    print(f"{caught} of {len(chosen)} caught")


if __name__ == "__main__":
    main(sys.argv[1:])
