"""``fcocheck algorithms`` and ``fcocheck run``: the registry and one instrumented run."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from fcocheck.reports.cli_common import UsageError, check_writable, load_problem, parse_params
from fcocheck.solvers import strict_json
from fcocheck.solvers.algorithms import ALGORITHMS, ALIASES, get
from fcocheck.solvers.engine import Trace, run
from fcocheck.solvers.engine.trace import COMPLETED, INTERRUPTED
from fcocheck.solvers.errors import InterruptedRunError


def cmd_algorithms(args: argparse.Namespace) -> int:
    """List the registry with each algorithm's hyper-parameters."""
    rows = {
        name: {
            "family": a.family,
            "summary": a.summary,
            "participation": a.participation,
            "hyperparameters": a.parameters(),
        }
        for name, a in ALGORITHMS.items()
    }
    if args.json:
        print(strict_json.dumps({"algorithms": rows, "aliases": ALIASES}, indent=2, default=str))
        return 0
    for name, row in rows.items():
        print(f"{name:<16} [{row['family']}] {row['summary']}")
        hps = ", ".join(
            f"{k}=" + ("required" if v["default"] is None else repr(v["default"]))
            for k, v in row["hyperparameters"].items()
        )
        print(f"{'':<16} {hps}")
    print("aliases: " + ", ".join(f"{a} -> {b}" for a, b in ALIASES.items()))
    return 0


def _hyper(args: argparse.Namespace) -> dict[str, Any]:
    params: dict[str, Any] = parse_params(args.param)
    for flag, key in (("eta_c", "eta_c"), ("eta_s", "eta_s"), ("eta", "eta"), ("local_steps", "local_steps")):
        value = getattr(args, flag)
        if value is not None:
            if key in params:
                raise UsageError(f"{key} given twice (--{flag.replace('_', '-')} and --param)")
            params[key] = value
    return params


def _fmt(value: Any) -> str:
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def summary_text(trace: Trace) -> str:
    """One screen: what ran, how it ended, the final metrics, the costs."""
    m, final = trace.meta, trace.summary()["final"]
    hp = ", ".join(f"{k}={_fmt(v)}" for k, v in m["hyper"].items())
    lines = [
        f"run       {m['algorithm']} ({hp}) on {m['problem']}: M={m['M']}, dim={m['dim']}, "
        f"oracle {m['oracle']}, seed {m['seed']}, "
        f"P={m['participation'] or 'all'}, gradient {m['gradient']}",
        f"status    {m['status']} after {m['completed']}/{m['rounds']} rounds"
        + (f" (diverged at round {m['diverged_at']})" if m["diverged_at"] else ""),
    ]
    if m["reference"]:
        lines.append(f"reference Phi* = {m['reference']['objective']!r} [{m['reference']['label']}]")
    groups = [
        ("objective", ["objective", "gap", "objective_avg", "gap_avg", "prox_grad_norm"]),
        ("recovery", ["density", "precision", "recall", "f1", "rank", "recovery_error"]),
        ("drift", ["discrepancy", "discrepancy_overhead"]),
        (
            "state",
            [
                "control_sum",
                "control_gap",
                "model_spread",
                "consensus_gap",
                "g_sum",
                "local_steps_taken",
                "dual_objective",
            ],
        ),
        (
            "cost",
            [
                "grad_calls",
                "sample_grad_calls",
                "subgrad_calls",
                "prox_calls_client",
                "prox_calls_server",
                "floats_up",
                "floats_down",
            ],
        ),
    ]
    for title, keys in groups:
        items = [f"{k}={_fmt(final[k])}" for k in keys if k in final]
        if items:
            lines.append(f"{title:<9} " + ", ".join(items))
    lines.append(f"wall time {m['seconds']:.2f}s")
    return "\n".join(lines)


def cmd_run(args: argparse.Namespace) -> int:
    """Run one algorithm; write the trace (also when interrupted) and print a summary."""
    alg = get(args.algorithm)
    if args.out and not args.out.endswith(".npz"):
        raise UsageError(f"--out {args.out!r}; the rule is a file name ending in .npz")
    check_writable(args.out)
    problem = load_problem(args.problem, parse_params(args.problem_param), args.problem_seed)
    trace = run(
        alg,
        problem,
        _hyper(args),
        rounds=args.rounds,
        oracle=args.oracle,
        seed=args.seed,
        participation=args.clients_per_round,
        record=args.record,
        reference=False if args.no_reference else None,
        gradient=args.gradient,
        progress=not args.json,
        metrics_every=args.metrics_every,
    )
    if args.out:
        trace.save(args.out)
    if args.json:
        print(strict_json.dumps(trace.summary(), indent=1, default=str))
    else:
        print(summary_text(trace))
        if args.out:
            print(f"wrote {args.out}")
    if trace.status == INTERRUPTED:
        raise InterruptedRunError(
            f"stopped after {trace.meta['completed']} rounds" + (f"; wrote {args.out}" if args.out else "")
        )
    if trace.status != COMPLETED:
        print(f"fcocheck: run {trace.status} after {trace.meta['completed']} of {args.rounds} rounds"
              + (f"; the trace up to there is in {args.out}" if args.out else ""), file=sys.stderr)
        return 1
    return 0
