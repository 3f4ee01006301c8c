"""``fcocheck report`` and ``fcocheck sweep`` / ``fcocheck store``: the sweep and report commands."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from reports.build import REPRODUCTIONS, build
from reports.cli_common import UsageError
from reports.render_html import render_html
from reports.render_md import render_md
from verify.experiments import EXPERIMENTS
from verify.sweep import Store, grid, run_sweep
from verify.sweep.config import InvalidSweepError, RunConfig
from verify.sweep.executors import make_executor
from verify.sweep.session import Session

DEFAULT_STORE = "out/fcocheck.sqlite"


def add_executor_options(p: argparse.ArgumentParser) -> None:
    """--workers / --scheduler / --dask-local / --store / --no-progress."""
    p.add_argument("--store", default=DEFAULT_STORE, help=f"results store (SQLite; default {DEFAULT_STORE})")
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help="local process pool size (default: one per core; 1 = serial in this process)",
    )
    p.add_argument("--scheduler", default=None, metavar="ADDRESS", help="run on an existing Dask cluster")
    p.add_argument(
        "--dask-local", type=int, default=None, metavar="N", help="start a Dask LocalCluster of N workers"
    )
    p.add_argument("--no-progress", action="store_true", help="never draw the progress bar")


def _session(args: argparse.Namespace) -> Session:
    store = Store(args.store)
    ex = make_executor(args.workers, args.scheduler, args.dask_local)
    return Session(store, ex, progress=False if args.no_progress else None)


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
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    session = _session(args)
    try:
        report = build(session, out, quick, args.seed, names, algs, reps, args.budget)
    except KeyboardInterrupt:
        print(
            "fcocheck: interrupted; finished runs and jobs are in the store — run the same command to resume",
            file=sys.stderr,
        )
        return 130
    finally:
        session.executor.close()
        session.store.close()
    html, md = render_html(report, out), render_md(report, out)
    s = report.summary()
    print(f"wrote {html} and {md} ({len(list((out / 'figures').glob('*.png')))} figures as PNG and SVG)")
    print(
        f"theorems {s['theorems']}; experiments {s['experiments']}; invariants {s['invariants']}; "
        f"reproductions {s['reproductions']}; {report.provenance['wall_seconds']} s"
    )
    return 0


def _load_sweep(path: str) -> list[RunConfig]:
    try:
        spec = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise InvalidSweepError(
            f"sweep file {path!r}: {exc}; the rule is a JSON file with base, axes, seeds"
        ) from None
    specs = spec if isinstance(spec, list) else [spec]
    configs: list[RunConfig] = []
    for s in specs:
        if not isinstance(s, dict) or "base" not in s:
            raise InvalidSweepError(
                f"sweep file {path!r}: entry {s!r}; the rule is {{'base': {{...}}, 'axes': "
                "{...}, 'seeds': N or [..]}"
            )
        seeds = s.get("seeds", 1)
        seeds = range(seeds) if isinstance(seeds, int) else seeds
        configs += grid(s["base"], s.get("axes", {}) or {"rounds": [s["base"].get("rounds", 100)]}, seeds)
    return configs


def cmd_sweep(args: argparse.Namespace) -> int:
    """Run a sweep file into the store (resuming: only missing runs execute)."""
    configs = _load_sweep(args.sweep)
    session = _session(args)
    try:
        summary = run_sweep(configs, session.store, session.executor, session.progress)
    finally:
        session.executor.close()
        session.store.close()
    print(summary.line())
    for e in summary.errors[:10]:
        print(f"  error: {e}")
    if summary.interrupted:
        return 130
    return 1 if summary.errors else 0


def cmd_store(args: argparse.Namespace) -> int:
    """Inspect or export the store."""
    if not Path(args.store).exists():
        raise InvalidSweepError(
            f"--store {args.store!r} does not exist; the rule is an existing results store"
        )
    with Store(args.store) as store:
        if args.action == "export":
            if not args.out:
                raise UsageError("store export needs --out FILE.csv or FILE.parquet")
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
                },
                indent=1,
            )
        )
    return 0


def add_parsers(sub: Any) -> None:
    """Register ``report``, ``sweep`` and ``store``."""
    r = sub.add_parser(
        "report", help="run or reuse experiments, checks and reproductions; write HTML + Markdown"
    )
    mode = r.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="quick designs (default)")
    mode.add_argument("--full", action="store_true", help="full designs, more seeds, full conformance budget")
    r.add_argument("--out", default="out/report", help="output directory (default out/report)")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--experiment", action="append", default=[], help="only these experiments (repeatable)")
    r.add_argument(
        "--algorithm",
        action="append",
        default=[],
        help="conformance for these algorithms only (repeatable; 'none' skips it)",
    )
    r.add_argument(
        "--reproduction",
        action="append",
        default=[],
        help=f"only these reproductions ({', '.join(REPRODUCTIONS)}; 'none' skips them)",
    )
    r.add_argument("--budget", default=None, help="conformance budget (quick | full | thorough | N cases)")
    add_executor_options(r)
    r.set_defaults(func=cmd_report)
    s = sub.add_parser("sweep", help="run a sweep file (grid × seeds) into the results store, resumably")
    s.add_argument(
        "sweep", help="JSON: {'base': {...run config...}, 'axes': {'hp.eta_c': [...]}, 'seeds': 3}"
    )
    add_executor_options(s)
    s.set_defaults(func=cmd_sweep)
    st = sub.add_parser("store", help="summarise or export the results store")
    st.add_argument("action", choices=("info", "export"))
    st.add_argument("--store", default=DEFAULT_STORE)
    st.add_argument("--out", help="export target: FILE.csv or FILE.parquet")
    st.set_defaults(func=cmd_store)
