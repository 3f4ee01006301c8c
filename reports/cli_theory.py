"""``fcocheck theorems`` (the theorems and the symbolic checks) and ``fcocheck validate`` (verdicts)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from fcocheck.rates import checks
from fcocheck.rates.catalog import THEOREMS
from fcocheck.reports.cli_common import UsageError
from fcocheck.solvers import ctrl_c, strict_json
from fcocheck.solvers.files import append_lines, write_file
from fcocheck.verify.experiments import select


def cmd_theorems(args: argparse.Namespace) -> int:
    """List every theorem with its LaTeX, conditions and assumptions, then the symbolic checks."""
    if not 2 <= args.samples <= 1_000_000:
        raise UsageError(f"--samples {args.samples}; the rule is 2 <= samples <= 1000000")
    data = {"theorems": [t.as_dict() for t in THEOREMS.values()]}
    if not args.no_checks:
        data["checks"] = checks.all_checks(samples=args.samples)
    if args.json:
        print(strict_json.dumps(data, indent=2, default=str))
        return 0
    for t in data["theorems"]:
        print(f"{t['name']}  [{t['relation']}]  {t['title']}\n    {t['citation']}")
        for key, tex in t["latex"].items():
            print(f"    {key:<6} {tex}")
        for c in t["conditions"]:
            print(f"    if     {c}")
        for a in t["assumptions"]:
            print(f"    needs  {a}")
        for n in t["notes"]:
            print(f"    note   {n}")
    if "checks" in data:
        _print_checks(data["checks"])
    return 0


def _print_checks(c: dict[str, Any]) -> None:
    print("\nsymbolic checks")
    for name, row in c["tuning"].items():
        g = row["grid"]
        print(f"  tuning {name}: η* = {row['step']}")
        print(
            f"    bound at each balance point / published term: {row['constants']} "
            f"(pure numbers: {row['constants_are_numbers']}; balanced terms equal: {row['balanced_equal']})"
        )
        print(
            f"    over {g['samples']} draws spanning {g['decades']:g} decades: min_η bound / rate ∈ "
            f"[{g['min_over_tuned_lo']:.3f}, {g['min_over_tuned_hi']:.3f}], bound(η*) / rate ∈ "
            f"[{g['closed_over_tuned_lo']:.3f}, {g['closed_over_tuned_hi']:.3f}], η* > 1/(4L) in "
            f"{g['step_violations']} draws"
        )
    x = c["crossover"]
    print(
        f"  crossover (4.3) vs (4.1): leading boundary R = {x['leading']} (matches the claim: "
        f"{x['leading_matches_claim']}); exact boundary R = {x['exact']} = claim × {x['exact_over_claim']}"
    )
    print(f"  remark: (LB/R) / (LB/(KR)) = {c['improvement_LB_over_R']}")
    print("  exponents of each term in the variables it depends on:")
    for name, rows in c["exponents"].items():
        for term, e in rows.items():
            print(f"    {name:<15} {term:<22} " + " ".join(f"{k}={v}" for k, v in e.items() if v != "0"))


def cmd_validate(args: argparse.Namespace) -> int:
    """Run the theorem experiments and print each verdict with its numbers."""
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers {args.workers}; the rule is at least 1")
    try:
        chosen = select(args.name)
    except KeyError as exc:
        raise UsageError(str(exc.args[0])) from None
    instance = None
    if args.problem:
        from fcocheck.solvers.instance_io import load_instance
        from fcocheck.solvers.reference import reference_solve

        if not args.problem.endswith(".npz"):
            raise UsageError(f"--problem {args.problem!r}; the rule is an instance file (.npz)")
        problem = load_instance(args.problem)
        instance = (problem, reference_solve(problem))
    out = Path(args.out) if args.out else None
    if out is not None:
        write_file(out, "")  # checked: not a link, a regular file; then one line per experiment
    results = []
    by_name: dict[str, dict[str, Any]] = {}
    try:
        for res in _results(chosen, args, instance):
            results.append(res)
            by_name[res["name"]] = res
            if out is not None:  # one JSON line per finished experiment: an interruption loses nothing done
                append_lines(out, [strict_json.dumps(res, default=str)])
            if not (args.json or args.quiet):
                _print_result(res)
    except KeyboardInterrupt:
        print(f"fcocheck: interrupted after {len(results)} of {len(chosen)} experiments", file=sys.stderr)
        return ctrl_c.INTERRUPTED
    results = [by_name[e.name] for e in chosen]  # the catalog's order, whatever order they finished in
    if args.json:
        print(strict_json.dumps(results, indent=2, default=str))
    else:
        counts = {
            s: sum(r["status"] == s for r in results)
            for s in ("consistent", "inconsistent", "inconclusive", "known disagreement", "does not apply",
                      "error")
        }
        print(
            ("" if args.quiet else "\n") + f"{len(results)} experiments: "
            + ", ".join(f"{v} {k}" for k, v in counts.items())
            + f" ({sum(r['seconds'] for r in results):.1f} s)"
        )
    return validate_status([r["status"] for r in results], args.strict)


#: what fails ``validate`` (exit 1), as a test runner fails: a claim rejected, or one that could not be judged
FAILING = ("inconsistent", "error")


def validate_status(statuses: list[str], strict: bool) -> int:
    """1 when any status is in ``FAILING`` (``--strict``: an inconclusive one too), else 0.

    Documented disagreements (``known disagreement``) and verdicts that do not apply pass.
    """
    failing = FAILING + (("inconclusive",) if strict else ())
    return 1 if any(s in failing for s in statuses) else 0


def _results(chosen: list[Any], args: argparse.Namespace, instance: Any) -> Any:
    """Each experiment's result as it finishes: on a process pool, or here with --problem / --workers 1."""
    if instance is not None or args.workers == 1 or len(chosen) == 1:
        for exp in chosen:
            ctrl_c.check()  # between experiments, as an executor's loop does
            yield exp(quick=args.quick, seed=args.seed, instance=instance).as_dict()
        return
    from functools import partial

    from fcocheck.verify.experiments.base import longest_first
    from fcocheck.verify.report_jobs import experiment_one_thread
    from fcocheck.verify.sweep.executors import make_executor

    ex = make_executor(args.workers)
    try:
        task = partial(experiment_one_thread, quick=args.quick, seed=args.seed)
        for _, res in ex.imap(task, longest_first([e.name for e in chosen])):  # shortest makespan
            yield res
    finally:
        ex.close()


def _print_result(res: dict[str, Any]) -> None:
    print(f"{res['status'].upper():<13} {res['name']}  ({res['theorem']}, {res['seconds']:.1f} s)")
    print(f"    design: {res['design']}")
    for c in res["checks"]:
        print(f"    {c['status']:<13} [{c['rule']}] {c['reason']}")
    for n in res["notes"]:
        print(f"    note: {n}")
