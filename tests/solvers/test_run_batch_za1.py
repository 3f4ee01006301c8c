"""``run_batch`` advances ZA1 runs as one computation, each trace the bits ``run`` gives it alone.

The batches mix instance draws, seeds, η and η_g, τ = 1 and 3, the exact and the Gaussian oracle, an ℓ1
penalty (one prox call for every weight) and an ℓ1 ball, quadratic and logistic clients.  Partial
participation and per-step records run alone.  A run diverging mid-batch and a one-ulp η change that must
show: ``test_run_batch_common.py``.
"""

from __future__ import annotations

import pytest

from fcocheck.solvers.engine.batch import batch_groups, run_batch
from fcocheck.solvers.engine.run import prepare
from tests.solvers.batch_bits import all_differences, alone, instances, together, twice_first

ROUNDS = 8


@pytest.fixture(scope="module", params=["ball", "l1", "logistic"])
def za1_instances(request):
    return twice_first(*instances(request.param))  # instance 0 twice: two seeds on it


@pytest.mark.parametrize("oracle", ["exact", "gaussian:0.5"])
@pytest.mark.parametrize("tau", [1, 3])
def test_same_bits_as_alone(za1_instances, oracle, tau):
    problems, refs = za1_instances
    hps = [{"eta": 0.05, "local_steps": tau}, {"eta": 0.02, "local_steps": tau},
           {"eta": 0.05, "eta_g": 0.5, "local_steps": tau}, {"eta": 0.05, "local_steps": tau}]
    seeds = [0, 1, 2, 7]
    got = together("za1", problems, hps, seeds, refs, oracle, ROUNDS)
    want = alone("za1", problems, hps, seeds, refs, oracle, ROUNDS)
    assert all_differences(got, want) == [[]] * 4
    assert all(t.status == "completed" for t in got)


def test_partial_participation_and_per_step_records_run_alone():
    ps, refs = (x[:2] for x in instances("l1"))
    hp = {"eta": 0.05, "local_steps": 2}
    for participation, record in ((3, "round"), (None, "step")):
        setups = [prepare("za1", p, hp, 5, "exact", participation, record, r, None, "auto")
                  for p, r in zip(ps, refs, strict=True)]
        assert batch_groups(setups, ps) == ([], [0, 1])
    got = run_batch("za1", ps, [hp, hp], 5, [0, 1], "exact", refs, participation=3)
    want = alone("za1", ps, [hp, hp], [0, 1], refs, rounds=5, participation=3)
    assert all_differences(got, want) == [[]] * 2
