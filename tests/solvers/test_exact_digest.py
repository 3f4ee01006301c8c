"""``solvers.exact_digest``: two values that differ — in any bit, in type, in nesting — never share a digest,
and equal values always do.

The property is checked over Hypothesis' nested values; the same search finds a collision in a digest
that joins reprs (what the instance digest did), so it is a search that can fail.
"""

from __future__ import annotations

import hashlib
import math
import struct
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcocheck.solvers.exact_digest import feed
from fcocheck.verify.evidence import FAILS, HOLDS, Evidence
from fcocheck.verify.search import search

LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-300, 300), st.floats(allow_nan=False, width=64),
                   st.text(max_size=4), st.builds(np.float32, st.floats(allow_nan=False, width=32)),
                   st.builds(np.int64, st.integers(-3, 3)), st.builds(np.bool_, st.booleans()))
KEYS = st.one_of(st.text(max_size=2), st.integers(-3, 3), st.booleans())  # mixed types in one dict
VALUES = st.recursive(LEAVES, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.tuples(inner, inner),
    st.dictionaries(KEYS, inner, max_size=3)), max_leaves=8)


def digest(x: Any, fn=feed) -> str:
    h = hashlib.sha256()
    fn(h, x)
    return h.hexdigest()


def typed(x: Any) -> Any:
    """What the digest must tell apart: the value with its type, a float by its bits (−0.0 ≠ 0.0)."""
    if isinstance(x, np.generic):
        return ("numpy", x.dtype.str, x.tobytes())
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
    """A user's object that is not a dataclass (a regularizer written by hand), its scale kept private."""

    def __init__(self, lam: float, groups: tuple, scale: float = 1.0) -> None:
        self.lam, self.groups, self._scale = lam, groups, scale


def test_objects_other_than_dataclasses_only_with_objects_and_by_every_attribute():
    dg = _objects_digest
    assert dg(Plain(0.5, (1, 23))) == dg(Plain(0.5, (1, 23)))  # built twice: one value
    assert dg(Plain(0.5, (1, 23))) != dg(Plain(0.5, (12, 3)))
    assert dg(Plain(0.5, (1, 23))) != dg(Plain(-0.5, (1, 23)))
    assert dg(Plain(0.5, (1, 23))) != dg(Plain(0.5, (1, 23), scale=2.0))  # private state is state
    holding = Plain(0.5, (1, 23), scale=object())  # no exact form: a nonce, never another value's digest
    assert dg(holding) != dg(holding)
    with pytest.raises(TypeError, match="Plain has no exact digest"):
        digest(Plain(0.5, (1, 23)))  # a figure's data: no key, always drawn


def _objects_digest(x: Any) -> str:
    h = hashlib.sha256()
    feed(h, x, objects=True)
    return h.hexdigest()


def test_what_review_found_hashed_alike_is_told_apart():
    """A plain subclass of a dataclass holding its own state, a dataclass of another module with the same
    class name, enum members, functions, an int beyond str()'s digits, structured dtypes of one item size,
    NaN payloads."""
    import dataclasses
    import enum
    import functools

    from fcocheck.solvers.regularizers.norms import L1

    class Mine(L1):  # no @dataclass: its state is not among L1's fields
        def __init__(self, lam: float, extra: float) -> None:
            super().__init__(lam)
            object.__setattr__(self, "extra", extra)

    assert _objects_digest(Mine(0.1, 1.0)) != _objects_digest(Mine(0.1, 2.0))
    with pytest.raises(TypeError):
        digest(Mine(0.1, 1.0))  # not an exact figure datum: always drawn
    @dataclasses.dataclass(frozen=True)
    class Users:
        lam: float

    Users.__module__, Users.__qualname__ = "users_module", "L1"  # a user's L1, named as the built-in one
    assert type(Users(0.5)).__qualname__ == type(L1(0.5)).__qualname__
    assert digest(Users(0.5)) != digest(L1(0.5))
    Color = enum.Enum("Color", "RED GREEN")
    assert _objects_digest(Color.RED) != _objects_digest(Color.GREEN)
    assert _objects_digest(Color.RED) == _objects_digest(Color.RED)
    assert _objects_digest(abs) != _objects_digest(len)
    assert _objects_digest(functools.partial(max, 1)) != _objects_digest(functools.partial(max, 2))
    assert digest(10**5000) != digest(10**5000 + 1) and digest(-(2**63)) != digest(2**63)
    a = np.zeros(1, dtype=[("x", "<f8"), ("y", "<f8")])
    b = np.zeros(1, dtype=[("u", "<f8"), ("v", "<f8")])
    assert a.dtype.str == b.dtype.str and digest(a) != digest(b)
    nan, other_nan = float("nan"), struct.unpack("<d", struct.pack("<Q", 0x7FF8000000000001))[0]
    assert digest(nan) != digest(other_nan) and digest(nan) == digest(float("nan"))


def test_a_figure_with_a_huge_int_still_has_a_key():
    from fcocheck.reports.figure_key import figure_key

    assert figure_key({"n": 10**5000}) is not None


def test_arrays_are_hashed_in_place_as_their_bytes_in_c_order():
    """The buffer an array is hashed from is its C-order bytes, whatever its layout: Fortran, strided, a
    transposed view, masked (the data under the mask too; the mask is its own item), structured, bool,
    empty — the digest ``tobytes`` would give."""
    def item(tag: bytes, payload: bytes) -> bytes:
        return tag + len(payload).to_bytes(8, "little") + payload

    def by_bytes(x: np.ndarray) -> str:
        parts = [item(b"a", f"{x.dtype.str}{x.shape}".encode())]
        if x.dtype.names is not None:
            parts.append(item(b"n", repr(x.dtype.descr).encode()))
        parts.append(item(b"b", np.asarray(x).tobytes()))
        if isinstance(x, np.ma.MaskedArray):
            parts.append(item(b"m", np.ma.getmaskarray(x).tobytes()))
        return hashlib.sha256(b"".join(parts)).hexdigest()

    grid = np.arange(12.0).reshape(3, 4)
    arrays = [grid, np.asfortranarray(grid), np.arange(20.0)[::3], grid.T,
              np.ma.masked_array([1.0, 2.0, 3.0], [0, 1, 0]), np.zeros(2, dtype=[("x", "<f8"), ("y", "<i4")]),
              np.array([True, False, True]), np.zeros((0, 3))]
    for x in arrays:
        assert digest(x) == by_bytes(x), x
