"""Rendering what a results store holds: a payload that is not what fcocheck writes is a named refusal.

The report renders payloads read back from the store (reused results), which a damaged, hand-edited or
foreign store may have broken in any way (a key missing, a list where a number goes).  ``reading(kind,
name)`` wraps the rendering of one payload: an error of the payload's shape there becomes a ``StoreError``
naming the payload and the error (exit 2, and the report's stage is discarded: ``--out`` is left as it
was), never a traceback.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from fcocheck.solvers.error_text import describe
from fcocheck.verify.sweep.store import StoreError

#: the errors a payload of the wrong shape raises where it is read
SHAPE_ERRORS = (KeyError, TypeError, ValueError, IndexError, AttributeError)


@contextmanager
def reading(kind: str, name: object) -> Iterator[None]:
    """Render one payload; a shape error becomes a ``StoreError`` naming it (module docstring)."""
    try:
        yield
    except SHAPE_ERRORS as exc:
        raise StoreError(f"the {kind} payload {str(name)[:80]!r} cannot be rendered ("
                         f"{describe(exc)[:160]}): it is not what this fcocheck writes; the rule is a store "
                         "written by fcocheck — remove the row or pass another --store") from None
