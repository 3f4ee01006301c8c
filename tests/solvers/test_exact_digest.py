"""``solvers.exact_digest``: two values that differ — in any bit, in type, in nesting — never share a digest,
and equal values always do.

The property is checked over Hypothesis' nested values; the same search finds a collision in a digest
that joins reprs (what the instance digest did), so it is a search that can fail.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcocheck.solvers.exact_digest import feed
from fcocheck.verify.evidence import FAILS, HOLDS, Evidence
from fcocheck.verify.search import search

LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-300, 300), st.floats(allow_nan=False, width=64),
                   st.text(max_size=4))
VALUES = st.recursive(LEAVES, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.tuples(inner, inner),
    st.dictionaries(st.text(max_size=2), inner, max_size=2)), max_leaves=8)


def digest(x: Any, fn=feed) -> str:
    h = hashlib.sha256()
    fn(h, x)
    return h.hexdigest()


def typed(x: Any) -> Any:
    """What the digest must tell apart: the value with its type, a float by its bits (−0.0 ≠ 0.0)."""
    if isinstance(x, float):
        return ("float", x.hex())
    if isinstance(x, dict):
        return ("dict", tuple(sorted((typed(k), typed(v)) for k, v in x.items())))
    if isinstance(x, list | tuple):
        return (type(x).__name__, tuple(typed(v) for v in x))
    return (type(x).__name__, x)


def joined_reprs(h: Any, x: Any) -> None:
    """The instance digest's old scheme: sequences and dicts as their items' reprs, joined."""
    if isinstance(x, list | tuple):
        h.update(f"seq{len(x)}".encode())
        for v in x:
            joined_reprs(h, v)
    elif isinstance(x, dict):
        for k in sorted(x):
            h.update(str(k).encode())
            joined_reprs(h, x[k])
    else:
        h.update(repr(x).encode())


def collision(fn) -> Evidence:
    """A pair of typed-different values ``fn`` gives one digest (``fails``), or none found (``holds``)."""
    def check(pair: tuple[Any, Any]) -> Evidence:
        x, y = pair
        same = typed(x) == typed(y)
        ok = (digest(x, fn) == digest(y, fn)) == same
        return Evidence("digest-exact", HOLDS if ok else FAILS, 0.0 if ok else 1.0, detail=f"{x!r} vs {y!r}")

    ints = st.lists(st.integers(0, 999), min_size=2, max_size=3)
    pairs = st.one_of(st.tuples(VALUES, VALUES), ints.flatmap(lambda xs: st.tuples(st.just(xs), resplit(xs))))
    return search(pairs, check, budget=400, seed=0)


def resplit(xs: list[int]) -> st.SearchStrategy:
    """Lists of as many integers whose digits, joined, are those of ``xs`` (cut elsewhere; maybe ``xs``)."""
    digits = "".join(map(str, xs))
    cuts = st.lists(st.integers(1, len(digits) - 1), min_size=len(xs) - 1, max_size=len(xs) - 1, unique=True)
    return cuts.map(lambda c: [int(digits[a:b]) for a, b in
                               zip([0, *sorted(c)], [*sorted(c), len(digits)], strict=True)])


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(VALUES, VALUES)
def test_typed_different_values_never_share_a_digest(x, y):
    assert (digest(x) == digest(y)) == (typed(x) == typed(y))


def test_the_search_finds_the_collisions_of_joined_reprs_and_none_in_the_exact_digest():
    found = collision(joined_reprs)
    assert found.outcome == FAILS, found  # e.g. [1, 23] and [12, 3]
    assert collision(feed).outcome == HOLDS


def test_unusual_equal_values_share_a_digest_and_unusual_different_ones_do_not():
    assert digest([0.1, {"a": (1, "x")}]) == digest([0.1, {"a": (1, "x")}])  # equal, built twice
    assert digest(np.arange(6.0).reshape(2, 3)) == digest(np.arange(6.0).reshape(2, 3).T.copy().T)  # layout
    assert digest(np.float64(0.5)) == digest(0.5)  # a float subclass: the same number, the same arithmetic
    for x, y in [(0.0, -0.0), (1.0, math.nextafter(1.0, 2.0)), (1, 1.0), (1, True), ((1,), [1]),
                 ({1: 2}, {"1": 2}), ("ab", ["a", "b"]), (np.zeros(2), np.zeros(2, dtype=np.float32)),
                 (np.zeros((2, 1)), np.zeros((1, 2))), (np.float32(1.0), 1.0)]:
        assert digest(x) != digest(y), (x, y)


class Plain:
    """A user's object that is not a dataclass (a regularizer written by hand)."""

    def __init__(self, lam: float, groups: tuple) -> None:
        self.lam, self.groups, self._memo = lam, groups, object()  # a private memo is not the object's value


def test_objects_other_than_dataclasses_only_with_objects_and_by_their_public_attributes():
    def dg(x: Any) -> str:
        h = hashlib.sha256()
        feed(h, x, objects=True)
        return h.hexdigest()

    assert dg(Plain(0.5, (1, 23))) == dg(Plain(0.5, (1, 23)))  # another memo, the same value
    assert dg(Plain(0.5, (1, 23))) != dg(Plain(0.5, (12, 3)))
    assert dg(Plain(0.5, (1, 23))) != dg(Plain(-0.5, (1, 23)))
    with pytest.raises(TypeError, match="Plain has no exact digest"):
        digest(Plain(0.5, (1, 23)))  # a figure's data: no key, always drawn
