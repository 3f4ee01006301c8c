"""ŵ (eq. 4.2) and the discrepancy rebuilt from step records: they hold and they catch wrong logs."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from fcocheck.solvers import algorithms
from fcocheck.verify.evidence import FAILS, HOLDS
from fcocheck.verify.invariants.logged import discrepancy_residual, dual_cases, w_hat_residual
from fcocheck.verify.search import search


def _mutant(base: str, name: str, change):
    alg = algorithms.get(base)

    def bad_round(state, hp, env, rng, clients):
        new, log = alg.round(state, hp, env, rng, clients)
        return new, change(log)

    return dataclasses.replace(alg, name=name, round=bad_round)


@pytest.mark.parametrize("base", ["feddualavg", "feddualavg-osp"])
def test_registry_logs_agree_with_the_rebuilt_quantities(base):
    for check in (w_hat_residual, discrepancy_residual):
        found = search(dual_cases(), lambda c, f=check: f(base, c), 15)
        assert found.outcome == HOLDS, found.evidence


MUTANTS = {
    # ŵ as the average of the server iterates (the planted bug of issue 16): eq. 4.2 must fail
    "w-hat-server-iterates": (w_hat_residual,
                              lambda log: dataclasses.replace(log, avg_terms=log.avg_count * log.w)),
    # ŵ off by 1% (any bookkeeping slip of the average)
    "w-hat-scaled": (w_hat_residual, lambda log: dataclasses.replace(log, avg_terms=1.01 * log.avg_terms)),
    # discrepancy with the client weights forgotten (a factor) or without its square
    "discrepancy-halved": (discrepancy_residual,
                           lambda log: dataclasses.replace(log, discrepancy=0.5 * log.discrepancy)),
    "discrepancy-not-squared": (discrepancy_residual,
                                lambda log: dataclasses.replace(log, discrepancy=np.sqrt(log.discrepancy))),
}


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_wrong_logs_are_caught_with_a_shrunk_counterexample(mutant):
    check, change = MUTANTS[mutant]
    alg = _mutant("feddualavg", f"mutant-{mutant}", change)
    found = search(dual_cases(), lambda c: check(alg, c), 30)
    assert found.outcome == FAILS, mutant
    assert found.case is not None and "rule ≤" in found.evidence.detail
