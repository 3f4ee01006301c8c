"""A sweep session: one store, one executor, and the jobs a report needs, each run once.

``Session.runs(configs)`` runs a sweep (only what the store lacks) and returns the stored runs;
``Session.jobs(kind, mode, seed, jobs)`` does the same for whole jobs — a theorem experiment, a
slice of the conformance matrix — whose JSON payload is stored in the ``results`` table under
(kind, name, mode, seed, code version).  Jobs run on the same executor as sweeps, and
``Session.job_batches(batches, runs=)`` puts several kinds of job and a set of sweep runs declared
ahead into one pass of the executor, so that no worker idles at the boundary between them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fcocheck.solvers import ctrl_c
from fcocheck.solvers.error_text import describe
from fcocheck.solvers.progress import Progress
from fcocheck.verify.sweep import study_runs
from fcocheck.verify.sweep.config import RunConfig
from fcocheck.verify.sweep.executors import Serial
from fcocheck.verify.sweep.runner import SweepSummary, run_sweep, unique
from fcocheck.verify.sweep.store import DEFINITION, Store
from fcocheck.verify.sweep.task import ERROR, crashed, execute, solve_reference
from fcocheck.verify.sweep.version import code_version


@dataclass
class StoredRun:
    """A run read back from the store."""

    config: RunConfig
    status: str
    error: str | None
    seconds: float
    diverged_at: int | None
    metrics: dict[str, np.ndarray]
    arrays: dict[str, np.ndarray] = field(default_factory=dict)


@dataclass(frozen=True)
class Job:
    """A named unit of work: ``fn(*args) -> dict`` (picklable, top-level ``fn``).

    ``definition``: the digest of the user content the payload depends on (a user's claim or card:
    ``solvers.definition``), stored beside the code version so that an edit is never served the old
    payload; None for fcocheck's own work, which the code version covers.
    """

    name: str
    fn: Callable[..., dict[str, Any]]
    args: tuple = ()
    definition: str | None = None


def call_job(job: Job) -> tuple[dict[str, Any], float]:
    """Run a job and time it (executed on a worker); an exception becomes an ``error`` payload."""
    t0 = time.perf_counter()
    try:
        payload = job.fn(*job.args)
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # a job that fails is a result to report, never a crash
        ctrl_c.check()  # unless it is a Ctrl-C in another form
        payload = {"status": "error", "error": describe(exc), "name": job.name}
    return payload, time.perf_counter() - t0


def crashed_job(job: Job, message: str) -> tuple[dict[str, Any], float]:
    """The payload of a job whose worker died under it."""
    return {"status": "error", "error": f"WorkerDied: {message}", "name": job.name}, 0.0


#: the three kinds of item of one executor pass (``Session.job_batches``)
REF, JOB, RUN = "reference", "job", "run"


def call_item(item: tuple) -> Any:
    """Execute one item of a mixed pass (on a worker): a reference solve, a job, or a run."""
    kind = item[0]
    if kind == REF:
        return solve_reference(item[1])
    if kind == JOB:
        return call_job(item[1])
    return execute(item[1], references=item[2])


def crashed_item(item: tuple, message: str) -> Any:
    """What an item whose worker died becomes: no reference, an error payload, an error record."""
    kind = item[0]
    if kind == REF:
        return None
    if kind == JOB:
        return crashed_job(item[1], message)
    return crashed(item[1], message)


class Session:
    """The store, the executor and the accounting of one report or sweep."""

    def __init__(self, store: Store, executor=None, progress: bool | None = None) -> None:
        self.store, self.executor = store, executor or Serial()
        self.progress, self.version = progress, code_version()
        self.summaries: list[tuple[str, SweepSummary]] = []
        self.jobs_run: dict[str, int] = {}
        self.jobs_reused: dict[str, int] = {}
        self._ran_jobs: set[tuple[str, str, str, int]] = set()  # executed by this session, not reused
        self._counted: set[tuple[str, str, str, int]] = set()  # counted as reused (each job once)
        self._ran_ahead: set[str] = set()  # run keys executed ahead by ``job_batches``

    def job_version(self, job: Job) -> str:
        """The version a job's payload is stored under: the code's, and its user definition's if any."""
        return self.version if job.definition is None else f"{self.version}{DEFINITION}{job.definition}"

    def runs(self, configs: Sequence[RunConfig], label: str) -> list[StoredRun]:
        """Run what is missing, then return every configuration's stored run, in order."""
        configs = unique(configs)
        summary = run_sweep(configs, self.store, self.executor, self.progress, self.version, label)
        ahead = sum(c.key in self._ran_ahead for c in configs)
        if ahead:  # executed by this session's first pass: not "reused from the store"
            summary.reused -= ahead
            summary.executed["declared ahead, run in the first pass"] += ahead
        self.summaries.append((label, summary))
        if summary.interrupted:
            raise KeyboardInterrupt
        rows = {r["key"]: r for r in self.store.runs(self.version, keys=[c.key for c in configs])}
        out = []
        for c in configs:
            r = rows[c.key]
            out.append(
                StoredRun(
                    c,
                    r["status"],
                    r["error"],
                    r["seconds"],
                    r["diverged_at"],
                    self.store.metrics(r["id"]),
                    self.store.arrays(r["id"]) if c.keep else {},
                )
            )
        return out

    def jobs(self, kind: str, mode: str, seed: int, jobs: Sequence[Job]) -> dict[str, dict[str, Any]]:
        """Payloads of ``jobs``, computing (on the executor) only those the store lacks."""
        return self.job_batches([(kind, mode, seed, jobs)])[0]

    def job_batches(
        self, batches: Sequence[tuple[str, str, int, Sequence[Job]]], runs: Sequence[RunConfig] = ()
    ) -> list[dict[str, dict[str, Any]]]:
        """``jobs`` for several kinds at once, on one pass of the executor (no idle worker between kinds).

        Each batch is (kind, mode, seed, jobs); returns one {name: payload} per batch, in order.
        ``runs``: sweep configurations executed in the same pass after the jobs (a study's tuning
        grid, known before the study runs): each lands in the store's run tables as ``Session.runs``
        would put it, so the study's own ``runs`` call later finds it done.  Their references are
        solved first in the same pass, once per instance, and handed to the runs (a run that
        reaches a worker before its reference is back solves it there: the same bits, more time).
        """
        outs: list[dict[str, dict[str, Any]]] = [{} for _ in batches]
        runs = unique(runs)
        have = self.store.done(self.version) if runs else set()
        todo_runs = [c for c in runs if c.key not in have]
        summary = SweepSummary(len(runs), len(runs) - len(todo_runs), executor=self.executor.name,
                               workers=self.executor.workers)
        spec_of = {c.key: c.instance_spec for c in todo_runs}
        specs = list(dict.fromkeys(spec_of.values()))
        refs: dict[str, Any] = {}
        todo: list[Job] = []
        where: dict[int, tuple[int, str, str, int]] = {}  # id(job) → its batch (executors yield the item)
        for i, (kind, mode, seed, jobs) in enumerate(batches):
            for job in jobs:
                got = self.store.get_result(kind, job.name, mode, seed, self.job_version(job))
                if got is None:
                    where[id(job)] = (i, kind, mode, seed)
                    todo.append(job)
                else:
                    outs[i][job.name] = got
            # reused: stored before this session, counted once however often it is asked for
            fresh = {(kind, name, mode, seed) for name in outs[i]} - self._ran_jobs - self._counted
            self._counted |= fresh
            self.jobs_reused[kind] = self.jobs_reused.get(kind, 0) + len(fresh)
        total = sum(len(b[3]) for b in batches) + len(runs)
        label = "+".join(dict.fromkeys([b[0] for b in batches] + (["runs"] if runs else [])))
        bar = Progress(total, label, self.progress, initial=total - len(todo) - len(todo_runs), unit="job",
                       lines=True)
        # the serial executor's one process caches its references; Dask takes every item at once
        # (no run could wait for a reference), so only a local pool solves them ahead
        solve_here = self.executor.name == "pool" and self.executor.workers > 1

        def items():  # lazy: a run is handed out after the jobs, when its reference is back
            yield from ((REF, spec) for spec in (specs if solve_here else []))
            yield from ((JOB, job) for job in todo)
            for c in todo_runs:
                spec = spec_of[c.key]
                yield RUN, c, ({spec: refs[spec]} if refs.get(spec) is not None else None)

        start = time.perf_counter()
        try:
            for item, result in self.executor.imap(call_item, items(), on_crash=crashed_item):
                if item[0] == REF:
                    refs[item[1]] = result
                    continue
                if item[0] == RUN:
                    if not self.store.put(result, self.version):
                        summary.raced += 1  # recorded first by another process: reused, not ours
                        bar.step()
                        continue
                    if result.status != ERROR:  # an errored run is not done: ``runs`` executes it again
                        self._ran_ahead.add(item[1].key)
                    summary.executed[result.status] += 1
                    if result.status == ERROR:
                        c = item[1]
                        summary.errors.append(f"{c.algorithm} seed {c.seed} [{c.key[:10]}]: {result.error}")
                    bar.step(failed=result.status == ERROR)
                    continue
                job, (payload, seconds) = item[1], result
                i, kind, mode, seed = where[id(job)]
                status = str(payload.get("status", "done"))
                payload, records = study_runs.split(kind, job.name, mode, seed, payload)
                self.store.put_result(kind, job.name, mode, seed, self.job_version(job), status, payload,
                                      seconds, records)
                outs[i][job.name] = payload
                self._ran_jobs.add((kind, job.name, mode, seed))
                self.jobs_run[kind] = self.jobs_run.get(kind, 0) + 1
                bar.step()
        finally:
            bar.close()
            if runs:
                summary.seconds = time.perf_counter() - start
                self.summaries.append(("runs declared ahead (executed beside the jobs)", summary))
        return [{job.name: out[job.name] for job in b[3]} for out, b in zip(outs, batches, strict=True)]
