"""What a check returns: ``Evidence`` — the outcome, the measured residual, the rule, the numbers.

Every invariant, property and contract check in ``verify`` is a function returning one
``Evidence``; nothing in ``verify`` asserts.  Tests and the conformance matrix decide what an
outcome means (an invariant must hold; a property may legitimately fail).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from fcocheck.rates.threshold import at_most

if TYPE_CHECKING:
    from fcocheck.solvers.engine.trace import Trace

HOLDS, FAILS, NA = "holds", "fails", "n/a"


@dataclass(frozen=True)
class Evidence:
    """The outcome of one check on one instance.

    Attributes:
        check: the check's name (``eq-4.5``, ``A``, ``contract-finite``, ...).
        outcome: ``holds`` | ``fails`` | ``n/a``.
        residual: the measured quantity the rule bounds (drift, identity residual, gap).
        tol: the rule's bound (``residual <= tol`` means ``holds``).
        detail: one line a person reads: what was measured, on what.
        numbers: further measured figures (JSON-serialisable).

    """

    check: str
    outcome: str
    residual: float = float("nan")
    tol: float = float("nan")
    detail: str = ""
    numbers: dict[str, Any] = field(default_factory=dict)

    @property
    def holds(self) -> bool:
        """True iff the outcome is ``holds``."""
        return self.outcome == HOLDS

    @property
    def fails(self) -> bool:
        """True iff the outcome is ``fails``."""
        return self.outcome == FAILS

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form (non-finite floats become None)."""

        def clean(x: Any) -> Any:
            return None if isinstance(x, float) and x != x else x

        return {
            "check": self.check,
            "outcome": self.outcome,
            "residual": clean(self.residual),
            "tol": clean(self.tol),
            "detail": self.detail,
            "numbers": self.numbers,
        }


def bounded(check: str, residual: float, tol: float, detail: str, **numbers: Any) -> Evidence:
    """``holds`` iff ``residual <= tol`` (a non-finite residual fails)."""
    ok = at_most(residual, tol)
    return Evidence(check, HOLDS if ok else FAILS, float(residual), float(tol), detail, numbers)


def not_applicable(check: str, why: str) -> Evidence:
    """``n/a`` with the reason."""
    return Evidence(check, NA, detail=why)


#: Relative tolerance of exact identities (rounding of a few dozen floating-point operations): the
#: one tolerance of every "same iterates" / "identity holds" check, in invariants, relations and studies.
IDENTITY_TOL = 1e-11


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
