"""What a paper reproduction returns, and the two steps they share: tuning and curve collection.

A reproduction is a sweep (or two: a tuning grid, then the tuned runs over seeds) whose runs are
stored like any other.  It returns plain data — curves as (seeds × points) arrays, tables, and
findings, each a paper claim with the measured numbers that decide it — for the report to draw.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fcocheck.verify.sweep.config import ProblemSpec, RunConfig
from fcocheck.verify.sweep.session import Session, StoredRun

# one verdict vocabulary with the theorem studies (``verify.studies``)
REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE = "consistent", "inconsistent", "inconclusive"
ERROR = "error"


@dataclass
class Finding:
    """A claim of the paper and whether the measured numbers show it."""

    claim: str
    status: str
    evidence: str


@dataclass
class Reproduction:
    """Plain data for one reproduced figure or table."""

    name: str
    title: str
    cite: str
    design: str
    curves: list[dict[str, Any]] = field(default_factory=list)
    panels: list[dict[str, Any]] = field(default_factory=list)
    table: list[dict[str, Any]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def status(self) -> str:
        """The reproduction's status from its findings.

        ``error`` if it could not be computed; ``inconsistent`` (not reproduced) if any finding
        is; ``consistent`` (reproduced) if all are; else ``inconclusive``.
        """
        states = {f.status for f in self.findings}
        if ERROR in states:
            return ERROR
        if NOT_REPRODUCED in states:
            return NOT_REPRODUCED
        return REPRODUCED if states == {REPRODUCED} else INCONCLUSIVE


def failed_reproduction(name: str, error: str) -> Reproduction:
    """A reproduction that raised: shown in the report as an error with the message."""
    return Reproduction(name, name, "", "could not be computed",
                        findings=[Finding("the reproduction ran to the end", ERROR, error)])


def completed(runs: Sequence[StoredRun]) -> list[StoredRun]:
    """The runs that completed (a diverged or errored run has no value at every round)."""
    return [r for r in runs if r.status == "completed"]


def config(
    alg: str,
    problem: ProblemSpec,
    hp: dict[str, Any],
    rounds: int,
    oracle: str,
    seed: int,
    tag: str,
    keep: tuple[str, ...] = (),
    metrics_every: int = 1,
) -> RunConfig:
    """A run of one reproduction (``tag`` keeps designs apart in the store).

    ``metrics_every = rounds`` evaluates the data-pass metrics at the last round only: a tuning
    run is scored on its final value, and its iterates are the same bits either way.
    """
    return RunConfig(alg, problem, hp, rounds, oracle, seed, keep=keep, tags={"reproduction": tag},
                     metrics_every=metrics_every)


def tune(
    session: Session, configs: Sequence[RunConfig], score: Callable[[StoredRun], float], label: str
) -> dict[str, dict[str, Any]]:
    """Run a tuning grid and keep, per algorithm, the hyper-parameters of the best score (max).

    A diverged or failed run scores −∞; ties keep the first configuration of the grid.
    """
    best: dict[str, tuple[float, dict[str, Any]]] = {}
    for run in session.runs(configs, label):
        s = score(run) if run.status == "completed" else -np.inf
        s = -np.inf if not np.isfinite(s) else s
        alg = run.config.algorithm
        if alg not in best or s > best[alg][0]:
            best[alg] = (s, dict(run.config.hp))
    return {alg: hp for alg, (_, hp) in best.items()}


def collect(
    runs: Sequence[StoredRun], label: Callable[[StoredRun], str], metrics: Sequence[str]
) -> list[dict]:
    """Curves: for each label and metric, the (seeds × points) array of the runs sharing the label.

    A run that ended early (diverged) is padded with NaN so every row has the same length.
    """
    groups: dict[str, list[StoredRun]] = {}
    for r in runs:
        groups.setdefault(label(r), []).append(r)
    out = []
    for name, rs in groups.items():
        for m in metrics:
            rows = [r.metrics[m] for r in rs if m in r.metrics]
            if not rows:
                continue
            Y = padded(rows)
            n = Y.shape[1]
            out.append(
                {
                    "label": name,
                    "metric": m,
                    "x": list(range(n)),
                    "Y": Y.tolist(),
                    "statuses": [r.status for r in rs],
                }
            )
    return out


def padded(rows: Sequence[Sequence[float]]) -> np.ndarray:
    """Rows of unequal length as one array, NaN after each row's end (a run that ended early)."""
    Y = np.full((len(rows), max(len(x) for x in rows)), np.nan)
    for i, x in enumerate(rows):
        Y[i, : len(x)] = x
    return Y


def final(runs: Sequence[StoredRun], alg: str, metric: str) -> float:
    """Median over seeds of the last value of ``metric`` for ``alg``."""
    vals = [r.metrics[metric][-1] for r in runs if r.config.algorithm == alg and metric in r.metrics]
    return float(np.median(vals)) if vals else float("nan")


def plotted(
    runs: Sequence[StoredRun], label: Callable[[StoredRun], str], panels: Sequence[tuple[str, str, bool]]
) -> tuple[list[dict], list[dict[str, Any]]]:
    """Curves of the panels' metrics and the panel specs, from one list of (metric, ylabel, log)."""
    specs = [{"metric": m, "ylabel": y, "log": log} for m, y, log in panels]
    return collect(runs, label, [m for m, _, _ in panels]), specs
