"""``run_batch`` gives every FedCanon run the bits ``run`` gives it alone (``algorithms.batched_canon``).

The batches mix instance draws (the same instance twice with two seeds), η_l and η_g values (η_g given
or Remark 4's η_l·K), the exact and the Gaussian oracle, K = 1 and K = 3, b = 1 and b = 4, quadratic,
logistic and Cauchy (weakly convex ψ) clients, and a run that diverges in the middle of its batch; a
one-ulp change of one run's η_l shows the comparison is not vacuous.
"""

from __future__ import annotations

import numpy as np
import pytest

from fcocheck.solvers.engine.batch import batch_groups, batched_method, run_batch
from fcocheck.solvers.engine.run import prepare, run
from fcocheck.solvers.generators import generate
from fcocheck.solvers.reference import reference_solve
from tests.solvers.test_run_batch import differences

ROUNDS = 15


def together(problems, hps, seeds, refs, oracle="exact", rounds=ROUNDS):
    """The batch's traces; every run must be in one batch (nothing left to ``run``)."""
    setups = [prepare("fedcanon", p, h, rounds, oracle, None, "round", r, None, "auto")
              for p, h, r in zip(problems, hps, refs, strict=True)]
    groups, lone = batch_groups(setups, problems)
    assert lone == [] and len(groups) == 1
    return run_batch("fedcanon", problems, hps, rounds, seeds, oracle, refs)


def alone(problems, hps, seeds, refs, oracle="exact", rounds=ROUNDS):
    return [run("fedcanon", p, h, rounds=rounds, oracle=oracle, seed=s, reference=r)
            for p, h, s, r in zip(problems, hps, seeds, refs, strict=True)]


def same_bytes(a, b) -> bool:
    """Every array of two traces byte for byte (``tobytes``), and the meta but the wall time."""
    if set(a.arrays) != set(b.arrays):
        return False
    arrays = all(a.arrays[k].shape == b.arrays[k].shape and a.arrays[k].dtype == b.arrays[k].dtype
                 and a.arrays[k].tobytes() == b.arrays[k].tobytes() for k in a.arrays)
    meta = {k: v for k, v in a.meta.items() if k != "seconds"} == \
        {k: v for k, v in b.meta.items() if k != "seconds"}
    return arrays and meta


@pytest.fixture(scope="module")
def canon_quad():
    """FedCanon's class (``verify.classes.FEDCANON_QUADRATICS``, ℓ1 ψ), instance seeds 0, 1, 2."""
    ps = [generate("quadratics", seed=s, clients=8, d=20, zeta=1.0, lam=0.01, mirror="euclidean")
          for s in range(3)]
    return ps, [reference_solve(p) for p in ps]


def test_fedcanon_is_batched():
    from fcocheck.solvers import algorithms
    from fcocheck.verify.experiments.base import batched

    assert batched_method(algorithms.get("fedcanon")) and batched("fedcanon")
    assert not batched("fedcanon2")


@pytest.mark.parametrize("oracle", ["exact", "gaussian:1.0"])
@pytest.mark.parametrize(("K", "b"), [(1, 1), (3, 1), (2, 4)])
def test_fedcanon_same_bits_as_alone(canon_quad, oracle, K, b):
    problems, refs = canon_quad
    problems, refs = [*problems, problems[0]], [*refs, refs[0]]  # instance 0 twice: two seeds on it
    hps = [{"eta_l": 0.1, "local_steps": K, "b": b}, {"eta_l": 0.2, "local_steps": K, "b": b},
           {"eta_l": 0.1, "eta_g": 0.5, "local_steps": K, "b": b}, {"eta_l": 0.05, "local_steps": K, "b": b}]
    seeds = [0, 1, 2, 7]
    got = together(problems, hps, seeds, refs, oracle)
    want = alone(problems, hps, seeds, refs, oracle)
    assert [differences(a, b) for a, b in zip(got, want, strict=True)] == [[]] * 4
    assert all(same_bytes(a, b) for a, b in zip(got, want, strict=True))
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
        got = together(problems, hps, [3, 4, 5], refs, oracle)
        want = alone(problems, hps, [3, 4, 5], refs, oracle)
        assert all(same_bytes(a, b) for a, b in zip(got, want, strict=True)), problems[0].name


def test_fedcanon_run_diverging_mid_batch_is_frozen_the_others_go_on():
    ps = [generate("quadratics", seed=s, clients=8, d=20, zeta=1.0, lam=0.01, mirror="euclidean")
          for s in range(3)]
    hps = [{"eta_l": eta, "local_steps": 3} for eta in (0.1, 2.5, 0.3)]  # the second explodes
    refs = [False] * 3
    got = together(ps, hps, [0, 1, 2], refs, "gaussian:0.5", rounds=40)
    want = alone(ps, hps, [0, 1, 2], refs, "gaussian:0.5", rounds=40)
    assert [t.status for t in got] == ["completed", "diverged", "completed"]
    assert 1 < got[1].meta["diverged_at"] < 40
    assert got[1].meta["diverged_at"] == want[1].meta["diverged_at"]
    assert all(same_bytes(a, b) for a, b in zip(got, want, strict=True))


def test_fedcanon_start_points_and_metrics_every(canon_quad):
    problems, refs = canon_quad
    hps = [{"eta_l": 0.1, "local_steps": 3}] * 3
    w0s = [r.w + 0.1 * (i + 1) for i, r in enumerate(refs)]
    got = run_batch("fedcanon", problems, hps, ROUNDS, [0, 1, 2], "gaussian:0.5", refs, metrics_every=4,
                    w0s=w0s)
    want = [run("fedcanon", p, h, ROUNDS, "gaussian:0.5", seed=s, reference=r, w0=w, metrics_every=4)
            for p, h, s, r, w in zip(problems, hps, [0, 1, 2], refs, w0s, strict=True)]
    assert all(same_bytes(a, b) for a, b in zip(got, want, strict=True))


def test_fedcanon_comparison_fails_when_one_run_differs(canon_quad):
    """One run's η_l one ulp larger inside the batch: that run, and only it, differs from alone."""
    problems, refs = canon_quad
    hps = [{"eta_l": 0.1, "local_steps": 3} for _ in problems]
    changed = [dict(h) for h in hps]
    changed[1]["eta_l"] = np.nextafter(0.1, 1.0)
    got = together(problems, changed, [0, 1, 2], refs, "gaussian:1.0")
    want = alone(problems, hps, [0, 1, 2], refs, "gaussian:1.0")
    assert same_bytes(got[0], want[0]) and same_bytes(got[2], want[2])
    assert not same_bytes(got[1], want[1])
    assert got[1].arrays["server_w"].tobytes() != want[1].arrays["server_w"].tobytes()
    assert {"server_w", "objective", "control_sum", "meta.hyper"} <= set(differences(got[1], want[1]))


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
    want = alone(problems, hps, [0, 1, 2], refs, rounds=5)
    assert all(same_bytes(a, b) for a, b in zip(got, want, strict=True))
    got = run_batch("fedcanon", problems, [hp] * 3, 5, [0, 1, 2], "exact", refs, record="step")
    want = [run("fedcanon", p, hp, 5, seed=s, reference=r, record="step")
            for p, s, r in zip(problems, [0, 1, 2], refs, strict=True)]
    assert all(same_bytes(a, b) for a, b in zip(got, want, strict=True))
