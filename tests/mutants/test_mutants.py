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
    assert all(m.caught_by for m in MUTANTS if m.caught)  # a catch names the cells that make it
    assert all(m.command in ("check", "validate", "pytest") for m in MUTANTS)
    assert all(m.targets for m in MUTANTS if m.command != "check")


def test_the_catalog_covers_every_layer_the_judges_included():
    layers = {m.layer for m in MUTANTS}
    assert layers >= {"solvers", "engine", "rates", "verify", "reports"}, layers
    assert any(m.command == "validate" and m.layer == "rates" for m in MUTANTS)


def test_the_layer_table_counts_catches_by_a_command_apart_from_unit_tests():
    from tests.mutants.run import layers

    by = {m.name: m for m in MUTANTS}
    results = [(by["departure-gate-at-1"], {"caught": True}), (by["eps-min-at-half-power"], {"caught": True}),
               (by["sampler-with-replacement"], {"caught": False})]
    table = layers(results).splitlines()
    assert table[1].split() == ["engine", "1", "0", "0"]
    assert table[2].split() == ["rates", "2", "2", "1"]
    assert table[-1].split() == ["all", "3", "2", "1", "(33%)"]


def _caught_as_recorded(m) -> None:
    from tests.mutants.run import run_one

    result = run_one(m)
    assert not result["crashed"], result  # a traceback is not a check's finding
    assert result["caught"] == m.caught, result
    missing = set(m.caught_by) - set(result["cells"])
    assert not missing, f"{m.name}: the recorded cells {sorted(missing)} no longer catch it: {result}"


#: run in the default profile: bugs in three layers of FedMiD (the ℓ1 prox, the counts, the compiled
#: pass), one shared clean baseline, and a judge (the weak gate, seen by ``validate``) — the rest are
#: ``slow``
QUICK = ("soft-threshold-halved", "prox-count-doubled", "fused-primal-prox-dropped", "departure-gate-at-1")


@pytest.mark.parametrize("name", QUICK)
def test_a_bounded_subset_is_caught_for_the_recorded_reason(name):
    _caught_as_recorded(next(m for m in MUTANTS if m.name == name))


@pytest.mark.slow
@pytest.mark.parametrize("name", [m.name for m in MUTANTS if m.name not in QUICK])
def test_each_mutant_is_caught_as_recorded(name):
    _caught_as_recorded(next(m for m in MUTANTS if m.name == name))


@pytest.mark.parametrize("result", [
    {"crashed": True, "caught": False, "cells": []},  # a traceback is not a catch
    {"crashed": False, "caught": True, "cells": ["oracles:oracles"]},  # caught, but by another check
    {"crashed": False, "caught": False, "cells": []},  # missed
])
def test_the_recorded_reason_is_asserted(monkeypatch, result):
    """Power of the tests above: a crash, a catch for another reason and a miss all fail them."""
    import tests.mutants.run as run

    monkeypatch.setattr(run, "run_one", lambda m: result)
    m = next(m for m in MUTANTS if m.name == "prox-count-doubled")
    with pytest.raises(AssertionError):
        _caught_as_recorded(m)
