"""A Ctrl-C the program cannot lose: the driver's SIGINT handler records it before raising.

Python turns SIGINT into ``KeyboardInterrupt`` at whatever bytecode runs at that moment, and the
exception does not always arrive as itself.  CPython 3.11 wraps one raised inside ``__set_name__`` —
a dataclass being defined by a module an import is executing — in a ``RuntimeError``; a handler of
``Exception`` around that import then takes the interrupt for an ordinary error and the command runs
to its end (the report did so, Ctrl-C'd at once, in 1 run of 32 here).  Exceptions in ``__del__``
and weak-reference callbacks are swallowed outright.  So the handler installed by the command line
also sets a flag, which the long loops read (``check``: each result an executor yields) and the
command line reads once more before it exits; a command whose interrupt went astray stops at the
next result, and ends as interrupted.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType

_seen = threading.Event()


def _handler(signum: int, frame: FrameType | None) -> None:
    """Record the Ctrl-C, then raise it where the main thread is."""
    _seen.set()
    raise KeyboardInterrupt


def install() -> None:
    """Use ``_handler`` for SIGINT when Python's default handler is in place (main thread only).

    A SIGINT that is ignored (``nohup``), at its C default, or handled by the embedding program is left
    alone.
    """
    if threading.current_thread() is threading.main_thread() \
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _handler)


def seen() -> bool:
    """Whether a Ctrl-C reached this process since it started (or since ``forget``)."""
    return _seen.is_set()


def check() -> None:
    """Raise ``KeyboardInterrupt`` if a Ctrl-C was seen: for loops between units of work."""
    if _seen.is_set():
        raise KeyboardInterrupt


def forget() -> None:
    """Clear the record (for tests that simulate a Ctrl-C in process)."""
    _seen.clear()
