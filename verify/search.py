"""Search for a counterexample with Hypothesis and shrink it (``hypothesis.find``).

``search(strategy, check, budget)`` draws cases, runs ``check`` on each, and returns either the
shrunk smallest failing case with its evidence, or the statement that none of the examples
failed (with the worst residual seen).  Deterministic: the search's randomness comes from
``random.Random(seed)`` and the example database is off, so the same seed finds the same
counterexample.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, find, settings
from hypothesis.errors import NoSuchExample, Unsatisfiable

from fcocheck.verify.evidence import FAILS, HOLDS, NA, Evidence

#: Examples per search: ``quick`` (the CLI's --quick and the CI tests), ``full``, ``thorough``.
BUDGETS = {"quick": 30, "full": 100, "thorough": 500}


@dataclass
class Found:
    """The outcome of a search.

    Attributes:
        outcome: ``fails`` (a counterexample was found and shrunk), ``holds`` (no example
            failed) or ``n/a`` (every example was refused; ``reasons`` says why).
        case: the shrunk counterexample (``fails`` only).
        evidence: its evidence, or the worst evidence among the passing examples.
        examples: how many cases were checked (shrinking included).
        reasons: distinct ``n/a`` reasons met.

    """

    outcome: str
    case: Any = None
    evidence: Evidence | None = None
    examples: int = 0
    reasons: list[str] = field(default_factory=list)


def search(
    strategy: Any, check: Callable[[Any], Evidence], budget: str | int = "quick", seed: int = 0
) -> Found:
    """Look for a case where ``check`` fails; shrink it when found."""
    n = BUDGETS[budget] if isinstance(budget, str) else int(budget)
    seen: list[Evidence] = []
    reasons: list[str] = []

    def failing(case: Any) -> bool:
        ev = check(case)
        seen.append(ev)
        if ev.outcome == NA and ev.detail not in reasons:
            reasons.append(ev.detail)
        return ev.outcome == FAILS

    cfg = settings(
        max_examples=n,
        database=None,
        deadline=None,
        phases=[Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
    )
    try:
        case = find(strategy, failing, settings=cfg, random=random.Random(seed))
    except (NoSuchExample, Unsatisfiable):
        ran = [e for e in seen if e.outcome == HOLDS]
        if not ran:
            return Found(NA, examples=len(seen), reasons=reasons)
        worst = max(ran, key=lambda e: e.residual)
        return Found(HOLDS, evidence=worst, examples=len(seen), reasons=reasons)
    return Found(FAILS, case=case, evidence=check(case), examples=len(seen), reasons=reasons)
