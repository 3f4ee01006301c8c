"""What a check returns: ``Evidence`` — the outcome, the measured residual, the rule, the numbers.

Every invariant, property and contract check in ``verify`` is a function returning one
``Evidence``; nothing in ``verify`` asserts.  Tests and the conformance matrix decide what an
outcome means (an invariant must hold; a property may legitimately fail).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rates.threshold import at_most

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
