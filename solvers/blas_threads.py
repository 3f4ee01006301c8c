"""BLAS held to one thread while fcocheck's own work runs (``serial_blas``), re-entrant.

Why one thread: the engine parallelises over clients on its own pool (``kernels.over_blocks``); a
multi-threaded BLAS call in between (the dual shadow ``weights @ Z`` over 10⁴ clients) leaves
OpenBLAS's workers spinning for their time-out on the same cores the pool then needs.  Measured on
10⁴ tiny clients (``benchmarks/suite.py``): the compiled K-step pass took 73–97 ms a round inside a
run and 55 ms alone; with BLAS held to one thread, 55–62 ms.  Report, validate, sweep and
conformance jobs hold it for the same reason, and so that a cell's bits do not depend on the
executor.  Results of a run do not depend on it (tested).

Why re-entrant: threadpoolctl finds the libraries by scanning every shared object the process has
loaded (``dl_iterate_phdr``), ~0.5 ms with cvxpy and scipy loaded — 5% of a quick report's CPU when a
run inside a job scanned again (the report's conformance slices and experiments, measured).  Inside
an open hold of the same thread (a job around its runs) the libraries are already at one thread:
nothing is scanned and nothing restored; the hold that scanned restores what it found.  Holds are per
thread, as threadpoolctl's own ownership of OpenBLAS is.  A library loaded after the scanning hold
began keeps its own thread count (cvxpy's SCS brings its own OpenBLAS; the engine never calls it): the
time may change, never a result.  scipy's OpenBLAS, which the compiled loop kernel calls
(``squares_kernel``), is loaded before the scan for that reason (~40 ms once per process).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass
class _Hold:
    """One hold that scanned: whether it covers every API, and whether it is still open."""

    every_api: bool
    open: bool = True


class _Held(threading.local):
    """The hold that covers this thread now (None: none)."""

    hold: _Hold | None = None


_HELD = _Held()


@contextmanager
def serial_blas(every_api: bool = False) -> Iterator[None]:
    """Hold the loaded BLAS libraries (and OpenMP's too, with ``every_api``) to one thread.

    A hold inside an open hold of this thread that covers it (the same APIs or more) scans nothing and
    restores nothing.  A hold that scanned restores, on exit, the thread counts it found, and marks itself
    closed: holds that close out of order (a generator holding across a ``yield``, closed later or in
    another thread) leave no hold that claims to cover the thread when it does not — the next hold scans.

    Args:
        every_api: limit every threadpool threadpoolctl knows (BLAS and OpenMP), as the jobs do; the
            engine limits BLAS only (its compiled kernels' own threads are not OpenMP's).

    Yields:
        Nothing.

    """
    outer = _HELD.hold
    if outer is not None and outer.open and (outer.every_api or not every_api):
        yield
        return
    import scipy.linalg.cython_blas  # noqa: F401  (loads scipy's OpenBLAS so that it is limited too)
    from threadpoolctl import threadpool_limits

    mine = _Hold(every_api)
    with threadpool_limits(1, user_api=None if every_api else "blas"):
        _HELD.hold = mine
        try:
            yield
        finally:
            mine.open = False
            if _HELD.hold is mine:
                _HELD.hold = outer
