"""The project's planted bugs: patches in sync with the catalog (quick) and caught as recorded (slow)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mutants.catalog import MUTANTS
from tests.mutants.make import patch_text

HERE = Path(__file__).parent


def test_every_patch_matches_the_catalog_and_the_tree():
    assert len(MUTANTS) >= 15
    for m in MUTANTS:
        assert (HERE / f"{m.name}.patch").read_text() == patch_text(m), m.name
    assert all(m.gap for m in MUTANTS if not m.caught)  # a miss names the check that is missing


@pytest.mark.slow
@pytest.mark.parametrize("name", [m.name for m in MUTANTS])
def test_each_mutant_is_caught_as_recorded(name):
    from tests.mutants.run import run_one

    m = next(m for m in MUTANTS if m.name == name)
    result = run_one(m)
    assert result["caught"] == m.caught, result
