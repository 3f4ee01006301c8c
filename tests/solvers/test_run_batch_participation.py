"""Partial participation batched: each run draws its own S_r, and every trace is the run alone's, bit for bit.

``run_batch(..., participation=P)`` advances dual and primal cards whose runs sample P of their M clients
each round from their own sampling stream (``engine.sampler``): the round's stacked kernel holds the
sampled rows of every run, p̃ over each run's S_r.  The comparisons take every array and meta entry but
the wall time (``test_run_batch.differences``); a one-ulp change of one run's step must show, in that run
only; a run diverging mid-batch leaves it at its round; FedCanon with P < M (its controls of the clients
not sampled stay) runs alone.
"""

from __future__ import annotations

import numpy as np
import pytest

from fcocheck.solvers.engine.batch import batch_groups, run_batch
from fcocheck.solvers.engine.run import prepare, run
from fcocheck.solvers.generators import generate
from fcocheck.solvers.reference import reference_solve
from tests.solvers.test_run_batch import differences

ROUNDS = 9
CLASSES = {
    "quadratics": lambda s: generate("quadratics", seed=s, clients=6, d=7, zeta=8.0, hessian_spread=0.5,
                                     ball=3.0),
    "logistic": lambda s: generate("constrained-logistic", seed=s, ball="l2", radius=2.0, clients=6,
                                   samples=12, d=5),
}


@pytest.fixture(scope="module", params=sorted(CLASSES))
def instances(request):
    ps = [CLASSES[request.param](s) for s in range(3)]
    return [*ps, ps[0]], [reference_solve(p) for p in (*ps, ps[0])]  # instance 0 twice: two seeds on it


def together(algorithm, problems, hps, seeds, refs, oracle, P, rounds=ROUNDS):
    """``run_batch``'s traces, every run in one batch (asserted)."""
    setups = [prepare(algorithm, p, h, rounds, oracle, P, "round", r, None, "auto")
              for p, h, r in zip(problems, hps, refs, strict=True)]
    groups, lone = batch_groups(setups, problems)
    assert lone == [] and len(groups) == 1
    return run_batch(algorithm, problems, hps, rounds, seeds, oracle, refs, participation=P)


def alone(algorithm, problems, hps, seeds, refs, oracle, P, rounds=ROUNDS):
    return [run(algorithm, p, h, rounds=rounds, oracle=oracle, seed=s, reference=r, participation=P)
            for p, h, s, r in zip(problems, hps, seeds, refs, strict=True)]


@pytest.mark.parametrize("algorithm", ["feddualavg", "feddualavg-osp", "fedmid", "fedavg"])
@pytest.mark.parametrize("oracle", ["exact", "gaussian:0.5"])
@pytest.mark.parametrize("P", [1, 4])
def test_same_bits_as_alone(instances, algorithm, oracle, P):
    problems, refs = instances
    hps = [{"eta_c": 0.05, "local_steps": 3}, {"eta_c": 0.02, "local_steps": 3},
           {"eta_c": 0.05, "eta_s": 0.5, "local_steps": 3}, {"eta_c": 0.05, "local_steps": 3}]
    seeds = [0, 1, 2, 7]
    got = together(algorithm, problems, hps, seeds, refs, oracle, P)
    want = alone(algorithm, problems, hps, seeds, refs, oracle, P)
    assert [differences(a, b) for a, b in zip(got, want, strict=True)] == [[]] * 4
    assert all(t.arrays["sampled"].shape == (t.meta["completed"], P) for t in got)
    assert len({t.arrays["sampled"].tobytes() for t in got}) > 1  # each run its own S_r


def test_the_comparison_fails_when_one_run_differs(instances):
    """One run's η_c one ulp off inside the batch: that run, and only it, differs from alone."""
    problems, refs = instances
    hps = [{"eta_c": 0.05, "local_steps": 3} for _ in problems]
    changed = [dict(h) for h in hps]
    changed[1]["eta_c"] = np.nextafter(0.05, 1.0)
    got = together("feddualavg", problems, changed, [0, 1, 2, 3], refs, "gaussian:0.5", 2)
    want = alone("feddualavg", problems, hps, [0, 1, 2, 3], refs, "gaussian:0.5", 2)
    diffs = [differences(a, b) for a, b in zip(got, want, strict=True)]
    assert diffs[0] == diffs[2] == diffs[3] == []
    assert {"server_w", "server_z", "meta.hyper"} <= set(diffs[1])


def test_another_seed_draws_other_clients(instances):
    """The sampling stream is the run's own: a batch run under seed 1 is not the run alone under seed 0."""
    problems, refs = instances
    hp = {"eta_c": 0.05, "local_steps": 2}
    got = together("fedmid", problems[:2], [hp, hp], [1, 5], refs[:2], "exact", 2)
    want = alone("fedmid", problems[:1], [hp], [0], refs[:1], "exact", 2)
    assert {"sampled", "server_w"} <= set(differences(got[0], want[0]))


@pytest.mark.parametrize("algorithm", ["feddualavg", "fedmid"])
def test_a_run_diverging_mid_batch_is_frozen_the_others_go_on(algorithm):
    ps = [generate("quadratics", seed=s, clients=6, d=7, zeta=8.0) for s in range(3)]
    hps = [{"eta_c": eta, "local_steps": 3} for eta in (0.05, 3.5, 0.1)]  # the second explodes
    refs = [False] * 3
    got = together(algorithm, ps, hps, [0, 1, 2], refs, "exact", 3, rounds=40)
    want = alone(algorithm, ps, hps, [0, 1, 2], refs, "exact", 3, rounds=40)
    assert [t.status for t in got] == ["completed", "diverged", "completed"]
    assert 1 < got[1].meta["diverged_at"] < 40
    assert [differences(a, b) for a, b in zip(got, want, strict=True)] == [[]] * 3


def test_fedcanon_with_partial_participation_runs_alone():
    ps = [CLASSES["quadratics"](s) for s in range(2)]
    refs = [reference_solve(p) for p in ps]
    hp = {"eta_l": 0.05, "local_steps": 2}
    setups = [prepare("fedcanon", p, hp, 5, "exact", 3, "round", r, None, "auto")
              for p, r in zip(ps, refs, strict=True)]
    assert batch_groups(setups, ps) == ([], [0, 1])
    got = run_batch("fedcanon", ps, [hp, hp], 5, [0, 1], "exact", refs, participation=3)
    want = alone("fedcanon", ps, [hp, hp], [0, 1], refs, "exact", 3, rounds=5)
    assert [differences(a, b) for a, b in zip(got, want, strict=True)] == [[]] * 2
