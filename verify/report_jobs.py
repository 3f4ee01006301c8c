"""The report's whole-job units (one theorem experiment, one conformance slice), for any executor.

The report's whole-job units, runnable on any executor: one theorem experiment, one slice of the
conformance matrix. Each returns a JSON-ready payload; counterexample files travel inside it (base64) so
a remote worker needs no shared disk and a reused payload still yields the files.
"""

from __future__ import annotations

import base64
import tempfile
from pathlib import Path
from typing import Any

from fcocheck.solvers import algorithms
from fcocheck.solvers.blas_threads import serial_blas
from fcocheck.solvers.files import COUNTEREXAMPLES, UnsafePathError, Writer, is_counterexample_link
from fcocheck.verify.conformance import check_invariant, check_properties
from fcocheck.verify.experiments import EXPERIMENTS
from fcocheck.verify.invariants import INVARIANTS
from fcocheck.verify.sweep.session import Job


def experiment(name: str, quick: bool, seed: int) -> dict[str, Any]:
    """``Result.as_dict()`` of one theorem experiment, with every run behind it, BLAS held to one thread.

    ``runs``: each run's configuration and per-round curves (``verify.experiments.base.collect``).
    """
    from fcocheck.verify.experiments.base import collect

    with serial_blas(every_api=True), collect() as recorded:
        payload = EXPERIMENTS[name](quick=quick, seed=seed).as_dict()
    return {**payload, "runs": recorded}


def experiment_one_thread(name: str, quick: bool, seed: int) -> dict[str, Any]:
    """``Result.as_dict()`` with BLAS held to one thread (a ``validate`` pool task).

    Same bits on any executor; the runs are not kept (``validate`` stores nothing).
    """
    with serial_blas(every_api=True):
        return EXPERIMENTS[name](quick=quick, seed=seed).as_dict()


def _files(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): base64.b64encode(p.read_bytes()).decode()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


#: the invariants are checked in this many jobs (one job of all of them was the report's long tail)
INVARIANT_CHUNKS = 6


def conformance_slice(what: str, budget: str, seed: int) -> dict[str, Any]:
    """Cells and counterexample files of one slice of the conformance matrix.

    ``invariants:i``: every ``INVARIANT_CHUNKS``-th invariant from the i-th (``invariants``: all);
    an algorithm's name: its properties A–D.  BLAS is held to one thread, as in ``check``'s cells.
    """
    with serial_blas(every_api=True), tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "counterexamples"
        if what.startswith("invariants"):
            part = int(what.partition(":")[2] or 0)
            chosen = list(INVARIANTS.values())[part::INVARIANT_CHUNKS] if ":" in what else INVARIANTS.values()
            cells = [check_invariant(inv, budget, target, seed) for inv in chosen]
        else:
            cells = check_properties(algorithms.get(what), budget, target, seed)
        files = _files(Path(tmp)) if target.exists() else {}
        rows = [c.as_dict() for c in cells]
        for row in rows:  # paths relative to the report directory
            if row["counterexample"]:
                row["counterexample"] = str(Path(row["counterexample"]).relative_to(tmp))
    return {"status": "done", "cells": rows, "files": files}


def experiment_jobs(names: list[str], quick: bool, seed: int) -> list[Job]:
    """One job per experiment, the longest first (a pool's makespan; payloads are keyed by name)."""
    from fcocheck.verify.experiments.base import longest_first

    return [Job(n, experiment, (n, quick, seed), EXPERIMENTS[n].definition)
            for n in longest_first(list(names))]


def conformance_jobs(algs: list[str], budget: str, seed: int) -> list[Job]:
    """The invariants' jobs (``INVARIANT_CHUNKS`` of them) and one job per algorithm."""
    chunks = [f"invariants:{i}" for i in range(INVARIANT_CHUNKS)]
    users = algorithms.user_definitions()  # the invariants' table holds the user cards' invariants too
    return [Job(w, conformance_slice, (w, budget, seed), users) for w in chunks] + [
        Job(a, conformance_slice, (a, budget, seed), algorithms.definition(a)) for a in algs]


def write_files(payloads: dict[str, dict[str, Any]], out: Path) -> list[Path]:
    """Write the counterexample files carried by conformance payloads under ``out``.

    Every name is checked first (``solvers.files.Writer.path``: inside ``out``, under
    ``counterexamples/``, no symlink): one name that breaks a rule refuses the whole set, and nothing
    is written.
    """
    writer = Writer(out)
    plan = [(rel, data) for payload in payloads.values()
            for rel, data in (payload.get("files") or {}).items()]
    for rel, _ in plan:
        writer.path(rel, make_dirs=False)
        if not is_counterexample_link(rel):
            raise UnsafePathError(f"counterexample file {rel!r} from the results store is not a plain name "
                                  f"under '{COUNTEREXAMPLES}/'; the rule is {COUNTEREXAMPLES}/NAME.json")
    return [writer.write_bytes(rel, base64.b64decode(data)) for rel, data in plan]
