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
from typing import NoReturn


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
    """Entry point of the ``fcocheck`` console script: Ctrl-C at any moment (imports too) ends by SIGINT.

    Returns the exit status of a command that was not interrupted; a command that Ctrl-C stopped has
    kept its finished work and printed one line, and ``_end_by_sigint`` raises ``KeyboardInterrupt``.
    The SIGINT handler records the Ctrl-C (``solvers.ctrl_c``): a command that received it as some
    other exception, or not at all, still ends as interrupted.
    """
    try:
        from fcocheck.solvers import ctrl_c

        ctrl_c.install()
        code = _run(argv)
    except KeyboardInterrupt:  # Ctrl-C anywhere: finished work is in the store or the output files
        print(INTERRUPTED_LINE, file=sys.stderr)
        _end_by_sigint()
    from fcocheck.reports.cli_common import INTERRUPTED

    if code != INTERRUPTED and ctrl_c.seen():  # an interrupt that reached the command as another error
        print(INTERRUPTED_LINE, file=sys.stderr)
        code = INTERRUPTED
    if code == INTERRUPTED:
        _end_by_sigint()
    return code


INTERRUPTED_LINE = "fcocheck: interrupted (Ctrl-C); what finished is kept"


def _end_by_sigint() -> NoReturn:
    """End as a program that Ctrl-C stopped: by SIGINT, after the interpreter's normal shutdown.

    A shell tells a command that died of SIGINT from one that exited, whatever its status: only the
    first stops the loop or script that ran it (an exit, even 130, reads as "the command dealt with
    Ctrl-C itself", and the script goes on).  CPython ends the process by SIGINT, once its shutdown
    is done, when a ``KeyboardInterrupt`` leaves the main module.  It also does so when one was raised
    inside a string run by ``exec`` or ``eval`` — a dataclass or named tuple being defined by an
    import at that moment — even if the program caught it: an "exit 130" could not be promised
    (CI saw ``report`` end by SIGINT after printing its interrupt line).  Leaving by the exception
    every time makes the end the same whatever Ctrl-C cut; its traceback is not printed (the
    command's one line said what happened).
    """
    hook = sys.excepthook

    def quiet(kind: type[BaseException], value: BaseException, tb: object) -> None:
        if not issubclass(kind, KeyboardInterrupt):
            hook(kind, value, tb)

    sys.excepthook = quiet
    raise KeyboardInterrupt


def _run(argv: list[str] | None) -> int:
    from fcocheck.reports.parsers import build_parser
    from fcocheck.solvers.errors import CertificationError, FcocheckError, InterruptedRunError
    from fcocheck.solvers.files import WriteFailedError

    args = build_parser(_version()).parse_args(argv)
    try:
        if args.plugin:
            from fcocheck.solvers.card import plugins

            plugins.load(args.plugin)
        return _dispatch(args)
    except InterruptedRunError as exc:
        from fcocheck.reports.cli_common import INTERRUPTED

        print(f"fcocheck: interrupted: {exc}", file=sys.stderr)
        return INTERRUPTED
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
