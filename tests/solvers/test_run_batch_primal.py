"""``run_batch`` gives every run of a primal card the bits ``run`` gives it alone (``batched_primal``).

FedAvg, FedMiD, FedMiD-avg and FedMiD-OSP; the batches mix instance draws (the same instance twice with
two seeds), η_c and η_s values, the exact and the Gaussian oracle, K = 1 and K = 3, quadratic clients with
the Euclidean and a diagonal mirror map and logistic clients, and a run that diverges in the middle of its
batch; a one-ulp change of one run's η_c shows the comparison is not vacuous; partial participation runs
alone.
"""

from __future__ import annotations

import numpy as np
import pytest

from fcocheck.solvers.engine.batch import batch_groups, batched_method, run_batch
from fcocheck.solvers.engine.run import prepare, run
from fcocheck.solvers.generators import generate
from fcocheck.solvers.reference import reference_solve
from tests.solvers.test_run_batch import differences
from tests.solvers.test_run_batch_canon import same_bytes

ROUNDS = 12
CARDS = ["fedmid-avg", "fedmid", "fedavg", "fedmid-osp"]


def together(name, problems, hps, seeds, refs, oracle="exact", rounds=ROUNDS):
    """The batch's traces; every run must be in one batch (nothing left to ``run``)."""
    setups = [prepare(name, p, h, rounds, oracle, None, "round", r, None, "auto")
              for p, h, r in zip(problems, hps, refs, strict=True)]
    groups, lone = batch_groups(setups, problems)
    assert lone == [] and len(groups) == 1
    return run_batch(name, problems, hps, rounds, seeds, oracle, refs)


def alone(name, problems, hps, seeds, refs, oracle="exact", rounds=ROUNDS):
    return [run(name, p, h, rounds=rounds, oracle=oracle, seed=s, reference=r)
            for p, h, s, r in zip(problems, hps, seeds, refs, strict=True)]


@pytest.fixture(scope="module")
def quad():
    """FCO's curse-rate class (FedCanon's quadratics, ψ = 0.3‖·‖₁), instance seeds 0, 1, 2."""
    ps = [generate("quadratics", seed=s, clients=8, d=20, zeta=1.0, lam=0.3, mirror="euclidean")
          for s in range(3)]
    return ps, [reference_solve(p) for p in ps]


def test_primal_cards_are_batched():
    from fcocheck.solvers import algorithms
    from fcocheck.verify.experiments.base import batched

    for name in CARDS:
        assert batched_method(algorithms.get(name)) and batched(name), name
    assert not batched("fedavgm") and not batched("fedavg-subgrad")


@pytest.mark.parametrize("name", CARDS)
@pytest.mark.parametrize("oracle", ["exact", "gaussian:1.0"])
@pytest.mark.parametrize("K", [1, 3])
def test_primal_same_bits_as_alone(quad, name, oracle, K):
    problems, refs = quad
    problems, refs = [*problems, problems[0]], [*refs, refs[0]]  # instance 0 twice: two seeds on it
    hps = [{"eta_c": 0.04, "local_steps": K}, {"eta_c": 0.08, "local_steps": K},
           {"eta_c": 0.04, "eta_s": 0.5, "local_steps": K}, {"eta_c": 0.02, "local_steps": K}]
    seeds = [0, 1, 2, 7]
    got = together(name, problems, hps, seeds, refs, oracle)
    want = alone(name, problems, hps, seeds, refs, oracle)
    assert [differences(a, b) for a, b in zip(got, want, strict=True)] == [[]] * 4
    assert all(same_bytes(a, b) for a, b in zip(got, want, strict=True))
    assert all(t.status == "completed" for t in got)
    assert {"client_density", "average_density", "client_support", "discrepancy", "server_w",
            "objective"} <= set(got[0].arrays)
    assert got[0].meta["random"] is (oracle != "exact")


@pytest.mark.parametrize("name", CARDS)
def test_primal_same_bits_diagonal_mirror_and_logistic_clients(name):
    """A diagonal mirror map (∇h, ∇h* and ∇(h + tψ)* row by row), and logistic clients over an ℓ2 ball."""
    cases = [
        ([generate("quadratics", seed=s, clients=6, d=7, zeta=2.0, lam=0.1, diagonal=True, mirror="diagonal")
          for s in range(3)], [{"eta_c": 0.05 * (i + 1), "local_steps": 3} for i in range(3)], "exact"),
        ([generate("constrained-logistic", seed=s, ball="l2", radius=2.0, clients=5, samples=12, d=6)
          for s in range(3)], [{"eta_c": 0.1 * (i + 1), "local_steps": 2} for i in range(3)], "gaussian:1.0"),
    ]
    for problems, hps, oracle in cases:
        refs = [reference_solve(p) for p in problems]
        got = together(name, problems, hps, [3, 4, 5], refs, oracle)
        want = alone(name, problems, hps, [3, 4, 5], refs, oracle)
        assert all(same_bytes(a, b) for a, b in zip(got, want, strict=True)), problems[0].name


@pytest.mark.parametrize("name", ["fedmid-avg", "fedmid"])
def test_primal_run_diverging_mid_batch_is_frozen_the_others_go_on(quad, name):
    problems, _ = quad
    hps = [{"eta_c": eta, "local_steps": 3} for eta in (0.04, 4.0, 0.08)]  # the second explodes
    refs = [False] * 3
    got = together(name, problems, hps, [0, 1, 2], refs, "gaussian:0.5", rounds=60)
    want = alone(name, problems, hps, [0, 1, 2], refs, "gaussian:0.5", rounds=60)
    assert [t.status for t in got] == ["completed", "diverged", "completed"]
    assert 1 < got[1].meta["diverged_at"] < 60
    assert got[1].meta["diverged_at"] == want[1].meta["diverged_at"]
    assert all(same_bytes(a, b) for a, b in zip(got, want, strict=True))


def test_primal_start_points_and_metrics_every(quad):
    problems, refs = quad
    hps = [{"eta_c": 0.04, "local_steps": 3}] * 3
    w0s = [r.w + 0.1 * (i + 1) for i, r in enumerate(refs)]
    got = run_batch("fedmid-avg", problems, hps, ROUNDS, [0, 1, 2], "gaussian:0.5", refs, metrics_every=4,
                    w0s=w0s)
    want = [run("fedmid-avg", p, h, ROUNDS, "gaussian:0.5", seed=s, reference=r, w0=w, metrics_every=4)
            for p, h, s, r, w in zip(problems, hps, [0, 1, 2], refs, w0s, strict=True)]
    assert all(same_bytes(a, b) for a, b in zip(got, want, strict=True))


@pytest.mark.parametrize("oracle", ["exact", "gaussian:1.0"])
def test_primal_comparison_fails_when_one_run_differs(quad, oracle):
    """One run's η_c one ulp larger inside the batch: that run, and only it, differs from alone."""
    problems, refs = quad
    hps = [{"eta_c": 0.04, "local_steps": 3} for _ in problems]
    changed = [dict(h) for h in hps]
    changed[1]["eta_c"] = np.nextafter(0.04, 1.0)
    got = together("fedmid-avg", problems, changed, [0, 1, 2], refs, oracle)
    want = alone("fedmid-avg", problems, hps, [0, 1, 2], refs, oracle)
    assert same_bytes(got[0], want[0]) and same_bytes(got[2], want[2])
    assert not same_bytes(got[1], want[1])
    assert got[1].arrays["server_w"].tobytes() != want[1].arrays["server_w"].tobytes()
    assert {"server_w", "objective", "meta.hyper"} <= set(differences(got[1], want[1]))


def test_primal_not_covered_runs_alone(quad):
    """Per-step records, a K no other run shares, the compiled pass: ``run`` alone (partial participation is
    batched: ``test_run_batch_participation.py``)."""
    problems, refs = quad
    hp = {"eta_c": 0.04, "local_steps": 2}
    setups = [prepare("fedmid-avg", p, hp, 5, "gaussian:1.0", None, "step", r, None, "auto")
              for p, r in zip(problems, refs, strict=True)]
    assert batch_groups(setups, problems) == ([], [0, 1, 2])
    squares = [generate("lasso-paper", clients=4, samples=6, d=5, nnz=2, seed=s) for s in range(2)]
    setups = [prepare("fedmid-avg", p, hp, 5, "exact", None, "round", None, None, "auto") for p in squares]
    assert batch_groups(setups, squares) == ([], [0, 1])  # exact squares clients: the compiled pass alone
    hps = [hp, {**hp, "local_steps": 3}, hp]
    got = run_batch("fedmid-avg", problems, hps, 5, [0, 1, 2], "gaussian:1.0", refs)
    want = alone("fedmid-avg", problems, hps, [0, 1, 2], refs, "gaussian:1.0", rounds=5)
    assert all(same_bytes(a, b) for a, b in zip(got, want, strict=True))
