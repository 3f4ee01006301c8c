"""The ``fcocheck`` command line.

Bad input prints one line naming the value and the rule, writes nothing, and exits 2; a result
that is not a success (a diverged run, a failed certification, a broken invariant, errored runs)
exits 1; Ctrl-C keeps the finished work, prints one line and ends the process by SIGINT (the shell's
status 130; see ``_end_by_sigint``).  The parser (``reports.parsers``)
imports nothing heavy; a sub-command's module is imported only once its arguments parsed.
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
from typing import NoReturn

from fcocheck.solvers import ctrl_c  # signal and threading only


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("fcocheck")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "unknown"


def _dispatch(args) -> int:  # noqa: ANN001 - argparse.Namespace
    module, _, func = args.command_target.partition(":")
    return getattr(importlib.import_module(module), func)(args)


def main(argv: list[str] | None = None) -> int:
    """The ``fcocheck`` console script: Ctrl-C at any moment (the command's imports too) ends by SIGINT.

    Returns the exit status of a command that was not interrupted.  A command that Ctrl-C stopped has
    kept its finished work and printed one line; ``main`` then raises ``KeyboardInterrupt`` (see
    ``_end_by_sigint``), or returns ``INTERRUPTED`` when called off the main thread.  For the time of
    the command the SIGINT handler records the Ctrl-C (``solvers.ctrl_c``): a command that received it
    as another exception, or not at all, still ends as interrupted; the handler before is put back.
    """
    try:
        ctrl_c.install()
        code = _run(argv)
        if code != ctrl_c.INTERRUPTED and ctrl_c.seen():  # it reached the command as an error, or not at all
            code = _interrupted()
    except KeyboardInterrupt:
        code = _interrupted()
    except Exception:
        if not ctrl_c.seen():  # a real error: its traceback and status 1, as ever
            raise
        code = _interrupted()  # e.g. a RuntimeError wrapping it, raised out of an import
    finally:
        ctrl_c.restore()
    return _finish(code)


def _finish(code: int) -> int:
    """``code``; for an interrupted command in the main thread, the end by SIGINT instead."""
    if code == ctrl_c.INTERRUPTED and threading.current_thread() is threading.main_thread():
        _end_by_sigint()
    return code


def _interrupted() -> int:
    """Print the interrupt line (for a command that did not print its own); ``INTERRUPTED``."""
    print("fcocheck: interrupted (Ctrl-C); what finished is kept", file=sys.stderr)
    return ctrl_c.INTERRUPTED


def _end_by_sigint() -> NoReturn:
    """End as a program that Ctrl-C stopped: by SIGINT, after the interpreter's normal shutdown.

    A shell tells a command that died of SIGINT from one that exited, whatever its status: only the
    first stops the loop or script that ran it (an exit, even 130, reads as "the command dealt with
    Ctrl-C itself", and the script goes on).  CPython ends the process by SIGINT, once its shutdown
    is done, when a ``KeyboardInterrupt`` leaves the main module.  It also does so when one was raised
    inside a string run by ``exec`` or ``eval`` — a dataclass or named tuple being defined by an
    import at that moment — even if the program caught it: an "exit 130" could not be promised
    (CI saw ``report`` end by SIGINT after printing its interrupt line).  Leaving by the exception
    every time makes the end the same whatever Ctrl-C cut; the traceback of this one exception is not
    printed (the command's line said what happened; any other exception prints as before).  A Ctrl-C
    in the last few instructions of ``main`` gets Python's own ending: a traceback, still by SIGINT.
    """
    raised = KeyboardInterrupt()
    hook = getattr(sys.excepthook, "fcocheck_hook", sys.excepthook)  # not a wrapper around our own

    def quiet(kind: type[BaseException], value: BaseException, tb: object) -> None:
        if value is not raised:
            hook(kind, value, tb)

    quiet.fcocheck_hook = hook  # type: ignore[attr-defined]
    sys.excepthook = quiet
    raise raised


def _run(argv: list[str] | None) -> int:
    from fcocheck.reports.parsers import build_parser
    from fcocheck.solvers.errors import CertificationError, FcocheckError, InterruptedRunError
    from fcocheck.solvers.files import WriteFailedError

    args = build_parser(_version()).parse_args(argv)
    try:
        if args.plugin:
            from fcocheck.solvers.card import plugins

            plugins.load(args.plugin)
            if plugins.CLAIMS:  # every claim admitted before any command runs (``verify.claim_admit``)
                import fcocheck.verify.experiments  # noqa: F401 - registers them, refusing an invalid one
        return _dispatch(args)
    except InterruptedRunError as exc:
        print(f"fcocheck: interrupted: {exc}", file=sys.stderr)
        return ctrl_c.INTERRUPTED
    except FcocheckError as exc:
        print(f"fcocheck: error: {exc}", file=sys.stderr)
        return 2
    except CertificationError as exc:
        print(f"fcocheck: certification failed: {exc}", file=sys.stderr)
        return 1
    except WriteFailedError as exc:  # a full disk, a read-only directory: nothing partial was left
        print(f"fcocheck: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # the reader went away (``| head``): no traceback, and no second error at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
