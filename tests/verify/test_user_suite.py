"""Users' algorithms: the suite passes a correct SCAFFOLD and catches each broken one."""

from __future__ import annotations

import pytest

from fcocheck.solvers.errors import InvalidAlgorithmError
from fcocheck.verify.suite import run_suite
from fcocheck.verify.user import register
from tests.verify.scaffold_variants import variant


def _failed(bug):
    return {check.name: ev for check, ev, ok in run_suite(variant(bug)) if not ok}


def test_a_correct_user_scaffold_passes_every_required_check():
    assert _failed(None) == {}


@pytest.mark.parametrize(
    "bug, caught_by",
    [
        ("sign", {"contract-converges", "equivalent-to-scaffold"}),
        ("steps", {"equivalent-to-scaffold"}),
        ("server", {"equivalent-to-scaffold", "logged-identities"}),
    ],
)
def test_each_broken_scaffold_is_caught(bug, caught_by):
    failed = _failed(bug)
    assert caught_by <= set(failed), {k: v.detail for k, v in failed.items()}
    ev = failed["equivalent-to-scaffold"]
    assert ev.residual > 1e-6 and "counterexample (shrunk)" in ev.detail


def test_registering_a_registry_name_is_refused():
    with pytest.raises(InvalidAlgorithmError, match="registry entry"):
        register("scaffold", init=None, round=None, hyper=dict)


PLUGIN_MODULE = """
from tests.verify.scaffold_variants import variant
fcocheck_algorithms = [variant(None), variant("steps")]
"""


def test_the_pytest_plugin_collects_the_suite_and_fails_the_broken_algorithm(pytester):
    pytester.makepyfile(test_mine=PLUGIN_MODULE)
    pytester.syspathinsert(str(__import__("pathlib").Path(__file__).resolve().parents[2]))
    result = pytester.runpytest_inprocess("-p", "no:xdist", "-q", "-p", "no:cacheprovider")
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed") == 1, result.stdout.str()
    assert outcomes.get("passed") == 25, result.stdout.str()  # 13 checks of the good one, 12 of the bad
    result.stdout.fnmatch_lines(["*my-scaffold-steps::equivalent-to-scaffold*"])


def _fedavg_parts():
    from fcocheck.solvers import algorithms

    ref = algorithms.get("fedavg")
    return ref.init, ref.round, ref.hyper


def test_a_missing_hyper_strategy_is_a_clear_error_at_registration():
    init, rnd, hyper = _fedavg_parts()
    with pytest.raises(InvalidAlgorithmError, match="no hyper_strategy and no equivalent_to; the rule is"):
        register("my-prox", init=init, round=rnd, hyper=hyper)


def test_wrong_signatures_and_hyper_types_are_refused_naming_the_contract():
    init, rnd, hyper = _fedavg_parts()
    with pytest.raises(InvalidAlgorithmError, match=r"round\(state, hp, env, rng, clients\)"):
        register("my-a", init=init, round=lambda state, hp: None, hyper=hyper, equivalent_to="fedavg")
    with pytest.raises(InvalidAlgorithmError, match=r"init\(problem, hp, w0, rng\)"):
        register("my-b", init="init", round=rnd, hyper=hyper, equivalent_to="fedavg")
    with pytest.raises(InvalidAlgorithmError, match="frozen dataclass"):
        register("my-c", init=init, round=rnd, hyper=dict, equivalent_to="fedavg")


def test_expects_must_name_a_property_and_an_outcome():
    init, rnd, hyper = _fedavg_parts()
    with pytest.raises(InvalidAlgorithmError, match=r"expects\['E'\]"):
        register("my-d", init=init, round=rnd, hyper=hyper, equivalent_to="fedavg", expects={"E": "holds"})
    with pytest.raises(InvalidAlgorithmError, match="'yes'"):
        register("my-e", init=init, round=rnd, hyper=hyper, equivalent_to="fedavg", expects={"A": "yes"})


def test_an_expectation_that_fails_or_was_never_evaluated_is_not_met():
    from fcocheck.verify.evidence import FAILS, HOLDS, NA, Evidence
    from fcocheck.verify.suite import SuiteCheck, verdict

    init, rnd, hyper = _fedavg_parts()
    alg = register("my-f", init=init, round=rnd, hyper=hyper, equivalent_to="fedavg", expects={"A": "holds"})
    check = SuiteCheck("property-A", True, lambda: None)
    assert verdict(check, Evidence("A", HOLDS), alg)
    assert not verdict(check, Evidence("A", FAILS), alg)
    assert not verdict(check, Evidence("A", NA), alg)  # not evaluated: the claim is unsupported
