"""The engine holds BLAS to one thread while it runs (its own pool uses the cores), restores it after,
and the results do not depend on it."""

from __future__ import annotations

import contextlib
import importlib
import threading

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from fcocheck.solvers.blas_threads import serial_blas
from fcocheck.solvers.engine import run
from fcocheck.solvers.generators import generate

# the module (the package exports the function)
engine_run = importlib.import_module("fcocheck.solvers.engine.run")


def blas_threads() -> set[int]:
    return {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}


def spy_run(monkeypatch, problem, serial: bool):
    seen = []
    real = engine_run.sample_clients

    def spy(*a, **k):
        seen.append(blas_threads())
        return real(*a, **k)

    monkeypatch.setattr(engine_run, "sample_clients", spy)
    if not serial:
        monkeypatch.setattr(engine_run, "serial_blas", contextlib.nullcontext)
    try:
        return run("feddualavg", problem, {"eta_c": 0.05, "local_steps": 3}, rounds=3, reference=False,
                   seed=1), seen
    finally:
        monkeypatch.undo()


def test_blas_runs_on_one_thread_inside_a_run_and_is_restored(monkeypatch):
    p = generate("lasso-paper", clients=2100, samples=4, d=100, nnz=5, seed=2)  # weights @ Z: a threaded gemv
    before = blas_threads()
    serial, seen = spy_run(monkeypatch, p, serial=True)
    assert seen and all(s == {1} for s in seen)
    assert blas_threads() == before
    # power: without the limit the rounds see the library's own count (the cores, here > 1)
    free, seen_free = spy_run(monkeypatch, p, serial=False)
    assert all(s == before for s in seen_free) and (max(before) > 1 or len(blas_threads()) == 0)
    # and the bits do not depend on it
    for key, a in serial.arrays.items():
        if np.asarray(a).dtype.kind == "f":
            assert np.array_equal(np.asarray(a), np.asarray(free.arrays[key]), equal_nan=True), key


def counting_scans(monkeypatch) -> list[str | None]:
    """Record every threadpoolctl scan (``threadpool_limits`` made) and the API it limits."""
    import threadpoolctl

    made: list[str | None] = []
    real = threadpoolctl.threadpool_limits

    def spy(limits=None, user_api=None):
        made.append(user_api)
        return real(limits, user_api=user_api)

    monkeypatch.setattr(threadpoolctl, "threadpool_limits", spy)
    return made


def test_a_run_inside_a_job_scans_nothing_and_the_outermost_hold_restores(monkeypatch):
    p = generate("lasso-paper", clients=2100, samples=4, d=100, nnz=5, seed=2)
    before = blas_threads()
    made = counting_scans(monkeypatch)
    with serial_blas(every_api=True):
        assert blas_threads() == {1} and made == [None]
        _, seen = spy_run(monkeypatch, p, serial=True)  # spy_run undoes the monkeypatch at its end
        made = counting_scans(monkeypatch)
        _, seen2 = spy_run(monkeypatch, p, serial=True)
        assert made == []  # the run's own hold found this one: no scan
        assert all(s == {1} for s in seen + seen2) and blas_threads() == {1}  # inner exit restored nothing
    assert blas_threads() == before


def test_the_hold_is_per_thread_and_a_wider_api_inside_scans_again(monkeypatch):
    made = counting_scans(monkeypatch)
    with serial_blas():
        with serial_blas():
            pass
        assert made == ["blas"]
        with serial_blas(every_api=True):  # OpenMP was not held: this one must limit it
            with serial_blas():
                pass
        assert made == ["blas", None]
        other: list[list[str | None]] = []
        t = threading.Thread(target=lambda: other.append(_in_thread(made)))
        t.start()
        t.join()
        assert other == [["blas", None, "blas"]]  # another thread holds nothing yet: it scans


def _in_thread(made: list[str | None]) -> list[str | None]:
    with serial_blas():
        return list(made)


def test_an_error_inside_unwinds_every_hold(monkeypatch):
    before = blas_threads()
    made = counting_scans(monkeypatch)
    with pytest.raises(ValueError, match="inside"):
        with serial_blas(every_api=True), serial_blas():
            raise ValueError("inside")
    assert blas_threads() == before
    with serial_blas():  # depth back at 0: a new outermost hold scans
        pass
    assert made == [None, "blas"] and blas_threads() == before


def test_power_a_hold_that_is_not_reentrant_scans_in_every_run(monkeypatch):
    """The counting above can fail: the earlier serial_blas (a fresh limit per run) scans once per run."""
    from threadpoolctl import threadpool_limits

    p = generate("lasso-paper", clients=2100, samples=4, d=100, nnz=5, seed=2)
    made = counting_scans(monkeypatch)
    monkeypatch.setattr(engine_run, "serial_blas", lambda: __import__("threadpoolctl").threadpool_limits(
        1, user_api="blas"))
    with threadpool_limits(1):
        run("feddualavg", p, {"eta_c": 0.05, "local_steps": 3}, rounds=3, reference=False, seed=1)
    assert made == ["blas"]


def test_holds_closed_out_of_order_leave_no_false_cover(monkeypatch):
    """A generator holding across its ``yield``, closed while a hold it covered is still open: its exit
    restores BLAS, and the next hold does not believe itself covered — it scans and limits again."""
    before = blas_threads()
    made = counting_scans(monkeypatch)

    def holding():
        with serial_blas():
            yield

    g = holding()
    next(g)
    with serial_blas():
        assert made == ["blas"] and blas_threads() == {1}  # covered by the generator's hold
        g.close()  # the scanning hold closes first
        assert blas_threads() == before
    with serial_blas():
        assert made == ["blas", "blas"] and blas_threads() == {1}
    assert blas_threads() == before
