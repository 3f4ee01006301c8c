"""Search for a counterexample with Hypothesis and shrink it (``hypothesis.find``).

``search(strategy, check, budget)`` draws cases, runs ``check`` on each, and returns either the
shrunk smallest failing case with its evidence, or the statement that none of the examples
failed (with the worst residual seen).  Deterministic: the search's randomness comes from
``random.Random(seed)``, the example database is off, and Hypothesis' harvest of constants from the
modules loaded in the process (which differ between a command's own process and a pool worker, so
``check --workers 1`` and ``--workers 2`` drew different cases) is switched off during the search: the
same seed finds the same counterexample in any process.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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


@contextmanager
def _no_local_constants() -> Iterator[None]:
    """Hypothesis without the constants it harvests from the process's loaded modules (if it has them).

    Hypothesis (≥ 6.13x) mixes into its draws the literals of every non-library module in
    ``sys.modules``; which of fcocheck's modules are loaded depends on the process, so the draws did.
    A private hook: when a Hypothesis version lacks it, there is nothing to switch off.
    """
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - a Hypothesis without the providers module
        yield
        return
    get = getattr(providers, "_get_local_constants", None)
    cache = getattr(getattr(providers, "CONSTANTS_CACHE", None), "cache", None)
    if get is None or not hasattr(providers, "Constants"):
        yield
        return
    empty = providers.Constants()
    providers._get_local_constants = lambda: empty
    if cache is not None:
        cache.clear()
    try:
        yield
    finally:
        providers._get_local_constants = get
        if cache is not None:
            cache.clear()


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
        with _no_local_constants():
            case = find(strategy, failing, settings=cfg, random=random.Random(seed))
    except (NoSuchExample, Unsatisfiable):
        ran = [e for e in seen if e.outcome == HOLDS]
        if not ran:
            return Found(NA, examples=len(seen), reasons=reasons)
        worst = max(ran, key=lambda e: e.residual)
        return Found(HOLDS, evidence=worst, examples=len(seen), reasons=reasons)
    return Found(FAILS, case=case, evidence=check(case), examples=len(seen), reasons=reasons)


def simplest(strategy: Any) -> Any:
    """The simplest example of ``strategy``: its first draw shrunk (a probe's "simplest hyper-parameters").

    Seeded (0), no example database, no explain phase (the explanation of a failure, which a probe that
    always holds never reads: 10% of ``check --quick`` went there).
    """
    cfg = settings(database=None, deadline=None, phases=[Phase.generate, Phase.shrink],
                   suppress_health_check=list(HealthCheck))
    return find(strategy, lambda _: True, settings=cfg, random=random.Random(0))
