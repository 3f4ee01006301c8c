"""Running a sweep: skip what the store has, execute the rest, store each run as it finishes.

Resumption is by key: ``run_sweep`` asks the store which configuration keys it already holds for
this code version and executes only the others.  Each finished run is committed at once, with
its metrics, by this (the only writing) process; so Ctrl-C or ``kill -9`` loses at most the runs
in flight, and running the same sweep again completes it without duplicates.  The runs of a batch
(``batching.batches``) advance round by round together, so they are in flight together; a run that
the batch cannot take after all is handed back and executed as its own item right after it, never one
after another inside the batch's item (where a Ctrl-C would take the finished ones down).
"""

from __future__ import annotations

import time
from collections import Counter, deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from fcocheck.solvers.progress import Progress
from fcocheck.verify.sweep.batching import batches
from fcocheck.verify.sweep.config import RunConfig
from fcocheck.verify.sweep.executors import Serial
from fcocheck.verify.sweep.store import Store
from fcocheck.verify.sweep.task import ERROR, RunRecord, crashed, execute, execute_batch, solve_reference
from fcocheck.verify.sweep.version import code_version as current_version


@dataclass
class SweepSummary:
    """What a sweep did: runs requested, reused from the store, executed (by status), wall time.

    ``raced`` counts runs this process executed but found already recorded when it came to store
    them — another process sharing the store finished them first; its row is kept, this one dropped.
    """

    requested: int
    reused: int
    executed: Counter = field(default_factory=Counter)
    raced: int = 0
    seconds: float = 0.0
    interrupted: bool = False
    executor: str = "serial"
    workers: int = 1
    errors: list[str] = field(default_factory=list)

    @property
    def runs_per_second(self) -> float:
        """Executed runs per wall second."""
        return sum(self.executed.values()) / self.seconds if self.seconds else 0.0

    def line(self) -> str:
        """One-line summary."""
        ex = ", ".join(f"{k} {v}" for k, v in sorted(self.executed.items())) or "none"
        raced = (f"; {self.raced} also executed but recorded first by another process sharing the "
                 "store (its rows kept)") if self.raced else ""
        return (
            f"{self.requested} runs: {self.reused} reused from the store, executed {ex}{raced} on "
            f"{self.executor} ({self.workers} worker(s)) in {self.seconds:.1f}s"
            + ("  [interrupted: run the same command again to resume]" if self.interrupted else "")
        )


def unique(configs: Iterable[RunConfig]) -> list[RunConfig]:
    """Configurations deduplicated by key, first occurrence kept."""
    seen: dict[str, RunConfig] = {}
    for c in configs:
        seen.setdefault(c.key, c)
    return list(seen.values())


def _with_references(executor: Any, todo: list[RunConfig]) -> Any:
    """``execute``, given each distinct instance's reference solved once on the executor.

    With several workers every worker would otherwise solve every instance it meets; the serial
    executor solves each once anyway (its cache), so it gets ``execute`` itself.
    """
    specs = list(dict.fromkeys(c.instance_spec for c in todo))
    if executor.workers <= 1 or not specs:
        return execute
    refs = dict(executor.imap(solve_reference, specs, on_crash=lambda spec, message: None))
    return partial(execute, references=refs)


def execute_group(group: list[RunConfig], references: dict[str, Any] | None = None) -> list[RunRecord | None]:
    """The records of one batch (``batching.batches``): ``execute`` for one run, else ``execute_batch``.

    None for a configuration the batch hands back (``execute_batch``): ``run_sweep`` executes it alone.
    """
    if len(group) == 1:
        return [execute(group[0]) if references is None else execute(group[0], references=references)]
    return execute_batch(group, references)


def crashed_group(group: list[RunConfig], message: str) -> list[RunRecord]:
    """The records of a batch whose worker died under it: each run's ``crashed`` record."""
    return [crashed(c, message) for c in group]


def _drain(queue: deque) -> Iterator[list[RunConfig]]:
    """The queue's items, read as the executor asks for them: an item put back meanwhile comes next.

    The serial executor and the pool ask for an item when they have room for it, so a batch's handed-back
    runs (``execute_group``'s None) run right after it, in the process whose caches hold their instances
    and references (the serial executor's only process).  A queue found empty ends this pass.
    """
    while queue:
        yield queue.popleft()


def _store(store: Store, version: str, config: RunConfig, record: RunRecord, summary: SweepSummary) -> None:
    """Commit one finished run and count it (raced: another process sharing the store recorded it first)."""
    if store.put(record, version):
        summary.executed[record.status] += 1
    else:
        summary.raced += 1
    if record.status == ERROR:
        summary.errors.append(f"{config.algorithm} seed {config.seed} [{config.key[:10]}]: {record.error}")


def run_sweep(
    configs: Iterable[RunConfig],
    store: Store,
    executor=None,
    progress: bool | None = None,
    code_version: str | None = None,
    label: str = "sweep",
) -> SweepSummary:
    """Execute the configurations missing from ``store`` and record every result.

    Args:
        configs: the sweep (duplicates are dropped).
        store: the results store (other processes may write to it at the same time: a run one of
            them records first is counted in ``raced``, not as executed here).
        executor: ``Serial`` (default), ``Pool`` or ``Dask`` from ``verify.sweep.executors``.
        progress: draw the bar (default: only on a terminal outside CI).
        code_version: the version runs are recorded under (default: this code's).
        label: the progress bar's label.

    Returns:
        The summary; ``interrupted`` is set when Ctrl-C stopped it (completed runs are stored).

    """
    executor = executor or Serial()
    cv = code_version or current_version()
    configs = unique(configs)
    have = store.done(cv)
    todo = [c for c in configs if c.key not in have]
    summary = SweepSummary(
        len(configs), len(configs) - len(todo), executor=executor.name, workers=executor.workers
    )
    bar = Progress(len(configs), label, progress, initial=summary.reused, unit="run", lines=True)
    start = time.perf_counter()
    try:
        fn = _with_references(executor, todo)
        refs = fn.keywords["references"] if isinstance(fn, partial) else None
        queue = deque(batches(todo, executor.workers))
        while queue:  # again only for an executor that took every item at once (Dask)
            for group, recs in executor.imap(partial(execute_group, references=refs), _drain(queue),
                                             on_crash=crashed_group):
                back = [[cfg] for cfg, rec in zip(group, recs, strict=True) if rec is None]
                queue.extendleft(reversed(back))  # next: the instances and references still cached
                for cfg, rec in zip(group, recs, strict=True):
                    if rec is not None:
                        _store(store, cv, cfg, rec, summary)
                        bar.step(failed=rec.status == ERROR)
    except KeyboardInterrupt:
        summary.interrupted = True
    finally:
        summary.seconds = time.perf_counter() - start
        bar.close()
    return summary
