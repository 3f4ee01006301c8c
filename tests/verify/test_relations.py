"""Relations without a reference implementation: a user's FedProx (no twin) and its planted bugs."""

from __future__ import annotations

import pytest

from fcocheck.solvers import algorithms
from fcocheck.verify.evidence import FAILS, HOLDS
from fcocheck.verify.relations import client_permutation, client_split
from fcocheck.verify.search import search
from fcocheck.verify.suite import _equivalence_cases, run_suite
from tests.verify.fedprox_variants import variant


def _failed(bug):
    return {check.name: ev for check, ev, ok in run_suite(variant(bug)) if not ok}


def test_a_correct_fedprox_passes_every_required_check():
    checks = {check.name: ev for check, ev, _ in run_suite(variant(None))}
    assert {"client-permutation", "client-split", "shrinks-with-mu", "reduces-to-fedavg",
            "local-objective", "translation", "zero-weight-client"} <= set(checks)
    assert _failed(None) == {}
    for name in ("client-split", "shrinks-with-mu", "local-objective"):
        assert checks[name].outcome == HOLDS, checks[name]


@pytest.mark.parametrize(
    ("bug", "caught_by"),
    [
        ("sign", {"shrinks-with-mu"}),
        ("average", {"client-permutation", "client-split", "reduces-to-fedavg"}),
        ("uniform", {"client-split"}),
        ("step", {"reduces-to-fedavg"}),
        ("twice", {"local-objective"}),
        ("origin", {"translation"}),
    ],
)
def test_each_planted_fedprox_bug_is_caught_with_a_shrunk_counterexample(bug, caught_by):
    failed = _failed(bug)
    assert caught_by <= set(failed), {k: v.detail for k, v in failed.items()}
    for name in caught_by:
        assert failed[name].outcome == FAILS and "counterexample (shrunk)" in failed[name].detail


@pytest.mark.parametrize("name", ["fedavg", "feddualavg", "scaffold", "fedcanon"])
def test_registry_methods_respect_the_relations(name):
    alg = algorithms.get(name)
    from fcocheck.verify.relations import translation, zero_weight_client

    for fn in (client_permutation, client_split, zero_weight_client, translation):
        found = search(_equivalence_cases(alg), lambda c, f=fn: f(alg, c), 10)
        assert found.outcome == HOLDS, found.evidence


def test_a_malformed_local_objective_is_refused_naming_the_rule():
    from fcocheck.solvers.errors import InvalidAlgorithmError
    from fcocheck.verify.user import register
    from tests.verify.fedprox_variants import FedProxHyper, init, make_round, strategy

    with pytest.raises(InvalidAlgorithmError, match="LocalObjective"):
        register("my-fedprox-x", init=init, round=make_round(None), hyper=FedProxHyper,
                 hyper_strategy=strategy, local_objective=lambda w, a, hp: w - a)


def test_a_weight_zero_client_has_no_influence_and_uniform_weights_fail():
    """The relation holds for the registry's FedAvg and fails for the FedProx that weighs clients
    uniformly (a weight-0 client with random data enters its average)."""
    from fcocheck.verify.relations import zero_weight_client

    fedavg = algorithms.get("fedavg")
    ok = search(_equivalence_cases(fedavg), lambda c: zero_weight_client(fedavg, c), 15)
    assert ok.outcome == HOLDS, ok.evidence
    bad = variant("uniform")
    found = search(_equivalence_cases(bad), lambda c: zero_weight_client(bad, c), 15)
    assert found.outcome == FAILS
