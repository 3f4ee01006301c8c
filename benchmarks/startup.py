"""Start-up time of the ``fcocheck`` command (issue 20: ``--help`` and ``algorithms`` < 0.5 s).

Prints the median of 10 wall times of each command beside the baseline measured in the same run,
a bare ``python -c pass`` (the interpreter's own start-up), as a ratio.

    python benchmarks/startup.py [--repeat 10]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = {
    "python -c pass (baseline)": [sys.executable, "-c", "pass"],
    "fcocheck --help": [sys.executable, "-m", "fcocheck.reports.cli", "--help"],
    "fcocheck --version": [sys.executable, "-m", "fcocheck.reports.cli", "--version"],
    "fcocheck algorithms": [sys.executable, "-m", "fcocheck.reports.cli", "algorithms"],
    "pytest --co -q (fcocheck plugin)": [sys.executable, "-m", "pytest", "--co", "-q",
                                         "benchmarks/startup.py"],
    "pytest --co -q (-p no:fcocheck)": [sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:fcocheck",
                                        "benchmarks/startup.py"],
}


def wall(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    rows = {}
    for name, cmd in COMMANDS.items():
        wall(cmd)  # warm the file cache
        rows[name] = statistics.median(wall(cmd) for _ in range(args.repeat))
    base = rows["python -c pass (baseline)"]
    print(f"{'command':<36} {'median s':>9} {'× python':>9}   (median of {args.repeat})")
    for name, t in rows.items():
        print(f"{name:<36} {t:9.3f} {t / base:9.1f}")


if __name__ == "__main__":
    main()
