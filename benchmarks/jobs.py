"""Wall time of the whole jobs the README quotes, on this machine, in one run.

``fcocheck validate all --quick``, ``fcocheck check --quick`` and the quick report from an empty
store and again reusing it, each beside the targets of the issues (report ≤ 180 s, validate
≤ 20 s and check ≤ 30 s as the speed targets of issue 19) and beside a baseline measured in the
same run: ``python -c "import numpy, scipy, cvxpy"`` (the interpreter and the heavy imports
every job pays).

    python benchmarks/jobs.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "fcocheck.reports.cli"]


def wall(cmd: list[str], repeat: int = 1) -> float:
    """Best wall time of ``cmd`` over ``repeat`` runs (output discarded)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store, out = f"{tmp}/s.sqlite", f"{tmp}/report"
        rows = [
            ("baseline: import numpy, scipy, cvxpy", None,
             wall([sys.executable, "-c", "import numpy, scipy, cvxpy"])),
            ("fcocheck validate all --quick", 20.0, wall([*CLI, "validate", "all", "--quick"])),
            ("fcocheck check --quick", 30.0, wall([*CLI, "check", "--quick", "--out", f"{tmp}/check"])),
            ("fcocheck worstcase fco-4.3 --quick", 60.0,
             wall([*CLI, "worstcase", "fco-4.3", "--quick", "--store", f"{tmp}/w.sqlite"])),
            ("fcocheck report --quick (empty store)", 180.0,
             wall([*CLI, "report", "--quick", "--out", out, "--store", store])),
            ("fcocheck report --quick (reusing it)", None,
             wall([*CLI, "report", "--quick", "--out", out, "--store", store])),
        ]
    base = rows[0][2]
    print(f"{'job':<40} {'seconds':>8} {'× baseline':>11} {'target':>8}")
    for name, target, t in rows:
        goal = f"≤ {target:g}" if target else ""
        print(f"{name:<40} {t:8.1f} {t / base:11.1f} {goal:>8}")


if __name__ == "__main__":
    main()
