"""Records runs that advance together: a quantity one array over the runs; each run's ``Recorder`` at the end.

A ``Recorder`` takes one run's ``RoundLog`` a round at a time.  Runs advancing together (``engine.batch``)
report a ``BatchLog``: the same quantities stacked.  ``BatchRecorder.record`` keeps them in arrays with a
row per round and a column per run — the metrics, the running counts and ŵ's sum, the discrepancy's
mean, sum and the overhead L·Σdisc/#steps (eq. 4.3's), the sampled clients and the extras — and the
server iterates in one array ``(B, R + 1, dim)`` whose block i *is* run i's buffer (C-ordered rows, as
its ``Recorder`` allocates them: kept once, written for all runs in one assignment); each element made by the
operations ``Recorder.record`` makes for its run alone (an element-wise sum over the runs is the run's
own sum; a row's mean its own sum divided once).  ``finish`` hands each run's columns, up to the last
round it recorded, to its ``Recorder``, whose ``trace`` then holds the bits the run alone records
(``tests/solvers/test_run_batch*.py``).

A run whose round is refused (diverged, or its objective not finite: ``Recorder.record``'s rule) records
nothing more; its columns end at its last recorded round.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from fcocheck.solvers.algorithms.base import BatchLog
from fcocheck.solvers.engine.recorder import COUNT_KEYS, Recorder

Array = np.ndarray


class BatchRecorder:
    """The records of B runs that start together (``start`` records each run's start point).

    What is the same for every run of a round (the counts, ŵ's number of terms, the participants: one
    ``Counts`` and one K for the batch) is kept once per round; the rest per run, a column each.
    """

    def __init__(self, recs: Sequence[Recorder], rounds: int, dim: int, dual: bool) -> None:
        B = len(recs)
        self.recs = list(recs)
        self.L = np.array([rec.L for rec in recs], dtype=float)
        self.shape = (rounds, B)
        self.dual = dual
        self.metrics: dict[str, Array] = {}  # key → (rounds, B), NaN where not evaluated
        self.own: list[tuple[int, Array, list[dict[str, Any]]]] = []  # (round, runs, their own metrics)
        self.totals: dict[str, Array] = {}  # count key → (rounds,): the running totals after each round
        self.counts = np.zeros(rounds + 1, dtype=np.int64)  # ŵ's number of terms after r rounds
        self.participants = np.zeros(rounds, dtype=np.int64)
        #: Σ of ŵ's terms after r rounds in row r % 2: round r + 1 writes the other row, so an interrupt
        #: inside ``record`` leaves a run's sum of the rounds it has recorded (``done``) intact
        self.sums = np.zeros((2, B, dim))
        self.disc_sum = np.zeros(B)
        self.disc_steps = np.zeros(B, dtype=np.int64)
        self.overhead = np.empty((rounds, B))
        self.rounds: dict[str, Array] = {}  # per-round quantities: key → (rounds, B, …)
        self.done = np.zeros(B, dtype=np.int64)  # rounds recorded by each run
        self.r = 0  # the round the active runs record next (they record their rounds together)
        self.server: dict[str, Array] = {}  # server_w (and server_z): (B, R + 1, dim), run i's buffer = [i]

    def start(self, w0s: Sequence[Array], z0s: Sequence[Array | None]) -> None:
        """Record every run's start point (``Recorder.start``); the batch's iterates become their buffers.

        Block i takes run i's start row and becomes its ``server_w`` (and ``server_z``).
        """
        for rec, w0, z0 in zip(self.recs, w0s, z0s, strict=True):
            rec.start(w0, z0)
        for key in ("server_w", "server_z") if self.dual else ("server_w",):
            first = self.recs[0].buffers[key]
            block = np.empty((len(self.recs), *first.shape))
            for i, rec in enumerate(self.recs):
                block[i, 0] = rec.buffers[key][0]
                rec.buffers[key] = block[i]
            self.server[key] = block

    def _cols(self, runs: Array) -> Array | slice:
        """The columns of ``runs``: a slice while every run of the batch is active (no gather)."""
        return slice(None) if len(runs) == len(self.recs) else runs

    def w_hat(self, runs: Array, log: BatchLog) -> tuple[Array, Array]:
        """(Σ of ŵ's terms, ŵ) after the round ``log`` reports, for the runs ``runs`` (nothing recorded)."""
        sums = log.avg_terms if self.r == 0 else self.sums[self.r % 2][self._cols(runs)] + log.avg_terms
        return sums, sums / (self.counts[self.r] + log.avg_count)

    def record(self, runs: Array, log: BatchLog, clients: Sequence[Array], sums: Array,
               metrics: tuple[dict[str, Array], list[dict[str, Any]] | None] | None) -> None:
        """Record one round of the runs ``runs`` (each the batch's column; ``log``'s rows in that order).

        ``sums``: ``w_hat``'s first value for these runs; ``metrics``: ``evaluate_many``'s at (w, ŵ), None
        on a round without metrics (NaN).  Every run given is kept: refused runs are left out by the caller.
        """
        r, cols = self.r, self._cols(runs)
        if metrics is not None:
            stacked, own = metrics
            for key, values in stacked.items():
                if key not in self.metrics:
                    self.metrics[key] = np.full(self.shape, np.nan)
                self.metrics[key][r, cols] = values
            if own is not None:
                self.own.append((r, runs, own))
        self.sums[(r + 1) % 2][cols] = sums
        self.counts[r + 1] = self.counts[r] + log.avg_count
        for key, value in log.counts.as_dict().items():
            if key not in self.totals:
                self.totals[key] = np.zeros(self.shape[0], dtype=np.int64)
            self.totals[key][r] = (self.totals[key][r - 1] if r else 0) + value
        self.participants[r] = len(clients[0])
        if log.discrepancy.shape[1]:
            total = log.discrepancy.sum(axis=1)  # each row's own pairwise sum, as ``Recorder.record``'s
            self.disc_sum[cols] += total
            self.disc_steps[cols] += log.discrepancy.shape[1]
            self._round("discrepancy", r, cols, total / log.discrepancy.shape[1])
            if log.steps is not None:
                self._round("discrepancy_steps", r, cols, log.discrepancy)
            self.overhead[r, cols] = self.L[cols] * self.disc_sum[cols] / self.disc_steps[cols]
        self.rounds.setdefault("participants", self.participants)  # its place in ``Recorder.record``'s order
        if self.recs[runs[0]].P is not None:
            self._round("sampled", r, cols, np.stack(clients))
        for key, values in log.extra.items():
            self._round(key, r, cols, values)
        self.server["server_w"][cols, r + 1] = log.w  # row r + 1 of every run's buffer at once
        if self.dual:
            self.server["server_z"][cols, r + 1] = log.z
        if log.steps is not None:  # straight into each run's buffers (a round's steps are K·M·dim floats)
            for j, i in enumerate(runs):
                rec = self.recs[i]
                for key, value in log.steps[j].items():
                    rec._buffer(key, value, rec.rounds_planned)
        self.done[cols] += 1
        self.r = r + 1

    def _round(self, key: str, r: int, cols: Array | slice, values: Array) -> None:
        values = np.asarray(values)
        if key not in self.rounds:
            self.rounds[key] = np.empty((*self.shape, *values.shape[1:]), dtype=values.dtype)
        self.rounds[key][r, cols] = values

    def sums_after(self, i: int, n: int) -> Array:
        """Run i's Σ of ŵ's terms after its first n rounds (its row of round n's parity)."""
        return self.sums[n % 2, i]

    def finish(self) -> None:
        """Hand each run's records to its ``Recorder`` (as if it had recorded them round by round)."""
        own: dict[int, dict[int, dict[str, Any]]] = {}  # run → round → its own metrics
        for r, runs, values in self.own:
            for i, m in zip(runs, values, strict=True):
                own.setdefault(int(i), {})[r] = m
        for i, rec in enumerate(self.recs):
            n = int(self.done[i])
            if n == 0:
                continue
            rec.avg = rec.avg_before = (self.sums_after(i, n).copy(), int(self.counts[n]), n)
            rec.filled["server_w"] += n
            if self.dual:
                rec.filled["server_z"] += n
            for key in rec.metric_keys:
                if key in self.metrics:
                    rec.points[key].extend(self.metrics[key][:n, i].tolist())
                else:  # a run's own metric (a rank, a recovery score): its values as evaluate gives them
                    mine = own.get(i, {})
                    rec.points[key].extend(mine.get(r, {}).get(key, float("nan")) for r in range(n))
            for key, totals in self.totals.items():
                rec.points[COUNT_KEYS[key]].extend(totals[:n].tolist())
                rec.totals[key] = int(totals[n - 1])
            if "discrepancy" in self.rounds:
                rec.points["discrepancy_overhead"].extend(self.overhead[:n, i].tolist())
                rec.disc_sum, rec.disc_steps = float(self.disc_sum[i]), int(self.disc_steps[i])
            for key, values in self.rounds.items():  # in ``Recorder.record``'s order: their first round's
                column = values[:n] if values.ndim == 1 else values[:n, i]
                rec.rounds[key].extend(column.tolist() if column.ndim == 1 else list(column))
