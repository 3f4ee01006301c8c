"""``run_batch`` gives every FedCanon run the bits ``run`` gives it alone (``algorithms.batched_canon``).

The batches mix instance draws (the same instance twice with two seeds), η_l and η_g values (η_g given
or Remark 4's η_l·K), the exact and the Gaussian oracle, K = 1 and K = 3, b = 1 and b = 4, quadratic,
logistic and Cauchy (weakly convex ψ) clients.  A run diverging mid-batch, a one-ulp η_l change that
must show, start points: ``test_run_batch_common.py``.
"""

from __future__ import annotations

import pytest

from fcocheck.solvers.engine.batch import batch_groups, batched_method, run_batch
from fcocheck.solvers.engine.run import prepare, run
from fcocheck.solvers.generators import generate
from fcocheck.solvers.reference import reference_solve
from tests.solvers.batch_bits import all_differences, alone, instances, together, twice_first

ROUNDS = 15


@pytest.fixture(scope="module")
def canon_quad():
    return instances("canon")


def test_fedcanon_is_batched():
    from fcocheck.solvers import algorithms
    from fcocheck.verify.experiments.base import batched

    assert batched_method(algorithms.get("fedcanon")) and batched("fedcanon")
    assert not batched("fedcanon2")


@pytest.mark.parametrize("oracle", ["exact", "gaussian:1.0"])
@pytest.mark.parametrize(("K", "b"), [(1, 1), (3, 1), (2, 4)])
def test_fedcanon_same_bits_as_alone(canon_quad, oracle, K, b):
    problems, refs = twice_first(*canon_quad)
    hps = [{"eta_l": 0.1, "local_steps": K, "b": b}, {"eta_l": 0.2, "local_steps": K, "b": b},
           {"eta_l": 0.1, "eta_g": 0.5, "local_steps": K, "b": b}, {"eta_l": 0.05, "local_steps": K, "b": b}]
    seeds = [0, 1, 2, 7]
    got = together("fedcanon", problems, hps, seeds, refs, oracle, ROUNDS)
    want = alone("fedcanon", problems, hps, seeds, refs, oracle, ROUNDS)
    assert all_differences(got, want) == [[]] * 4
    assert all(t.status == "completed" for t in got)
    assert {"control_sum", "discrepancy", "server_w", "objective", "gap"} <= set(got[0].arrays)
    assert got[0].meta["random"] is (oracle != "exact")


def test_fedcanon_same_bits_ball_logistic_and_weakly_convex_clients():
    """An ℓ1-ball indicator ψ, logistic clients over an ℓ2 ball, Cauchy clients with MCP (FedCanon's
    transient claim's class): the stacked kernel's rows and each ψ's prox row by row."""
    cases = [
        ([generate("quadratics", seed=s, clients=6, d=7, zeta=8.0, hessian_spread=0.5, ball=3.0)
          for s in range(3)], [{"eta_l": 0.05, "local_steps": 3}] * 3, "gaussian:0.5"),
        ([generate("constrained-logistic", seed=s, ball="l2", radius=2.0, clients=5, samples=12, d=6)
          for s in range(3)], [{"eta_l": 0.1 * (i + 1), "local_steps": 2} for i in range(3)], "gaussian:1.0"),
        ([generate("robust-penalized", seed=s, clients=8, samples=32, d=20) for s in range(3)],
         [{"eta_l": 0.05, "local_steps": 2}, {"eta_l": 0.05, "local_steps": 2, "eta_g": 0.2},
          {"eta_l": 0.02, "local_steps": 2}], "exact"),
    ]
    for problems, hps, oracle in cases:
        refs = [reference_solve(p) for p in problems]
        got = together("fedcanon", problems, hps, [3, 4, 5], refs, oracle, ROUNDS)
        want = alone("fedcanon", problems, hps, [3, 4, 5], refs, oracle, ROUNDS)
        assert all_differences(got, want) == [[]] * 3, problems[0].name


def test_fedcanon_not_covered_runs_alone(canon_quad):
    """Per-step records, or a K or b no other run shares: ``run`` alone, the same bits."""
    problems, refs = canon_quad
    hp = {"eta_l": 0.1, "local_steps": 2}
    assert batch_groups([prepare("fedcanon", p, hp, 5, "exact", None, "step", r, None, "auto")
                         for p, r in zip(problems, refs, strict=True)], problems)[0] == []
    hps = [hp, {**hp, "local_steps": 3}, {**hp, "b": 2}]
    setups = [prepare("fedcanon", p, h, 5, "exact", None, "round", r, None, "auto")
              for p, h, r in zip(problems, hps, refs, strict=True)]
    assert batch_groups(setups, problems) == ([], [0, 1, 2])
    got = run_batch("fedcanon", problems, hps, 5, [0, 1, 2], "exact", refs)
    want = alone("fedcanon", problems, hps, [0, 1, 2], refs, rounds=5)
    assert all_differences(got, want) == [[]] * 3
    got = run_batch("fedcanon", problems, [hp] * 3, 5, [0, 1, 2], "exact", refs, record="step")
    want = [run("fedcanon", p, hp, 5, seed=s, reference=r, record="step")
            for p, s, r in zip(problems, [0, 1, 2], refs, strict=True)]
    assert all_differences(got, want) == [[]] * 3


@pytest.mark.parametrize(("cls", "oracle"), [("quadratics", "exact"), ("quadratics", "gaussian:0.5"),
                                            *[("constrained-logistic", o)
                                              for o in ("exact", "gaussian:0.5", "minibatch:2")]])
def test_fedcanon_one_client_same_bits(cls, oracle):
    """M = 1: the run alone's start is one contiguous row (not column-major); the batch's rows the same."""
    params = ({"clients": 1, "d": 6, "zeta": 1.0, "lam": 0.01} if cls == "quadratics"
              else {"clients": 1, "samples": 12, "d": 5, "ball": "l2", "radius": 2.0})
    problems = [generate(cls, seed=s, **params) for s in range(3)]
    refs = [reference_solve(p) for p in problems]
    hps = [{"eta_l": 0.05 * (i + 1), "local_steps": 3, "b": 3} for i in range(3)]
    got = together("fedcanon", problems, hps, [0, 1, 2], refs, oracle, ROUNDS)
    want = alone("fedcanon", problems, hps, [0, 1, 2], refs, oracle, ROUNDS)
    assert all_differences(got, want) == [[]] * 3
