"""The ``fcocheck`` command line.

Bad input prints one line naming the value and the rule, writes nothing, and exits 2; a result
that is not a success (a diverged run, a failed certification, a broken invariant, errored runs)
exits 1; an interrupt exits 130 with the finished work kept.  The parser (``reports.parsers``)
imports nothing heavy; a sub-command's module is imported only once its arguments parsed.
"""

from __future__ import annotations

import importlib
import os
import sys


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
    """Entry point of the ``fcocheck`` console script: Ctrl-C at any moment (imports too) exits 130."""
    try:
        return _run(argv)
    except KeyboardInterrupt:  # Ctrl-C anywhere: finished work is in the store or the output files
        print("fcocheck: interrupted (Ctrl-C); what finished is kept", file=sys.stderr)
        return 130


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
        print(f"fcocheck: interrupted: {exc}", file=sys.stderr)
        return 130
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
