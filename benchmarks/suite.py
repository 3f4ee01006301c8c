"""Every speed figure of issue 19 in one run, each beside a baseline measured in the same run.

    python benchmarks/suite.py [--skip-jobs] [--scale]

Prints one table: the figure, its value, the baseline it is compared with, the ratio, and the
target.  Baselines are measured here, now, and are the best straightforward code for the same
work: a plain scikit-learn script to the same certified gap (for ``fcocheck solve``,
``benchmarks/solve_sklearn.py``), the same PEPs written directly in PEPit (for a worst case,
``benchmarks/worstcase_pepit.py``), the fastest of a per-client loop and blocked/batched numpy (for
many tiny clients), one full-gradient pass (for an FSVRG round), the bare gradient kernel (for an
engine step).  Whole jobs are given in CPU seconds and as a multiple of the **calibration**, a fixed
CPU-bound numpy workload run in the same session (``benchmarks/jobs.py``), so that figures from two
machines compare.  Nothing is asserted: a benchmark reports, the tests check correctness.  The
engine parts reuse ``benchmarks/engine.py``'s measurements, the FSVRG round its part v;
``--scale`` adds FedDualAvg on 10⁵ sparse logistic clients (10 rounds, peak RSS), which takes minutes.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.jobs import CLI, calibration, timed, wall  # noqa: E402  (benchmarks/' timing helpers)


def row(rows: list, name: str, value: float, unit: str, base: float | None, base_name: str,
        target: str) -> None:
    """Append one line of the table."""
    rows.append((name, value, unit, base, base_name, target))


def commands(rows: list, skip_jobs: bool) -> None:
    """Whole commands: the solve against scikit-learn, the jobs in CPU seconds against the calibration."""
    from benchmarks import solve_sklearn

    bare = wall([sys.executable, "-c", "pass"], 5)
    row(rows, "fcocheck --help", wall([*CLI, "--help"], 5), "s", bare, "python -c pass", "≤ 0.5 s")
    f = solve_sklearn.figures()
    sk = f"scikit-learn Lasso script, tol {f['tol']:g} (CPU)"
    row(rows, "fcocheck solve lasso-paper.npz (cold, CPU)", f["cold_cpu"], "s", f["sklearn_cpu"], sk, "≤ 2×")
    row(rows, "fcocheck solve lasso-paper.npz (cold, wall)", f["cold_wall"], "s", f["sklearn_wall"],
        f"scikit-learn Lasso script, tol {f['tol']:g} (wall)", "≤ 2×")
    row(rows, "fcocheck solve lasso-paper.npz (cached, CPU)", f["cached_cpu"], "s", f["sklearn_cpu"], sk,
        "≤ 1×")
    if skip_jobs:
        return
    base = calibration()
    # serial (--workers 1): a pool's workers are the forkserver's children, which the rusage of this
    # process's children never counts — with them the rows read 2–8 s for jobs of a minute or more
    serial = ["--workers", "1"]
    with tempfile.TemporaryDirectory() as tmp:
        store = f"{tmp}/s.sqlite"
        for name, cmd in (
            ("fcocheck validate all --quick (CPU, serial)", [*CLI, "validate", "all", "--quick", *serial]),
            ("fcocheck check --quick (CPU, serial)",
             [*CLI, "check", "--quick", "--out", f"{tmp}/check", *serial]),
            ("fcocheck report --quick (empty store, CPU, serial)",
             [*CLI, "report", "--quick", "--out", f"{tmp}/r", "--store", store, "--no-progress", *serial]),
            ("fcocheck report --quick (reused, CPU, serial)",
             [*CLI, "report", "--quick", "--out", f"{tmp}/r", "--store", store, "--no-progress", *serial]),
        ):
            row(rows, name, timed(cmd)[1], "s", base, f"calibration workload ({base:.2f} s)", "")


def engine(rows: list) -> None:
    """Engine step vs bare kernel; many tiny clients vs a per-client loop (``benchmarks/engine.py``).

    An engine step is compared with the bare gradient kernel alone ("strict": the client map counts
    as overhead) and with the bare kernel plus the bare client map ∇(h + tψ)* ("work": both are the
    algorithm's own computation; on lowrank-paper the map is 64 SVDs and dominates the step).
    """
    from benchmarks import engine as eng
    from fcocheck.solvers.generators import generate

    for name in ("lasso-paper", "lowrank-paper"):  # engine.py part i's full windows
        f = eng.step_figures(name)
        which = min(f["kernel"], key=f["kernel"].get)
        row(rows, f"engine step, FedDualAvg {name} (metrics every round)", f["step"] * 1e3, "ms",
            f["best"] * 1e3, f"bare kernel ({which})", "")
        row(rows, f"engine step, FedDualAvg {name} (metrics_every = R)", f["lean"] * 1e3, "ms",
            f["best"] * 1e3, f"bare kernel ({which})", "≤ 1.1× strict")
        base = f"bare kernel + client map ({f['map'] * 1e3:.2f} ms)"
        row(rows, "   the same ÷ (bare kernel + bare client map)", f["lean"] * 1e3, "ms",
            (f["best"] + f["map"]) * 1e3, base, "≤ 1.1× work")
        if f["pass"] is not None:  # the engine's own client-major hot loop: what the rest of a round costs
            row(rows, "   the same ÷ bare compiled K-step pass", f["lean"] * 1e3, "ms", f["pass"] * 1e3,
                "fused_steps.dual_trajectory ÷ K", "")
    tiny = generate("lasso-paper", clients=10_000, samples=20, d=100, nnz=10)
    loop, loop_name = eng.best_numpy_round(tiny, 0.05, 10)
    from fcocheck.solvers.engine import run

    run("feddualavg", tiny, {"eta_c": 0.05, "local_steps": 10}, rounds=1, reference=False)  # warm caches

    def per_round(metrics_every: int) -> float:
        """Seconds per round: a 4-round run minus a 1-round run removes the set-up (L, ψ, kernel)."""
        times = []
        for rounds in (1, 4):
            t0 = time.perf_counter()
            run("feddualavg", tiny, {"eta_c": 0.05, "local_steps": 10}, rounds=rounds, reference=False,
                metrics_every=metrics_every if metrics_every else rounds)
            times.append(time.perf_counter() - t0)
        return (times[1] - times[0]) / 3

    row(rows, "10⁴ clients × 20 × d=100, one round (metrics on)", per_round(1), "s", loop,
        f"best plain numpy: {loop_name} (no metrics)", "")
    row(rows, "10⁴ clients × 20 × d=100, one round (metrics_every = R)", per_round(0), "s", loop,
        f"best plain numpy: {loop_name} (no metrics)", "≤ 0.4×")


def worstcases(rows: list) -> None:
    """``worst_case(spec)`` against the same PEPs written directly in PEPit (``worstcase_pepit.py``)."""
    from benchmarks import worstcase_pepit

    for f in worstcase_pepit.figures(quick=True):
        row(rows, f"worst case {f['name']} (PEP build + solve)", f["seconds_fcocheck"], "s",
            f["seconds_direct"], "the same PEP written directly in PEPit", "≤ 1.1×")


def fsvrg(rows: list) -> None:
    """One FSVRG round at seed-004 scale against one full-gradient pass (``engine.py`` part v)."""
    from benchmarks import engine as eng

    r = eng.fsvrg_round(10_000)
    row(rows, "FSVRG round, seed-004 scale (10⁴ clients, 4·10⁷ nnz)", r["second"], "s", r["grad"],
        "one full-gradient pass", "≤ 5 s")


def scale(rows: list) -> None:
    """FedDualAvg, 10 rounds, on 10⁵ sparse logistic clients: wall time and peak RSS (a subprocess)."""
    code = (
        "import resource,time;from fcocheck.solvers.generators import generate;"
        "from fcocheck.solvers.engine import run;"
        "p=generate('bag-of-words',seed=0,clients=100000,d=2000,mean_size=20,min_size=5,max_size=100,words=10);"
        "t=time.perf_counter();run('feddualavg',p,{'eta_c':0.1,'local_steps':2},rounds=10,oracle='exact',"
        "seed=0,reference=False);"
        "print(time.perf_counter()-t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    secs, rss = (float(x) for x in out.stdout.split()) if out.returncode == 0 else (float("nan"),) * 2
    row(rows, "10⁵ sparse clients, FedDualAvg 10 rounds", secs, "s", None, "", "")
    row(rows, "   peak RSS", rss / 2**20, "GiB", None, "", "≤ 8 GiB")


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-jobs", action="store_true", help="skip validate/check/report (minutes)")
    parser.add_argument("--scale", action="store_true", help="also the 10⁵-client run (minutes)")
    args = parser.parse_args()
    rows: list = []
    commands(rows, args.skip_jobs)
    engine(rows)
    worstcases(rows)
    fsvrg(rows)
    if args.scale:
        scale(rows)
    print("\nThe engine's other parts (memory growth, prox costs): benchmarks/engine.py --parts iii,iv")
    print(f"\n{'figure':<58} {'value':>10} {'baseline':>10} {'ratio':>7}  {'target':<14} baseline is")
    for name, value, unit, base, base_name, target in rows:
        ratio = f"{value / base:7.2f}" if base else " " * 7
        b = f"{base:10.3g}" if base else " " * 10
        print(f"{name:<58} {value:10.3g} {b} {ratio}  {target:<14} {base_name} [{unit}]")


if __name__ == "__main__":
    main()
