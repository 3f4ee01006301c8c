"""``fcocheck check``: the conformance matrix (invariants and properties (A)–(D)).

Exit 0 when every invariant comes out as proved and every property cell agrees with what the
papers claim about it (``verify.claims``; a documented disagreement confirmed by its diagnostic
counts as agreeing, a cell no paper speaks of is only reported), 1 naming the broken invariants
and the disagreeing cells otherwise, 2 on bad input.  Each finished cell is appended to
``OUT/check.jsonl`` at once, so an interrupted check keeps what it finished.
"""

from __future__ import annotations

import argparse
import sys
import time
from functools import partial
from pathlib import Path

from fcocheck.reports.cli_common import UsageError
from fcocheck.solvers import algorithms, strict_json
from fcocheck.solvers.ctrl_c import INTERRUPTED
from fcocheck.solvers.errors import FcocheckError
from fcocheck.solvers.files import COUNTEREXAMPLES, UnsafePathError, Writer, append_lines
from fcocheck.verify.claims import AGREES, DISAGREES, KNOWN, UNVERIFIED
from fcocheck.verify.conformance import Cell, Conformance, collect, plan, unit_cells, units
from fcocheck.verify.properties import PROPERTIES, R_A, R_O1, TOL_A, TOL_O1
from fcocheck.verify.sweep.executors import make_executor

TAGS = {AGREES: " =claim", DISAGREES: " ≠CLAIM", KNOWN: " (known)", UNVERIFIED: " ?claim"}


def _short(cell: Cell, notes: list[str]) -> str:
    tag = TAGS.get(cell.verdict or "", "")
    if cell.verdict in (DISAGREES, KNOWN, UNVERIFIED):
        notes.append(f"{cell.algorithm} {cell.column}: {cell.verdict}: {cell.claim}")
        tag += f" [{len(notes)}]"
    if cell.outcome == "holds":
        return "holds" + tag
    notes.append(
        f"{cell.algorithm} {cell.column}: "
        + (
            f"{cell.counterexample} ({cell.size}; {cell.examples} cases tried)"
            if cell.counterexample
            else cell.detail
        )
    )
    return f"{cell.outcome}{tag} [{len(notes)}]"


def render(res: Conformance) -> str:
    """The invariants table and the algorithm × property matrix, footnoted."""
    lines = [
        "INVARIANTS (must come out as proved)",
        f"  {'invariant':<22} {'expect':<6} {'outcome':<6} {'cases':>5}  evidence",
    ]
    for c in res.invariants:
        mark = "" if c.ok else "  <-- BROKEN"
        where = f"  counterexample: {c.counterexample} ({c.size})" if c.counterexample else ""
        lines.append(
            f"  {c.column:<22} {c.expect:<6} {c.outcome:<6} {c.examples:>5}  {c.detail[:110]}{where}{mark}"
        )
    notes: list[str] = []
    inv_by_alg: dict[str, list[Cell]] = {}
    for c in res.invariants:
        for a in c.algorithm.split(","):
            inv_by_alg.setdefault(a, []).append(c)
    head = f"  {'algorithm':<19} {'invariants':<12} " + " ".join(f"{p:<22}" for p in PROPERTIES)
    lines += [
        "",
        f"PROPERTIES (FO16 §3.1; A: drift ≤ {TOL_A:g} over {R_A} rounds; B–D: relative gap ≤ "
        f"{TOL_O1:g} within {R_O1} rounds; =claim / ≠CLAIM: against verify.claims)",
        head,
    ]
    by = {(c.algorithm, c.column): c for c in res.properties}
    for alg in res.algorithms:
        invs = inv_by_alg.get(alg, [])
        bad = [c.column for c in invs if not c.ok]
        inv = "—" if not invs else (f"BROKEN {','.join(bad)}" if bad else f"ok ({len(invs)})")
        row = [_short(by[(alg, p)], notes) if (alg, p) in by else "" for p in PROPERTIES]
        lines.append(f"  {alg:<19} {inv:<12} " + " ".join(f"{r:<22}" for r in row))
    lines += ["", "notes:"] + [f"  [{i}] {n}" for i, n in enumerate(notes, 1)]
    return "\n".join(lines)


def check_places(out: Path) -> None:
    """Refuse, before anything is written, every place ``check`` may write that is not a plain one.

    ``check.jsonl`` and the ``counterexamples`` folder (``Writer.path``: no link, FIFO or non-directory on
    the way), and each entry already in that folder: the cells write only regular files there, so a
    link, a FIFO or a directory among them is refused now rather than after the first units are logged.

    Raises:
        UnsafePathError: naming the place and the rule.

    """
    w = Writer(out)
    w.path("check.jsonl", make_dirs=False)
    folder = w.path(f"{COUNTEREXAMPLES}/x", make_dirs=False).parent
    if folder.is_dir():
        for entry in sorted(folder.iterdir()):
            if entry.is_symlink() or not entry.is_file():
                raise UnsafePathError(f"{str(entry)!r} is a link, a directory or a special file; the rule "
                                      f"is regular files in {COUNTEREXAMPLES}/ (check writes its "
                                      "counterexamples there)")


def cmd_check(args: argparse.Namespace) -> int:
    """Run the conformance checks and print (or dump) the matrix."""
    names = args.algorithm or None
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers {args.workers}; the rule is at least 1")
    try:
        for n in names or []:
            algorithms.get(n)
    except FcocheckError as exc:
        raise UsageError(str(exc)) from None
    out = Path(args.out)
    check_places(out)
    log = Writer(out).write_text("check.jsonl", "")  # checked: inside --out, not a link, a regular file
    budget = "quick" if args.quick else args.budget
    _, algs = plan(names)
    todo = units(names)
    done: dict[tuple[str, str], list[Cell]] = {}
    start = time.perf_counter()
    ex = make_executor(args.workers)
    task = partial(unit_cells, budget=budget, out=str(out), seed=args.seed)
    try:
        for unit, rows in ex.imap(task, todo):  # units finish in any order; each is logged at once
            done[unit] = [Cell(**r) for r in rows]
            append_lines(log, [strict_json.dumps(r, default=str) for r in rows])  # a unit whole or not
    except KeyboardInterrupt:
        kept = sum(map(len, done.values()))
        print(f"fcocheck: interrupted after {kept} cells (kept in {log})", file=sys.stderr)
        return INTERRUPTED
    finally:
        ex.close()
    res = collect((c for u in todo if u in done for c in done[u]), [a.name for a in algs])
    if args.json:
        print(strict_json.dumps({**res.as_dict(), "seconds": time.perf_counter() - start}, indent=1,
                                default=str))
    else:
        if not args.quiet:
            print(render(res))
        print(
            ("" if args.quiet else "\n") + f"{len(res.invariants)} invariants ({len(res.broken)} broken), "
            f"{len(res.properties)} property cells, {time.perf_counter() - start:.1f} s; results in {log}"
        )
    if res.broken:
        print("fcocheck: broken invariant(s): " + ", ".join(res.broken), file=sys.stderr)
    if res.disagreements:
        print("fcocheck: property cell(s) contradicting a paper's claim: " + ", ".join(res.disagreements),
              file=sys.stderr)
    return 1 if res.broken or res.disagreements else 0
