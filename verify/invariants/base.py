"""An invariant: an identity a paper proves, as a check on one case and a strategy of cases.

``Invariant.check(case) -> Evidence``; ``Invariant.cases() -> SearchStrategy``.  ``expect`` is
``holds`` for identities and ``fails`` where the papers say an identity does *not* carry over
(eq. 4.5 for FedMiD): then Hypothesis must find, and shrink, the counterexample.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import strategies as st

from solvers.engine import run
from solvers.engine.trace import Trace
from solvers.errors import FcocheckError
from verify.cases import build
from verify.evidence import HOLDS, Evidence, bounded, not_applicable
from verify.strategies import Case

#: Relative tolerance of exact identities (rounding of a few dozen floating-point operations).
IDENTITY_TOL = 1e-11


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

    """

    name: str
    citation: str
    statement: str
    algorithms: tuple[str, ...]
    expect: str
    cases: Callable[[], st.SearchStrategy]
    check: Callable[[Case], Evidence]
    examples: Callable[[], list] | None = None

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


def relative(diff: np.ndarray, ref: np.ndarray) -> float:
    """max|diff| / max(1, max|ref|)."""
    return float(np.max(np.abs(diff), initial=0.0) / max(1.0, float(np.max(np.abs(ref), initial=0.0))))


def same_iterates(name: str, a: Trace, b: Trace, detail: str, tol: float = IDENTITY_TOL) -> Evidence:
    """The server iterates of two runs agree to ``tol`` (relative)."""
    if a.status != "completed" or b.status != "completed":
        return not_applicable(name, f"a run did not complete ({a.status}, {b.status}): {detail}")
    resid = relative(a["server_w"] - b["server_w"], a["server_w"])
    return bounded(
        name, resid, tol, f"max relative difference of the iterates {resid:.2e} (rule ≤ {tol:g}); {detail}"
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
