"""Exact, typed digests: two different values of the kinds below never feed a SHA-256 the same bytes.

``feed(h, x)`` hands ``x`` to a hashlib object as a sequence of tagged, length-prefixed items, each
value with its type: a float by its IEEE bits (−0.0 and 0.0 apart, every ulp and NaN payload apart), an
int by its two's-complement bytes, a bool or None by name, a string by its UTF-8 bytes, a tuple apart from
a list, a dict's keys with their types, an array by dtype (a structured one with its fields), shape, bytes
and mask, another numpy scalar by dtype and bytes, a sparse matrix by its CSR parts, a dataclass by its
module, class and every field.  Because every item carries its tag and its length, the concatenation
cannot be parsed two ways: ``(1, 23)`` and ``(12, 3)``, or a field ``a1 = 2`` and ``a = 12``, feed
different bytes (a digest that joined reprs fed them the same).  A value is taken by its Python type:
``np.float64`` is a float (a subclass), so ``np.float64(0.5)`` and ``0.5`` agree, while ``np.int64(1)``
and ``1``, or ``0`` and ``0.0``, differ.

Two users: the figure key (``reports.figure_key``), for which a value of any other kind has no exact
form (TypeError: such a figure is always drawn), and the instance digest (``solvers.digest``), which also
takes other objects (``objects=True``): an enum member by its class and name; an object with attributes
(a user's regularizer written without ``@dataclass``) by its module, class and every attribute, private
ones too; anything else — a function, a value of a type with no state to read — by a fresh random nonce,
so that it shares its digest with no other value (nor with itself in another call: an instance holding it
is never taken for another, at worst it is not recognised again).
"""

from __future__ import annotations

import dataclasses
import enum
import struct
import uuid
from typing import Any

import numpy as np

from fcocheck.solvers.sparse import issparse


def token(h: Any, tag: bytes, payload: Any = b"") -> None:
    """One tagged, length-prefixed item (no two different sequences of items feed the same bytes).

    ``payload``: bytes, or a C-contiguous array, whose buffer is hashed where it lies (lasso-paper's 64 MB
    of rows are neither copied by ``tobytes`` nor joined to their prefix: 35 ms instead of 100).
    """
    n = memoryview(payload).nbytes
    h.update(tag + n.to_bytes(8, "little"))
    h.update(payload)


def _class(x: Any) -> bytes:
    return f"{type(x).__module__}.{type(x).__qualname__}".encode()


def _own_dataclass(x: Any) -> bool:
    """A dataclass instance whose class declares its fields itself (a plain subclass may hold more)."""
    return not isinstance(x, type) and "__dataclass_fields__" in type(x).__dict__


def feed(h: Any, x: Any, objects: bool = False) -> None:
    """Hash ``x`` exactly, with its type (module docstring).

    Args:
        h: a hashlib object (``update``).
        x: the value.
        objects: also take the objects of other kinds (the instance digest's rule).

    Raises:
        TypeError: without ``objects``, a value of a kind the module docstring does not list.

    """
    if _own_dataclass(x):
        token(h, b"D", _class(x))
        for f in dataclasses.fields(x):
            token(h, b"f", f.name.encode())
            feed(h, getattr(x, f.name), objects)
    elif isinstance(x, dict):
        token(h, b"{", str(len(x)).encode())
        for k in sorted(x, key=lambda k: (type(k).__qualname__, repr(k))):
            feed(h, k, objects)
            feed(h, x[k], objects)
    elif isinstance(x, list | tuple):
        token(h, b"[" if isinstance(x, list) else b"(", str(len(x)).encode())
        for v in x:
            feed(h, v, objects)
    elif x is None or isinstance(x, bool):
        token(h, b"c", repr(x).encode())
    elif isinstance(x, int):
        token(h, b"i", x.to_bytes(x.bit_length() // 8 + 1, "little", signed=True))
    elif isinstance(x, float):
        token(h, b"x", struct.pack("<d", x))
    elif isinstance(x, str):
        token(h, b"s", x.encode("utf-8", "surrogatepass"))
    elif isinstance(x, np.ndarray) and not x.dtype.hasobject:
        token(h, b"a", f"{x.dtype.str}{x.shape}".encode())
        if x.dtype.names is not None:
            token(h, b"n", repr(x.dtype.descr).encode())
        token(h, b"b", np.ascontiguousarray(x))  # a masked array's data, under its mask too (a plain array)
        if isinstance(x, np.ma.MaskedArray):
            token(h, b"m", np.ascontiguousarray(np.ma.getmaskarray(x)).tobytes())
    elif isinstance(x, np.generic) and not x.dtype.hasobject:
        token(h, b"g", x.dtype.str.encode() + x.tobytes())
    elif issparse(x):
        csr = x.tocsr()
        token(h, b"S", str(csr.shape).encode())
        for part in (csr.data, csr.indices, csr.indptr):
            feed(h, np.asarray(part), objects)
    elif not objects:
        raise TypeError(f"{type(x).__name__} has no exact digest")
    elif isinstance(x, enum.Enum):
        token(h, b"e", _class(x) + b" " + x.name.encode())
    elif hasattr(x, "__dict__") and not callable(x) and vars(x):
        token(h, b"o", _class(x))
        feed(h, dict(vars(x)), objects)
    else:
        token(h, b"?", uuid.uuid4().bytes)
