"""Apply each planted bug to a copy of the tree and see whether its command catches it.

``python -m tests.mutants.run [NAME ...]`` prints one line per mutant: caught (an exit code other than
the clean tree's, or a cell whose outcome differs from the clean tree's) or missed; ``--layers`` then
prints the kill rate per layer, and how many of each layer's mutants a command (``check``,
``validate``), not only a unit test, catches.
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


def with_tests(tree: Path) -> Path:
    """``tree`` with the project's files beside the package (tests, docs, configuration: what unit tests
    read), for ``pytest`` mutants."""
    skip = {".git", ".venv", "out", "fcocheck", "fcocheck.egg-info", *PACKAGES}
    for src in ROOT.iterdir():
        if src.name in skip or src.name.endswith("_cache") or src.name == ".hypothesis" \
                or (tree / src.name).exists():
            continue
        if src.is_dir():
            shutil.copytree(src, tree / src.name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(src, tree / src.name)
    return tree


def validate(tree: Path, names: tuple[str, ...], out: Path) -> tuple[int, dict[tuple[str, str], str]]:
    """Worst exit code and {(experiment, rule): status} of ``validate NAME --quick`` for each name.

    An experiment's own status is the cell (name, ``"status"``); each check's (name, rule).
    """
    codes, cells = [], {}
    env = {**os.environ, "PYTHONPATH": str(tree)}
    for name in names:
        cmd = [sys.executable, "-m", "fcocheck.reports.cli", "validate", name, "--quick", "--json",
               "--workers", "1", "-q"]
        proc = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
        try:
            data = json.loads(proc.stdout)
        except json.JSONDecodeError:
            return proc.returncode, {CRASH: proc.stderr[-300:]}
        codes.append(proc.returncode)
        for r in data:
            cells[r["name"], "status"] = r["status"]
            for c in r.get("checks", []):
                cells[r["name"], c["rule"]] = c["status"]
    out.mkdir(parents=True, exist_ok=True)
    return max(codes), cells


def unit_tests(tree: Path, nodes: tuple[str, ...], out: Path) -> tuple[int, dict[tuple[str, str], str]]:
    """Exit code and {("pytest", node id): passed/failed} of each unit test, run on ``tree``'s package.

    Exit codes other than 0 and 1 (no test collected, an import error) are a crash, not a finding.
    """
    tree = with_tests(tree)
    env = {**os.environ, "PYTHONPATH": str(tree)}
    cells, worst = {}, 0
    for node in nodes:
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", "-x", node]
        proc = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
        if proc.returncode not in (0, 1):
            return proc.returncode, {CRASH: (proc.stdout + proc.stderr)[-300:]}
        cells["pytest", node] = "passed" if proc.returncode == 0 else "failed"
        worst = max(worst, proc.returncode)
    out.mkdir(parents=True, exist_ok=True)
    return worst, cells


def outcome(tree: Path, m: Mutant, out: Path) -> tuple[int, dict[tuple[str, str], str]]:
    """The mutant's command on ``tree``: exit code and cells."""
    if m.command == "check":
        return check(tree, m.algorithms, out)
    return {"validate": validate, "pytest": unit_tests}[m.command](tree, m.targets, out)


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
def baseline(command: str, targets: tuple[str, ...]) -> tuple[int, dict[tuple[str, str], str]]:
    """The clean tree's exit code and cells for ``command`` on ``targets`` (once per process and set)."""
    probe = Mutant("clean", "", "", "", targets, "", command=command, targets=targets)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        code, cells = outcome(copy_tree(tmp / "clean"), probe, tmp / "out-clean")
    if CRASH in cells:  # every mutant would look caught against a crashed baseline
        raise RuntimeError(f"the clean tree's {command} crashed for {targets}: {cells[CRASH]}")
    return code, cells


def run_one(m: Mutant) -> dict:
    """Baseline and mutated matrices for ``m``'s algorithms; what changed.

    ``caught``: the check exits non-zero or a cell changes — but a mutant that makes the tool crash
    (no report printed) is ``crashed``, not caught: a traceback is not a check's finding.  ``changed``
    lists ``algorithm:column`` cells whose outcome moved, so a test can assert *which* check caught it.
    """
    base_code, base = baseline(m.command, m.algorithms if m.command == "check" else m.targets)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        bad = copy_tree(tmp / "mutant")
        patch = ROOT / "tests" / "mutants" / f"{m.name}.patch"
        subprocess.run(["patch", "-p1", "-s", "-i", str(patch)], cwd=bad / "fcocheck", check=True)
        code, cells = outcome(bad, m, tmp / "out-mutant")
    crashed = CRASH in cells
    moved = sorted({f"{a}:{c}" for (a, c), o in cells.items() if (a, c) != CRASH and base.get((a, c)) != o}
                   | {f"{a}:{c}" for (a, c) in base if (a, c) not in cells and not crashed})
    changed = sorted(
        f"{a}:{c} {base.get((a, c))} → {o}" for (a, c), o in cells.items() if base.get((a, c)) != o
    )
    return {"name": m.name, "caught": not crashed and (code != base_code or bool(moved)), "crashed": crashed,
            "exit": (base_code, code), "cells": moved, "changed": changed}


def layers(results: list[tuple[Mutant, dict]]) -> str:
    """Per layer: mutants, caught, and caught by a command (``check``/``validate``), not a unit test."""
    rows = ["layer     mutants  caught  by a command"]
    for layer in sorted({m.layer for m, _ in results}):
        mine = [(m, r) for m, r in results if m.layer == layer]
        caught = sum(r["caught"] for _, r in mine)
        by_command = sum(r["caught"] and m.command != "pytest" for m, r in mine)
        rows.append(f"{layer:<9} {len(mine):>7}  {caught:>6}  {by_command:>12}")
    total = len(results)
    by_command = sum(r["caught"] and m.command != "pytest" for m, r in results)
    rows.append(f"{'all':<9} {total:>7}  {sum(r['caught'] for _, r in results):>6}  {by_command:>12} "
                f"({by_command / max(total, 1):.0%})")
    return "\n".join(rows)


def main(args: list[str]) -> None:
    names = [a for a in args if not a.startswith("--")]
    chosen = [m for m in MUTANTS if not names or m.name in names]
    results = []
    for m in chosen:
        r = run_one(m)
        results.append((m, r))
        mark = "CAUGHT" if r["caught"] else "missed"
        print(f"{mark:<7} {m.name:<32} {m.command:<8} exit {r['exit']}  {'; '.join(r['changed'])[:200]}",
              flush=True)
    print(f"{sum(r['caught'] for _, r in results)} of {len(chosen)} caught")
    if "--layers" in args:
        print(layers(results))


if __name__ == "__main__":
    main(sys.argv[1:])
