"""An exception as the one line a user reads: never empty.

``describe(exc)`` is ``Type: message``.  An exception raised with no message (a bare ``assert`` in a
user's card, ``AssertionError()`` inside a library) is named as such, with where it was raised — the
innermost frame's file, line and function — so a failure printed by ``validate``, the pytest plugin, a
sweep's error record or the report is never just a type, or nothing.
"""

from __future__ import annotations

import traceback
from pathlib import Path


def where(exc: BaseException) -> str:
    """``file:line in function`` of the innermost frame ``exc`` passed through ("" without a traceback)."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return ""
    last = frames[-1]
    return f"{Path(last.filename).name}:{last.lineno} in {last.name}"


def describe(exc: BaseException, located: bool = False) -> str:
    """``Type: message``, or ``Type with no message (at file:line in function)``.

    Args:
        exc: the exception.
        located: append where it was raised even when it has a message.

    """
    text = str(exc).strip()
    at = where(exc)
    head = f"{type(exc).__name__}: {text}" if text else f"{type(exc).__name__} with no message"
    return f"{head} (at {at})" if at and (located or not text) else head
