"""``run_batch`` advances ZA1 runs as one computation, each trace the bits ``run`` gives it alone.

The batches mix instance draws, seeds, η and η_g, τ = 1 and 3, the exact and the Gaussian oracle, an ℓ1
penalty (one prox call for every weight) and an ℓ1 ball, quadratic and logistic clients, and a run that
diverges mid-batch; a one-ulp change of one run's η must show in that run only.  Partial participation
and per-step records run alone.
"""

from __future__ import annotations

import numpy as np
import pytest

from fcocheck.solvers.engine.batch import batch_groups, run_batch
from fcocheck.solvers.engine.run import prepare, run
from fcocheck.solvers.generators import generate
from fcocheck.solvers.reference import reference_solve
from tests.solvers.test_run_batch import differences

ROUNDS = 8
CLASSES = {
    "l1": lambda s: generate("quadratics", seed=s, clients=6, d=7, zeta=2.0, lam=0.05),
    "ball": lambda s: generate("quadratics", seed=s, clients=6, d=7, zeta=8.0, hessian_spread=0.5, ball=3.0),
    "logistic": lambda s: generate("constrained-logistic", seed=s, ball="l2", radius=2.0, clients=5,
                                   samples=12, d=6),
}


@pytest.fixture(scope="module", params=sorted(CLASSES))
def instances(request):
    ps = [CLASSES[request.param](s) for s in range(3)]
    return [*ps, ps[0]], [reference_solve(p) for p in (*ps, ps[0])]  # instance 0 twice: two seeds on it


def together(problems, hps, seeds, refs, oracle, rounds=ROUNDS):
    setups = [prepare("za1", p, h, rounds, oracle, None, "round", r, None, "auto")
              for p, h, r in zip(problems, hps, refs, strict=True)]
    groups, lone = batch_groups(setups, problems)
    assert lone == [] and len(groups) == 1
    return run_batch("za1", problems, hps, rounds, seeds, oracle, refs)


def alone(problems, hps, seeds, refs, oracle, rounds=ROUNDS):
    return [run("za1", p, h, rounds=rounds, oracle=oracle, seed=s, reference=r)
            for p, h, s, r in zip(problems, hps, seeds, refs, strict=True)]


@pytest.mark.parametrize("oracle", ["exact", "gaussian:0.5"])
@pytest.mark.parametrize("tau", [1, 3])
def test_same_bits_as_alone(instances, oracle, tau):
    problems, refs = instances
    hps = [{"eta": 0.05, "local_steps": tau}, {"eta": 0.02, "local_steps": tau},
           {"eta": 0.05, "eta_g": 0.5, "local_steps": tau}, {"eta": 0.05, "local_steps": tau}]
    seeds = [0, 1, 2, 7]
    got = together(problems, hps, seeds, refs, oracle)
    want = alone(problems, hps, seeds, refs, oracle)
    assert [differences(a, b) for a, b in zip(got, want, strict=True)] == [[]] * 4
    assert all(t.status == "completed" for t in got)


def test_the_comparison_fails_when_one_run_differs(instances):
    problems, refs = instances
    hps = [{"eta": 0.05, "local_steps": 3} for _ in problems]
    changed = [dict(h) for h in hps]
    changed[1]["eta"] = np.nextafter(0.05, 1.0)
    got = together(problems, changed, [0, 1, 2, 3], refs, "gaussian:0.5")
    want = alone(problems, hps, [0, 1, 2, 3], refs, "gaussian:0.5")
    diffs = [differences(a, b) for a, b in zip(got, want, strict=True)]
    assert diffs[0] == diffs[2] == diffs[3] == []
    assert {"server_w", "meta.hyper"} <= set(diffs[1])


def test_a_run_diverging_mid_batch_is_frozen_the_others_go_on():
    ps = [generate("quadratics", seed=s, clients=6, d=7, zeta=8.0) for s in range(3)]
    hps = [{"eta": eta, "local_steps": 3} for eta in (0.05, 3.5, 0.1)]  # the second explodes
    refs = [False] * 3
    got = together(ps, hps, [0, 1, 2], refs, "exact", rounds=40)
    want = alone(ps, hps, [0, 1, 2], refs, "exact", rounds=40)
    assert [t.status for t in got] == ["completed", "diverged", "completed"]
    assert 1 < got[1].meta["diverged_at"] < 40
    assert [differences(a, b) for a, b in zip(got, want, strict=True)] == [[]] * 3


def test_partial_participation_and_per_step_records_run_alone():
    ps = [CLASSES["l1"](s) for s in range(2)]
    refs = [reference_solve(p) for p in ps]
    hp = {"eta": 0.05, "local_steps": 2}
    for participation, record in ((3, "round"), (None, "step")):
        setups = [prepare("za1", p, hp, 5, "exact", participation, record, r, None, "auto")
                  for p, r in zip(ps, refs, strict=True)]
        assert batch_groups(setups, ps) == ([], [0, 1])
    got = run_batch("za1", ps, [hp, hp], 5, [0, 1], "exact", refs, participation=3)
    want = [run("za1", p, hp, rounds=5, seed=s, reference=r, participation=3)
            for p, s, r in zip(ps, [0, 1], refs, strict=True)]
    assert [differences(a, b) for a, b in zip(got, want, strict=True)] == [[]] * 2
