"""A run interrupted while it records a round holds whole rounds, ŵ included — alone or in a batch.

``Recorder.record`` updates ŵ's running sum, then the round's per-round lists and point; an interrupt
in between used to leave an interrupted run's ``meta["w_hat"]`` one round ahead of its points (a
batch's ``BatchRecorder.record`` likewise).  The property: the interrupted run equals the same run
asked for the rounds it completed, every array and ŵ byte for byte (meta but status and rounds).  The
violation: the pre-fix reading (ŵ as last updated) makes the same comparison fail on ŵ.
"""

from __future__ import annotations

import os
import signal

import numpy as np
import pytest

from fcocheck.solvers.engine import batch_recorder, recorder, run
from fcocheck.solvers.generators import generate
from tests.solvers.batch_bits import differences, together


@pytest.fixture
def python_sigint():
    """SIGINT raising KeyboardInterrupt (Python's default), whatever the runner installed; put back after."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


def interrupt_inside(monkeypatch, owner, name: str, at: int) -> None:
    """SIGINT from inside ``owner.name`` on its ``at``-th call: the interrupt lands before the call runs."""
    real, calls = getattr(owner, name), []

    def spy(*args, **kwargs):
        calls.append(1)
        if len(calls) == at:
            os.kill(os.getpid(), signal.SIGINT)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, spy)


def assert_stopped_run(got, problem, hp, rounds: int) -> None:
    """``got`` equals the run asked for ``rounds`` rounds (every array, ŵ byte for byte)."""
    want = run("feddualavg", problem, hp, rounds=rounds, seed=3, reference=False)
    assert got.meta["status"] == "interrupted" and got.meta["completed"] == rounds
    assert set(differences(got, want)) <= {"meta.status", "meta.rounds"}, differences(got, want)
    assert np.asarray(got.meta["w_hat"]).tobytes() == np.asarray(want.meta["w_hat"]).tobytes()


PROBLEMS = [generate("quadratics", seed=s, clients=5, d=6, zeta=2.0, lam=0.05) for s in range(3)]
HPS = [{"eta_c": eta, "local_steps": 2} for eta in (0.05, 0.02, 0.08)]


@pytest.mark.parametrize("fixed", [True, False])
def test_a_run_interrupted_while_recording_keeps_whole_rounds(python_sigint, monkeypatch, fixed):
    """Alone: SIGINT as round 4's point is appended (``_append_point``'s 5th call), after ŵ's update."""
    if not fixed:  # the reading before the fix: ŵ as last updated, whatever the points kept
        monkeypatch.setattr(recorder.Recorder, "avg_after", lambda self, rounds: self.avg[:2])
    interrupt_inside(monkeypatch, recorder.Recorder, "_append_point", 5)
    got = run("feddualavg", PROBLEMS[0], HPS[0], rounds=20, seed=3, reference=False)
    monkeypatch.undo()
    assert got.meta["completed"] == 3  # round 4 was cut before its point: three whole rounds
    if fixed:
        assert_stopped_run(got, PROBLEMS[0], HPS[0], 3)
    else:
        with pytest.raises(AssertionError, match="w_hat"):
            assert_stopped_run(got, PROBLEMS[0], HPS[0], 3)


def per_round_writes() -> int:
    """How many per-round arrays ``BatchRecorder.record`` writes (``_round`` calls) in one round."""
    calls = []
    real = batch_recorder.BatchRecorder._round
    batch_recorder.BatchRecorder._round = lambda self, *a: calls.append(1) or real(self, *a)
    try:
        together("feddualavg", PROBLEMS, HPS, [3, 3, 3], [False] * 3, rounds=1)
    finally:
        batch_recorder.BatchRecorder._round = real
    return len(calls)


@pytest.mark.parametrize("fixed", [True, False])
def test_a_batch_interrupted_while_recording_keeps_whole_rounds(python_sigint, monkeypatch, fixed):
    """Batched: SIGINT inside round 4's ``BatchRecorder.record`` (its first ``_round``, after ŵ's sums
    were written): every run of the batch holds three whole rounds."""
    if not fixed:  # before the fix one row of sums: the interrupted round's, written already
        monkeypatch.setattr(batch_recorder.BatchRecorder, "sums_after",
                            lambda self, i, n: self.sums[(self.r + 1) % 2, i])
    interrupt_inside(monkeypatch, batch_recorder.BatchRecorder, "_round", 3 * per_round_writes() + 1)
    got = together("feddualavg", PROBLEMS, HPS, [3, 3, 3], [False] * 3, rounds=20)
    monkeypatch.undo()
    for trace, p, hp in zip(got, PROBLEMS, HPS, strict=True):
        assert trace.meta["completed"] == 3
        if fixed:
            assert_stopped_run(trace, p, hp, 3)
        else:
            with pytest.raises(AssertionError, match="w_hat"):
                assert_stopped_run(trace, p, hp, 3)


def test_a_run_interrupted_before_its_start_point_has_no_points_and_no_w_hat(python_sigint, monkeypatch):
    """SIGINT as the start point is recorded: an interrupted run with no point, no ŵ, and no crash."""
    interrupt_inside(monkeypatch, recorder.Recorder, "_append_point", 1)
    got = run("feddualavg", PROBLEMS[0], HPS[0], rounds=5, seed=3, reference=False)
    monkeypatch.undo()
    assert got.meta["status"] == "interrupted" and got.meta["completed"] == 0 and "w_hat" not in got.meta
    assert "server_w" not in got.arrays


def test_a_batch_interrupted_while_its_start_points_are_recorded(python_sigint, monkeypatch):
    """SIGINT as the second run's start point is recorded: run 0 keeps its start point, runs 1 and 2
    none; every run interrupted, completed 0, no ŵ, no crash."""
    interrupt_inside(monkeypatch, recorder.Recorder, "_append_point", 2)
    got = together("feddualavg", PROBLEMS, HPS, [3, 3, 3], [False] * 3, rounds=5)
    monkeypatch.undo()
    assert [t.meta["status"] for t in got] == ["interrupted"] * 3
    assert [t.meta["completed"] for t in got] == [0, 0, 0] and all("w_hat" not in t.meta for t in got)
    assert len(got[0].arrays["server_w"]) == 1 and "server_w" not in got[1].arrays
