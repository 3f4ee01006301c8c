"""What a batched method owes, one table over the methods (``run_batch`` against ``run`` alone).

* A run diverging mid-batch stops at the round it stops at alone; the others go on, every byte theirs.
* A one-ulp change of one run's step inside the batch shows, in that run only: the comparison is not
  vacuous (and the arrays it must reach are named).
* Runs from their own start points (Thm 4.1's speed-up study starts at w* + u), with sparse metrics.

Each row keeps its method's own class, steps, oracle and rounds; a method's specific cases (its K, b, τ,
maps, clients, what runs alone) are in its own file.  Every batched method has its rows: FedDualAvg
(all clients and P of them), FedDualAvg-OSP, FedCanon, FedMiD-avg, FedMiD (P of them too), FedAvg,
FedMiD-OSP, ZA1.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.solvers.batch_bits import all_differences, alone, instances, together, twice_first

#: method, participation, the step's name, its three values (the second explodes), class, oracle, rounds
DIVERGING = [
    ("feddualavg", None, "eta_c", (0.05, 3.5, 0.1), "free", "exact", 40),
    ("fedcanon", None, "eta_l", (0.1, 2.5, 0.3), "canon", "gaussian:0.5", 40),
    ("fedmid-avg", None, "eta_c", (0.04, 4.0, 0.08), "curse", "gaussian:0.5", 60),
    ("fedmid", None, "eta_c", (0.04, 4.0, 0.08), "curse", "gaussian:0.5", 60),
    ("fedavg", None, "eta_c", (0.04, 4.0, 0.08), "curse", "gaussian:0.5", 60),
    ("fedmid-osp", None, "eta_c", (0.04, 4.0, 0.08), "curse", "gaussian:0.5", 60),
    ("feddualavg-osp", None, "eta_c", (0.05, 3.5, 0.1), "free", "exact", 40),
    ("za1", None, "eta", (0.05, 3.5, 0.1), "free", "exact", 40),
    ("feddualavg", 3, "eta_c", (0.05, 3.5, 0.1), "free", "exact", 40),
    ("fedmid", 3, "eta_c", (0.05, 3.5, 0.1), "free", "exact", 40),
]


@pytest.mark.parametrize(("method", "P", "step", "values", "cls", "oracle", "rounds"), DIVERGING)
def test_a_run_diverging_mid_batch_is_frozen_the_others_go_on(method, P, step, values, cls, oracle, rounds):
    problems, _ = instances(cls, references=False)
    hps = [{step: eta, "local_steps": 3} for eta in values]
    refs = [False] * 3
    got = together(method, problems, hps, [0, 1, 2], refs, oracle, rounds, participation=P)
    want = alone(method, problems, hps, [0, 1, 2], refs, oracle, rounds, participation=P)
    assert [t.status for t in got] == [t.status for t in want] == ["completed", "diverged", "completed"]
    assert 1 < got[1].meta["diverged_at"] < rounds  # in the middle of the batch's rounds
    assert got[1].meta["diverged_at"] == want[1].meta["diverged_at"]
    assert all_differences(got, want) == [[]] * 3


#: method, participation, step, its value, class, instance 0 twice, oracle, rounds, what must show
ONE_ULP = [
    ("feddualavg", None, "eta_c", 0.05, "ball", False, "exact", 12,
     {"server_w", "server_z", "objective", "meta.hyper"}),
    ("fedcanon", None, "eta_l", 0.1, "canon", False, "gaussian:1.0", 15,
     {"server_w", "objective", "control_sum", "meta.hyper"}),
    *[("fedmid-avg", None, "eta_c", 0.04, "curse", False, oracle, 12, {"server_w", "objective", "meta.hyper"})
      for oracle in ("exact", "gaussian:1.0")],
    *[(m, None, "eta_c", 0.04, "curse", False, "gaussian:1.0", 12, {"server_w", "objective", "meta.hyper"})
      for m in ("fedmid", "fedavg", "fedmid-osp")],
    ("feddualavg-osp", None, "eta_c", 0.05, "ball", False, "exact", 12,
     {"server_w", "server_z", "objective", "meta.hyper"}),
    *[("za1", None, "eta", 0.05, cls, True, "gaussian:0.5", 8, {"server_w", "meta.hyper"})
      for cls in ("ball", "l1", "logistic")],
    *[("feddualavg", 2, "eta_c", 0.05, cls, True, "gaussian:0.5", 9, {"server_w", "server_z", "meta.hyper"})
      for cls in ("ball", "logistic-6")],
]


@pytest.mark.parametrize(("method", "P", "step", "value", "cls", "twice", "oracle", "rounds", "shows"),
                         ONE_ULP)
def test_the_comparison_fails_when_one_run_differs(method, P, step, value, cls, twice, oracle, rounds, shows):
    """Run 1's step one ulp larger inside the batch: that run, and only it, differs from alone."""
    problems, refs = twice_first(*instances(cls)) if twice else instances(cls)
    hps = [{step: value, "local_steps": 3} for _ in problems]
    changed = [dict(h) for h in hps]
    changed[1][step] = np.nextafter(value, 1.0)
    seeds = list(range(len(problems)))
    got = together(method, problems, changed, seeds, refs, oracle, rounds, participation=P)
    want = alone(method, problems, hps, seeds, refs, oracle, rounds, participation=P)
    diffs = all_differences(got, want)
    assert [d for i, d in enumerate(diffs) if i != 1] == [[]] * (len(problems) - 1)
    assert shows <= set(diffs[1]), diffs[1]


#: method, hyper-parameters, class, metrics every, rounds (15 = 3·4 + 3, 10: the last round's forced metrics)
START = [
    ("feddualavg", {"eta_c": 0.05, "eta_s": 2.0, "local_steps": 2}, "ball", 1, 12),
    ("fedcanon", {"eta_l": 0.1, "local_steps": 3}, "canon", 4, 15),
    ("fedmid-avg", {"eta_c": 0.04, "local_steps": 3}, "curse", 4, 12),
    ("za1", {"eta": 0.05, "local_steps": 3}, "l1", 4, 10),
]


@pytest.mark.parametrize(("method", "hp", "cls", "every", "rounds"), START)
def test_start_points_and_metrics_every(method, hp, cls, every, rounds):
    """Each run from its own w0 = w*ᵢ + 0.1(i + 1), metrics every ``every`` rounds, the Gaussian oracle."""
    problems, refs = instances(cls)
    w0s = [r.w + 0.1 * (i + 1) for i, r in enumerate(refs)]
    hps = [hp] * 3
    args = (method, problems, hps, [0, 1, 2], refs, "gaussian:0.5", rounds)
    got = together(*args, metrics_every=every, w0s=w0s)
    want = alone(*args, metrics_every=every, w0s=w0s)
    assert all_differences(got, want) == [[]] * 3
