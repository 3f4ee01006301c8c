"""cvxpy's independent solve in a forked child process, overlapping the first-order method's work.

A cold ``reference_solve`` pays cvxpy twice over: its import (≈ 0.7 s, ``cvx_import``) and its
solve.  Both are independent of the first-order method until the cross-check, so on a machine with two
usable cores they run in a child forked before the Gram matrix is built: the child imports cvxpy while
the parent builds H; the parent copies H into memory shared with the child (an anonymous mapping made
before the fork: no 8 MB pipe write that would wait for the child's import) and sends g and c₀; the
child solves and sends back its ``CvxResult``, while the parent runs FISTA and whatever the caller asks
at the certified point (the problem constants).  The child computes exactly what the parent would
(same function, same data, same solver), so the result does not depend on where it ran; it is only a
matter of wall time.

The child is used only where forking is safe and pays: Linux (``fork``), at least two usable cores,
no other thread alive in the parent (a fork copies one thread; locks held by others would stay locked
in the child), cvxpy not yet imported here, an instance of at least ``MIN_SIZE`` data entries (below
it the solve is cheap and a sweep's thousands of small solves would each pay the child's import), and
once per process: a later solve imports cvxpy here, once, instead of once per child; not in a daemonic
process (a pool worker may not have children).  Otherwise — and whenever the child cannot be started or
fails to deliver — the solve runs in the parent, as before.  An interrupt in the parent terminates the
child; a parent killed outright takes the child with it (``PR_SET_PDEATHSIG``, and the child holds no
copy of the parent's end of the pipe, so it reads end-of-file).
"""

from __future__ import annotations

import ctypes
import mmap
import multiprocessing
import os
import signal
import sys
import threading
from typing import Any

import numpy as np

from fcocheck.solvers.error_text import describe
from fcocheck.solvers.problem import Problem
from fcocheck.solvers.reference.cvx_result import CvxResult
from fcocheck.solvers.reference.gram import QUADRATIC_LOSSES as _GRAM_LOSSES

#: rows × model size from which cvxpy's import and solve are worth a child (lasso-paper: 8.4e6)
MIN_SIZE = 1_000_000
_USED: list[bool] = []  # a child has run in this process: later solves stay here (module docstring)


def worth_a_child(problem: Problem | None = None) -> bool:
    """Fork available and safe, a second core, cvxpy not loaded, a large instance, the first time."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    large = problem is None or int(problem.n.sum()) * problem.dim >= MIN_SIZE
    return (sys.platform.startswith("linux") and cores >= 2 and threading.active_count() == 1
            and not multiprocessing.current_process().daemon and "cvxpy" not in sys.modules and not _USED
            and large)


def _die_with(parent: int) -> None:
    """Ask the kernel to kill this child when its parent dies (Linux), and leave if it already has."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        os._exit(0)


def _child(conn: Any, theirs: Any, shared: Any, parent: int, problem: Problem, solver: str) -> None:
    """Import cvxpy, wait for the Gram form, solve, send the result (or the reason it failed)."""
    theirs.close()  # the parent's end: with it closed here, the parent's death is an end-of-file
    _die_with(parent)
    try:
        from fcocheck.solvers.reference.cvx import cvx_solve
        from fcocheck.solvers.reference.gram import GramForm

        message = conn.recv()
        gram = None
        if message[0] == "gram":
            D = problem.dim
            H = np.frombuffer(shared, dtype=float, count=D * D).reshape(D, D).copy()
            gram = GramForm(H=H, g=message[1], c0=message[2])
        conn.send(("ok", cvx_solve(problem, gram, solver)))
    except BaseException as exc:  # noqa: BLE001 - the parent falls back to solving itself
        try:
            conn.send(("failed", describe(exc)))
        except OSError:
            pass
    finally:
        conn.close()


class Pending:
    """cvxpy's solve of ``problem``, started in a child when ``worth_a_child``, else deferred."""

    def __init__(self, problem: Problem, solver: str, child: bool | None = None) -> None:
        self.problem, self.solver, self.gram = problem, solver, None
        self.proc: Any = None
        self.shared: Any = None
        self.note = ""
        if worth_a_child(problem) if child is None else child:
            _USED.append(True)
            try:
                self._start()
            except (OSError, AssertionError, ValueError) as exc:  # e.g. no fork, or a daemonic process
                self.note, self.proc = f"the child could not be started ({exc!r})", None

    def _start(self) -> None:
        ctx = multiprocessing.get_context("fork")
        # H's bytes, shared with the child (quadratic losses only: the others have no Gram form)
        self.shared = mmap.mmap(-1, 8 * self.problem.dim ** 2) if self.problem.loss in _GRAM_LOSSES else None
        self.conn, theirs = ctx.Pipe()
        self.proc = ctx.Process(target=_child, daemon=True,
                                args=(theirs, self.conn, self.shared, os.getpid(), self.problem, self.solver))
        self.proc.start()
        theirs.close()

    def send_gram(self, gram: Any) -> None:
        """Hand the Gram form (or None) to the solve."""
        self.gram = gram
        if self.proc is not None:
            try:
                if gram is not None and self.shared is not None:
                    D = self.problem.dim
                    np.frombuffer(self.shared, dtype=float, count=D * D).reshape(D, D)[:] = gram.H
                    self.conn.send(("gram", gram.g, gram.c0))  # D + 1 floats: never waits on the child
                else:
                    self.conn.send(("none",))
            except OSError as exc:  # the child has gone: keep the reason it sent, if it sent one
                self.note = f"the child could not be reached ({exc})"
                try:
                    if self.conn.poll():
                        kind, value = self.conn.recv()
                        self.note = value if kind == "failed" else self.note
                except (EOFError, OSError):
                    pass
                self.close()

    def result(self) -> CvxResult:
        """Cvxpy's answer: the child's, or a solve here when there is no child or it failed."""
        if self.proc is not None:
            try:
                kind, value = self.conn.recv()
            except (EOFError, OSError) as exc:
                kind, value = "failed", f"the child ended without an answer ({exc!r})"
            self.close()
            if kind == "ok":
                return value
            self.note = value
        from fcocheck.solvers.reference.cvx import cvx_solve  # cvxpy takes ~1 s to import: only here

        return cvx_solve(self.problem, self.gram, self.solver)

    def close(self) -> None:
        """Stop and reap the child (idempotent; called on every exit path)."""
        if self.proc is None:
            return
        self.conn.close()
        if self.proc.is_alive():
            self.proc.terminate()
        self.proc.join()
        self.proc = None
        if self.shared is not None:
            self.shared.close()
