"""The session a command runs in: its executor, then its results store (checked before any work).

Shared by ``sweep``, ``validate``, ``report`` and ``worstcase``; kept apart from the report builder so
that a command which only solves or judges does not import the drawing code.
"""

from __future__ import annotations

import argparse

from fcocheck.reports.cli_common import UsageError, check_writable
from fcocheck.verify.sweep.executors import make_executor
from fcocheck.verify.sweep.session import Session
from fcocheck.verify.sweep.store import Store


def check_executor_args(args: argparse.Namespace) -> None:
    """``--workers``/``--dask-local`` at least 1, and not ``--scheduler`` with ``--dask-local``."""
    for flag, value in (("--workers", args.workers), ("--dask-local", args.dask_local)):
        if value is not None and value < 1:
            raise UsageError(f"{flag} {value}; the rule is at least 1")
    if args.scheduler is not None and args.dask_local is not None:
        raise UsageError("--scheduler and --dask-local together; the rule is at most one of them")


def open_store(path: str) -> Store:
    """Refuse a store path that cannot be written before any work (the Store refuses foreign files)."""
    check_writable(path, create_parents=True)
    return Store(path)


def session(args: argparse.Namespace) -> Session:
    """The executor first (its errors create nothing), then the store."""
    check_executor_args(args)
    check_writable(args.store, create_parents=True)
    ex = make_executor(args.workers, args.scheduler, args.dask_local)
    try:
        store = open_store(args.store)
    except BaseException:
        ex.close()
        raise
    return Session(store, ex, progress=False if args.no_progress or args.quiet else None)
