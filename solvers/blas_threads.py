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
run inside a job scanned again.  Inside an enclosing hold of the same thread (a job around its runs)
the libraries are already at one thread: nothing is scanned and nothing restored until the outermost
hold ends, which restores what it found.  The depth is per thread, as threadpoolctl's own ownership
of OpenBLAS is.  A library loaded after the outermost hold began keeps its own thread count (the time
may change, never a result); scipy's OpenBLAS, which the compiled loop kernel calls
(``squares_kernel``), is loaded before the scan for that reason (~40 ms once per process).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class _Held(threading.local):
    """The holds of one thread: how deep, and whether they cover every API or BLAS only."""

    depth = 0
    every_api = False


_HELD = _Held()


@contextmanager
def serial_blas(every_api: bool = False) -> Iterator[None]:
    """Hold the loaded BLAS libraries (and OpenMP's too, with ``every_api``) to one thread.

    Args:
        every_api: limit every threadpool threadpoolctl knows (BLAS and OpenMP), as the jobs do; the
            engine limits BLAS only (its compiled kernels' own threads are not OpenMP's).

    Yields:
        Nothing; on exit the outermost hold restores the thread counts it found.

    """
    if _HELD.depth and (_HELD.every_api or not every_api):
        _HELD.depth += 1
        try:
            yield
        finally:
            _HELD.depth -= 1
        return
    import scipy.linalg.cython_blas  # noqa: F401  (loads scipy's OpenBLAS so that it is limited too)
    from threadpoolctl import threadpool_limits

    outer = (_HELD.depth, _HELD.every_api)
    with threadpool_limits(1, user_api=None if every_api else "blas"):
        _HELD.depth, _HELD.every_api = outer[0] + 1, every_api or outer[1]
        try:
            yield
        finally:
            _HELD.depth, _HELD.every_api = outer
