"""An exception printed is never empty: its type, its message, or where it was raised when it has none.

The empty ``AssertionError`` of a user's judging (a bare ``assert`` in their code) printed as
``FAILED …[my-claim] - `` and nothing after in pytest, and as "could not be judged: AssertionError: " in
``validate``.  Here: the text itself, an experiment that raises one, and the pytest plugin's claim item.
"""

from __future__ import annotations

import pytest

from fcocheck.solvers.error_text import describe


def _bare() -> None:
    raise AssertionError


def _raised(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the exception is the subject
        return exc
    raise RuntimeError("did not raise")


def test_a_message_is_type_and_message():
    assert describe(_raised(lambda: int("x"))) == "ValueError: invalid literal for int() with base 10: 'x'"


def test_no_message_is_said_with_where_it_was_raised():
    text = describe(_raised(_bare))
    assert text.startswith("AssertionError with no message (at test_error_text.py:")
    assert text.endswith(" in _bare)")


def test_blank_counts_as_no_message_and_an_unraised_one_has_no_place():
    assert describe(AssertionError("  ")) == "AssertionError with no message"
    assert describe(KeyError()) == "KeyError with no message"


def test_located_adds_the_place_to_a_message():
    text = describe(_raised(lambda: {}["k"]), located=True)
    assert text.startswith("KeyError: 'k' (at test_error_text.py:") and "<lambda>" in text


def test_an_experiment_that_raises_a_bare_assertion_says_where():
    from fcocheck.verify.experiments.base import Experiment

    def judged(quick, seed):
        raise AssertionError  # a bare assert, planted (``assert`` itself pytest would rewrite with a message)

    res = Experiment("x", "fco-4.2", "planted failure", judged)(quick=True)
    reason = res.checks[0].reason
    assert res.status == "error" and "could not be judged: AssertionError with no message (at " in reason
    assert "in judged)" in reason


CLAIM = ('from fcocheck import Claim\nfcocheck_claims = [Claim("c-bare", method="fedavg", bound="1/R", '
         'along=("rounds", [10, 20, 40, 80]), problem=("quadratics", {"d": 4}), '
         'hp={"eta_c": 0.1, "local_steps": 2}, seeds=3)]\n')
CONFTEST = ("import fcocheck.verify.claim_judge as cj\n\n\ndef _judge(claim):\n    raise AssertionError\n\n\n"
            "cj.judge = _judge\n")


@pytest.mark.parametrize("planted", [True, False])
def test_pytest_names_a_claim_whose_judging_raised_a_bare_assertion(pytester, planted):
    pytester.makepyfile(test_claims=CLAIM)
    if planted:
        pytester.makeconftest(CONFTEST)
    result = pytester.runpytest_subprocess("-p", "no:xdist", "-p", "no:cacheprovider", "-rf")
    text = "\n".join(result.outlines)
    if planted:
        assert result.parseoutcomes().get("failed") == 1, text[-2000:]
        said = "c-bare: error: the claim could not be judged: AssertionError with no message (at conftest.py:"
        assert said in text, text[-2000:]
    else:  # the same claim judged for real is a verdict, not an error
        assert "could not be judged" not in text, text[-2000:]
