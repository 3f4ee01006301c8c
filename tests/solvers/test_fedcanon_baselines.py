"""FedCanon and the baselines of docs/baselines.md: their defining identities.

Every identity is checked iterate by iterate on runs that share one seed, under a stochastic
oracle, so the equal iterates come from equal algebra, not from converging to the same point.
"""

from __future__ import annotations

import numpy as np
import pytest

from fcocheck.solvers import algorithms
from fcocheck.solvers.engine import run
from fcocheck.solvers.engine.run import prepare
from fcocheck.solvers.errors import InvalidHyperparameterError, InvalidProblemError, InvalidStepSizeError
from fcocheck.solvers.generators import generate
from fcocheck.solvers.problem import Problem
from fcocheck.solvers.reference import reference_solve
from fcocheck.solvers.regularizers import MCP, Zero

R = 12


@pytest.fixture(scope="module")
def lasso():
    return generate("lasso-paper", clients=6, samples=16, d=20, nnz=5)


@pytest.fixture(scope="module")
def smooth(lasso):
    """The same data with ψ = 0 (SCAFFOLD and Scaffnew are smooth methods)."""
    return Problem(name="smooth", loss=lasso.loss, X=lasso.X, y=lasso.y, regularizer=Zero(),
                   mirror=lasso.mirror, weights=lasso.weights)


@pytest.fixture(scope="module")
def quad():
    return generate("quadratics", clients=5, d=8, L=1.0, mu=0.2, zeta=1.0, lam=0.2)


def _close(a, b, rtol=1e-11):
    scale = max(1.0, float(np.abs(a).max()))
    np.testing.assert_allclose(a, b, rtol=0, atol=rtol * scale)


@pytest.mark.parametrize("K", [1, 4])
def test_fedcanon_without_regulariser_is_scaffold_option_ii(smooth, K):
    """docs/baselines.md: c_i(FedCanon) = c − c_i(SCAFFOLD), η_g(FedCanon) = η_g(SCAFFOLD)·η_l·K."""
    eta_l, eta_g = 0.04, 0.7
    a = run("fedcanon", smooth, {"eta_l": eta_l, "eta_g": eta_g * eta_l * K, "local_steps": K}, rounds=R,
            oracle="gaussian:0.3", seed=5, reference=False)
    b = run("scaffold", smooth, {"eta_l": eta_l, "eta_g": eta_g, "local_steps": K}, rounds=R,
            oracle="gaussian:0.3", seed=5, reference=False)
    _close(a["server_w"], b["server_w"])
    assert np.max(b["control_gap"]) < 1e-12  # c = avg_i c_i at every round


@pytest.mark.parametrize("participation", [None, 3])
def test_fedcanon_and_fedcanon_ii_produce_the_same_iterates(lasso, participation):
    hp = {"eta_l": 0.03, "local_steps": 3, "b": 2}
    a = run("fedcanon", lasso, hp, rounds=R, oracle="minibatch:2", seed=1, participation=participation,
            reference=False)
    b = run("fedcanon2", lasso, hp, rounds=R, oracle="minibatch:2", seed=1, participation=participation,
            reference=False)
    _close(a["server_w"], b["server_w"], rtol=1e-12)  # equal up to SIMD summation order
    assert np.all(b["model_spread"] == 0.0)
    assert a["prox_calls_server"][-1] == R and b["prox_calls_client"][-1] == R * lasso.M


@pytest.mark.parametrize("participation", [None, 2])
def test_fedcanon_controls_sum_to_zero(lasso, participation):
    """Eqs. 7d/7f: Σ_i c_i^t = 0 for all t — also under client sampling (p̃-weighted average)."""
    t = run("fedcanon", lasso, {"eta_l": 0.03, "local_steps": 4}, rounds=R, oracle="gaussian:1.0",
            seed=2, participation=participation, reference=False)
    assert np.max(t["control_sum"]) < 1e-12 * max(1.0, float(np.abs(t["server_w"]).max()) * 1e3)


def test_fedcanon_with_one_local_step_is_proximal_gradient_and_converges_linearly(quad):
    """K = 1, exact gradients, η_g = η_l = 1/L: x^{t+1} = prox(x^t − η∇F(x^t)) (c_i cancel in g)."""
    ref = reference_solve(quad)
    t = run("fedcanon", quad, {"eta_l": 1.0, "eta_g": 1.0, "local_steps": 1}, rounds=200, seed=0,
            reference=ref)
    pg = run("pgm", quad, {"eta": 1.0}, rounds=200, seed=0, reference=ref)
    _close(t["server_w"], pg["server_w"], rtol=1e-10)
    assert t["gap"][-1] <= (1 - 0.2) ** 200 * 0.5 * np.sum(ref.w**2) + 1e-12 * abs(ref.objective)


def test_fedadmm_is_feddr_with_alpha_one(lasso, quad):
    """y_i = x̄ − ηz_i maps FedADMM onto FedDR(α = 1), exact (quadratics) and inexact local proxes."""
    for problem, solver in ((quad, "exact"), (lasso, "gd")):
        hp = {"eta": 0.7, "local_solver": solver, "local_steps": 5}
        a = run("fedadmm", problem, hp, rounds=R, seed=0, participation=3, reference=False)
        b = run("feddr", problem, {**hp, "alpha": 1.0}, rounds=R, seed=0, participation=3, reference=False)
        _close(a["server_w"], b["server_w"], rtol=1e-10)


def test_feddr_and_fedadmm_converge_on_a_strongly_convex_composite_problem(quad):
    ref = reference_solve(quad)
    for name, extra in (("feddr", {"alpha": 1.0}), ("fedadmm", {})):
        t = run(name, quad, {"eta": 1.0, "local_solver": "exact", **extra}, rounds=300, seed=0, reference=ref)
        assert t["gap"][-1] < 1e-9 * max(1.0, abs(ref.objective)), name


def test_scaffnew_preserves_the_control_sum_and_its_composite_form_matches_a_subgradient(lasso, smooth):
    """Σ_i h_i = 0 for Scaffnew; with the prox, Σ_i p_i h_i = (prox(v) − v)/t ∈ −∂ψ(x⁺)."""
    t = run("scaffnew", smooth, {"gamma": 0.05, "p": 0.3}, rounds=20, seed=0, reference=False)
    assert np.max(t["control_sum"]) < 1e-12
    s = prepare("scaffnew-composite", lasso, {"gamma": 0.05, "p": 0.3}, 10, "exact", None, "round", False,
                None, "auto")
    alg, rng = s.algorithm, np.random.default_rng(0)
    state = alg.init(lasso, s.hp, s.w0, rng)
    for _ in range(10):
        state, _ = alg.round(state, s.hp, s.env, rng, np.arange(lasso.M))
    d = lasso.d  # the intercept is unpenalised: its control sum is 0
    hsum = lasso.weights @ state.H
    assert abs(hsum[d:]).max(initial=0.0) < 1e-12
    hsum, lam, x = hsum[:d], lasso.regularizer.lam, state.w[:d]
    on = x != 0
    np.testing.assert_allclose(-hsum[on], lam * np.sign(x[on]), atol=1e-10)
    assert np.all(np.abs(hsum[~on]) <= lam * (1 + 1e-10))


def test_proxskip_converges_linearly_on_a_strongly_convex_composite_problem(quad):
    ref = reference_solve(quad)
    t = run("proxskip", quad, {"gamma": 1.0, "p": 0.5}, rounds=150, seed=0, reference=ref)
    assert t["gap"][-1] < 1e-10 * max(1.0, abs(ref.objective))
    assert np.mean(t["local_steps_taken"]) == pytest.approx(2.0, rel=0.3)  # E = 1/p


def test_za1_and_scaffold_reduce_client_drift_on_heterogeneous_quadratics(quad):
    """With exact gradients and K > 1 the drift-corrected methods reach Φ*; FedMiD stalls (FCO §3)."""
    ref = reference_solve(quad)
    za = run("za1", quad, {"eta": 0.1, "local_steps": 5}, rounds=400, seed=0, reference=ref)
    mid = run("fedmid", quad, {"eta_c": 0.1, "local_steps": 5}, rounds=400, seed=0, reference=ref)
    assert za["gap"][-1] < 1e-3 * mid["gap"][-1]


# --- bad input ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def mcp_problem(lasso):
    return Problem(name="mcp", loss=lasso.loss, X=lasso.X, y=lasso.y, regularizer=MCP(0.1, 2.0),
                   mirror=lasso.mirror, weights=lasso.weights)


def test_weakly_convex_prox_steps_are_refused_before_round_zero(mcp_problem):
    with pytest.raises(InvalidStepSizeError, match="tρ"):
        run("fedcanon", mcp_problem, {"eta_l": 0.5, "eta_g": 2.5}, rounds=3, reference=False)
    with pytest.raises(InvalidStepSizeError, match="tρ"):
        run("proxskip", mcp_problem, {"gamma": 0.5, "p": 0.2}, rounds=3, reference=False)  # γ/p = 2.5
    t = run("fedcanon", mcp_problem, {"eta_l": 0.5, "eta_g": 1.5}, rounds=3, reference=False)
    assert t.status == "completed"


@pytest.mark.parametrize("p_value", [0.0, -0.1, 1.5, float("nan")])
def test_proxskip_probability_outside_unit_interval_is_refused(lasso, p_value):
    with pytest.raises(InvalidHyperparameterError, match="0 < p <= 1"):
        run("scaffnew", lasso, {"gamma": 0.1, "p": p_value}, rounds=1, reference=False)


@pytest.mark.parametrize("alpha", [0.0, 2.0, -1.0])
def test_feddr_relaxation_outside_open_interval_is_refused(lasso, alpha):
    with pytest.raises(InvalidHyperparameterError, match="0 < alpha < 2"):
        run("feddr", lasso, {"eta": 0.5, "alpha": alpha}, rounds=1, reference=False)


def test_exact_local_prox_on_a_non_quadratic_loss_is_refused():
    p = generate("sparse-logistic", clients=3, samples=20, d=10)
    with pytest.raises(InvalidProblemError, match="not quadratic"):
        run("feddr", p, {"eta": 0.5, "local_solver": "exact"}, rounds=1, reference=False)


def test_registry_lists_every_issue_4_entry():
    for name in ("fedcanon", "fedcanon2", "scaffold", "proxskip", "scaffnew", "scaffnew-composite", "za1",
                 "feddr", "fedadmm", "gd", "sgd", "svrg", "dane", "naive-fsvrg", "fsvrg", "primal-method",
                 "dual-method", "cocoa+", "one-shot"):
        assert algorithms.get(name).doc.count("References:") == 1


def test_fedcanon_server_only_prox_leaves_a_floor_that_vanishes_with_the_regulariser(quad):
    """Exact gradients, K > 1: FedCanon stalls at a gap that grows with K while ZA1 and composite
    Scaffnew reach Φ*; with ψ = 0 (∇F(w*) = 0) FedCanon reaches F* — the λB_ψ floor of FedCanon
    Thm 1 is real, not an artefact of stochastic gradients."""
    ref = reference_solve(quad)
    floors = []
    for K in (5, 20):
        t = run("fedcanon", quad, {"eta_l": 0.1, "local_steps": K}, rounds=300, seed=0, reference=ref)
        floors.append(t["gap"][-1])
        assert abs(t["gap"][-1] - t["gap"][-50]) < 1e-12  # a fixed point, not slow progress
        z = run("za1", quad, {"eta": 0.1, "local_steps": K}, rounds=300, seed=0, reference=ref)
        assert z["gap"][-1] < 1e-12
    assert 1e-3 < floors[0] < floors[1]
    plain = Problem(name="plain", loss="quadratic", X=(), y=(), Q=quad.Q, c=quad.c, regularizer=Zero(),
                    mirror=quad.mirror, weights=quad.weights)
    ref0 = reference_solve(plain)
    t = run("fedcanon", plain, {"eta_l": 0.1, "local_steps": 20}, rounds=300, seed=0, reference=ref0)
    assert t["gap"][-1] < 1e-12
