"""``run_batch`` gives every dual-card run the bits ``run`` gives it alone; what is not batched runs alone.

The batches mix instance draws, run seeds, step sizes (η_c, η_s), two dual cards, the exact and the
Gaussian oracle, quadratic and logistic clients, per-step records, ℓ1 penalties and balls (the maps'
calls per weight), ground-truth metrics.  A run diverging mid-batch, a one-ulp step change that must show
and start points: ``test_run_batch_common.py``, one table over the methods.
"""

from __future__ import annotations

import numpy as np
import pytest

from fcocheck.solvers.engine.batch import batch_groups, run_batch
from fcocheck.solvers.engine.run import prepare, run
from fcocheck.solvers.errors import InvalidHyperparameterError
from fcocheck.solvers.generators import generate
from fcocheck.solvers.reference import reference_solve
from tests.solvers.batch_bits import (
    ROUNDS,
    all_differences,
    alone,
    differences,
    instances,
    together,
    twice_first,
)


@pytest.fixture(scope="module")
def quad():
    return instances("ball")


@pytest.fixture(scope="module")
def logit():
    return instances("logistic")


@pytest.mark.parametrize("algorithm", ["feddualavg", "feddualavg-osp"])
@pytest.mark.parametrize("oracle", ["exact", "gaussian:0.5"])
def test_same_bits_as_alone(quad, algorithm, oracle):
    problems, refs = twice_first(*quad)
    hps = [{"eta_c": 0.05, "local_steps": 3}, {"eta_c": 0.02, "local_steps": 3},
           {"eta_c": 0.05, "eta_s": 0.5, "local_steps": 3}, {"eta_c": 0.05, "local_steps": 3}]
    seeds = [0, 1, 2, 7]
    got = together(algorithm, problems, hps, seeds, refs, oracle, one_batch=False)
    want = alone(algorithm, problems, hps, seeds, refs, oracle)
    assert all_differences(got, want) == [[]] * 4
    assert all(t.status == "completed" for t in got)


def test_same_bits_logistic_clients(logit):
    problems, refs = logit
    hps = [{"eta_c": 0.1 * (i + 1), "local_steps": 2} for i in range(3)]
    got = together("feddualavg", problems, hps, [3, 4, 5], refs, "gaussian:1.0", one_batch=False)
    want = alone("feddualavg", problems, hps, [3, 4, 5], refs, "gaussian:1.0")
    assert all_differences(got, want) == [[]] * 3


def test_what_is_not_covered_runs_alone(quad):
    """Another method, a single run of its key, a compiled-pass instance: ``run`` alone, the same bits."""
    problems, refs = quad
    lasso = generate("lasso-paper", clients=4, samples=6, d=5, nnz=2, seed=1)
    cases = [("fedavg-subgrad", problems[:2], refs[:2]), ("feddualavg", [problems[0]], refs[:1]),
             ("feddualavg", [lasso, lasso], [False, False])]
    for algorithm, ps, rs in cases:
        hps = [{"eta_c": 0.05, "local_steps": 2}] * len(ps)
        setups = [prepare(algorithm, p, h, 5, "exact", None, "round", r, None, "auto")
                  for p, h, r in zip(ps, hps, rs, strict=True)]
        assert batch_groups(setups, ps)[0] == []
        got = run_batch(algorithm, ps, hps, 5, list(range(len(ps))), "exact", rs)
        want = alone(algorithm, ps, hps, list(range(len(ps))), rs, rounds=5)
        assert all(differences(a, b) == [] for a, b in zip(got, want, strict=True))


def test_inputs_are_checked_before_any_round(quad):
    problems, refs = quad
    with pytest.raises(InvalidHyperparameterError):
        run_batch("feddualavg", problems, [{"eta_c": 0.05}] * 3, 5, [0, 1, 2], references=refs,
                  metrics_every=0)
    with pytest.raises(ValueError):
        run_batch("feddualavg", problems, [{"eta_c": 0.05}] * 2, 5, [0, 1, 2], references=refs)


@pytest.mark.parametrize("algorithm", ["feddualavg", "feddualavg-osp"])
@pytest.mark.parametrize("oracle", ["exact", "gaussian:0.5"])
def test_per_step_records_same_bits_as_alone(quad, algorithm, oracle):
    """``record="step"``: every per-step array (client duals, shadow, its images, Σ p̃ g) as the run alone."""
    problems, refs = twice_first(*quad)
    hps = [{"eta_c": 0.05, "local_steps": 3}, {"eta_c": 0.02, "local_steps": 3},
           {"eta_c": 0.05, "eta_s": 0.5, "local_steps": 3}, {"eta_c": 0.05, "local_steps": 3}]
    seeds = [0, 1, 2, 7]
    setups = [prepare(algorithm, p, h, ROUNDS, oracle, None, "step", r, None, "auto")
              for p, h, r in zip(problems, hps, refs, strict=True)]
    groups, lone = batch_groups(setups, problems)
    assert lone == [] and len(groups) == 1
    got = run_batch(algorithm, problems, hps, ROUNDS, seeds, oracle, refs, record="step")
    want = [run(algorithm, p, h, rounds=ROUNDS, oracle=oracle, seed=s, reference=r, record="step")
            for p, h, s, r in zip(problems, hps, seeds, refs, strict=True)]
    per_step = {"client_duals", "dual_shadow", "grad_avg", "shadow_primal", "discrepancy_steps"}
    for g, w in zip(got, want, strict=True):
        assert per_step <= set(w.arrays)
        assert differences(g, w) == []


def test_per_step_records_of_other_clients_run_alone(logit):
    problems, refs = logit
    hps = [{"eta_c": 0.05, "local_steps": 3}] * len(problems)
    setups = [prepare("feddualavg", p, h, ROUNDS, "exact", None, "step", r, None, "auto")
              for p, h, r in zip(problems, hps, refs, strict=True)]
    assert batch_groups(setups, problems) == ([], list(range(len(problems))))
    got = run_batch("feddualavg", problems, hps, ROUNDS, [0, 1, 2], "exact", refs, record="step")
    want = [run("feddualavg", p, h, rounds=ROUNDS, seed=s, reference=r, record="step")
            for p, h, s, r in zip(problems, hps, [0, 1, 2], refs, strict=True)]
    assert all(differences(g, w) == [] for g, w in zip(got, want, strict=True))


def test_an_indicator_map_is_called_once_for_every_nonzero_weight():
    """``by_weight(weightless=True)``: Π_C once over the rows of every run with t ≠ 0, the same bits as a
    call per distinct t; t = 0 (∇h* alone) stays apart."""
    from fcocheck.solvers.algorithms.batched_dual import by_weight, same_nonzero
    from fcocheck.solvers.composite import make_composite
    from fcocheck.solvers.mirror_maps import Euclidean
    from fcocheck.solvers.regularizers import L1Ball

    assert same_nonzero([0.0, 0.3, 0.5, 0.0, 0.7]) == [0.0, 0.3, 0.3, 0.0, 0.3]
    assert same_nonzero([0.0, 0.0]) == [0.0, 0.0]
    calls: list[float] = []
    real = make_composite(Euclidean(), L1Ball(1.0))
    composite = lambda z, t: calls.append(t) or real(z, t)  # noqa: E731
    Z = np.random.default_rng(3).standard_normal((5 * 4, 7))
    ts = [0.0, 0.1, 0.2, 0.1, 0.4]
    got = by_weight(composite, Z, ts, 4, weightless=True)
    assert calls == [0.0, 0.1]
    want = by_weight(real, Z, ts, 4)
    assert got.tobytes() == want.tobytes()
    assert np.array_equal(got[:4], Z[:4]) and not np.array_equal(got[4:8], Z[4:8])


def test_a_separable_map_takes_every_runs_weight_in_one_call():
    """``by_weight`` with a separable ψ (``rowwise``): runs of distinct t ≠ 0 in one call, t a column, each
    row the bits of its own call with t a scalar; a t = 0 or a non-separable ψ keeps a call per t; and the
    comparison sees one weight changed by a relative 10⁻¹² (one ulp of t may vanish in 1 + tλ)."""
    from fcocheck.solvers.algorithms.batched_dual import by_weight
    from fcocheck.solvers.composite import make_composite
    from fcocheck.solvers.mirror_maps import DiagonalQuadratic, Euclidean, FreeTailMirror
    from fcocheck.solvers.regularizers import L1, MCP, SCAD, ElasticNet, FreeTail, GroupLasso, L2Squared

    Z = np.random.default_rng(5).standard_normal((5 * 4, 6)) * 2.0
    ts = [0.3, 0.1, 0.3, 0.7, 0.25]
    pairs = [(Euclidean(), L1(0.8)), (Euclidean(), ElasticNet(0.5, 0.3)), (Euclidean(), L2Squared(0.4)),
             (Euclidean(), MCP(0.6, 3.0)), (Euclidean(), SCAD(0.6, 3.7)),
             (DiagonalQuadratic(a=(1.0, 2.0, 0.5, 1.5, 3.0, 1.0)), L1(0.8)),
             (FreeTailMirror(base=Euclidean()), FreeTail(base=L1(0.8)))]
    for h, psi in pairs:
        real = make_composite(h, psi)
        calls: list = []
        counted = lambda z, t, real=real, calls=calls: calls.append(t) or real(z, t)  # noqa: E731
        counted.rowwise = real.rowwise
        got = by_weight(counted, Z, ts, 4)
        assert len(calls) == 1, psi.name
        one_by_one = np.concatenate([real(Z[4 * i:4 * i + 4], t) for i, t in enumerate(ts)])
        assert got.tobytes() == one_by_one.tobytes(), psi.name
        off = [*ts[:3], ts[3] * (1 + 1e-12), ts[4]]
        assert by_weight(real, Z, off, 4).tobytes() != one_by_one.tobytes(), psi.name
        calls.clear()
        by_weight(counted, Z, [0.0, *ts[1:]], 4)
        assert len(calls) == 5  # t = 0 is ∇h*: a call per distinct t (0, 0.1, 0.3, 0.7, 0.25)
    group = make_composite(Euclidean(), GroupLasso(0.5, (0, 0, 0, 1, 1, 1)))
    assert not group.rowwise
    assert by_weight(group, Z, ts, 4).tobytes() == np.concatenate(
        [group(Z[4 * i:4 * i + 4], t) for i, t in enumerate(ts)]).tobytes()


@pytest.mark.parametrize("algorithm", ["feddualavg", "fedmid"])
def test_same_bits_with_an_l1_penalty_and_distinct_steps(algorithm):
    """ψ = λ‖·‖₁ (separable, not an indicator): every run's η̃ its own, the maps one call (``rowwise``)."""
    ps, refs = instances("l1")
    hps = [{"eta_c": eta, "local_steps": 3} for eta in (0.05, 0.02, 0.08)]
    got = together(algorithm, ps, hps, [0, 1, 2], refs, "gaussian:0.5", one_batch=False)
    want = alone(algorithm, ps, hps, [0, 1, 2], refs, "gaussian:0.5")
    assert all_differences(got, want) == [[]] * 3


@pytest.mark.parametrize("algorithm", ["feddualavg", "fedmid"])
def test_ground_truth_metrics_and_sparse_metrics_every(algorithm):
    """A problem with a ground truth (lasso-paper: F1, precision, recall each run's own), metrics every 2nd
    round (NaN between), the Gaussian oracle: the batch's traces are the runs' alone, in the same order."""
    ps = [generate("lasso-paper", clients=4, samples=6, d=5, nnz=2, seed=s) for s in range(3)]
    refs = [reference_solve(p) for p in ps]
    hps = [{"eta_c": 0.01 * (i + 1), "local_steps": 2} for i in range(3)]
    setups = [prepare(algorithm, p, h, 7, "gaussian:0.5", None, "round", r, None, "auto")
              for p, h, r in zip(ps, hps, refs, strict=True)]
    assert batch_groups(setups, ps) == ([[0, 1, 2]], [])
    got = run_batch(algorithm, ps, hps, 7, [0, 1, 2], "gaussian:0.5", refs, metrics_every=2)
    want = [run(algorithm, p, h, rounds=7, oracle="gaussian:0.5", seed=s, reference=r, metrics_every=2)
            for p, h, s, r in zip(ps, hps, [0, 1, 2], refs, strict=True)]
    assert all_differences(got, want) == [[]] * 3
    assert all(list(a.arrays) == list(b.arrays) for a, b in zip(got, want, strict=True))
    assert {"f1", "precision", "recall"} <= set(got[0].arrays) and np.isnan(got[0].arrays["f1"][1])


def test_a_users_dual_card_with_server_momentum_same_bits_as_alone(quad):
    """FedDualAvg with a momentum buffer on the server's dual update (a card a user writes: Trace, then
    Scale): batched, each run its own β and buffer row, the bits of its run alone (Nesterov's look-ahead
    too); the first run's β read for all fails the comparison."""
    import dataclasses

    from fcocheck.solvers import algorithms
    from fcocheck.solvers.algorithms import batched_dual
    from fcocheck.solvers.card import Param, Trace, unit_interval
    from fcocheck.solvers.methods.feddualavg import CARD

    problems, refs = twice_first(*quad)
    hps = [{"eta_c": 0.05, "beta": 0.9, "local_steps": 2}, {"eta_c": 0.1, "beta": 0.5, "local_steps": 2},
           {"eta_c": 0.05, "eta_s": 0.5, "beta": 0.0, "local_steps": 2},
           {"eta_c": 0.02, "beta": 0.7, "local_steps": 2}]
    beta = Param("beta", 0.0, "server momentum β", unit_interval, neutral=0.0)
    first = batched_dual.RunColumns.__getattr__
    for nesterov in (False, True):
        card = dataclasses.replace(CARD, name="my-dualavgm", params=(*CARD.params, beta),
                                   server=(Trace("beta", nesterov=nesterov), *CARD.server), reduces_to=())
        algorithms.register_card(card)
        try:
            got = together(card.name, problems, hps, [0, 1, 2, 7], refs, "gaussian:0.5")
            want = alone(card.name, problems, hps, [0, 1, 2, 7], refs, "gaussian:0.5")
            assert all_differences(got, want) == [[]] * 4
            with pytest.MonkeyPatch.context() as m:
                m.setattr(batched_dual.RunColumns, "__getattr__",
                          lambda self, name: np.repeat(first(self, name)[:1], len(self._hps), axis=0))
                wrong = together(card.name, problems, hps, [0, 1, 2, 7], refs, "gaussian:0.5")
            assert ["server_w" in d for d in all_differences(wrong, want)] == [False, True, True, True]
        finally:
            algorithms.unregister(card.name)
