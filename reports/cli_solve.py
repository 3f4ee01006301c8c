"""``fcocheck problems`` and ``fcocheck solve``: the generators and certified reference optima."""

from __future__ import annotations

import argparse
from typing import Any

from fcocheck.reports import solve_cache
from fcocheck.reports.cli_common import UsageError, check_writable, load_problem, parse_params
from fcocheck.solvers import strict_json
from fcocheck.solvers.constants import ProblemConstants, compute_constants
from fcocheck.solvers.files import write_file
from fcocheck.solvers.generators import GENERATORS, describe, parameters
from fcocheck.solvers.instance_io import save_instance
from fcocheck.solvers.metrics import recovery
from fcocheck.solvers.problem import Problem
from fcocheck.solvers.reference import reference_solve


def cmd_problems(args: argparse.Namespace) -> int:
    """List the generators with their parameters and defaults."""
    rows = {name: {"description": describe(name), "parameters": parameters(name)} for name in GENERATORS}
    if args.json:
        print(strict_json.dumps(rows, indent=2))
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
    for target in (args.out, args.save_instance):
        check_writable(target)
    problem = load_problem(args.problem, parse_params(args.param), args.seed)
    path = None if args.no_cache else solve_cache.entry_path(problem, args.tol, "CLARABEL")
    entry = solve_cache.load(path, problem.dim) if path else None
    # cold: the constants are computed at the certified point while cvxpy's solve runs beside
    alongside = None if entry else (lambda w: compute_constants(problem, w_star=w))
    sol = reference_solve(problem, tol=args.tol, cached_cvx=solve_cache.cvx_result(entry) if entry else None,
                          alongside=alongside)
    reuse = entry is not None and entry.get("w_sha256") == solve_cache.w_digest(sol.w)
    if reuse:
        consts = ProblemConstants(**entry["constants"])
    else:
        consts = sol.alongside if sol.alongside is not None else compute_constants(problem, w_star=sol.w)
    if path and not reuse:
        solve_cache.store(path, solve_cache.cvx_entry(sol.cvx), consts.as_dict(), sol.w)
    rec = recovery(problem, sol.w)
    out = {
        **sol.as_dict(),
        "constants": consts.as_dict(),
        "recovery": rec,
        "instance": {"name": problem.name, "meta": problem.meta},
        "cache": {"path": str(path) if path else None, "reused": reuse},
    }
    if args.out:
        write_file(args.out, strict_json.dumps(out, indent=1, default=float))
    if args.save_instance:
        save_instance(problem, args.save_instance)
    if args.json:
        print(strict_json.dumps({k: v for k, v in out.items() if k != "w"}, indent=1, default=float))
    else:
        print(_summary(problem, sol, consts, rec))
        if reuse:
            print(f"cached    cvxpy's answer and the constants from {path} (--no-cache recomputes)")
        if args.out:
            print(f"wrote {args.out}")
    return 0
