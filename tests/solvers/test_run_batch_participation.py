"""Partial participation batched: each run draws its own S_r, and every trace is the run alone's, bit for bit.

``run_batch(..., participation=P)`` advances dual and primal cards whose runs sample P of their M clients
each round from their own sampling stream (``engine.sampler``): the round's stacked kernel holds the
sampled rows of every run, p̃ over each run's S_r.  FedCanon with P < M (its controls of the clients not
sampled stay) runs alone.  A one-ulp step change that must show (in that run only) and a run diverging
mid-batch: ``test_run_batch_common.py``.
"""

from __future__ import annotations

import pytest

from fcocheck.solvers.engine.batch import batch_groups, run_batch
from fcocheck.solvers.engine.run import prepare
from tests.solvers.batch_bits import all_differences, alone, differences, instances, together, twice_first

ROUNDS = 9


@pytest.fixture(scope="module", params=["ball", "logistic-6"])
def sampled_instances(request):
    return twice_first(*instances(request.param))  # instance 0 twice: two seeds on it


@pytest.mark.parametrize("algorithm", ["feddualavg", "feddualavg-osp", "fedmid", "fedavg"])
@pytest.mark.parametrize("oracle", ["exact", "gaussian:0.5"])
@pytest.mark.parametrize("P", [1, 4])
def test_same_bits_as_alone(sampled_instances, algorithm, oracle, P):
    problems, refs = sampled_instances
    hps = [{"eta_c": 0.05, "local_steps": 3}, {"eta_c": 0.02, "local_steps": 3},
           {"eta_c": 0.05, "eta_s": 0.5, "local_steps": 3}, {"eta_c": 0.05, "local_steps": 3}]
    seeds = [0, 1, 2, 7]
    got = together(algorithm, problems, hps, seeds, refs, oracle, ROUNDS, participation=P)
    want = alone(algorithm, problems, hps, seeds, refs, oracle, ROUNDS, participation=P)
    assert all_differences(got, want) == [[]] * 4
    assert all(t.arrays["sampled"].shape == (t.meta["completed"], P) for t in got)
    assert len({t.arrays["sampled"].tobytes() for t in got}) > 1  # each run its own S_r


def test_another_seed_draws_other_clients(sampled_instances):
    """The sampling stream is the run's own: a batch run under seed 1 is not the run alone under seed 0."""
    problems, refs = sampled_instances
    hp = {"eta_c": 0.05, "local_steps": 2}
    got = together("fedmid", problems[:2], [hp, hp], [1, 5], refs[:2], "exact", ROUNDS, participation=2)
    want = alone("fedmid", problems[:1], [hp], [0], refs[:1], "exact", ROUNDS, participation=2)
    assert {"sampled", "server_w"} <= set(differences(got[0], want[0]))


def test_fedcanon_with_partial_participation_runs_alone():
    ps, refs = (x[:2] for x in instances("ball"))
    hp = {"eta_l": 0.05, "local_steps": 2}
    setups = [prepare("fedcanon", p, hp, 5, "exact", 3, "round", r, None, "auto")
              for p, r in zip(ps, refs, strict=True)]
    assert batch_groups(setups, ps) == ([], [0, 1])
    got = run_batch("fedcanon", ps, [hp, hp], 5, [0, 1], "exact", refs, participation=3)
    want = alone("fedcanon", ps, [hp, hp], [0, 1], refs, "exact", 5, participation=3)
    assert all_differences(got, want) == [[]] * 2
