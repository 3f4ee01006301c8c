"""``fcocheck algorithms`` and ``fcocheck run``: the registry and one instrumented run."""

from __future__ import annotations

import argparse
import json
from typing import Any

from reports.cli_common import UsageError, load_problem, parse_params
from solvers.algorithms import ALGORITHMS, ALIASES, get
from solvers.engine import Trace, run
from solvers.engine.trace import INTERRUPTED
from solvers.errors import FcocheckError
from solvers.kernels import STRATEGIES


class InterruptedRunError(FcocheckError):
    """The run was interrupted; the completed rounds were written."""


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
        print(json.dumps({"algorithms": rows, "aliases": ALIASES}, indent=2, default=str))
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
    )
    if args.out:
        trace.save(args.out)
    if args.json:
        print(json.dumps(trace.summary(), indent=1, default=str))
    else:
        print(summary_text(trace))
        if args.out:
            print(f"wrote {args.out}")
    if trace.status == INTERRUPTED:
        raise InterruptedRunError(
            f"stopped after {trace.meta['completed']} rounds" + (f"; wrote {args.out}" if args.out else "")
        )
    return 0


def add_parsers(sub: Any) -> None:
    """Register ``algorithms`` and ``run``."""
    a = sub.add_parser("algorithms", help="list the algorithms and their hyper-parameters")
    a.add_argument("--json", action="store_true")
    a.set_defaults(func=cmd_algorithms)
    r = sub.add_parser("run", help="run one algorithm and record its trace")
    r.add_argument("algorithm", help="registry name (see `fcocheck algorithms`)")
    r.add_argument("--problem", required=True, help="generator name or instance file (.npz)")
    r.add_argument(
        "--problem-param", action="append", default=[], metavar="NAME=VALUE", help="generator parameter"
    )
    r.add_argument("--problem-seed", type=int, default=None, help="generator seed")
    r.add_argument("--rounds", type=int, required=True, help="rounds R >= 0")
    r.add_argument("--local-steps", type=int, default=None, help="local steps K >= 1")
    r.add_argument("--eta-c", type=float, default=None, help="client learning rate")
    r.add_argument("--eta-s", type=float, default=None, help="server learning rate")
    r.add_argument("--eta", type=float, default=None, help="step size (sequential and baselines)")
    r.add_argument(
        "--param", action="append", default=[], metavar="NAME=VALUE", help="any other hyper-parameter"
    )
    r.add_argument("--oracle", default="exact", help="exact | gaussian:σ | minibatch:b")
    r.add_argument("--seed", type=int, default=0, help="seed of every random choice of the run")
    r.add_argument("--clients-per-round", type=int, default=None, help="P clients sampled per round")
    r.add_argument("--record", default="round", choices=["round", "step"])
    r.add_argument("--gradient", default="auto", choices=list(STRATEGIES))
    r.add_argument("--no-reference", action="store_true", help="skip the certified optimum (no gaps)")
    r.add_argument("--out", help="write the trace (.npz)")
    r.add_argument("--json", action="store_true", help="print the summary as JSON")
    r.set_defaults(func=cmd_run)
