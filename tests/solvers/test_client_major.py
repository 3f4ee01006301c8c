"""The client-major schedule (``primitives.client_major``) reproduces the step-by-step schedule bit
for bit, is used exactly when it is exact, and the comparison can fail."""

from __future__ import annotations

import numpy as np
import pytest

import fcocheck.solvers.algorithms.primitives as prim
from fcocheck.solvers.algorithms import fused_steps
from fcocheck.solvers.engine import run
from fcocheck.solvers.engine.run import prepare
from fcocheck.solvers.generators import generate
from fcocheck.solvers.kernels import BLOCK, Kernel

FAMILY = {
    "feddualavg": {"eta_c": 0.05, "local_steps": 4},
    "feddualavg-osp": {"eta_c": 0.05, "local_steps": 3, "eta_s": 0.7},
    "fedavg": {"eta_c": 0.05, "local_steps": 3},
    "fedavg-subgrad": {"eta_c": 0.02, "local_steps": 2},
    "fedmid": {"eta_c": 0.05, "local_steps": 3},
    "fedmid-avg": {"eta_c": 0.05, "local_steps": 2},
    "fedmid-osp": {"eta_c": 0.05, "local_steps": 3},
}


@pytest.fixture(scope="module")
def many():
    """More than two blocks of tiny clients, the last one partial (2·BLOCK + 77)."""
    return generate("lasso-paper", clients=2 * BLOCK + 77, samples=6, d=7, nnz=3, seed=4)


def _trace(alg, problem, hp, schedule, monkeypatch, **kw):
    """A 3-round trace on ``schedule`` and how many rounds took a client-major path (numpy or compiled).

    ``fused``: as the engine runs (the compiled pass where ``prim.fused`` allows); ``client``: the numpy
    client-major schedule (compiled pass off); ``step``: step by step (both off).
    """
    used = []
    real_numpy = prim.run_client_major
    real_dual, real_primal = fused_steps.dual_trajectory, fused_steps.primal_trajectory

    def spy(real):
        def f(*a, **k):
            used.append(1)
            return real(*a, **k)
        return f

    monkeypatch.setattr(prim, "run_client_major", spy(real_numpy))
    monkeypatch.setattr(fused_steps, "dual_trajectory", spy(real_dual))
    monkeypatch.setattr(fused_steps, "primal_trajectory", spy(real_primal))
    if schedule in ("client", "step"):
        monkeypatch.setattr(prim, "fused", lambda *a: False)
    if schedule == "step":
        monkeypatch.setattr(prim, "client_major", lambda *a: False)
    try:
        return run(alg, problem, hp, rounds=3, reference=False, seed=2, **kw), len(used)
    finally:
        monkeypatch.undo()


def _same(a, b) -> list[str]:
    """Names of the float arrays of two traces that differ in any bit."""
    return [k for k in b.arrays if np.asarray(b.arrays[k]).dtype.kind == "f"
            and not np.array_equal(np.asarray(a.arrays[k]), np.asarray(b.arrays[k]), equal_nan=True)]


@pytest.mark.parametrize("alg", sorted(FAMILY))
@pytest.mark.parametrize("participation", [None, BLOCK + 500])
@pytest.mark.parametrize("schedule", ["fused", "client"])
def test_client_major_rounds_are_the_step_by_step_rounds_bit_for_bit(many, alg, participation, schedule,
                                                                     monkeypatch):
    fast, used = _trace(alg, many, FAMILY[alg], schedule, monkeypatch, participation=participation)
    slow, unused = _trace(alg, many, FAMILY[alg], "step", monkeypatch, participation=participation)
    assert used == 3 and unused == 0  # every round took the client-major path, the other none
    assert _same(fast, slow) == []
    assert np.isfinite(fast.arrays["objective"][-1]) and fast.arrays["discrepancy"].any()


PASS = {"feddualavg": "dual_trajectory", "feddualavg-osp": "dual_trajectory", "fedavg": "primal_trajectory",
        "fedmid": "primal_trajectory", "fedmid-avg": "primal_trajectory", "fedmid-osp": "primal_trajectory"}


@pytest.mark.parametrize("alg", sorted(PASS))
@pytest.mark.parametrize(("clients", "gradient"),
                         [(40, "batched"), (2 * BLOCK + 77, "batched"), (40, "loop")])
def test_the_family_takes_the_compiled_pass_on_dense_squares_clients(alg, clients, gradient, monkeypatch):
    """Dual and primal family: the compiled pass runs every round — from one block of clients on, on
    either gradient strategy — and gives the step-by-step bits."""
    p = generate("lasso-paper", clients=clients, samples=6, d=7, nnz=3, seed=4)
    calls = []
    real = getattr(fused_steps, PASS[alg])
    monkeypatch.setattr(fused_steps, PASS[alg], lambda *a: calls.append(1) or real(*a))
    fast = run(alg, p, FAMILY[alg], rounds=3, reference=False, seed=2, gradient=gradient)
    monkeypatch.undo()
    slow, _ = _trace(alg, p, FAMILY[alg], "step", monkeypatch, gradient=gradient)
    assert len(calls) == 3 and _same(fast, slow) == []
    assert fast.meta["gradient"] == gradient


def test_a_step_without_a_compiled_form_keeps_the_numpy_schedules(monkeypatch):
    """FedAvg's subgradient variant declares no compiled map: neither pass runs."""
    p = generate("lasso-paper", clients=40, samples=6, d=7, nnz=3, seed=4)
    calls = []
    for name in ("dual_trajectory", "primal_trajectory"):
        monkeypatch.setattr(fused_steps, name, lambda *a: calls.append(1))
    run("fedavg-subgrad", p, FAMILY["fedavg-subgrad"], rounds=2, reference=False, seed=2)
    assert calls == []


@pytest.mark.parametrize("schedule", ["fused", "client"])
def test_the_comparison_fails_when_a_block_serves_the_wrong_clients(many, schedule, monkeypatch):
    """Power: blocks that gather the data of their neighbours change the bits, and the check says so."""
    slow, _ = _trace("feddualavg", many, FAMILY["feddualavg"], "step", monkeypatch)
    real = Kernel.block

    def shifted(self, s):
        return real(self, slice(s.start + 1, s.stop + 1) if s.stop < self.size else s)

    real_dense = Kernel.dense_squares

    def rolled(self):  # the compiled pass reads the stacked data directly: each client gets the next's rows
        X, Y = real_dense(self)
        return np.roll(X, -1, axis=0), np.roll(Y, -1, axis=0)

    monkeypatch.setattr(Kernel, "block", shifted)
    monkeypatch.setattr(Kernel, "dense_squares", rolled)
    if schedule == "client":
        monkeypatch.setattr(prim, "fused", lambda *a: False)
    wrong = run("feddualavg", many, FAMILY["feddualavg"], rounds=3, reference=False, seed=2)
    monkeypatch.undo()
    assert "server_w" in _same(wrong, slow)


def test_quadratic_clients_take_the_client_major_path_too(monkeypatch):
    quad = generate("quadratics", clients=BLOCK + 40, d=3, seed=1)
    fast, used = _trace("feddualavg", quad, FAMILY["feddualavg"], "client", monkeypatch)
    slow, _ = _trace("feddualavg", quad, FAMILY["feddualavg"], "step", monkeypatch)
    assert used == 3 and _same(fast, slow) == []


@pytest.mark.parametrize(("oracle", "record", "clients", "want"), [
    ("exact", "round", 2 * BLOCK + 77, True),
    ("gaussian:0", "round", 2 * BLOCK + 77, True),
    ("gaussian:0.1", "round", 2 * BLOCK + 77, False),  # draws in call order
    ("minibatch:2", "round", 2 * BLOCK + 77, False),
    ("exact", "step", 2 * BLOCK + 77, False),  # per-step records need every step of every client
    ("exact", "round", BLOCK, False),  # one block: nothing to gain
])
def test_client_major_only_where_it_is_exact_and_pays(oracle, record, clients, want):
    p = generate("lasso-paper", clients=clients, samples=6, d=7, nnz=3, seed=4)
    s = prepare("feddualavg", p, FAMILY["feddualavg"], 2, oracle, None, record, False, None, "auto")
    assert prim.client_major(s.env, s.env.kernel, 4) is want
    assert prim.client_major(s.env, s.env.kernel, 1) is False  # one local step: no trajectory to split


@pytest.mark.parametrize("mirror", ["euclidean", "pnorm"])
def test_blockwise_discrepancies_are_the_discrepancy_bit_for_bit(mirror):
    from fcocheck.solvers.mirror_maps import Euclidean, PNorm

    h = Euclidean() if mirror == "euclidean" else PNorm(p=1.5)
    rng = np.random.default_rng(5)
    S = 2 * BLOCK + 3
    weights = rng.random(S)
    weights /= weights.sum()
    Zs = rng.standard_normal((3, S, 4))
    got = prim.discrepancies(h, weights, Zs)
    want = [float(weights @ h.dual_norm((weights @ Z)[None, :] - Z) ** 2) for Z in Zs]  # one block
    assert got.tolist() == want and len(set(want)) == 3
    assert [prim.discrepancy(h, weights, Z) for Z in Zs] == want
    Zs[1, -1, 0] += 1e-9  # one client of the last block moved: that step's value moves
    assert prim.discrepancies(h, weights, Zs)[1] != want[1]
