"""Studies: every theorem experiment and every paper reproduction behind one declaration.

A ``Study`` names what it checks, the studies whose results it consumes (``depends_on``: Fig. 3's
tuned steps feed the curse figure) and how it runs on a sweep session.  ``plan(names)`` closes a
selection under its dependencies and orders it so that each study runs after what it needs;
``run_studies`` runs (or reuses, through the session's store) each one and hands it its inputs.
The report iterates over the plan: it holds no list of names and no branch per study.

One verdict vocabulary for all of them (``rates.verdict``): consistent, inconsistent,
inconclusive, known disagreement, and ``error`` for a study that could not be computed.

Theorem studies run as whole jobs (``Session.jobs``: one payload each in the results store, on
the session's executor, with every run's per-round curves in the payload — ``verify.experiments
.base.collect``); reproduction studies run their sweeps through ``Session.runs``, so every run and
every per-round metric lands in the store's run tables.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fcocheck.rates.verdict import CONSISTENT, INCONCLUSIVE, INCONSISTENT, KNOWN, NOT_APPLICABLE
from fcocheck.solvers import ctrl_c
from fcocheck.solvers.error_text import describe
from fcocheck.verify.sweep.session import Session

ERROR = "error"
VERDICTS = (CONSISTENT, INCONSISTENT, INCONCLUSIVE, KNOWN, NOT_APPLICABLE, ERROR)
THEOREM, REPRODUCTION = "theorem", "reproduction"


@dataclass(frozen=True)
class Study:
    """One declared study.

    Attributes:
        name: registry key (also the experiment's or reproduction's name).
        kind: ``theorem`` (a verdict on a theorem of ``rates.catalog``) or ``reproduction`` (a
            paper figure or table with its claims checked).
        subject: the theorem's catalog name, or the figure's citation.
        depends_on: studies whose results this one consumes.
        run: ``run(session, quick, seed, inputs) -> result`` for reproductions (``inputs``: name →
            result of each dependency); theorem studies run as session jobs instead (None here).
        ahead: ``ahead(quick, seed) -> [RunConfig]``, the runs a reproduction asks for first and
            knows before it runs (its tuning grid): ``declared_runs`` collects them so a report
            executes them in its first executor pass, beside the theorem jobs.

    """

    name: str
    kind: str
    subject: str
    depends_on: tuple[str, ...] = ()
    run: Callable[[Session, bool, int, dict[str, Any]], Any] | None = None
    ahead: Callable[[bool, int], list[Any]] | None = None


def _reproductions() -> tuple[Study, ...]:
    from fcocheck.verify.reproductions import fco, fedcanon

    return (
        Study("fco-fig3", REPRODUCTION, "FCO Fig. 3", run=lambda s, q, seed, _: fco.fig3(s, q, seed),
              ahead=fco.fig3_tuning),
        Study("fco-curse", REPRODUCTION, "FCO §3.1 (curse of primal averaging)", ("fco-fig3",),
              lambda s, q, seed, inputs: fco.curse(s, q, seed, inputs["fco-fig3"].extra.get("tuned"))),
        Study("fco-fig4", REPRODUCTION, "FCO Fig. 4", run=lambda s, q, seed, _: fco.fig4(s, q, seed),
              ahead=fco.fig4_tuning),
        Study("fedcanon-table3", REPRODUCTION, "FedCanon Table III",
              run=lambda s, q, seed, _: fedcanon.table3(s, q, seed)),
        Study("fedcanon-fig1", REPRODUCTION, "FedCanon Fig. 1",
              run=lambda s, q, seed, _: fedcanon.fig1(s, q, seed)),
    )


def _theorem_studies() -> tuple[Study, ...]:
    from fcocheck.verify.experiments import EXPERIMENTS

    return tuple(Study(e.name, THEOREM, e.theorem) for e in EXPERIMENTS.values())


def registry() -> dict[str, Study]:
    """Every study by name: the theorem experiments, then the reproductions."""
    return {s.name: s for s in (*_theorem_studies(), *_reproductions())}


def names(kind: str) -> tuple[str, ...]:
    """The studies of one kind, in declaration order."""
    return tuple(n for n, s in registry().items() if s.kind == kind)


def plan(selected: list[str] | tuple[str, ...]) -> list[Study]:
    """``selected`` plus everything they depend on, each after its dependencies.

    Raises:
        KeyError: an unknown name, or a dependency cycle, naming it.

    """
    reg = registry()
    order: list[Study] = []
    state: dict[str, str] = {}

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name not in reg:
            raise KeyError(f"study {name!r}; the rule is one of {sorted(reg)}")
        if state.get(name) == "done":
            return
        if state.get(name) == "open":
            raise KeyError(f"studies depend on each other in a cycle: {' → '.join((*path, name))}")
        state[name] = "open"
        for dep in reg[name].depends_on:
            visit(dep, (*path, name))
        state[name] = "done"
        order.append(reg[name])

    for name in selected:
        visit(name, ())
    return order


def declared_runs(studies: list[Study], quick: bool, seed: int) -> list[Any]:
    """Every run the plan's reproductions declare ahead (``Study.ahead``), in plan order."""
    return [c for s in studies if s.ahead is not None for c in s.ahead(quick, seed)]


def run_reproductions(session: Session, studies: list[Study], quick: bool, seed: int,
                      on_error: Callable[[str, str], Any]) -> dict[str, Any]:
    """Run the reproduction studies of a plan in order, each with its dependencies' results.

    A study that raises becomes ``on_error(name, message)`` (a result to report, never a crash);
    a study whose dependency failed runs with that failed result as its input.
    """
    results: dict[str, Any] = {}
    for study in studies:
        if study.kind != REPRODUCTION or study.run is None:
            continue
        inputs = {d: results[d] for d in study.depends_on if d in results}
        try:
            results[study.name] = study.run(session, quick, seed, inputs)
        except KeyboardInterrupt:
            raise
        except Exception as exc:  # a failing study is reported, not raised
            ctrl_c.check()  # unless it is a Ctrl-C in another form
            results[study.name] = on_error(study.name, describe(exc))
    return results
