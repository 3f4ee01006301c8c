"""Users' algorithms: the suite passes a correct SCAFFOLD and catches each broken one."""

from __future__ import annotations

import pytest

from solvers.errors import InvalidAlgorithmError
from tests.verify.scaffold_variants import variant
from verify.suite import run_suite
from verify.user import register


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
    assert outcomes.get("passed") == 17, result.stdout.str()  # 9 checks of the good one, 8 of the bad
    result.stdout.fnmatch_lines(["*my-scaffold-steps::equivalent-to-scaffold*"])
