"""What the toolkit prints as JSON parses with a strict parser: a non-finite number is a string.

The violation: Python's own ``json.dumps`` of the same documents writes bare ``Infinity``/``NaN``, which a
strict parser (here ``json.loads`` with the constants refused, as jq or JSON.parse do) rejects.  Legal
documents of every shape come back equal; non-finite values come back as their names.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcocheck.solvers.strict_json import dumps


def _strict(text: str):  # noqa: ANN202 - a parser that refuses Infinity and NaN
    def refuse(word: str):  # noqa: ANN202
        raise ValueError(f"not JSON: {word}")

    return json.loads(text, parse_constant=refuse)


def _named(x: float) -> str:
    return "nan" if math.isnan(x) else "inf" if x > 0 else "-inf"


DOCS = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.text(max_size=5),
              st.floats(allow_nan=True, allow_infinity=True)),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.text(max_size=4), inner, max_size=4)),
    max_leaves=20)


def _expected(x):  # noqa: ANN001, ANN202
    if isinstance(x, float) and not math.isfinite(x):
        return _named(x)
    if isinstance(x, dict):
        return {k: _expected(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_expected(v) for v in x]
    return x


@settings(max_examples=300, deadline=None, derandomize=True)
@given(DOCS)
def test_any_document_parses_strictly_and_keeps_its_values(doc):
    assert _strict(dumps(doc)) == _expected(doc)
    if any(isinstance(v, float) and not math.isfinite(v) for v in _leaves(doc)):
        with pytest.raises(ValueError, match="not JSON"):
            _strict(json.dumps(doc))  # the violation: Python's json writes bare Infinity / NaN


def _leaves(x):  # noqa: ANN001, ANN202
    if isinstance(x, dict):
        for v in x.values():
            yield from _leaves(v)
    elif isinstance(x, list):
        for v in x:
            yield from _leaves(v)
    else:
        yield x


def test_numpy_values_and_objects_through_default_are_walked_too():
    class Ratio:
        def as_list(self):  # noqa: ANN202
            return [1.5, float("inf")]

    doc = {"a": np.array([1.0, np.nan, -np.inf]), "b": np.float64(np.inf), "c": np.int64(3),
           "d": np.bool_(True), "e": (1, 2.5), "f": Ratio()}
    got = _strict(dumps(doc, default=lambda o: o.as_list()))
    assert got == {"a": [1.0, "nan", "-inf"], "b": "inf", "c": 3, "d": True, "e": [1, 2.5], "f": [1.5, "inf"]}
    assert type(got["d"]) is bool and type(got["c"]) is int


def test_validate_json_and_out_write_non_finite_numbers_as_names(monkeypatch, capsys, tmp_path):
    """A result holding ∞ and NaN (a ratio to a floor of 0, a fit without points) printed by --json and
    written by --out: both parse strictly, the values by name (with Python's json both would not)."""
    from fcocheck.reports import cli_theory
    from fcocheck.reports.cli import main

    fake = {"name": "fco-eq-4.5", "status": "consistent", "checks": [], "seconds": 0.0,
            "measured": {"ratio": float("inf"), "fit": {"slope": float("nan"), "lo": -np.inf}}}
    monkeypatch.setattr(cli_theory, "_results", lambda chosen, args, instance: iter([dict(fake)]))
    out = tmp_path / "v.jsonl"
    assert main(["validate", "fco-eq-4.5", "--json", "--out", str(out)]) == 0
    want = {"ratio": "inf", "fit": {"slope": "nan", "lo": "-inf"}}
    (res,) = _strict(capsys.readouterr().out)
    assert res["measured"] == want
    assert _strict(out.read_text())["measured"] == want


def test_keys_are_cleaned_and_a_default_that_returns_its_argument_is_an_error():
    assert _strict(dumps({float("inf"): 1, np.int64(2): "x"})) == {"inf": 1, "2": "x"}
    with pytest.raises(TypeError, match="the rule is a value JSON has a form for"):
        dumps({"a": object()}, default=lambda o: o)
