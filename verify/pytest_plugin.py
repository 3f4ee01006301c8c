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

if TYPE_CHECKING:
    from fcocheck.verify.suite import SuiteCheck

# Nothing of fcocheck is imported until a module defines ``fcocheck_algorithms``: the plugin is
# loaded by every pytest session in the environment and must cost it nothing.

LIST_NAME = "fcocheck_algorithms"


def pytest_addoption(parser: Any) -> None:
    """--fcocheck-budget."""
    parser.addoption(
        "--fcocheck-budget",
        default="quick",
        choices=["quick", "full", "thorough"],
        help="cases per Hypothesis search of the fcocheck suite",
    )


class SuiteItem(pytest.Item):
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

    def repr_failure(self, excinfo: Any, style: Any = None) -> str:
        """The evidence, not a traceback."""
        if isinstance(excinfo.value, AssertionError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Any, int, str]:
        """Location and name."""
        return self.path, 0, f"fcocheck {self.alg.name}::{self.check.name}"


def pytest_pycollect_makeitem(collector: Any, name: str, obj: Any) -> list[SuiteItem] | None:
    """Turn ``fcocheck_algorithms`` into suite items."""
    if name != LIST_NAME:
        return None
    from fcocheck.solvers import algorithms
    from fcocheck.verify.suite import suite

    budget = collector.config.getoption("fcocheck_budget", "quick")
    items = []
    for entry in obj:
        alg = algorithms.get(entry) if isinstance(entry, str) else entry
        for check in suite(alg, budget):
            items.append(
                SuiteItem.from_parent(
                    collector, name=f"fcocheck[{alg.name}::{check.name}]", alg=alg, check=check
                )
            )
    return items
