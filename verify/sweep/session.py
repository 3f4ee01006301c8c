"""A sweep session: one store, one executor, and the jobs a report needs, each run once.

``Session.runs(configs)`` runs a sweep (only what the store lacks) and returns the stored runs;
``Session.jobs(kind, mode, seed, jobs)`` does the same for whole jobs — a theorem experiment, a
slice of the conformance matrix — whose JSON payload is stored in the ``results`` table under
(kind, name, mode, seed, code version).  Jobs run on the same executor as sweeps.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from solvers.progress import Progress
from verify.sweep import study_runs
from verify.sweep.config import RunConfig
from verify.sweep.executors import Serial
from verify.sweep.runner import SweepSummary, run_sweep, unique
from verify.sweep.store import Store
from verify.sweep.version import code_version


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
    """A named unit of work: ``fn(*args) -> dict`` (picklable, top-level ``fn``)."""

    name: str
    fn: Callable[..., dict[str, Any]]
    args: tuple = ()


def call_job(job: Job) -> tuple[dict[str, Any], float]:
    """Run a job and time it (executed on a worker); an exception becomes an ``error`` payload."""
    t0 = time.perf_counter()
    try:
        payload = job.fn(*job.args)
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # a job that fails is a result to report, never a crash (DESIGN 12)
        payload = {"status": "error", "error": f"{type(exc).__name__}: {exc}", "name": job.name}
    return payload, time.perf_counter() - t0


def crashed_job(job: Job, message: str) -> tuple[dict[str, Any], float]:
    """The payload of a job whose worker died under it."""
    return {"status": "error", "error": f"WorkerDied: {message}", "name": job.name}, 0.0


class Session:
    """The store, the executor and the accounting of one report or sweep."""

    def __init__(self, store: Store, executor=None, progress: bool | None = None) -> None:
        self.store, self.executor = store, executor or Serial()
        self.progress, self.version = progress, code_version()
        self.summaries: list[tuple[str, SweepSummary]] = []
        self.jobs_run: dict[str, int] = {}
        self.jobs_reused: dict[str, int] = {}

    def runs(self, configs: Sequence[RunConfig], label: str) -> list[StoredRun]:
        """Run what is missing, then return every configuration's stored run, in order."""
        configs = unique(configs)
        summary = run_sweep(configs, self.store, self.executor, self.progress, self.version, label)
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
        self, batches: Sequence[tuple[str, str, int, Sequence[Job]]]
    ) -> list[dict[str, dict[str, Any]]]:
        """``jobs`` for several kinds at once, on one pass of the executor (no idle worker between kinds).

        Each batch is (kind, mode, seed, jobs); returns one {name: payload} per batch, in order.
        """
        outs: list[dict[str, dict[str, Any]]] = [{} for _ in batches]
        todo: list[Job] = []
        where: dict[int, tuple[int, str, str, int]] = {}  # id(job) → its batch (executors yield the item)
        for i, (kind, mode, seed, jobs) in enumerate(batches):
            for job in jobs:
                got = self.store.get_result(kind, job.name, mode, seed, self.version)
                if got is None:
                    where[id(job)] = (i, kind, mode, seed)
                    todo.append(job)
                else:
                    outs[i][job.name] = got
            self.jobs_reused[kind] = self.jobs_reused.get(kind, 0) + len(outs[i])
        total = sum(len(b[3]) for b in batches)
        label = "+".join(dict.fromkeys(b[0] for b in batches))
        bar = Progress(total, label, self.progress, initial=total - len(todo), unit="job")
        try:
            for job, (payload, seconds) in self.executor.imap(call_job, todo, on_crash=crashed_job):
                i, kind, mode, seed = where[id(job)]
                status = str(payload.get("status", "done"))
                payload, records = study_runs.split(kind, job.name, mode, seed, payload)
                self.store.put_result(kind, job.name, mode, seed, self.version, status, payload, seconds,
                                      records)
                outs[i][job.name] = payload
                self.jobs_run[kind] = self.jobs_run.get(kind, 0) + 1
                bar.step()
        finally:
            bar.close()
        return [{job.name: out[job.name] for job in b[3]} for out, b in zip(outs, batches, strict=True)]
