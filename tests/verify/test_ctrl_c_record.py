"""A Ctrl-C that reached the driver as another exception, or as none, still stops the command.

``solvers.ctrl_c``'s handler records the interrupt before raising it; the executors' loops, the broad
error handlers and the command line read the record.  Two ways an interrupt goes astray are used:
raised in ``__del__`` (dropped by Python as an unraisable exception, on every version) and raised in
``__set_name__`` under a handler of ``Exception`` (CPython 3.11 wraps it in a ``RuntimeError``).  Each
loop stops at its next result, a job's error handler hands the interrupt on instead of recording an
error; with the record cleared the same code runs on (shown), so the checks can fail.
"""

from __future__ import annotations

import signal
import sys

import pytest

from fcocheck.solvers import ctrl_c
from fcocheck.verify.sweep.executors import Dask, Pool, Serial
from fcocheck.verify.sweep.session import Job, call_job


@pytest.fixture
def recorded_sigint(monkeypatch):
    """The command line's handler in place (as ``cli.main`` installs it), put back after; unraisable
    exceptions (the dropped interrupt) not printed."""
    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: None)
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    ctrl_c.install()
    assert signal.getsignal(signal.SIGINT) is ctrl_c._handler
    yield
    ctrl_c.restore()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler and not ctrl_c.seen()
    signal.signal(signal.SIGINT, old)


class _Dropped:
    def __del__(self) -> None:
        signal.raise_signal(signal.SIGINT)
        sum(range(10))  # a few bytecodes: the handler runs here, inside __del__


class _Field:
    def __set_name__(self, owner: type, name: str) -> None:
        signal.raise_signal(signal.SIGINT)


def _drop_an_interrupt() -> None:
    """Ctrl-C inside ``__del__``: Python reports it as unraisable and goes on."""
    _Dropped()


def _wrap_an_interrupt() -> None:
    """Ctrl-C while a class is defined, under a handler of ``Exception`` (3.12+: raised as itself)."""
    try:
        class Defined:  # noqa: F841 - defining it is the point
            field = _Field()
    except Exception:
        pass


def _square(x: int) -> int:
    return x * x


LOSERS = {"__del__": _drop_an_interrupt, "__set_name__": _wrap_an_interrupt}


EXECUTORS = {"serial": Serial, "pool": lambda: Pool(2), "dask": lambda: Dask(local=1)}


@pytest.mark.parametrize(("executor", "lose"), [("serial", "__del__"), ("serial", "__set_name__"),
                                                ("pool", "__del__"), ("dask", "__del__")])
def test_an_interrupt_gone_astray_stops_the_loop_at_its_next_result(recorded_sigint, executor, lose):
    ex = EXECUTORS[executor]()
    got, at = [], None
    try:
        with pytest.raises(KeyboardInterrupt):
            for item, result in ex.imap(_square, range(50)):
                got.append(result)
                if item == 2:  # results come in any order from a pool
                    at = len(got)
                    LOSERS[lose]()
        assert ctrl_c.seen() and at is not None
        assert at <= len(got) <= at + 2 * ex.workers, (at, got)  # at most what had finished with it
    finally:
        ex.close()


def test_without_the_record_the_dropped_interrupt_is_lost(recorded_sigint):
    got = []
    for item, result in Serial().imap(_square, range(50)):
        got.append(result)
        if item == 2:
            _drop_an_interrupt()
            ctrl_c.forget()  # what the loop would see without the record
    assert len(got) == 50


def _job_that_meets_an_interrupt() -> dict:
    _drop_an_interrupt()
    raise RuntimeError("an error after the Ctrl-C (or the Ctrl-C itself, wrapped)")


def test_a_jobs_error_handler_hands_a_recorded_interrupt_on(recorded_sigint, monkeypatch):
    job = Job("j", _job_that_meets_an_interrupt, ())
    with pytest.raises(KeyboardInterrupt):
        call_job(job)
    monkeypatch.setattr(ctrl_c, "check", lambda: None)  # the handler without its check
    payload, _ = call_job(job)
    assert payload["status"] == "error" and ctrl_c.seen()  # the interrupt stored as the job's error


def test_the_handler_is_not_put_over_an_ignored_sigint():
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        ctrl_c.install()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        ctrl_c.restore()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, old)


def _body_that_meets_an_interrupt(quick: bool, seed: int) -> None:
    _drop_an_interrupt()
    raise RuntimeError("an error after the Ctrl-C (or the Ctrl-C itself, wrapped)")


def test_an_experiment_does_not_record_an_interrupt_as_its_result(recorded_sigint, monkeypatch):
    from fcocheck.verify.experiments.base import Experiment

    exp = Experiment("e", "t", "s", _body_that_meets_an_interrupt)
    with pytest.raises(KeyboardInterrupt):
        exp()
    monkeypatch.setattr(ctrl_c, "check", lambda: None)  # the handler without its check
    assert exp().status == "error"  # the interrupt stored as an "error" verdict, reused on resume


def test_an_interrupted_measurement_is_not_a_result(monkeypatch):
    """A worst-case point's measured run that Ctrl-C stopped raises: no payload to store and reuse."""
    import importlib

    from fcocheck.verify import worstcase

    engine_run = importlib.import_module("fcocheck.solvers.engine.run")
    real = engine_run.run

    def stopped(*args, **kwargs):
        trace = real(*args, **{**kwargs, "rounds": 1})
        trace.meta["status"] = "interrupted"
        return trace

    job = next(j for j in worstcase.plan_jobs(["fco-4.3"], True, cap=worstcase.REPORT_STEPS)
               if j.fn is worstcase.measured_job)
    assert worstcase.measured_job(*job.args)["status"] == "completed"  # the same point, not stopped
    monkeypatch.setattr(engine_run, "run", stopped)
    with pytest.raises(KeyboardInterrupt):
        worstcase.measured_job(*job.args)


def test_a_run_stops_at_the_round_after_an_interrupt_gone_astray(recorded_sigint):
    """The engine reads the record before each round: the run ends ``interrupted`` with the rounds it
    completed (the one that met the interrupt included), the same as the uninterrupted run's first ones."""
    import dataclasses

    import numpy as np

    from fcocheck.solvers import algorithms
    from fcocheck.solvers.engine import run
    from fcocheck.solvers.generators import generate

    p = generate("lasso-paper", clients=4, samples=8, d=6, nnz=2)
    base, calls = algorithms.get("feddualavg"), {"n": 0}

    def round_that_drops_an_interrupt(state, hp, env, rng, clients):
        calls["n"] += 1
        if calls["n"] == 4:
            _drop_an_interrupt()
        return base.round(state, hp, env, rng, clients)

    t = run(dataclasses.replace(base, round=round_that_drops_an_interrupt), p, {"eta_c": 0.05}, rounds=10,
            reference=False, metrics_every=1)
    assert t.status == "interrupted" and t.meta["completed"] == 4, t.meta
    ctrl_c.forget()  # (a recorded Ctrl-C stops every later run of the command at its first round)
    four = run("feddualavg", p, {"eta_c": 0.05}, rounds=4, reference=False, metrics_every=1)
    np.testing.assert_array_equal(t["server_w"], four["server_w"])
