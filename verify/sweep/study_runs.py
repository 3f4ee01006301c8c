"""The runs behind a study's verdict, as rows of the results store's ``runs``/``metrics`` tables.

A theorem study (``verify.report_jobs.experiment``) returns, beside its verdict, every run it made
(``verify.experiments.base.collect``): configuration, instance digest and per-round curves.
``split`` turns them into ``RunRecord`` rows tagged with the study, and leaves in the payload only
each run's key and configuration, so the curves are stored once, where ``fcocheck store export``
and SQL find them (``tags.study``), and the payload stays small.

A run's key hashes the study, its mode and seed, the run's position in the study and its
configuration: the same study at the same code version writes the same keys (``INSERT OR
IGNORE`` keeps a re-run from duplicating rows).
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

import numpy as np

from fcocheck.solvers.engine.trace import COMPLETED, DIVERGED
from fcocheck.verify.sweep.config import canonical
from fcocheck.verify.sweep.task import RunRecord


def _config(run: dict[str, Any], kind: str, name: str, mode: str, index: int) -> dict[str, Any]:
    cfg = {k: v for k, v in run.items() if k not in ("curves", "status", "seconds")}
    problem = {"name": cfg.pop("problem"), "meta": cfg.pop("problem_meta", {}),
               "instance_sha256": cfg.pop("instance_sha256", None)}
    return {**cfg, "problem": problem, "tags": {"study": name, "kind": kind, "mode": mode, "index": index}}


def split(kind: str, name: str, mode: str, seed: int,
          payload: dict[str, Any]) -> tuple[dict[str, Any], list[RunRecord]]:
    """(payload with ``runs`` reduced to keys and configurations, one ``RunRecord`` per run).

    A payload without ``runs`` (a conformance slice, an error) comes back unchanged with no records.
    ``started`` of each record is the time the job's runs are stored.
    """
    started = datetime.now(UTC).isoformat(timespec="seconds")
    recorded = payload.get("runs")
    if not isinstance(recorded, list) or not recorded or "curves" not in recorded[0]:
        return payload, []
    records, listed = [], []
    for i, run in enumerate(recorded):
        cfg = _config(run, kind, name, mode, i)
        key = hashlib.sha256(canonical({"job": [kind, name, mode, seed], "config": cfg}).encode()).hexdigest()
        curves = {k: np.asarray(v, dtype=float) for k, v in run["curves"].items()}
        rounds = max((len(v) - 1 for v in curves.values()), default=0)
        status = run.get("status", COMPLETED)
        records.append(RunRecord(key=key, config=cfg, status=status, seconds=float(run.get("seconds", 0.0)),
                                 started=started, rounds_done=rounds,
                                 diverged_at=rounds if status == DIVERGED else None, metrics=curves))
        listed.append({"key": key, **cfg})
    return {**payload, "runs": listed}, records
