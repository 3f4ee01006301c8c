"""Every speed figure of issues 19 and 33 in one run, each beside a baseline measured in the same run.

    python benchmarks/suite.py [--skip-jobs] [--scale] [--before CHECKOUT [--pairs N]] [--jobs-only]

Prints one table: the figure, its value, the baseline it is compared with, the ratio, and the
target.  Baselines are measured here, now, and are the best straightforward code for the same
work: a plain scikit-learn script to the same certified gap (for ``fcocheck solve``,
``benchmarks/solve_sklearn.py``), the same PEPs written directly in PEPit (for a worst case,
``benchmarks/worstcase_pepit.py``), the fastest of a per-client loop and blocked/batched numpy (for
many tiny clients), one full-gradient pass (for an FSVRG round), the bare gradient kernel (for an
engine step).  Whole jobs are given in CPU seconds and as a multiple of the **calibration**, a fixed
CPU-bound numpy workload run in the same session (``benchmarks/jobs.py``), so that figures from two
machines compare; with ``--before`` (a checkout of an earlier commit, set up with its own ``.venv``)
each whole job also runs there, alternating with this build, and the row "this build ÷ before" is the
before/after ratio measured in one run (issue 33's targets for validate and the report).  A job that
fails stops the suite (its seconds would measure nothing).  Nothing is asserted: a benchmark reports,
the tests check correctness.  The engine parts reuse ``benchmarks/engine.py``'s measurements, the FSVRG
round its part v; the FedDualAvg round at four shapes is against the best plain numpy round;
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


def commands(rows: list) -> None:
    """Whole commands: ``--help``, and the solve against scikit-learn's script to the same gap."""
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


_REPORT = ["report", "--quick", "--out", "{tmp}/r", "--store", "{tmp}/s.sqlite", "--no-progress"]

#: the whole jobs: name, arguments after the CLI (``{tmp}`` is a fresh scratch folder), arguments run
#: untimed first in the same folder (or None), and issue 33's target for this build ÷ an earlier one
JOBS = (
    ("validate all --quick", ["validate", "all", "--quick"], None, "≤ 1×"),
    ("check --quick", ["check", "--quick", "--out", "{tmp}/check"], None, ""),
    ("report --quick (empty store)", _REPORT, None, "≤ 0.6×"),
    ("report --quick (reused)", _REPORT, _REPORT, ""),
)


def before_cli(checkout: Path) -> list[str]:
    """The command line of an earlier checkout's fcocheck: its own ``.venv``, its own module path.

    Before the four folders installed as ``fcocheck.*`` the CLI was ``reports.cli``.
    """
    python = checkout / ".venv" / "bin" / "python"
    if not python.is_file():
        raise SystemExit(f"--before {checkout}: no {python}; the rule is a checkout set up with its own "
                         "venv (bash scripts/setup.sh in it)")
    has = subprocess.run([str(python), "-c", "import fcocheck.reports.cli"], cwd=checkout,
                         capture_output=True).returncode == 0
    return [str(python), "-m", "fcocheck.reports.cli" if has else "reports.cli"]


def jobs(rows: list, before: Path | None, pairs: int) -> None:
    """Whole jobs in CPU seconds, serial, against the calibration; with ``before``, also against it.

    Serial (``--workers 1``): a pool's workers are the forkserver's children, which the rusage of this
    process's children never counts — with a pool the rows read 2–8 s for jobs of a minute or more.
    With ``before`` each job runs ``pairs`` times in each build, alternating (earlier build first), the
    best CPU of each side kept; the ratio row is this build ÷ the earlier one, both measured here, now.
    """
    base = calibration()
    cal = f"calibration workload ({base:.2f} s)"
    sides = [("", CLI, ROOT)]
    if before is not None:
        sides.insert(0, (" [before]", before_cli(before), before))
    for name, args, setup, target in JOBS:
        best = {label: float("inf") for label, _, _ in sides}
        for _ in range(pairs if before is not None else 1):
            for label, cli, cwd in sides:
                with tempfile.TemporaryDirectory() as tmp:
                    def command(a: list[str], tmp: str = tmp, cli: list[str] = cli) -> list[str]:
                        return [*cli, *[x.format(tmp=tmp) for x in a], "--workers", "1"]
                    if setup is not None:
                        timed(command(setup), cwd=cwd)
                    best[label] = min(best[label], timed(command(args), cwd=cwd)[1])
        for label, _, _ in sides:
            row(rows, f"fcocheck {name} (CPU, serial){label}", best[label], "s", base, cal, "")
        if before is not None:
            row(rows, f"fcocheck {name}: this build ÷ before", best[""], "s", best[" [before]"],
                f"the same job at {before}", target)


def engine(rows: list) -> None:
    """Engine step vs bare kernel; many tiny clients vs a per-client loop (``benchmarks/engine.py``).

    An engine step is compared with the bare gradient kernel alone ("strict": the client map counts
    as overhead) and with the bare kernel plus the bare client map ∇(h + tψ)* ("work": both are the
    algorithm's own computation; on lowrank-paper the map is 64 SVDs and dominates the step).
    """
    from benchmarks import engine as eng

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
    for label, problem, target in round_shapes():
        loop, loop_name = eng.best_numpy_round(problem, 0.05, 10)
        base = f"best plain numpy: {loop_name} (no metrics)"
        if label.startswith("10⁴"):
            row(rows, f"{label}, one round (metrics on)", engine_round(problem, 1), "s", loop, base, "")
        lean = engine_round(problem, 0)
        row(rows, f"{label}, one round (metrics_every = R)", lean, "s", loop, base, target)


def round_shapes() -> list[tuple[str, object, str]]:
    """The FedDualAvg round's shapes of issue 33 and each one's target against the best numpy round.

    lasso-paper and 10⁴ tiny clients (the engine's lead: ≤ 0.4×), 10² clients and d = 10 (where plain numpy
    is level with it: ≤ 1×).  Each is lasso-paper's generator at another size (10 non-zero coordinates of
    w*, 3 at d = 10).
    """
    from fcocheck.solvers.generators import generate

    return [
        ("lasso-paper", generate("lasso-paper"), "≤ 0.4×"),
        ("10⁴ clients × 20 × d=100", generate("lasso-paper", clients=10_000, samples=20, d=100, nnz=10),
         "≤ 0.4×"),
        ("10² clients × 20 × d=100", generate("lasso-paper", clients=100, samples=20, d=100, nnz=10), "≤ 1×"),
        ("10³ clients × 20 × d=10", generate("lasso-paper", clients=1_000, samples=20, d=10, nnz=3), "≤ 1×"),
    ]


def engine_round(problem: object, metrics_every: int, repeats: int = 3) -> float:
    """Wall seconds of one FedDualAvg round (η_c = 0.05, K = 10) in the engine, best of ``repeats``.

    A 4-round run minus a 1-round run, over 3, removes the set-up (L, ψ, kernel); the caches are warmed
    by one run first.  ``metrics_every`` 0: metrics only at the end (= R).
    """
    from fcocheck.solvers.engine import run

    hp = {"eta_c": 0.05, "local_steps": 10}
    run("feddualavg", problem, hp, rounds=1, reference=False)  # warm the per-problem caches
    best = float("inf")
    for _ in range(repeats):
        times = []
        for rounds in (1, 4):
            t0 = time.perf_counter()
            run("feddualavg", problem, hp, rounds=rounds, reference=False,
                metrics_every=metrics_every if metrics_every else rounds)
            times.append(time.perf_counter() - t0)
        best = min(best, (times[1] - times[0]) / 3)
    return best


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
    parser.add_argument("--before", type=Path, metavar="CHECKOUT",
                        help="also run the whole jobs in an earlier checkout (with its own .venv) and print "
                             "this build ÷ that one")
    parser.add_argument("--pairs", type=int, default=2,
                        help="with --before: alternating runs per build and job, the best kept (default 2)")
    parser.add_argument("--jobs-only", action="store_true", help="only the whole jobs")
    args = parser.parse_args()
    if args.pairs < 1:
        parser.error(f"--pairs {args.pairs}; the rule is at least 1")
    rows: list = []
    if args.jobs_only:
        jobs(rows, args.before, args.pairs)
    else:
        commands(rows)
        if not args.skip_jobs:
            jobs(rows, args.before, args.pairs)
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
