"""Where the runs of a sweep execute: serially, on a local process pool, or on Dask distributed.

Every executor maps a picklable function over items and yields ``(item, result)`` as results
finish, in whatever order; the driver alone writes to the store.  Because each run's bits depend
only on its configuration (``verify.sweep.task``), the stored results are identical whichever
executor produced them.

* ``serial``: in this process, in order (the baseline of ``benchmarks/sweep.py``).
* ``pool``: ``concurrent.futures.ProcessPoolExecutor`` with a forkserver that has the solvers
  imported already, one worker per core by default.
* ``dask``: ``--scheduler ADDRESS`` connects to a running cluster; ``--dask-local N`` starts a
  ``LocalCluster`` of N single-threaded worker processes for the sweep and stops it afterwards.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Any

from verify.sweep.config import InvalidSweepError

PRELOAD = ["verify.sweep.task", "solvers.engine.run", "solvers.generators", "solvers.reference"]


def cores() -> int:
    """Cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


class Serial:
    """Run items one after another in this process."""

    name = "serial"
    workers = 1

    def imap(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[tuple[Any, Any]]:
        """Yield ``(item, fn(item))`` in order."""
        for item in items:
            yield item, fn(item)

    def close(self) -> None:
        """Nothing to release."""


class Pool:
    """A local process pool (forkserver, solvers preloaded)."""

    name = "pool"

    def __init__(self, workers: int | None = None) -> None:
        self.workers = cores() if workers is None else workers
        if self.workers < 1:
            raise InvalidSweepError(f"--workers {self.workers}; the rule is at least 1")
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(PRELOAD)
        self._ex = ProcessPoolExecutor(max_workers=self.workers, mp_context=ctx)

    def imap(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[tuple[Any, Any]]:
        """Yield ``(item, fn(item))`` as they finish; at most 2 × workers in flight."""
        todo, pending = iter(items), {}
        try:
            while True:
                while len(pending) < 2 * self.workers:
                    item = next(todo, _END)
                    if item is _END:
                        break
                    pending[self._ex.submit(fn, item)] = item
                if not pending:
                    return
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    yield pending.pop(fut), fut.result()
        finally:
            for fut in pending:
                fut.cancel()

    def close(self) -> None:
        """Stop the workers (pending work is cancelled)."""
        self._ex.shutdown(wait=True, cancel_futures=True)


class Dask:
    """Dask distributed: an existing scheduler, or a LocalCluster started for the sweep."""

    name = "dask"

    def __init__(self, scheduler: str | None = None, local: int | None = None) -> None:
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise InvalidSweepError(
                "the Dask executor needs dask.distributed; the rule is `pip install 'fcocheck[dask]'`"
            ) from None
        if (scheduler is None) == (local is None):
            raise InvalidSweepError(
                "Dask executor: give exactly one of --scheduler ADDRESS or --dask-local N"
            )
        self.cluster = None
        if local is not None:
            if local < 1:
                raise InvalidSweepError(f"--dask-local {local}; the rule is at least 1 worker")
            self.cluster = LocalCluster(
                n_workers=local, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
            )
            self.client = Client(self.cluster)
        else:
            try:
                self.client = Client(scheduler, timeout=30)
            except OSError as exc:
                raise InvalidSweepError(
                    f"--scheduler {scheduler!r}: cannot connect ({exc}); the rule is the "
                    "address of a running dask scheduler, e.g. tcp://host:8786"
                ) from None
        self.workers = max(1, sum(self.client.nthreads().values()))

    def imap(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[tuple[Any, Any]]:
        """Yield ``(item, fn(item))`` as they finish on the cluster."""
        from dask.distributed import as_completed

        items = list(items)
        futures = {self.client.submit(fn, item, pure=False): item for item in items}
        try:
            for fut in as_completed(futures):
                yield futures[fut], fut.result()
        finally:
            self.client.cancel(list(futures))

    def close(self) -> None:
        """Disconnect, and stop the LocalCluster if we started it."""
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def make_executor(
    workers: int | None = None, scheduler: str | None = None, dask_local: int | None = None
) -> Serial | Pool | Dask:
    """``--scheduler``/``--dask-local`` → Dask; ``--workers 1`` → serial; else the local pool."""
    if scheduler is not None or dask_local is not None:
        return Dask(scheduler, dask_local)
    if workers == 1:
        return Serial()
    return Pool(workers)


class _End:
    pass


_END = _End()
