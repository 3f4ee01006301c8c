"""The conformance matrix: every invariant, and properties (A)–(D) for every algorithm.

Invariants must come out as the papers prove (``holds``; ``fails`` for eq. 4.5 under FedMiD);
a property may legitimately fail — the toolkit discovers which.  Every ``fails`` is saved as a
counterexample (the shrunk instance as ``.npz`` plus a ``.json`` with the spec, the
hyper-parameters and the evidence) under ``out/counterexamples/``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis.errors import NoSuchExample

from fcocheck.solvers import algorithms
from fcocheck.solvers.algorithms.base import Algorithm
from fcocheck.solvers.blas_threads import serial_blas
from fcocheck.solvers.engine.run import prepare
from fcocheck.solvers.errors import FcocheckError
from fcocheck.solvers.files import Writer, plain_name
from fcocheck.solvers.smoothness import sample_smoothness
from fcocheck.verify.cases import PSI_KINDS, InstanceSpec, build, save_case
from fcocheck.verify.claims import DISAGREES, claim
from fcocheck.verify.claims import verdict as judge_claim
from fcocheck.verify.evidence import FAILS, NA, Evidence
from fcocheck.verify.hyper import hyper_strategy
from fcocheck.verify.invariants import INVARIANTS, Invariant, expected
from fcocheck.verify.optimum import optimum
from fcocheck.verify.properties import PROPERTIES, check_property
from fcocheck.verify.search import Found, search, simplest
from fcocheck.verify.strategies import Case, cases


@dataclass
class Cell:
    """One entry of the matrix (an invariant or a property on one algorithm)."""

    algorithm: str
    column: str
    outcome: str
    detail: str = ""
    residual: float | None = None
    examples: int = 0
    counterexample: str | None = None
    size: str | None = None
    expect: str | None = None
    ok: bool = True
    verdict: str | None = None
    claim: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return dataclasses.asdict(self)


@dataclass
class Conformance:
    """All cells; ``broken`` names the invariants whose outcome is not the proved one."""

    invariants: list[Cell] = field(default_factory=list)
    properties: list[Cell] = field(default_factory=list)
    algorithms: list[str] = field(default_factory=list)

    @property
    def broken(self) -> list[str]:
        """Invariants that did not come out as proved."""
        return [c.column for c in self.invariants if not c.ok]

    @property
    def disagreements(self) -> list[str]:
        """Property cells whose outcome contradicts a paper's claim (undocumented): ``alg:prop``."""
        return [f"{c.algorithm}:{c.column}" for c in self.properties if c.verdict == DISAGREES]

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "algorithms": self.algorithms,
            "invariants": [c.as_dict() for c in self.invariants],
            "properties": [c.as_dict() for c in self.properties],
            "broken": self.broken,
            "disagreements": self.disagreements,
        }


def _cell(
    algorithm: str, column: str, found: Found, out: Path | None, stem: str, meta: dict[str, Any]
) -> Cell:
    ev: Evidence | None = found.evidence
    cell = Cell(
        algorithm,
        column,
        found.outcome,
        examples=found.examples,
        detail=ev.detail if ev else "; ".join(found.reasons[:2]),
        residual=ev.residual if ev else None,
    )
    if found.outcome == FAILS and out is not None:
        case = found.case
        own = case.record() if hasattr(case, "record") else {"case": repr(case)}
        record = {**meta, **own, "evidence": ev.as_dict()}
        if isinstance(case, Case):
            path = save_case(out, stem, case.spec, record)
            cell.size = case.describe()
        else:
            import json

            path = Writer(out).write_text(f"{stem}.json", json.dumps(record, indent=2, default=str) + "\n")
            cell.size = case.describe() if hasattr(case, "describe") else repr(case)
        cell.counterexample = str(path)
    return cell


def check_invariant(inv: Invariant, budget: str | int, out: Path | None, seed: int = 0) -> Cell:
    """The explicit examples, then the search; ``ok`` iff the outcome is the proved one."""
    found = _examples(inv) or search(inv.cases(), inv.check, budget, seed)
    cell = _cell(
        ",".join(inv.algorithms) or inv.component,
        inv.name,
        found,
        out,
        plain_name("invariant", inv.name),
        {"invariant": inv.name, "citation": inv.citation, "statement": inv.statement},
    )
    cell.expect, cell.ok = inv.expect, expected(inv, found.outcome)
    return cell


def _examples(inv: Invariant) -> Found | None:
    """The first explicit example that fails (as a ``fails`` result), or None."""
    for i, case in enumerate(inv.examples() if inv.examples else [], 1):
        ev = inv.check(case)
        if ev.outcome == FAILS:
            return Found(FAILS, case=case, evidence=ev, examples=i)
    return None


def psi_domain(alg: Algorithm) -> tuple[tuple[str, ...], list[str]]:
    """The ψ kinds ``alg`` accepts (probed with its simplest hyper-parameters) and refusals."""
    kinds = PSI_KINDS if alg.solves_composite else ("zero",)
    ok, why = [], [] if alg.solves_composite else [f"{alg.name} ignores ψ: checked on ψ = 0 only"]
    for kind in kinds:
        spec = InstanceSpec("general", 2, 2, 3, 1.0, kind, 0.0 if kind == "zero" else 0.1, 0)
        p, opt = build(spec), optimum(spec)
        try:
            hp = simplest(hyper_strategy(alg, opt.L_max, sample_smoothness(p)))
            prepare(alg, p, hp, 1, "exact", None, "round", False, None, "auto")
            ok.append(kind)
        except (FcocheckError, NoSuchExample) as exc:
            why.append(f"ψ = {kind}: {exc}")
    return tuple(ok), why


def _property_cases(alg: Algorithm, prop: str, layout: str, kinds: tuple[str, ...]):
    """The search space of one cell: the claim's ψ kinds and fixed hyper-parameters, if it makes any."""
    c = claim(alg.name, prop)
    if c is not None and c.psi is not None:
        kinds = tuple(k for k in kinds if k in c.psi)
    strategy = cases(alg, layout, kinds, 1 if prop == "A" else 2)
    if c is not None and c.hp:
        strategy = strategy.map(lambda case: dataclasses.replace(case, hp={**case.hp, **c.hp}))
    return strategy, kinds


def _judge(cell: Cell, found: Found) -> Cell:
    """The cell's verdict against the papers' claim (``verify.claims``)."""
    numbers = found.evidence.numbers if found.evidence is not None else None
    cell.verdict, note = judge_claim(cell.algorithm, cell.column, cell.outcome, numbers)
    c = claim(cell.algorithm, cell.column)
    cell.expect = c.expect if c else None
    cell.claim = note or None
    cell.ok = cell.verdict != DISAGREES
    return cell


def check_properties(alg: Algorithm, budget: str | int, out: Path | None, seed: int = 0) -> list[Cell]:
    """Properties (A)–(D) of one algorithm, each searched over its ψ domain (and its claim's conditions)."""
    all_kinds, why = psi_domain(alg)
    cells = []
    for prop, (layout, text) in PROPERTIES.items():
        strategy, kinds = _property_cases(alg, prop, layout, all_kinds)
        if not kinds:
            cells.append(_judge(Cell(alg.name, prop, NA, "; ".join(why) or "no ψ kind in scope"),
                                Found(NA)))
            continue
        found = search(strategy, lambda c, p=prop: check_property(alg, p, c), budget, seed)
        cell = _cell(
            alg.name,
            prop,
            found,
            out,
            plain_name(alg.name, prop),
            {"algorithm": alg.name, "property": prop, "statement": text},
        )
        if why and found.outcome != NA:
            cell.detail += f" [{why[0]}]"
        cells.append(_judge(cell, found))
    return cells


def plan(
    names: list[str] | None = None, extra: list[Algorithm] | None = None
) -> tuple[list[Invariant], list[Algorithm]]:
    """The invariants (all, or those touching ``names``) and the algorithms to check."""
    algs = [algorithms.get(n) for n in (names or sorted(algorithms.ALGORITHMS))] + list(extra or [])
    chosen = {a.name for a in algs}
    # invariants of shared components (oracles, their moments, the engine's sampling and batches) guard
    # every algorithm: always included
    invs = [inv for inv in INVARIANTS.values()
            if names is None or not inv.algorithms or chosen & set(inv.algorithms)]
    return invs, algs


def cells(
    names: list[str] | None = None,
    budget: str | int = "quick",
    out: str | Path | None = None,
    seed: int = 0,
    extra: list[Algorithm] | None = None,
) -> Iterator[Cell]:
    """Yield each invariant's cell, then each algorithm's property cells, as they finish."""
    invs, algs = plan(names, extra)
    target = None if out is None else Path(out) / "counterexamples"
    for inv in invs:
        yield check_invariant(inv, budget, target, seed)
    for alg in algs:
        yield from check_properties(alg, budget, target, seed)


def collect(found: Iterator[Cell], algs: list[str]) -> Conformance:
    """Sort cells into a ``Conformance``."""
    result = Conformance(algorithms=algs)
    for cell in found:
        (result.properties if cell.column in PROPERTIES else result.invariants).append(cell)
    return result


def conformance(
    names: list[str] | None = None,
    budget: str | int = "quick",
    out: str | Path | None = None,
    seed: int = 0,
    extra: list[Algorithm] | None = None,
) -> Conformance:
    """Run everything ``plan`` selects and return the matrix."""
    _, algs = plan(names, extra)
    return collect(cells(names, budget, out, seed, extra), [a.name for a in algs])


def units(names: list[str] | None = None) -> list[tuple[str, str]]:
    """The independent units of a check: ("invariant", name) each, then ("algorithm", name) each."""
    invs, algs = plan(names)
    return [("invariant", inv.name) for inv in invs] + [("algorithm", a.name) for a in algs]


def unit_cells(unit: tuple[str, str], budget: str | int, out: str | None, seed: int) -> list[dict[str, Any]]:
    """The cells of one unit as dicts (a picklable task: executors run units in any order, anywhere).

    BLAS is held to one thread, so a cell's bits do not depend on the executor (serial or pool).
    """
    from fcocheck.verify.invariants import INVARIANTS

    kind, name = unit
    target = None if out is None else Path(out) / "counterexamples"
    with serial_blas(every_api=True):
        if kind == "invariant":
            return [check_invariant(INVARIANTS[name], budget, target, seed).as_dict()]
        return [c.as_dict() for c in check_properties(algorithms.get(name), budget, target, seed)]
