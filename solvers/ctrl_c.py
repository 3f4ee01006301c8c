"""A Ctrl-C the program cannot lose: the command line's SIGINT handler records it before raising.

Python turns SIGINT into ``KeyboardInterrupt`` at whatever bytecode runs at that moment, and the
exception does not always arrive as itself.  CPython 3.11 wraps one raised inside ``__set_name__`` —
a dataclass being defined by a module an import is executing — in a ``RuntimeError``; a handler of
``Exception`` around that import then takes the interrupt for an ordinary error and the command runs
to its end (the report did so, Ctrl-C'd at once, in 1 run of 32 here).  An interrupt raised in
``__del__`` or a weak-reference callback is dropped outright, on every version.  So the handler that
the command line installs (``install``, for the time of one command) also sets a flag; the broad
error handlers, the engine's rounds and the executors' loops read it (``check``), and the command line
reads it once more before it returns: a command whose interrupt went astray stops at the next of
these points and ends as interrupted, with nothing stored in its place.  The flag is a plain bool:
the handler runs in the main thread, between bytecodes.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType

#: what a command returns when Ctrl-C stopped it (its finished work kept); the command line then ends
#: the process by SIGINT, which a shell reports as status 130 (128 + SIGINT)
INTERRUPTED = 130

_seen = False


def _handler(signum: int, frame: FrameType | None) -> None:
    """Record the Ctrl-C, then raise it where the main thread is."""
    global _seen
    _seen = True
    raise KeyboardInterrupt


def install() -> None:
    """Take SIGINT over from Python's default handler, with no Ctrl-C recorded yet.

    Only in the main thread, and only over ``signal.default_int_handler``: a SIGINT that is ignored
    (``nohup``), at its C default, or handled by the program embedding this one is left alone, and so
    is the record (a command running in another thread does not clear the main thread's).
    """
    if _main_thread() and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        forget()
        signal.signal(signal.SIGINT, _handler)


def restore() -> None:
    """Put Python's default handler back where ``install`` took over, and forget the record."""
    if _main_thread() and signal.getsignal(signal.SIGINT) is _handler:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        forget()


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def seen() -> bool:
    """Whether a Ctrl-C reached this process since ``install`` (or ``forget``)."""
    return _seen


def check() -> None:
    """Raise ``KeyboardInterrupt`` if a Ctrl-C was seen.

    For loops between units of work, and first thing in a handler of ``Exception`` (the error may be
    the interrupt in another form).
    """
    if _seen:
        raise KeyboardInterrupt


def forget() -> None:
    """Clear the record."""
    global _seen
    _seen = False
