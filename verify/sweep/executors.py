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
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any

from fcocheck.solvers import ctrl_c
from fcocheck.solvers.error_text import describe
from fcocheck.verify.sweep.config import InvalidSweepError

PRELOAD = ["fcocheck.verify.sweep.task", "fcocheck.solvers.engine.run", "fcocheck.solvers.generators",
           "fcocheck.solvers.reference"]
CONNECT_TIMEOUT = 10.0  # seconds to reach a --scheduler before refusing it
OnCrash = Callable[[Any, str], Any]


def _raise_crash(item: Any, message: str) -> Any:
    raise InvalidSweepError(message)


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, killed but not yet reaped by its parent, does not)."""
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:  # no /proc: trust the signal test
        return True


def _watch_driver(driver: int) -> None:
    """Worker initializer: exit when the driver process is gone (e.g. after ``kill -9``).

    Pool workers are children of the forkserver, not of the driver, and inherit its stdout and
    stderr; without this they would outlive a killed sweep and hold the caller's pipes open.
    """
    parent = os.getppid()

    def watch() -> None:
        while _alive(driver) and os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="fcocheck-driver-watch").start()


def _init_worker(driver: int, plugins: str) -> None:
    """Worker initializer: watch the driver, and register the users' cards the driver loaded.

    The forkserver that forks the workers may have been started before ``--plugin`` set the
    environment, so the plugins are handed over explicitly.
    """
    _watch_driver(driver)
    if plugins:
        from fcocheck.solvers.card.plugins import ENV, load

        os.environ[ENV] = plugins
        load(plugins.split(os.pathsep), export=False)


def cores() -> int:
    """Cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


@contextmanager
def _sigint_blocked() -> Iterator[None]:
    """SIGINT blocked in this thread while a helper process starts: the helper inherits the mask.

    The driver loses no Ctrl-C: one arriving in the window stays pending until the mask is restored,
    or reaches another of the driver's threads, whose handler still raises ``KeyboardInterrupt`` in the
    main thread.  (Ignoring SIGINT instead, the other way to hand it down, would drop it.)
    """
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


@contextmanager
def sigint_deferred() -> Iterator[None]:
    """A Ctrl-C arriving inside the block acts at its end, never in its middle.

    Starting a pool worker is a conversation with the forkserver (connect, send descriptors, send the
    pickled start-up data); a driver that dies half-way leaves a child that prints a traceback on the
    caller's terminal.  Off the main thread (where no handler can be set) this does nothing.
    """
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) is None:
        yield  # off the main thread, or a handler installed outside Python (it could not be put back)
        return
    caught: list[Any] = []
    old = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(frame))
    try:
        yield
    finally:  # replayed even when the block raised: an error must not swallow the Ctrl-C
        signal.signal(signal.SIGINT, old)
        if caught and callable(old):
            old(signal.SIGINT, caught[0])
        elif caught and old == signal.SIG_DFL:
            signal.raise_signal(signal.SIGINT)


def start_helpers() -> None:
    """Start the resource tracker and the forkserver so that Ctrl-C reaches only the driver.

    Ctrl-C in a terminal signals the whole process group.  A forkserver still importing its preload
    would die with a traceback, and pool workers would die mid-task and be re-run as crashes; started
    with SIGINT blocked, the forkserver (and so every worker it forks) never receives it (the resource
    tracker blocks and ignores it itself), only the driver does, and the driver stops the workers
    (``Pool.abort``) and ends as interrupted.
    """
    from multiprocessing import forkserver, resource_tracker

    resource_tracker.ensure_running()
    with _sigint_blocked():
        # forkserver.ensure_running calls resource_tracker.ensure_running first, which unblocks SIGINT
        # after spawning a tracker: the call above leaves a running tracker, so none is spawned here
        forkserver.ensure_running()


def max_workers() -> int:
    """The most worker processes a command may start: 8 per core (more only thrash, or exhaust memory)."""
    return 8 * cores()


class Serial:
    """Run items one after another in this process."""

    name = "serial"
    workers = 1

    def imap(self, fn: Callable[[Any], Any], items: Iterable[Any],
             on_crash: OnCrash = _raise_crash) -> Iterator[tuple[Any, Any]]:
        """Yield ``(item, fn(item))`` in order (no worker to lose); a Ctrl-C seen stops it (``ctrl_c``)."""
        for item in items:
            ctrl_c.check()
            yield item, fn(item)

    def close(self) -> None:
        """Nothing to release."""


class Pool:
    """A local process pool (forkserver, solvers preloaded)."""

    name = "pool"

    def __init__(self, workers: int | None = None) -> None:
        self.workers = cores() if workers is None else workers
        if not 1 <= self.workers <= max_workers():
            raise InvalidSweepError(f"--workers {self.workers}; the rule is 1 … {max_workers()} "
                                    f"(8 per core of the {cores()} here)")
        self._ex = self._start()

    def _start(self) -> ProcessPoolExecutor:
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(PRELOAD)
        start_helpers()
        from fcocheck.solvers.card.plugins import ENV

        return ProcessPoolExecutor(max_workers=self.workers, mp_context=ctx, initializer=_init_worker,
                                   initargs=(os.getpid(), os.environ.get(ENV, "")))

    def imap(self, fn: Callable[[Any], Any], items: Iterable[Any],
             on_crash: OnCrash = _raise_crash) -> Iterator[tuple[Any, Any]]:
        """Yield ``(item, fn(item))`` as they finish; at most 2 × workers in flight.

        When a worker dies (killed, out of memory), the pool is restarted and every item that was
        in flight becomes a suspect; suspects are then run one at a time with nothing else in
        flight, so a death is blamed on the right item: that one is yielded as
        ``on_crash(item, message)`` (by default: an error), the others normally.  One bad run never
        aborts a sweep, never loops forever, and never takes innocent runs down with it.
        """
        todo, pending, suspects = iter(items), {}, []
        try:
            while True:
                ctrl_c.check()  # a Ctrl-C that reached the driver as another exception stops here
                if suspects and not pending:
                    item = suspects.pop(0)
                    try:
                        fut = self._submit(fn, item)
                    except (BrokenProcessPool, OSError):  # broken before the item ran: not its fault
                        self._restart()
                        suspects.insert(0, item)
                        continue
                    try:
                        result = fut.result()
                    except BrokenProcessPool:
                        self._restart()
                        result = on_crash(item, "its pool worker died while it ran alone (killed, or out "
                                                "of memory)")
                    yield item, result
                    continue
                while not suspects and len(pending) < 2 * self.workers:
                    item = next(todo, _END)
                    if item is _END:
                        break
                    try:
                        pending[self._submit(fn, item)] = item
                    except (BrokenProcessPool, OSError):
                        # a worker died and the pool broke before it said so (CPython can raise
                        # OSError "handle is closed" here): in flight and this item become suspects
                        suspects += [*pending.values(), item]
                        pending.clear()
                        self._restart()
                if not pending:
                    if suspects:
                        continue
                    return
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    item = pending.pop(fut)
                    try:
                        result = fut.result()
                    except BrokenProcessPool:
                        suspects.append(item)
                        continue
                    yield item, result
                if suspects:  # the pool is broken: everything still in flight is a suspect too
                    suspects += list(pending.values())
                    pending.clear()
                    self._restart()
        except (KeyboardInterrupt, GeneratorExit):  # Ctrl-C here or in the caller's loop (which then
            self.abort()  # closes this generator): the workers never see SIGINT, stop them now
            raise
        finally:
            for fut in pending:
                fut.cancel()

    def _submit(self, fn: Callable[[Any], Any], item: Any) -> Future:
        """Hand ``item`` to the pool; a worker it starts is never cut in half by Ctrl-C."""
        with sigint_deferred():
            return self._ex.submit(fn, item)

    def _restart(self) -> None:
        self._ex.shutdown(wait=False, cancel_futures=True)
        self._ex = self._start()

    def abort(self) -> None:
        """Stop now: terminate the workers (Ctrl-C; they never see SIGINT, the driver decides)."""
        procs = list(getattr(self._ex, "_processes", {}).values())  # no public handle on the workers
        self._ex.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            p.terminate()
        for p in procs:
            p.join(timeout=5)
        self._aborted = True

    def close(self) -> None:
        """Stop the workers (pending work is cancelled)."""
        if not getattr(self, "_aborted", False):
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
            if not 1 <= local <= max_workers():
                raise InvalidSweepError(f"--dask-local {local}; the rule is 1 … {max_workers()} workers "
                                        f"(8 per core of the {cores()} here)")
            self.cluster = LocalCluster(  # its dashboard on any free port: None still tries :8787 and
                # warns when another cluster (a user's, or a test beside this one) holds it
                n_workers=local, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=40
            )
            self.client = Client(self.cluster)
        else:
            try:
                self.client = Client(scheduler, timeout=CONNECT_TIMEOUT)
            except (OSError, ValueError, TypeError) as exc:  # unreachable, or not an address at all
                raise InvalidSweepError(
                    f"--scheduler {scheduler!r}: cannot connect ({exc}); the rule is the "
                    "address of a running dask scheduler, e.g. tcp://host:8786"
                ) from None
        self.workers = max(1, sum(self.client.nthreads().values()))

    def imap(self, fn: Callable[[Any], Any], items: Iterable[Any],
             on_crash: OnCrash = _raise_crash) -> Iterator[tuple[Any, Any]]:
        """Yield ``(item, fn(item))`` as they finish on the cluster (Dask retries lost workers)."""
        from dask.distributed import as_completed

        items = list(items)
        futures = {self.client.submit(fn, item, pure=False): item for item in items}
        try:
            for fut in as_completed(futures):
                ctrl_c.check()
                try:
                    result = fut.result()
                except Exception as exc:  # fn never raises: KilledWorker and friends, the item failed
                    ctrl_c.check()  # unless it is a Ctrl-C in another form
                    result = on_crash(futures[fut], f"dask: {describe(exc)}")
                yield futures[fut], result
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
