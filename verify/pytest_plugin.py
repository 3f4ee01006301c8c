"""The ``pytest11`` plugin: a test module listing ``fcocheck_algorithms = [...]`` gets the suite.

Each ``UserAlgorithm`` (``verify.user.register``) or registry name in the list becomes one test
item per check of ``verify.suite.suite``: the contract, the equivalence it claims, its logged
identities and properties (A)–(D).  A failing required check fails its item with the evidence
(for searched checks, the Hypothesis-shrunk counterexample); reported-only properties pass and
print their outcome with ``-rA``.  ``--fcocheck-budget quick|full|thorough`` sets the search size.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from fcocheck.solvers.error_text import describe
from fcocheck.solvers.errors import FcocheckError

if TYPE_CHECKING:
    from fcocheck.verify.suite import SuiteCheck

# Nothing of fcocheck is imported until a module defines ``fcocheck_algorithms``: the plugin is
# loaded by every pytest session in the environment and must cost it nothing.

LIST_NAME = "fcocheck_algorithms"
CARDS_NAME = "fcocheck_cards"
CLAIMS_NAME = "fcocheck_claims"


def pytest_addoption(parser: Any) -> None:
    """--fcocheck-budget."""
    parser.addoption(
        "--fcocheck-budget",
        default="quick",
        choices=["quick", "full", "thorough"],
        help="cases per Hypothesis search of the fcocheck suite",
    )


class EvidenceItem(pytest.Item):
    """An item whose failure is its evidence (an ``AssertionError`` message), not a traceback."""

    label = ""

    def repr_failure(self, excinfo: Any, style: Any = None) -> str:
        """The evidence, not a traceback.

        A failed check's evidence, or a clean error's message (an input that breaks a rule,
        ``FcocheckError``, names the value and the rule).
        """
        from fcocheck.solvers.errors import FcocheckError

        if isinstance(excinfo.value, AssertionError):
            return str(excinfo.value)
        if isinstance(excinfo.value, FcocheckError):
            return f"{type(excinfo.value).__name__}: {excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Any, int, str]:
        """Location and name."""
        return self.path, 0, self.label


class SuiteItem(EvidenceItem):
    """One check of one algorithm."""

    def __init__(self, *, alg: Any, check: SuiteCheck, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.alg, self.check = alg, check

    def runtest(self) -> None:
        """Run the check; fail with its evidence when it is not acceptable."""
        from fcocheck.verify.suite import verdict

        ev = self.check.run()
        self.user_properties.append(("fcocheck", ev.as_dict()))
        if not verdict(self.check, ev, self.alg):
            raise AssertionError(f"{self.alg.name} {self.check.name}: {ev.outcome}: {ev.detail}")

    @property
    def label(self) -> str:
        """The name pytest reports."""
        return f"fcocheck {self.alg.name}::{self.check.name}"


class CardItem(EvidenceItem):
    """One invariant a method card gets (its written-out reference, counts, reductions, coverage)."""

    def __init__(self, *, invariant: Any, budget: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.invariant, self.budget = invariant, budget

    def runtest(self) -> None:
        """Search the invariant; fail with the evidence (and the shrunk case) when it is broken."""
        from fcocheck.verify.conformance import check_invariant

        cell = check_invariant(self.invariant, self.budget, None, 0)
        self.user_properties.append(("fcocheck", cell.as_dict()))
        if not cell.ok:
            raise AssertionError(f"{self.invariant.name}: {cell.outcome}: {cell.detail}"
                                 + (f" (case: {cell.size})" if cell.size else ""))

    @property
    def label(self) -> str:
        """The name pytest reports."""
        return f"fcocheck {self.invariant.name}"


class ClaimItem(EvidenceItem):
    """One rate claim (``verify.claim.Claim``): passes only when consistent with measured power."""

    def __init__(self, *, claim: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.claim = claim

    def runtest(self) -> None:
        """Judge the claim; fail with the verdicts' reasons (an inconclusive one says what to widen)."""
        from fcocheck.rates.verdict import combine
        from fcocheck.verify.claim_judge import judge

        try:
            verdicts, measured = judge(self.claim)
        except FcocheckError:
            raise  # a rule the claim breaks: its message names the value and the rule
        except Exception as exc:  # the judging stopped: say where, never an empty line
            raise AssertionError(f"{self.claim.name}: error: the claim could not be judged: "
                                 f"{describe(exc, located=True)}") from exc
        status, oc = combine(verdicts), verdicts[0].evidence.get("oc", {})
        self.user_properties.append(("fcocheck", {"status": status, "size": oc.get("size"),
                                                  "power": oc.get("power"), "measured": measured,
                                                  "verdicts": [v.as_dict() for v in verdicts]}))
        lines = "\n".join(f"  {v.rule}: {v.status}: {v.reason}" for v in verdicts)
        if status != "consistent":
            hint = ("; widen the design (more instances, a wider sweep) or state a sharper bound"
                    if status == "inconclusive" else "")
            raise AssertionError(f"{self.claim.name}: {status}{hint}\n{lines}")
        # a passing claim's verdicts, with their size and power, in the report of passes (pytest -rA)
        self.add_report_section("call", "fcocheck", f"{self.claim.name}: {status}\n{lines}")

    @property
    def label(self) -> str:
        """The name pytest reports."""
        return f"fcocheck claim {self.claim.name}"


def pytest_pycollect_makeitem(collector: Any, name: str, obj: Any) -> list[pytest.Item] | None:
    """Turn ``fcocheck_algorithms`` and ``fcocheck_cards`` into items.

    Each entry (a registry name, a ``register``-ed algorithm, a method card) gets the suite; a card
    also gets its own invariants (written-out reference, counts, reductions, coverage).
    """
    if name == CLAIMS_NAME:
        from fcocheck.verify.claim import Claim, InvalidClaimError
        from fcocheck.verify.experiments import not_a_claim

        bad = [c for c in obj if not isinstance(c, Claim)]
        if bad:  # a clean error, before any item runs
            raise InvalidClaimError(not_a_claim(bad[0]))
        names = [c.name for c in obj]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise InvalidClaimError(f"{CLAIMS_NAME} names {twice[0]!r} twice; the rule is one claim per name")
        return [ClaimItem.from_parent(collector, name=f"fcocheck-claim[{c.name}]", claim=c) for c in obj]
    if name not in (LIST_NAME, CARDS_NAME):
        return None
    from fcocheck.solvers import algorithms
    from fcocheck.solvers.card import Card
    from fcocheck.verify.invariants import INVARIANTS
    from fcocheck.verify.suite import suite

    budget = collector.config.getoption("fcocheck_budget", "quick")
    items: list[pytest.Item] = []
    cards = [e for e in obj if isinstance(e, Card)]
    for card in cards:
        if algorithms.CARDS.get(card.name) is not card:
            algorithms.register_card(card)
    algorithms.check_reductions(cards)  # once every listed card is in: two may reduce to each other
    for entry in obj:
        if isinstance(entry, Card):
            for key, inv in INVARIANTS.items():
                # its own items: NAME=TARGET and KIND-NAME (a reduction A=B between two listed cards is A's)
                own = key.startswith(f"{entry.name}=") or key.endswith(f"-{entry.name}")
                if entry.name in inv.algorithms and own:
                    items.append(CardItem.from_parent(collector, name=f"fcocheck[{key}]", invariant=inv,
                                                      budget=budget))
            entry = entry.name
        alg = algorithms.get(entry) if isinstance(entry, str) else entry
        for check in suite(alg, budget):
            items.append(
                SuiteItem.from_parent(
                    collector, name=f"fcocheck[{alg.name}::{check.name}]", alg=alg, check=check
                )
            )
    return items
