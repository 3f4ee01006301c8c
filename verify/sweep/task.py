"""Executing one ``RunConfig`` anywhere (this process, a pool worker, a Dask worker).

``execute`` is a pure, picklable top-level function: it builds the problem from its seeded
generator, solves the certified reference once per process (cached), runs the engine, and returns
a ``RunRecord`` of plain arrays.  BLAS is held to one thread inside a run, so a run's bits do not
depend on which executor ran it or how many runs share the machine.  Any exception is recorded
(status ``error`` with its type and message) instead of propagating: one failing configuration
never stops a sweep.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

import numpy as np

from fcocheck.solvers import ctrl_c
from fcocheck.solvers.blas_threads import serial_blas
from fcocheck.solvers.engine.trace import INTERRUPTED
from fcocheck.solvers.error_text import describe
from fcocheck.verify.sweep.config import RunConfig

ERROR = "error"


@dataclass
class RunRecord:
    """What one run produced.

    Attributes:
        metrics: metric name → 1-D array (per point r = 0..R, or per round).
        arrays: the multi-dimensional arrays named in ``config.keep``.

    """

    key: str
    config: dict[str, Any]
    status: str
    seconds: float
    started: str
    rounds_done: int = 0
    diverged_at: int | None = None
    error: str | None = None
    metrics: dict[str, np.ndarray] = field(default_factory=dict)
    arrays: dict[str, np.ndarray] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)


def load_file_instance(path: str, sha256: str | None) -> Any:
    """The instance file at ``path``, refused when its content is not the one the run was keyed by."""
    from fcocheck.solvers.instance_io import load_instance
    from fcocheck.verify.sweep.config import InvalidSweepError, file_sha256

    if sha256 is not None and file_sha256(path) != sha256:
        raise InvalidSweepError(f"instance file {path!r} changed since the sweep was defined (SHA-256 "
                                f"{file_sha256(path)[:12]}…, keyed by {sha256[:12]}…); the rule is the "
                                "same content, or a new sweep")
    return load_instance(path)


@lru_cache(maxsize=16)
def _problem(spec_json: str) -> Any:
    import json

    from fcocheck.solvers.generators import generate

    spec = json.loads(spec_json)
    if "file" in spec:
        return load_file_instance(spec["file"], spec["sha256"])
    return generate(spec["generator"], **spec["params"])


@lru_cache(maxsize=16)
def _instance(spec_json: str) -> tuple[Any, Any]:
    from fcocheck.solvers.reference import reference_solve

    problem = _problem(spec_json)
    return problem, reference_solve(problem)


def instance(config: RunConfig, references: dict[str, Any] | None = None) -> tuple[Any, Any]:
    """The configuration's problem and its certified reference (cached per process).

    ``references``: spec → a reference already certified elsewhere (``solve_reference``), used as is.
    """
    spec = config.instance_spec
    if references and references.get(spec) is not None:
        return _problem(spec), references[spec]
    return _instance(spec)


def solve_reference(spec_json: str) -> Any:
    """The certified reference of one problem spec; None when it cannot be certified.

    BLAS runs on one thread as inside ``execute`` (the same bits); on failure each run meets, and
    records, the error itself.  A pool solves each distinct instance of a sweep once, on one
    worker, before the runs, instead of once in every worker that meets it (lowrank-paper's
    reference takes 7 s).
    """
    try:
        with serial_blas(every_api=True):
            return _instance(spec_json)[1]
    except KeyboardInterrupt:
        raise
    except Exception:  # noqa: BLE001 - the runs record the error with its message
        ctrl_c.check()  # unless it is a Ctrl-C in another form
        return None


def _split(trace: Any, keep: tuple[str, ...]) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    scalars = {
        k: np.asarray(v, dtype=float)
        for k, v in trace.arrays.items()
        if np.ndim(v) == 1 and np.asarray(v).dtype.kind in "fiub"
    }
    kept = {k: np.asarray(trace.arrays[k]) for k in keep if k in trace.arrays}
    return scalars, kept


def crashed(config: RunConfig, message: str) -> RunRecord:
    """The record of a run whose worker died under it (the executor's ``on_crash``)."""
    now = datetime.now(UTC).isoformat(timespec="seconds")
    return RunRecord(config.key, config.as_dict(), ERROR, 0.0, now, error=f"WorkerDied: {message}")


def execute(config: RunConfig, references: dict[str, Any] | None = None) -> RunRecord:
    """Run one configuration; never raises for a bad configuration or a failing run.

    ``references``: certified references by problem spec (``solve_reference``), else solved here.
    """
    from fcocheck.solvers.engine.run import run

    started = datetime.now(UTC).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    try:
        with serial_blas(every_api=True):
            problem, ref = instance(config, references)
            trace = run(
                config.algorithm,
                problem,
                dict(config.hp),
                rounds=config.rounds,
                oracle=config.oracle,
                seed=config.seed,
                participation=config.participation,
                record=config.record,
                reference=ref,
                metrics_every=config.metrics_every,
            )
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # recorded, the sweep goes on
        ctrl_c.check()  # unless it is a Ctrl-C in another form
        return RunRecord(
            config.key,
            config.as_dict(),
            ERROR,
            time.perf_counter() - t0,
            started,
            error=describe(exc, located=True),
        )
    return _record(config, trace, time.perf_counter() - t0, started)


def _record(config: RunConfig, trace: Any, seconds: float, started: str) -> RunRecord:
    """The record of a finished run (Ctrl-C inside the engine is not a result: raised again, never stored)."""
    if trace.status == INTERRUPTED:
        raise KeyboardInterrupt
    scalars, kept = _split(trace, config.keep)
    meta = {k: trace.meta[k] for k in ("reference", "constants") if k in trace.meta}
    return RunRecord(
        config.key,
        config.as_dict(),
        trace.status,
        seconds,
        started,
        rounds_done=int(trace.meta["completed"]),
        diverged_at=trace.meta.get("diverged_at"),
        metrics=scalars,
        arrays=kept,
        meta=meta,
    )


def execute_batch(configs: Sequence[RunConfig], references: dict[str, Any] | None = None
                  ) -> list[RunRecord | None]:
    """``[execute(c) for c in configs]`` as one ``run_batch`` (configurations ``batching.batches`` grouped).

    Same algorithm, rounds, oracle, ``metrics_every`` and participation in every configuration; each record
    is the one ``execute`` gives (``seconds``: the batch's wall time shared among its runs).  Only the runs of
    one batch are computed here (``engine.batch.plan``'s first; their references solved, no other's); any
    other configuration — one no batch takes, or of another batch when the instances split the group — is
    None: the caller executes it as its own item (``runner.run_sweep``), so that runs finished here are
    never lost with others when Ctrl-C stops them.  Anything that fails (an instance, a reference, a
    configuration ``run`` refuses) makes every configuration None, and ``execute`` records each failure as
    its own.
    """
    from fcocheck.solvers.engine.batch import plan, run_batch

    started = datetime.now(UTC).isoformat(timespec="seconds")
    c0 = configs[0]
    out: list[RunRecord | None] = [None] * len(configs)
    try:
        with serial_blas(every_api=True):
            problems = [_problem(c.instance_spec) for c in configs]
            groups, _ = plan(c0.algorithm, problems, [dict(c.hp) for c in configs], c0.rounds, c0.oracle,
                             c0.participation)
            if not groups:
                return out
            batch = [configs[i] for i in groups[0]]
            pairs = [instance(c, references) for c in batch]
            traces = run_batch(c0.algorithm, [p for p, _ in pairs], [dict(c.hp) for c in batch], c0.rounds,
                               [c.seed for c in batch], c0.oracle, [r for _, r in pairs], c0.metrics_every,
                               participation=c0.participation)
    except KeyboardInterrupt:
        raise
    except Exception:  # noqa: BLE001 - each configuration, executed alone, records its own error
        ctrl_c.check()  # unless it is a Ctrl-C in another form
        return out
    for i, t in zip(groups[0], traces, strict=True):
        out[i] = _record(configs[i], t, t.meta["seconds"], started)
    return out
