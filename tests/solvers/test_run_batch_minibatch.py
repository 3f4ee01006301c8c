"""The minibatch oracle batched: each run draws its rows from its own stream, each trace the run alone's bits.

``minibatch:b`` (b rows of each client, uniform with replacement, a fresh draw at every query) runs in the
batched rounds of every batched method — the dual and primal cards, FedCanon (b queries a step: b draws),
ZA1 — on the batched kernel's two paths: the compiled sequential sums of squares-type clients (a small
LASSO) and the einsums of other losses (logistic, Cauchy).  The batches mix instance draws, the same
instance under two seeds, step sizes and b = 1, 3 and 20 (more rows than a client holds: legal, with
replacement); with P < M clients a round too.  Rows drawn from one shared stream (a plausible slip) change
every run, and the comparison shows it; a run diverging mid-batch leaves it at its own round; the loop
strategy's large client blocks still run alone.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from fcocheck.solvers.algorithms import batched_dual
from fcocheck.solvers.engine.batch import batch_groups, run_batch
from fcocheck.solvers.engine.run import prepare
from fcocheck.solvers.generators import generate
from fcocheck.solvers.oracles import MinibatchOracle
from fcocheck.solvers.reference import reference_solve
from tests.solvers.batch_bits import CLASSES, all_differences, alone, instances, together, twice_first

ROUNDS = 8
#: a small LASSO (squares loss: the compiled batched sums) beside the classes of ``batch_bits``
CLASSES.setdefault("lasso-small", partial(generate, "lasso-paper", clients=4, samples=6, d=5, nnz=2))
#: Cauchy clients with an MCP penalty (FedCanon Fig. 1's class, small)
CLASSES.setdefault("cauchy-small", partial(generate, "robust-penalized", clients=4, samples=8, d=5))

#: method, its step's name, a step value each of its runs can take on every class here
METHODS = [
    ("feddualavg", "eta_c", 0.05), ("feddualavg-osp", "eta_c", 0.05), ("fedmid", "eta_c", 0.05),
    ("fedavg", "eta_c", 0.05), ("fedmid-osp", "eta_c", 0.05), ("fedmid-avg", "eta_c", 0.05),
    ("fedcanon", "eta_l", 0.05), ("za1", "eta", 0.05),
]


def _hps(step: str, value: float, extra: dict | None = None) -> list[dict]:
    """Four runs: two step sizes, a server step, the first again (with instance 0 twice: two seeds on it)."""
    server = "eta_g" if step in ("eta_l", "eta") else "eta_s"
    base = {"local_steps": 3, **(extra or {})}
    return [{step: value, **base}, {step: value / 2, **base}, {step: value, server: 0.5, **base},
            {step: value, **base}]


@pytest.mark.parametrize(("method", "step", "value"), METHODS)
@pytest.mark.parametrize("cls", ["lasso-small", "logistic"])
@pytest.mark.parametrize("oracle", ["minibatch:1", "minibatch:3", "minibatch:20"])
def test_same_bits_as_alone(method, step, value, cls, oracle):
    problems, refs = twice_first(*instances(cls))
    hps = _hps(step, value, {"b": 2} if method == "fedcanon" else None)
    seeds = [0, 1, 2, 7]
    got = together(method, problems, hps, seeds, refs, oracle, ROUNDS)
    want = alone(method, problems, hps, seeds, refs, oracle, ROUNDS)
    assert all_differences(got, want) == [[]] * 4
    assert all(t.status == "completed" and t.meta["random"] for t in got)
    assert got[0].arrays["server_w"].tobytes() != got[3].arrays["server_w"].tobytes()  # seed 0 ≠ seed 7


@pytest.mark.parametrize("b", [1, 4])
def test_fedcanon_on_cauchy_clients_same_bits(b):
    """FedCanon Fig. 1's class: Cauchy loss (the einsums), MCP ψ, minibatch:8, b queries a step."""
    problems, refs = twice_first(*instances("cauchy-small"))
    hps = _hps("eta_l", 0.05, {"b": b})
    got = together("fedcanon", problems, hps, [0, 1, 2, 7], refs, "minibatch:8", ROUNDS)
    want = alone("fedcanon", problems, hps, [0, 1, 2, 7], refs, "minibatch:8", ROUNDS)
    assert all_differences(got, want) == [[]] * 4


@pytest.mark.parametrize("method", ["feddualavg", "fedmid", "fedavg"])
@pytest.mark.parametrize("P", [1, 3])
def test_same_bits_with_partial_participation(method, P):
    """P of M clients a round: each run's S_r and then its rows from its own streams."""
    problems, refs = twice_first(*instances("logistic-6"))
    hps = _hps("eta_c", 0.05)
    got = together(method, problems, hps, [0, 1, 2, 7], refs, "minibatch:2", ROUNDS, participation=P)
    want = alone(method, problems, hps, [0, 1, 2, 7], refs, "minibatch:2", ROUNDS, participation=P)
    assert all_differences(got, want) == [[]] * 4


def test_rows_from_one_shared_stream_show_in_every_run(monkeypatch):
    """The violation: every run's rows drawn from run 0's generator.  The comparison fails for each run."""
    true = batched_dual.stacked_grads

    def shared(kernel, oracle, W, rngs, M, exact=None):
        return true(kernel, oracle, W, [rngs[0]] * len(rngs), M, exact)

    monkeypatch.setattr(batched_dual, "stacked_grads", shared)
    problems, refs = instances("lasso-small")
    hps = [{"eta_c": 0.05, "local_steps": 3}] * 3
    got = together("feddualavg", problems, hps, [0, 1, 2], refs, "minibatch:2", ROUNDS)
    want = alone("feddualavg", problems, hps, [0, 1, 2], refs, "minibatch:2", ROUNDS)
    assert all({"server_w", "server_z", "objective"} <= set(d) for d in all_differences(got, want))


@pytest.mark.parametrize(("method", "step"), [("feddualavg", "eta_c"), ("fedmid", "eta_c"),
                                              ("fedcanon", "eta_l")])
def test_a_run_diverging_mid_batch_leaves_it_at_its_own_round(method, step):
    """The second run's step explodes on the LASSO: it stops where it stops alone, the others go on."""
    problems, _ = instances("lasso-small", references=False)
    hps = [{step: eta, "local_steps": 3} for eta in (0.05, 30.0, 0.1)]
    refs = [False] * 3
    got = together(method, problems, hps, [0, 1, 2], refs, "minibatch:2", 40)
    want = alone(method, problems, hps, [0, 1, 2], refs, "minibatch:2", 40)
    assert [t.status for t in got] == [t.status for t in want] == ["completed", "diverged", "completed"]
    assert 1 < got[1].meta["diverged_at"] < 40
    assert all_differences(got, want) == [[]] * 3


def test_large_client_blocks_run_alone():
    """The loop strategy (client blocks of 256 KiB and more): ``run`` alone, the same bits."""
    ps = [generate("lasso-paper", clients=2, samples=64, d=512, nnz=8, seed=s) for s in range(2)]
    refs = [reference_solve(p) for p in ps]
    hps = [{"eta_c": 0.01, "local_steps": 2}] * 2
    setups = [prepare("feddualavg", p, h, 3, "minibatch:4", None, "round", r, None, "auto")
              for p, h, r in zip(ps, hps, refs, strict=True)]
    assert {s.env.kernel.strategy for s in setups} == {"loop"}
    assert batch_groups(setups, ps) == ([], [0, 1])
    got = run_batch("feddualavg", ps, hps, 3, [0, 1], "minibatch:4", refs)
    want = alone("feddualavg", ps, hps, [0, 1], refs, "minibatch:4", rounds=3)
    assert all_differences(got, want) == [[]] * 2


def test_rows_are_uniform_draws_of_each_clients_rows():
    """``MinibatchOracle.rows``: ⌊u·n_i⌋ in [0, n_i) for every client, every index reached, b per client."""
    rows = MinibatchOracle(batch=7).rows(np.array([1, 3, 12]), np.random.default_rng(0))
    assert rows.shape == (3, 7) and rows.dtype == np.int64
    assert set(rows[0]) == {0} and set(rows[1]) <= {0, 1, 2} and rows[2].max() < 12
    many = MinibatchOracle(batch=4000).rows(np.array([3]), np.random.default_rng(1))
    assert np.allclose(np.bincount(many[0]) / 4000, 1 / 3, atol=0.03)  # 4σ of a binomial share (σ ≈ 0.0075)
