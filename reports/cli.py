"""The ``fcocheck`` command line.

Bad input prints one line naming the value and the rule, writes nothing, and exits 2;
a failed certification exits 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from reports import cli_check, cli_report, cli_run, cli_theory
from reports.cli_common import UsageError, load_problem, parse_params
from solvers.constants import compute_constants
from solvers.errors import CertificationError, FcocheckError
from solvers.generators import GENERATORS, describe, parameters
from solvers.instance_io import save_instance
from solvers.metrics import recovery
from solvers.problem import Problem
from solvers.reference import reference_solve


def cmd_problems(args: argparse.Namespace) -> int:
    """List the generators with their parameters and defaults."""
    rows = {name: {"description": describe(name), "parameters": parameters(name)} for name in GENERATORS}
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    for name, row in rows.items():
        print(f"{name}\n    {row['description']}")
        print("    " + ", ".join(f"{k}={v!r}" for k, v in row["parameters"].items()))
    return 0


def _fmt(x: Any) -> str:
    return f"{x:.6g}" if isinstance(x, float) else str(x)


def _summary(problem: Problem, sol: Any, consts: Any, rec: dict) -> str:
    cert = sol.certificate
    lines = [
        f"problem   {problem.name}: M={problem.M} clients, n={int(problem.n.sum())} samples, "
        f"dim={problem.dim} (loss {problem.loss}, psi {problem.regularizer.spec()}, "
        f"h {problem.mirror.name}{', intercept' if problem.intercept else ''})",
        f"objective {sol.objective!r}  [{sol.label}]",
        f"certificate {cert.kind} = {cert.value:.3e} (relative {cert.relative:.3e})",
    ]
    for r in sol.solvers:
        c = r["certificate"]
        rel = f"{c['relative']:.2e}" if c else "-"
        lines.append(f"  solver {r['name']:<36} {r['status']:<20} {r['seconds']:8.3f}s  rel {rel}")
    if sol.agreement is not None:
        lines.append(f"agreement |Phi_cvxpy - Phi_fo|/|Phi| = {sol.agreement:.3e}")
    lines.append("constants " + ", ".join(f"{k}={_fmt(v)}" for k, v in consts.as_dict().items()))
    if rec:
        lines.append("recovery  " + ", ".join(f"{k}={v:.4g}" for k, v in rec.items()))
    lines.append(f"wall time {sol.seconds:.2f}s")
    return "\n".join(lines)


def cmd_solve(args: argparse.Namespace) -> int:
    """Certified reference optimum of a problem; writes JSON only on success."""
    if not 0 < args.tol < 1:  # also refuses nan
        raise UsageError(f"--tol {args.tol!r}; the rule is 0 < tol < 1")
    problem = load_problem(args.problem, parse_params(args.param), args.seed)
    sol = reference_solve(problem, tol=args.tol)
    consts = compute_constants(problem, w_star=sol.w)
    rec = recovery(problem, sol.w)
    out = {
        **sol.as_dict(),
        "constants": consts.as_dict(),
        "recovery": rec,
        "instance": {"name": problem.name, "meta": problem.meta},
    }
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=1, default=float))
    if args.save_instance:
        save_instance(problem, args.save_instance)
    if args.json:
        print(json.dumps({k: v for k, v in out.items() if k != "w"}, indent=1, default=float))
    else:
        print(_summary(problem, sol, consts, rec))
        if args.out:
            print(f"wrote {args.out}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every sub-command."""
    parser = argparse.ArgumentParser(prog="fcocheck", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("problems", help="list the instance generators")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_problems)
    s = sub.add_parser("solve", help="certified reference optimum of a problem")
    s.add_argument("problem", help="generator name or instance file (.npz)")
    s.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    s.add_argument("--seed", type=int, default=None)
    s.add_argument("--tol", type=float, default=1e-10, help="certified relative accuracy")
    s.add_argument("--out", help="write the solution as JSON")
    s.add_argument("--save-instance", help="also save the instance as .npz")
    s.add_argument("--json", action="store_true", help="print the result as JSON")
    s.set_defaults(func=cmd_solve)
    cli_run.add_parsers(sub)
    cli_theory.add_parsers(sub)
    cli_check.add_parsers(sub)
    cli_report.add_parsers(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``fcocheck`` console script."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except cli_run.InterruptedRunError as exc:
        print(f"fcocheck: interrupted: {exc}", file=sys.stderr)
        return 130
    except FcocheckError as exc:
        print(f"fcocheck: error: {exc}", file=sys.stderr)
        return 2
    except CertificationError as exc:
        print(f"fcocheck: certification failed: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
