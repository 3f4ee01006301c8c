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

from fcocheck.reports.strict_json import dumps


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


def test_validate_json_parses_strictly(capsys):
    """The command line's --json goes through it (a claim's figure spec and verdicts included)."""
    from fcocheck.reports.cli import main

    assert main(["validate", "fco-4.2-vs-4.1", "--quick", "--json", "-q"]) == 0
    (res,) = _strict(capsys.readouterr().out)
    assert res["name"] == "fco-4.2-vs-4.1" and res["status"] == "consistent"
