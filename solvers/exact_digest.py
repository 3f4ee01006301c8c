"""Exact, typed digests: two different values never feed a SHA-256 the same bytes.

``feed(h, x)`` hands ``x`` to a hashlib object as a sequence of tagged, length-prefixed items, each
value with its type: a float by its exact hexadecimal form (−0.0 and 0.0 apart, every ulp apart), an
int by its digits, a string by its UTF-8 bytes, a tuple apart from a list, a dict's keys with their
types, an array by dtype, shape, bytes (and mask), a sparse matrix by its CSR parts, a dataclass by its
class name and every field.  Because every item carries its tag and its length, the concatenation
cannot be parsed two ways: ``(1, 23)`` and ``(12, 3)``, or a field ``a1 = 2`` and ``a = 12``, feed
different bytes (a digest that joined reprs fed them the same).

Two users: the figure key (``reports.figure_key``), for which a value of any other kind has no exact
form (TypeError: such a figure is always drawn), and the instance digest (``solvers.digest``), which
also takes objects that are not dataclasses (``objects=True``: a user's regularizer, by its class and
its public attributes) and, last, any other value by its type and ``repr``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from fcocheck.solvers.sparse import issparse


def token(h: Any, tag: bytes, payload: bytes = b"") -> None:
    """One tagged, length-prefixed item (no two different sequences of items feed the same bytes)."""
    h.update(tag + len(payload).to_bytes(8, "little") + payload)


def feed(h: Any, x: Any, objects: bool = False) -> None:
    """Hash ``x`` exactly, with its type (module docstring).

    Raises:
        TypeError: without ``objects``, a value of a kind the module docstring does not list.

    """
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        token(h, b"D", type(x).__qualname__.encode())
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
        token(h, b"i", str(x).encode())
    elif isinstance(x, float):
        token(h, b"x", x.hex().encode())
    elif isinstance(x, str):
        token(h, b"s", x.encode("utf-8", "surrogatepass"))
    elif isinstance(x, np.ndarray) and x.dtype != object:
        token(h, b"a", f"{x.dtype.str}{x.shape}".encode())
        token(h, b"b", np.ascontiguousarray(x).tobytes())
        if isinstance(x, np.ma.MaskedArray):
            token(h, b"m", np.ascontiguousarray(np.ma.getmaskarray(x)).tobytes())
    elif isinstance(x, np.generic) and not isinstance(x, np.object_):
        token(h, b"g", x.dtype.str.encode() + x.tobytes())
    elif issparse(x):
        csr = x.tocsr()
        token(h, b"S", str(csr.shape).encode())
        for part in (csr.data, csr.indices, csr.indptr):
            feed(h, np.asarray(part), objects)
    elif objects and hasattr(x, "__dict__"):
        token(h, b"o", type(x).__qualname__.encode())
        feed(h, {k: v for k, v in vars(x).items() if not k.startswith("_")}, objects)
    elif objects:
        token(h, b"r", f"{type(x).__qualname__} {x!r}".encode())
    else:
        raise TypeError(f"{type(x).__name__} has no exact digest")
