"""Wall time of the whole jobs the README quotes, on this machine, in one run.

``fcocheck validate all --quick``, ``fcocheck check --quick`` and the quick report from an empty
store and again reusing it, each beside the targets of the issues (report ≤ 180 s, validate
≤ 20 s and check ≤ 30 s as the speed targets of issue 19), in wall and CPU seconds, and as a
multiple of the **calibration** measured in the same run: a fixed CPU-bound numpy workload (one
BLAS thread) mixing what fcocheck's jobs spend their time on — many small array operations driven
from Python and some dense products.  Seconds differ from machine to machine; the multiple of the
calibration is what compares two machines (or two loads of one machine).

    python benchmarks/jobs.py
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "fcocheck.reports.cli"]


#: the calibration workload: ~1 s on a 2-core development machine; prints its own seconds
CALIBRATION = """
import time
import numpy as np
rng = np.random.default_rng(0)
A, b, x = rng.standard_normal((100, 100)) / 10, rng.standard_normal(100), np.zeros(100)
big = rng.standard_normal((300, 300))
t = time.process_time()
for _ in range(180_000):
    x = np.sign(x) * np.maximum(np.abs(x - 1e-3 * (A @ x - b)) - 1e-4, 0.0)
for _ in range(120):
    big = np.tanh(big @ big.T / 300)
print(time.process_time() - t)
"""


def timed(cmd: list[str], repeat: int = 1, env: dict[str, str] | None = None,
          cwd: Path = ROOT) -> tuple[float, float]:
    """Best wall and best CPU (user + system of the child) seconds of ``cmd`` over ``repeat`` runs.

    Raises:
        RuntimeError: the command failed (a failed job's seconds measure nothing); its stderr's tail
            is in the message.
    """
    walls, cpus = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        done = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        walls.append(time.perf_counter() - t0)
        if done.returncode:
            tail = done.stderr.decode(errors="replace")[-600:]
            raise RuntimeError(f"{' '.join(map(str, cmd))} exited {done.returncode} in {cwd}:\n{tail}")
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return min(walls), min(cpus)


def wall(cmd: list[str], repeat: int = 1) -> float:
    """Best wall time of ``cmd`` over ``repeat`` runs (output discarded)."""
    return timed(cmd, repeat)[0]


def calibration(repeat: int = 3) -> float:
    """CPU seconds of the calibration workload (best of ``repeat`` fresh processes, one BLAS thread)."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    return min(float(subprocess.run([sys.executable, "-c", CALIBRATION], capture_output=True, text=True,
                                    env=env, check=True).stdout) for _ in range(repeat))


def main() -> None:
    """Measure and print the table."""
    base = calibration()
    with tempfile.TemporaryDirectory() as tmp:
        store, out = f"{tmp}/s.sqlite", f"{tmp}/report"
        rows = [
            ("fcocheck validate all --quick", 20.0, timed([*CLI, "validate", "all", "--quick"])),
            ("fcocheck check --quick", 30.0, timed([*CLI, "check", "--quick", "--out", f"{tmp}/check"])),
            ("fcocheck worstcase fco-4.3 --quick", 60.0,
             timed([*CLI, "worstcase", "fco-4.3", "--quick", "--store", f"{tmp}/w.sqlite"])),
            ("fcocheck report --quick (empty store)", 180.0,
             timed([*CLI, "report", "--quick", "--out", out, "--store", store])),
            ("fcocheck report --quick (reusing it)", None,
             timed([*CLI, "report", "--quick", "--out", out, "--store", store])),
        ]
    print(f"calibration workload: {base:.2f} CPU s")
    print(f"{'job':<40} {'wall s':>8} {'CPU s':>8} {'CPU ÷ calibration':>18} {'target':>8}")
    for name, target, (w, c) in rows:
        goal = f"≤ {target:g} s" if target else ""
        print(f"{name:<40} {w:8.1f} {c:8.1f} {c / base:18.1f} {goal:>8}")


if __name__ == "__main__":
    main()
