"""``run_batch`` gives every run of a primal card the bits ``run`` gives it alone (``batched_primal``).

FedAvg, FedMiD, FedMiD-avg and FedMiD-OSP; the batches mix instance draws (the same instance twice with
two seeds), η_c and η_s values, the exact and the Gaussian oracle, K = 1 and K = 3, quadratic clients with
the Euclidean and a diagonal mirror map and logistic clients.  A run diverging mid-batch, a one-ulp η_c
change that must show, start points: ``test_run_batch_common.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from fcocheck.solvers.algorithms import batched_dual
from fcocheck.solvers.engine.batch import batch_groups, batched_method, run_batch
from fcocheck.solvers.engine.run import prepare
from fcocheck.solvers.generators import generate
from fcocheck.solvers.reference import reference_solve
from tests.solvers.batch_bits import all_differences, alone, instances, together, twice_first

CARDS = ["fedmid-avg", "fedmid", "fedavg", "fedmid-osp"]


@pytest.fixture(scope="module")
def quad():
    return instances("curse")


def test_primal_cards_are_batched():
    from fcocheck.solvers import algorithms
    from fcocheck.verify.experiments.base import batched

    for name in CARDS:
        assert batched_method(algorithms.get(name)) and batched(name), name
    assert batched("fedavgm") and not batched("fedavg-subgrad")  # a Trace server batches, a subgradient not


@pytest.mark.parametrize("name", CARDS)
@pytest.mark.parametrize("oracle", ["exact", "gaussian:1.0"])
@pytest.mark.parametrize("K", [1, 3])
def test_primal_same_bits_as_alone(quad, name, oracle, K):
    problems, refs = twice_first(*quad)
    hps = [{"eta_c": 0.04, "local_steps": K}, {"eta_c": 0.08, "local_steps": K},
           {"eta_c": 0.04, "eta_s": 0.5, "local_steps": K}, {"eta_c": 0.02, "local_steps": K}]
    seeds = [0, 1, 2, 7]
    got = together(name, problems, hps, seeds, refs, oracle)
    want = alone(name, problems, hps, seeds, refs, oracle)
    assert all_differences(got, want) == [[]] * 4
    assert all(t.status == "completed" for t in got)
    assert {"client_density", "average_density", "client_support", "discrepancy", "server_w",
            "objective"} <= set(got[0].arrays)
    assert got[0].meta["random"] is (oracle != "exact")


@pytest.mark.parametrize(("oracle", "P"), [("exact", None), ("gaussian:1.0", None), ("exact", 2)])
def test_fedavgm_same_bits_as_alone_each_run_its_own_momentum(quad, oracle, P, monkeypatch):
    """FedAvgM (server momentum v ← βv + Δ, w ← w + η_s v): β, η_c, η_s and the seed differ run by run, one
    run at β = 0 (FedAvg's numbers); each run's buffer is its own row.  Shown to fail: the batch's server
    transforms reading the first run's hyper-parameters for every run — the comparison names server_w in
    each run whose β or η_s differs from the first's."""
    problems, refs = twice_first(*quad)
    hps = [{"eta_c": 0.04, "beta": 0.9, "local_steps": 2}, {"eta_c": 0.08, "beta": 0.5, "local_steps": 2},
           {"eta_c": 0.04, "eta_s": 0.5, "beta": 0.0, "local_steps": 2},
           {"eta_c": 0.02, "beta": 0.7, "local_steps": 2}]
    seeds = [0, 1, 2, 7]
    got = together("fedavgm", problems, hps, seeds, refs, oracle, participation=P)
    want = alone("fedavgm", problems, hps, seeds, refs, oracle, participation=P)
    assert all_differences(got, want) == [[]] * 4
    first = batched_dual.RunColumns.__getattr__
    monkeypatch.setattr(batched_dual.RunColumns, "__getattr__",
                        lambda self, name: np.repeat(first(self, name)[:1], len(self._hps), axis=0))
    wrong = together("fedavgm", problems, hps, seeds, refs, oracle, participation=P)
    assert ["server_w" in d for d in all_differences(wrong, want)] == [False, True, True, True]


def test_fedavgm_run_diverging_mid_batch_leaves_with_its_buffer():
    """The middle run explodes at a round > 1 (its buffer already a row): it stops where it stops alone and
    the others' buffers stay theirs (``select_states``)."""
    problems, _ = instances("curse", references=False)
    hps = [{"eta_c": eta, "beta": 0.9, "local_steps": 3} for eta in (0.04, 4.0, 0.08)]
    refs = [False] * 3
    got = together("fedavgm", problems, hps, [0, 1, 2], refs, "gaussian:0.5", 60)
    want = alone("fedavgm", problems, hps, [0, 1, 2], refs, "gaussian:0.5", 60)
    assert [t.status for t in got] == [t.status for t in want] == ["completed", "diverged", "completed"]
    assert 1 < got[1].meta["diverged_at"] == want[1].meta["diverged_at"] < 60
    assert all_differences(got, want) == [[]] * 3


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
        assert all_differences(got, want) == [[]] * 3, problems[0].name


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
    assert all_differences(got, want) == [[]] * 3
