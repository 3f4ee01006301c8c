"""``fcocheck report`` and ``fcocheck sweep`` / ``fcocheck store``: the sweep and report commands."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from fcocheck.reports.build import REPRODUCTIONS, build
from fcocheck.reports.cli_common import UsageError, check_writable
from fcocheck.reports.cli_session import session as open_session
from fcocheck.reports.render_html import render_html
from fcocheck.reports.render_md import render_md
from fcocheck.solvers.ctrl_c import INTERRUPTED
from fcocheck.solvers.staging import Staging
from fcocheck.solvers.untrusted import read_json
from fcocheck.verify.experiments import EXPERIMENTS
from fcocheck.verify.sweep import Store, grid, run_sweep
from fcocheck.verify.sweep.config import InvalidSweepError, RunConfig
from fcocheck.verify.sweep.validate import check_configs

MAX_BUDGET = 100_000


def summary_line(s: dict[str, Any], seconds: float) -> str:
    """The report's last line in words: ``10 theorems: 8 consistent, 1 inconclusive; … in 104.6 s``."""

    def part(name: str, counts: dict[str, int]) -> str:
        total = sum(counts.values())
        inner = ", ".join(f"{n} {status}" for status, n in counts.items() if n)
        return f"{total} {name}" + (f": {inner}" if inner else "")

    parts = [part("theorems", s["theorems"]), part("experiments", s["experiments"]),
             part("invariants", s["invariants"]), part("reproductions", s["reproductions"])]
    return "; ".join(parts) + f" — in {float(seconds):.1f} s"


def budget_check(budget: str | None) -> str | int | None:
    """``--budget``: quick | full | thorough, or a number of cases 1..100000."""
    from fcocheck.verify.search import BUDGETS

    if budget is None or budget in BUDGETS:
        return budget
    if budget.isascii() and budget.isdigit() and 1 <= int(budget) <= MAX_BUDGET:
        return int(budget)
    raise UsageError(f"--budget {budget!r}; the rule is one of {sorted(BUDGETS)} or a number of cases "
                     f"from 1 to {MAX_BUDGET}")


def cmd_report(args: argparse.Namespace) -> int:
    """Build the report into ``--out``."""
    quick = not args.full
    names = args.experiment or None
    for n in names or []:
        if n not in EXPERIMENTS:
            raise UsageError(f"--experiment {n!r}; the rule is one of {sorted(EXPERIMENTS)}")
    reps = tuple(args.reproduction) if args.reproduction else REPRODUCTIONS
    for n in reps:
        if n not in REPRODUCTIONS and n != "none":
            raise UsageError(f"--reproduction {n!r}; the rule is one of {list(REPRODUCTIONS)} or none")
    reps = tuple(n for n in reps if n != "none")
    algs = None if not args.algorithm else ([] if args.algorithm == ["none"] else args.algorithm)
    budget = budget_check(args.budget)
    out = Path(args.out)
    check_writable(out, directory=True)
    session = open_session(args)
    failed = True  # a store this command created and stored nothing in is then removed
    try:
        # everything is written to a stage inside --out and moved into place when the whole report is
        # there: a refusal, a failure or a Ctrl-C leaves --out as it was (solvers.staging)
        with Staging(out) as stage:
            report = build(session, stage.dir, quick, args.seed, names, algs, reps, budget,
                           worstcase=not args.no_worstcase, earlier=out)
            render_html(report, stage.dir)
            render_md(report, stage.dir)
        failed = False
    except KeyboardInterrupt:
        print(
            "fcocheck: interrupted; finished runs and jobs are in the store — run the same command to resume",
            file=sys.stderr,
        )
        return INTERRUPTED
    finally:
        session.executor.close()
        session.store.close(discard_empty=failed)
    html, md = out / "index.html", out / "report.md"
    s = report.summary()
    if not args.quiet:
        figs = report.provenance["figures"]
        print(f"wrote {html} and {md} ({figs['drawn'] + figs['reused']} figures as PNG and SVG: "
              f"{figs['drawn']} drawn, {figs['reused']} already drawn from the same data and kept)")
    print(summary_line(s, report.provenance["wall_seconds"]))
    failed = len(report.errors) + sum(1 for b in report.reproductions if b.rep.status == "error")
    if failed:
        print(f"fcocheck: {failed} part(s) of the report could not be computed (see the report)",
              file=sys.stderr)
        return 1
    return 0


def _load_sweep(path: str) -> list[RunConfig]:
    spec = read_json(path, "sweep file", InvalidSweepError, limit=MAX_SWEEP_BYTES)
    specs = spec if isinstance(spec, list) else [spec]
    configs: list[RunConfig] = []
    for s in specs:
        if not isinstance(s, dict) or "base" not in s or not set(s) <= {"base", "axes", "seeds"} \
                or not isinstance(s["base"], dict) or not isinstance(s.get("axes", {}), dict):
            raise InvalidSweepError(
                f"sweep file {path!r}: entry {json.dumps(s)[:200]}; the rule is {{'base': {{...}}, "
                "'axes': {...}, 'seeds': N or [..]} and nothing else"
            )
        if "seed" in s["base"]:
            raise InvalidSweepError(f"sweep file {path!r}: base.seed = {s['base']['seed']!r} would be "
                                    "overridden; the rule is the seeds of a sweep given by 'seeds'")
        axes = s.get("axes", {}) or {"rounds": [s["base"].get("rounds", 100)]}
        seeds = _seeds(path, s.get("seeds", 1))
        count = grid_size(axes, seeds) + len(configs)  # counted before anything is materialised
        if count > MAX_RUNS:
            raise InvalidSweepError(f"sweep file {path!r} declares {count} runs; the rule is at most "
                                    f"{MAX_RUNS} per sweep file (split it)")
        configs += grid(s["base"], axes, seeds)
    return configs


#: the largest sweep a file may declare (counted from its axes, before any run is built)
MAX_RUNS = 100_000
MAX_SWEEP_BYTES = 4 * 2**20


def grid_size(axes: Any, seeds: list[int]) -> int:
    """Product of the axis lengths × seeds (each axis must be a non-empty list; checked by ``grid``)."""
    n = len(seeds)
    for values in axes.values():
        n *= len(values) if isinstance(values, list) and values else 1
    return n


def _seeds(path: str, seeds: Any) -> list[int]:
    """``seeds``: N (seeds 0..N−1, 1 <= N <= 10^6) or a list of distinct integers in [0, 2^63)."""
    def ok(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    if ok(seeds) and 1 <= seeds <= 1_000_000:
        return list(range(seeds))
    if isinstance(seeds, list) and seeds and all(ok(v) and 0 <= v < 2**63 for v in seeds):
        return seeds
    raise InvalidSweepError(f"sweep file {path!r}: seeds = {json.dumps(seeds)[:100]}; the rule is N "
                            "(1 <= N <= 1000000) or a non-empty list of integers in [0, 2^63 - 1]")


def cmd_sweep(args: argparse.Namespace) -> int:
    """Run a sweep file into the store (resuming: only missing or errored runs execute).

    Every configuration is checked before anything is created; exit 1 whenever a run of the
    sweep is an error, also when the same command runs again.
    """
    configs = _load_sweep(args.sweep)
    check_configs(configs)
    session = open_session(args)
    failed = True  # a store this command created and stored nothing in is then removed
    try:
        summary = run_sweep(configs, session.store, session.executor, session.progress)
        failed = False
    finally:
        session.executor.close()
        session.store.close(discard_empty=failed)
    print(summary.line())
    for e in summary.errors[:10]:
        print(f"  error: {e}")
    if summary.interrupted:
        return INTERRUPTED
    if summary.errors:
        print(f"fcocheck: {len(summary.errors)} run(s) of the sweep ended in error", file=sys.stderr)
        return 1
    return 0


def cmd_store(args: argparse.Namespace) -> int:
    """Inspect or export the store."""
    store_path = Path(args.store)
    if not store_path.is_file():
        why = "is not a regular file (a FIFO, a device or a directory)" if store_path.exists() else \
            "does not exist"
        raise InvalidSweepError(f"--store {args.store!r} {why}; the rule is an existing results store")
    if args.action == "export":
        if not args.out or Path(args.out).suffix.lower() not in (".csv", ".parquet"):
            raise UsageError(f"store export --out {args.out!r}; the rule is FILE.csv or FILE.parquet")
        check_writable(args.out)
    with Store(args.store) as store:
        if args.action == "export":
            print(f"wrote {store.export(args.out)}")
            return 0
        rows = store.runs()
        by: dict[str, Any] = {}
        for r in rows:
            by.setdefault(r["code_version"], {}).setdefault(r["status"], 0)
            by[r["code_version"]][r["status"]] += 1
        print(
            json.dumps(
                {
                    "store": args.store,
                    "runs": len(rows),
                    "by_code_version": by,
                    "results": store.code_versions(),
                    "user_definitions": store.definitions(),
                },
                indent=1,
            )
        )
    return 0
