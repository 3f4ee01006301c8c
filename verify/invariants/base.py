"""An invariant: an identity a paper proves, as a check on one case and a strategy of cases.

``Invariant.check(case) -> Evidence``; ``Invariant.cases() -> SearchStrategy``.  ``expect`` is
``holds`` for identities and ``fails`` where the papers say an identity does *not* carry over
(eq. 4.5 for FedMiD): then Hypothesis must find, and shrink, the counterexample.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from fcocheck.solvers.engine import run
from fcocheck.solvers.engine.trace import Trace
from fcocheck.solvers.errors import FcocheckError
from fcocheck.verify.cases import build
from fcocheck.verify.evidence import (  # noqa: F401 (IDENTITY_TOL, relative, same_iterates: re-exported)
    HOLDS,
    IDENTITY_TOL,
    Evidence,
    not_applicable,
    relative,
    same_iterates,
)
from fcocheck.verify.strategies import Case


@dataclass(frozen=True)
class Invariant:
    """One identity.

    Attributes:
        name: short name (matrix column / CLI).
        citation: where the paper proves it.
        statement: the identity, in one line.
        algorithms: the registry rows it concerns.
        expect: ``holds`` (an identity) or ``fails`` (a proved non-identity).
        cases: () -> strategy of ``Case``.
        check: Case -> Evidence.
        examples: () -> explicit cases checked before the search, whatever the seed (coverage that
            is guaranteed, not drawn: e.g. every regulariser × mirror map).
        component: the row of an invariant of shared machinery (``algorithms`` empty): ``oracles``,
            ``engine``.

    """

    name: str
    citation: str
    statement: str
    algorithms: tuple[str, ...]
    expect: str
    cases: Callable[[], st.SearchStrategy]
    check: Callable[[Case], Evidence]
    examples: Callable[[], list] | None = None
    component: str = "oracles"

    def as_dict(self) -> dict[str, Any]:
        """Metadata for listings."""
        return {
            "name": self.name,
            "citation": self.citation,
            "statement": self.statement,
            "algorithms": list(self.algorithms),
            "expect": self.expect,
        }


def trace_of(name: str, case: Case, rounds: int, record: str = "round", hp: dict | None = None) -> Trace:
    """Run ``name`` on the case's instance (no reference optimum needed for identities)."""
    return run(
        name,
        build(case.spec),
        case.hp if hp is None else hp,
        rounds=rounds,
        oracle=case.oracle,
        seed=case.seed,
        participation=case.participation,
        record=record,
        reference=False,
    )


def guarded(name: str, fn: Callable[[Case], Evidence]) -> Callable[[Case], Evidence]:
    """Turn an algorithm's refusal of a case (FcocheckError) into ``n/a``."""

    def check(case: Case) -> Evidence:
        try:
            return fn(case)
        except FcocheckError as exc:
            return not_applicable(name, str(exc))

    check.__doc__ = fn.__doc__
    return check


def expected(inv: Invariant, outcome: str) -> bool:
    """Whether a search outcome is the one the paper proves."""
    return outcome == inv.expect or (inv.expect == HOLDS and outcome == "n/a")
