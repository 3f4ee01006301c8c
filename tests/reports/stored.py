"""A small quick report from the command line: the store the boundary tests craft their inputs from."""

from __future__ import annotations

from pathlib import Path

from fcocheck.reports.cli import main

#: one experiment, a conformance slice, no reproduction
REPORT = ["--experiment", "fco-eq-4.5", "--algorithm", "fedavg", "--reproduction", "none",
          "--budget", "quick", "--workers", "1", "--no-progress"]


def run_report(out: Path, store: Path, *extra: str) -> int:
    """``fcocheck report`` of ``REPORT`` into ``out`` from ``store``."""
    return main(["report", "--out", str(out), "--store", str(store), *REPORT, *extra])
