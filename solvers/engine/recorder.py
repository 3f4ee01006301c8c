"""Turns a stream of ``RoundLog``s into the arrays of a ``Trace`` (memory linear in what is kept)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from fcocheck.solvers.algorithms.base import Counts, RoundLog
from fcocheck.solvers.engine.evaluate import Evaluator
from fcocheck.solvers.engine.trace import Trace

Array = np.ndarray
COUNT_KEYS = {"grad": "grad_calls", "sample_grad": "sample_grad_calls", "subgrad": "subgrad_calls",
              "prox_client": "prox_calls_client", "prox_server": "prox_calls_server",
              "floats_up": "floats_up", "floats_down": "floats_down"}


class Recorder:
    """Accumulates per-point, per-round and per-step records.

    Per-point lists hold the state after r rounds (r = 0..R); per-round lists hold round r's
    process quantities (r = 0..R−1).  ``trace`` truncates them to consistent lengths, so an
    interruption between two appends never yields ragged arrays; and ŵ's running sum is kept with the
    number of rounds in it (one assignment) beside its value a round before, so ``trace``'s ŵ is the
    one of the rounds it keeps (an interrupt after ŵ's update, before the round's point, used to leave
    an interrupted run's ŵ one round ahead of its points).
    """

    def __init__(self, evaluator: Evaluator, smoothness: float, participation: int | None,
                 rounds: int) -> None:
        self.evaluator, self.L, self.P = evaluator, smoothness, participation
        self.rounds_planned = rounds
        self.buffers: dict[str, Array] = {}  # preallocated (R+1, ...) / (R, ...) arrays
        self.filled: dict[str, int] = defaultdict(int)
        self.points: dict[str, list] = defaultdict(list)
        self.rounds: dict[str, list] = defaultdict(list)
        #: ŵ's (Σ of terms, number of terms, rounds in it), and its value one round before
        self.avg: tuple[Array | None, int, int] = (None, 0, 0)
        self.avg_before = self.avg
        self.disc_sum, self.disc_steps = 0.0, 0
        self.totals = Counts().as_dict()
        self.metric_keys: tuple[str, ...] = ()

    def start(self, w0: Array, z0: Array | None) -> None:
        """Record the start point (ŵ_0 = w_0; counts and overhead 0)."""
        metrics = self.evaluator.evaluate(w0, w0)
        self.metric_keys = tuple(metrics)
        self._append_point(w0, z0, metrics, overhead=0.0)

    def w_hat(self, log: RoundLog) -> Array:
        """ŵ after the round ``log`` reports (the point ``record`` evaluates), nothing recorded."""
        avg_sum, avg_count, _ = self.avg
        avg_sum = log.avg_terms.copy() if avg_sum is None else avg_sum + log.avg_terms
        return avg_sum / (avg_count + log.avg_count)

    def record(self, log: RoundLog, clients: Array, evaluate: bool = True,
               metrics: dict[str, float] | None = None) -> bool:
        """Record one round; False (nothing appended) when the new objective is not finite.

        ``evaluate=False`` skips the pass over the data: the evaluator's metrics are NaN this round.
        ``metrics``: the evaluator's metrics at (w, ``w_hat(log)``) computed already (``evaluate_many``).
        """
        before_sum, before_count, before_rounds = self.avg
        avg_sum = log.avg_terms.copy() if before_sum is None else before_sum + log.avg_terms
        avg_count = before_count + log.avg_count
        if evaluate:
            if metrics is None:
                metrics = self.evaluator.evaluate(log.w, avg_sum / avg_count)
            if not np.isfinite(metrics["objective"]):
                return False
            self.metric_keys = tuple(metrics)
        else:
            metrics = dict.fromkeys(self.metric_keys, float("nan"))
        self.avg_before = self.avg
        self.avg = (avg_sum, avg_count, before_rounds + 1)  # one assignment: ŵ with its round count
        for key, value in log.counts.as_dict().items():
            self.totals[key] += value
        if log.discrepancy.size:
            total = float(log.discrepancy.sum())
            self.disc_sum += total
            self.disc_steps += log.discrepancy.size
            self.rounds["discrepancy"].append(total / log.discrepancy.size)  # np.mean's sum and division
            if log.steps:
                self.rounds["discrepancy_steps"].append(log.discrepancy)
        self.rounds["participants"].append(len(clients))
        if self.P is not None:
            self.rounds["sampled"].append(clients)
        for key, value in log.extra.items():
            self.rounds[key].append(value)
        for key, value in log.steps.items():
            self._buffer(key, value, self.rounds_planned)
        overhead = self.L * self.disc_sum / self.disc_steps if self.disc_steps else None
        self._append_point(log.w, log.z, metrics, overhead)
        return True

    def _append_point(self, w: Array, z: Array | None, metrics: dict[str, float],
                      overhead: float | None) -> None:
        self._buffer("server_w", w, self.rounds_planned + 1)
        if z is not None:
            self._buffer("server_z", z, self.rounds_planned + 1)
        for key, value in metrics.items():
            self.points[key].append(value)
        for key, value in self.totals.items():
            self.points[COUNT_KEYS[key]].append(value)
        if overhead is not None:
            self.points["discrepancy_overhead"].append(overhead)

    def _buffer(self, key: str, value: Array, capacity: int) -> None:
        """Write ``value`` into the next row of a preallocated array (no copy at the end)."""
        if key not in self.buffers:
            self.buffers[key] = np.empty((capacity, *np.shape(value)))
        self.buffers[key][self.filled[key]] = value
        self.filled[key] += 1

    def last(self, key: str) -> float:
        """The latest value of a per-point metric (nan when absent)."""
        values = self.points.get(key)
        return float(values[-1]) if values else float("nan")

    def avg_after(self, rounds: int) -> tuple[Array | None, int]:
        """ŵ's (Σ of terms, number of terms) after ``rounds`` recorded rounds: the last or the one before.

        The one before when an interrupt fell between ŵ's update and the round's point (``trace`` then
        keeps ``rounds`` = the points appended − 1); none (0 terms) before the first round, or when an
        interrupt came before the start point was recorded (``rounds`` = −1).
        """
        if rounds <= 0:
            return None, 0
        for avg_sum, avg_count, done in (self.avg, self.avg_before):
            if done == rounds:
                return avg_sum, avg_count
        raise AssertionError(f"ŵ after {rounds} rounds: the recorder holds it after {self.avg[2]} and "
                             f"{self.avg_before[2]}")

    def trace(self, meta: dict) -> Trace:
        """Stack everything into a ``Trace`` with consistent lengths; ``meta`` gains ŵ and ``completed``."""
        n_points = min([len(v) for k, v in self.points.items() if k != "discrepancy_overhead"]
                       + [self.filled["server_w"]])
        arrays: dict[str, Array] = {}
        for key, buf in self.buffers.items():
            kept = buf[: n_points if key.startswith("server_") else n_points - 1]
            # a block of a batch's array (``BatchRecorder.start``): its own copy, so that a trace kept
            # does not keep every run of its batch
            arrays[key] = kept.copy() if buf.base is not None else kept
        for key, values in self.points.items():
            if key == "discrepancy_overhead" and len(values) < n_points:
                continue  # the algorithm has no discrepancy (only the start entry exists)
            arrays[key] = np.asarray(values[:n_points])
        for key, values in self.rounds.items():
            arrays[key] = np.asarray(values[: n_points - 1])
        avg_sum, avg_count = self.avg_after(n_points - 1)
        if avg_count:  # ŵ after the last recorded round (eq. 4.2, or the average of server iterates)
            meta = {**meta, "w_hat": (avg_sum / avg_count).tolist()}
        # rounds kept (0 too when an interrupt came before the start point: no point, no ``server_w``)
        return Trace({**meta, "completed": max(n_points - 1, 0)}, arrays)
