"""The engine holds BLAS to one thread while it runs (its own pool uses the cores), restores it after,
and the results do not depend on it."""

from __future__ import annotations

import contextlib
import importlib

import numpy as np
from threadpoolctl import threadpool_info

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
