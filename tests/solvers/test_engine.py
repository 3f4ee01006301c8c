"""The engine: divergence, interruption, participation, step records, ŵ, traces, bad input."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from fcocheck.solvers import algorithms
from fcocheck.solvers.engine import Trace, run
from fcocheck.solvers.errors import (
    InvalidAlgorithmError,
    InvalidHyperparameterError,
    InvalidOracleError,
    InvalidProblemError,
    InvalidStepSizeError,
    NoClosedFormError,
)
from fcocheck.solvers.generators import generate
from fcocheck.solvers.mirror_maps import PNorm
from fcocheck.solvers.reference import reference_solve
from fcocheck.solvers.regularizers import MCP, Nuclear


@pytest.fixture(scope="module")
def lasso():
    p = generate("lasso-paper", clients=4, samples=12, d=10, nnz=3)
    return p, reference_solve(p)


def test_divergence_is_a_recorded_result():
    p = generate("quadratics", clients=3, d=6)
    t = run("fedavg", p, {"eta_c": 50.0, "local_steps": 2}, rounds=500, reference=False)
    assert t.status == "diverged" and 1 <= t.meta["diverged_at"] < 500
    assert t.meta["completed"] == t.meta["diverged_at"] - 1
    assert len(t["server_w"]) == t.meta["diverged_at"]
    assert all(np.all(np.isfinite(a)) for a in t.arrays.values())


def test_interruption_keeps_every_completed_round(lasso):
    p, _ = lasso
    base = algorithms.get("feddualavg")
    calls = {"n": 0}

    def interrupted_round(state, hp, env, rng, clients):
        calls["n"] += 1
        if calls["n"] == 4:
            raise KeyboardInterrupt
        return base.round(state, hp, env, rng, clients)

    alg = dataclasses.replace(base, round=interrupted_round)
    t = run(alg, p, {"eta_c": 0.05}, rounds=10, reference=False)
    assert t.status == "interrupted" and t.meta["completed"] == 3
    lengths = {k: len(v) for k, v in t.arrays.items()}
    assert lengths["server_w"] == 4 and lengths["participants"] == 3
    full = run("feddualavg", p, {"eta_c": 0.05}, rounds=10, reference=False)
    np.testing.assert_array_equal(t["server_w"], full["server_w"][:4])


def test_partial_participation_samples_distinct_sorted_clients(lasso):
    p, _ = lasso
    hp = {"eta_c": 0.05, "local_steps": 2}
    t = run("fedmid", p, hp, rounds=30, participation=2, seed=3, reference=False)
    S = t["sampled"]
    assert S.shape == (30, 2) and np.all(np.diff(S, axis=1) > 0) and S.min() >= 0 and S.max() < p.M
    assert len({tuple(s) for s in S}) > 1  # the sample changes across rounds
    np.testing.assert_array_equal(t["grad_calls"], 2 * 2 * np.arange(31))
    np.testing.assert_array_equal(t["floats_up"], 2 * p.dim * np.arange(31))


def test_dual_shadow_identity_holds_for_feddualavg_and_fails_for_fedmid(lasso):
    """Eq. 4.5: with η_s = 1, z̄_{r,k+1} = z̄_{r,k} − η_c avg_m g^m_{r,k} (FedDualAvg only)."""
    p, _ = lasso
    eta = 0.05
    kw = {"rounds": 5, "oracle": "gaussian:0.5", "seed": 1, "reference": False, "record": "step"}
    t = run("feddualavg", p, {"eta_c": eta, "local_steps": 4}, **kw)
    Z, G = t["dual_shadow"], t["grad_avg"]
    assert Z.shape == (5, 5, p.dim) and G.shape == (5, 4, p.dim)
    np.testing.assert_allclose(Z[:, 1:], Z[:, :-1] - eta * G, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(Z[:, 0], t["server_z"][:-1], rtol=0, atol=0)
    np.testing.assert_allclose(Z[:, -1], t["server_z"][1:], rtol=1e-12, atol=1e-12)
    m = run("fedmid", p, {"eta_c": eta, "local_steps": 4}, **kw)
    Zm, Gm = m["dual_shadow"], m["grad_avg"]
    assert np.max(np.abs(Zm[:, 1:] - (Zm[:, :-1] - eta * Gm))) > 1e-3


def test_w_hat_is_the_average_of_the_shadow_primal_images(lasso):
    """Eq. 4.2: ŵ = (1/(KR)) Σ_r Σ_{k=1..K} ∇(h + η̃_{r,k}ψ)*(z̄_{r,k}); gap_avg is measured at it."""
    p, ref = lasso
    t = run("feddualavg", p, {"eta_c": 0.05, "local_steps": 3}, rounds=6, oracle="minibatch:3", seed=2,
            reference=ref, record="step")
    w_hat = t["shadow_primal"].reshape(-1, p.dim).mean(axis=0)
    assert t["gap_avg"][-1] == pytest.approx(p.Phi(w_hat) - ref.objective, rel=1e-12)
    lam, z = p.regularizer.lam, t["dual_shadow"][2, 3]
    t_weight = 1.0 * 0.05 * 2 * 3 + 0.05 * 3  # η̃_{2,3}
    expected = np.append(np.sign(z[:-1]) * np.maximum(np.abs(z[:-1]) - t_weight * lam, 0), z[-1])
    np.testing.assert_allclose(t["shadow_primal"][2, 2], expected, rtol=1e-13, atol=1e-15)


def test_discrepancy_vanishes_without_heterogeneity_or_local_steps():
    p = generate("quadratics", clients=4, d=6, zeta=0.0, lam=0.05)
    t = run("feddualavg", p, {"eta_c": 0.2, "local_steps": 5}, rounds=5, reference=False)
    assert np.all(t["discrepancy"] == 0) and t["discrepancy_overhead"][-1] == 0
    q = generate("quadratics", clients=4, d=6, zeta=1.0, lam=0.05)
    assert run("feddualavg", q, {"eta_c": 0.2, "local_steps": 1}, rounds=5,
               reference=False)["discrepancy_overhead"][-1] == 0
    het = run("feddualavg", q, {"eta_c": 0.2, "local_steps": 5}, rounds=5, reference=False, record="step")
    assert np.all(het["discrepancy"] > 0)
    np.testing.assert_allclose(het["discrepancy"], het["discrepancy_steps"].mean(axis=1))


def test_discrepancy_matches_a_direct_computation_for_quadratics():
    """With a common Hessian and exact gradients, client duals after k steps differ from the shadow by
    −η_c Σ_{j<k} (I − η_c Q)^{...} — here checked for k = 1: z^m_1 − z̄_1 = −η_c (c_m − c̄)."""
    p = generate("quadratics", clients=5, d=4, zeta=2.0, lam=0.0)
    eta = 0.1
    t = run("feddualavg", p, {"eta_c": eta, "local_steps": 2}, rounds=1, reference=False, record="step")
    dev = p.c - p.c.mean(axis=0)
    expected = np.mean(np.sum((eta * dev) ** 2, axis=1))
    assert t["discrepancy_steps"][0, 1] == pytest.approx(expected, rel=1e-12)
    assert t["discrepancy_steps"][0, 0] == 0


def test_trace_round_trip(tmp_path, lasso):
    p, ref = lasso
    t = run("fedmid", p, {"eta_c": 0.05, "local_steps": 2}, rounds=3, reference=ref, record="step")
    path = t.save(tmp_path / "t.npz")
    u = Trace.load(path)
    assert u.meta == {**t.meta, "hyper": dict(t.meta["hyper"])}
    for key in t.arrays:
        np.testing.assert_array_equal(u[key], t[key])
    assert u.summary()["final"]["gap"] == t["gap"][-1]


BAD = [
    ({"algorithm": "fedmd"}, InvalidAlgorithmError, "did you mean 'fedmid'"),
    ({"hp": {"eta_c": 0.1, "local_step": 2}}, InvalidHyperparameterError, "did you mean 'local_steps'"),
    ({"hp": {"eta_s": 1.0}}, InvalidHyperparameterError, "'eta_c' is required"),
    ({"hp": {"eta_c": 0.0}}, InvalidStepSizeError, "eta_c = 0.0"),
    ({"hp": {"eta_c": -1.0}}, InvalidStepSizeError, "eta_c > 0"),
    ({"hp": {"eta_c": 0.1, "local_steps": 0}}, InvalidHyperparameterError, "local_steps = 0"),
    ({"hp": {"eta_c": 0.1, "local_steps": 2.5}}, InvalidHyperparameterError, "local_steps = 2.5"),
    ({"rounds": -1}, InvalidHyperparameterError, "0 <= R <= 10,000,000"),
    ({"rounds": 10**12}, InvalidHyperparameterError, "0 <= R <= 10,000,000"),
    ({"rounds": "100"}, InvalidHyperparameterError, "an integer"),
    ({"participation": 9}, InvalidHyperparameterError, "P = 9"),
    ({"participation": 0}, InvalidHyperparameterError, "1 <= P"),
    ({"oracle": "gauss:1"}, InvalidOracleError, "gauss:1"),
    ({"record": "everything"}, InvalidHyperparameterError, "record"),
    ({"gradient": "fast"}, InvalidHyperparameterError, "fast"),
    ({"w0": np.ones(3)}, InvalidProblemError, "shape"),
]


@pytest.mark.parametrize(("change", "error", "text"), BAD, ids=[b[2] for b in BAD])
def test_bad_input_raises_a_specific_error_naming_the_rule(lasso, change, error, text):
    p, _ = lasso
    kw = {"rounds": change.get("rounds", 2), "oracle": change.get("oracle", "exact"),
          "participation": change.get("participation"), "record": change.get("record", "round"),
          "gradient": change.get("gradient", "auto"), "w0": change.get("w0"), "reference": False}
    with pytest.raises(error, match=text):
        run(change.get("algorithm", "fedmid"), p, change.get("hp", {"eta_c": 0.1}), **kw)


def test_no_composite_map_and_domain_violations_are_refused_before_round_zero():
    p = generate("lowrank-paper", clients=2, samples=5, d1=2, d2=3, rank=1)
    q = dataclasses.replace(p, mirror=PNorm(1.5), regularizer=Nuclear(0.1, (2, 3)))
    with pytest.raises(NoClosedFormError, match="no closed form"):
        run("feddualavg", q, {"eta_c": 0.1}, rounds=2, reference=False)
    s = generate("simplex-ls", clients=2, samples=5, d=3, mirror="entropy")
    for w0 in ([0.5, 0.5, 0.5], [1.0, 0.0, 0.0]):  # off the simplex; on its boundary (∇h = −∞)
        with pytest.raises(InvalidProblemError, match="dom h"):
            run("feddualavg", s, {"eta_c": 0.1}, rounds=2, reference=False, w0=np.array(w0))
    r = generate("robust-penalized", clients=2, samples=8, d=4, nnz=2)
    assert isinstance(r.regularizer, MCP)
    with pytest.raises(InvalidStepSizeError, match="t = "):
        run("feddualavg", r, {"eta_c": 0.5, "local_steps": 2}, rounds=10, reference=False)
    ok = run("fedmid", r, {"eta_c": 0.5, "local_steps": 2}, rounds=10, reference=False)
    assert ok.status == "completed"


def test_baselines_refuse_client_sampling(lasso):
    p, _ = lasso
    with pytest.raises(InvalidHyperparameterError, match="without client sampling"):
        run("centralized", p, {"eta": 0.1}, rounds=2, participation=2, reference=False)
    with pytest.raises(InvalidHyperparameterError, match="client = 7"):
        run("local", p, {"eta": 0.1, "client": 7}, rounds=2, reference=False)


def test_minibatch_oracle_on_quadratics_is_refused_up_front():
    p = generate("quadratics", clients=2, d=3)
    with pytest.raises(InvalidOracleError, match="quadratic"):
        run("fedavg", p, {"eta_c": 0.1}, rounds=1, oracle="minibatch:2", reference=False)


@pytest.mark.parametrize("name", ["feddualavg", "fedmid", "scaffold"])
def test_metrics_every_keeps_the_iterates_and_the_recorded_rounds_exact(lasso, name):
    """metrics_every = 4 over R = 10: the same iterates bit for bit, the evaluated metrics at rounds
    0, 4, 8 and the last equal to the every-round run's, NaN between; counts, discrepancy and ŵ
    kept every round."""
    p, ref = lasso
    hp = {"eta_c": 0.05, "local_steps": 3}
    if name == "scaffold":
        hp = {"eta_l": 0.05, "eta_g": 1.0, "local_steps": 3}
    a = run(name, p, hp, rounds=10, reference=ref)
    b = run(name, p, hp, rounds=10, reference=ref, metrics_every=4)
    np.testing.assert_array_equal(a["server_w"], b["server_w"])
    kept = [0, 4, 8, 10]
    for key in ("objective", "gap", "gap_avg", "prox_grad_norm", "density"):
        np.testing.assert_array_equal(a[key][kept], b[key][kept])
        skipped = np.setdiff1d(np.arange(11), kept)
        assert np.all(np.isnan(b[key][skipped])), key
    for key in ("grad_calls", "floats_up"):
        np.testing.assert_array_equal(a[key], b[key])
    assert b.meta["metrics_every"] == 4 and b.meta["w_hat"] == a.meta["w_hat"]


@pytest.mark.parametrize("bad", [0, -2, 2.5, True, "3"])
def test_metrics_every_must_be_a_positive_integer(lasso, bad):
    p, _ = lasso
    with pytest.raises(InvalidHyperparameterError, match="metrics_every = .*the rule is an integer >= 1"):
        run("fedmid", p, {"eta_c": 0.1}, rounds=2, reference=False, metrics_every=bad)


def test_metrics_every_still_stops_a_diverging_run_at_once():
    p = generate("quadratics", clients=3, d=6)
    a = run("fedavg", p, {"eta_c": 50.0, "local_steps": 2}, rounds=500, reference=False)
    b = run("fedavg", p, {"eta_c": 50.0, "local_steps": 2}, rounds=500, reference=False, metrics_every=50)
    assert b.status == "diverged" and b.meta["diverged_at"] == a.meta["diverged_at"]


@pytest.mark.parametrize(("name", "hp", "oracle", "participation", "random"), [
    ("feddualavg", {"eta_c": 0.1}, "exact", None, False),
    ("fedcanon", {"eta_l": 0.1, "eta_g": 0.3}, "exact", None, False),
    ("feddualavg", {"eta_c": 0.1}, "gaussian:1.0", None, True),
    ("fedcanon", {"eta_l": 0.1, "eta_g": 0.3}, "exact", 4, True),
    ("scaffnew", {"gamma": 0.1}, "exact", None, True),  # its own coin flips, with an exact oracle
])
def test_a_trace_says_whether_the_run_drew_random_numbers(name, hp, oracle, participation, random):
    """meta['random']: whether any stream was drawn from.  A run that drew nothing is the same bits at
    every seed (checked), one that drew is not."""
    p = generate("quadratics", seed=0)
    a = run(name, p, hp, 5, oracle, seed=1, participation=participation, reference=False)
    b = run(name, p, hp, 5, oracle, seed=2, participation=participation, reference=False)
    assert a.meta["random"] is random
    assert np.array_equal(a["server_w"], b["server_w"]) is not random
