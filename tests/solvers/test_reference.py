"""Certified reference optima: soundness of the duality gaps, brute force, paper targets."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solvers.generators import generate
from solvers.mirror_maps import Euclidean
from solvers.problem import Problem, uniform_weights
from solvers.reference import GLOBAL, STATIONARY, gram_form, prox_grad_norm, reference_solve
from solvers.reference.certificate import glm_gap, gram_gap
from solvers.regularizers import L1


def tiny_lasso(seed: int, d: int = 3, lam: float = 0.3) -> Problem:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((2, 6, d))
    y = X @ rng.standard_normal(d) + 0.5 + 0.3 * rng.standard_normal((2, 6))
    return Problem(name="tiny", loss="squares", X=tuple(X), y=tuple(y), regularizer=L1(lam),
                   mirror=Euclidean(), weights=uniform_weights(2), intercept=True)


def brute_force_lasso(problem: Problem) -> float:
    """Enumerate supports and signs; solve each KKT system exactly; keep the best feasible."""
    gf = gram_form(problem)
    d, lam = problem.d, problem.regularizer.lam
    best = np.inf
    for support in itertools.chain.from_iterable(
            itertools.combinations(range(d), k) for k in range(d + 1)):
        idx = list(support) + [d]  # the intercept is always free
        for signs in itertools.product((-1.0, 1.0), repeat=len(support)):
            rhs = gf.g[idx] - lam * np.r_[signs, 0.0]
            w = np.zeros(d + 1)
            w[idx] = np.linalg.solve(gf.H[np.ix_(idx, idx)], rhs)
            best = min(best, problem.Phi(w))
    return best


@pytest.mark.parametrize("seed", range(5))
def test_certificate_against_brute_force(seed):
    problem = tiny_lasso(seed)
    sol = reference_solve(problem)
    exact = brute_force_lasso(problem)
    assert sol.certificate.kind == "duality-gap"
    # the certified interval [Φ(w) − gap, Φ(w)] contains the brute-force optimum
    assert sol.objective - sol.certificate.value - 1e-13 <= exact <= sol.objective + 1e-13
    assert sol.objective - exact <= 1e-10 * abs(exact)


@settings(max_examples=30)
@given(seed=st.integers(0, 10_000), scale=st.floats(0.01, 10.0))
def test_duality_gap_is_a_valid_bound_at_any_point(seed, scale):
    """Weak duality: the dual value at ANY w never exceeds the optimum."""
    problem = tiny_lasso(seed % 7)
    opt = brute_force_lasso(problem)
    w = scale * np.random.default_rng(seed).standard_normal(problem.dim)
    cert = gram_gap(problem, gram_form(problem), w)
    assert cert.dual <= opt + 1e-12 * (1 + abs(opt))
    assert cert.primal >= opt - 1e-12 * (1 + abs(opt))


@settings(max_examples=20)
@given(seed=st.integers(0, 10_000), scale=st.floats(0.01, 10.0))
def test_logistic_dual_is_a_valid_bound_at_any_point(seed, scale):
    problem = generate("sparse-logistic", clients=3, samples=10, d=4, nnz=2, lam=0.05)
    opt = reference_solve(problem).objective
    w = scale * np.random.default_rng(seed).standard_normal(problem.dim)
    cert = glm_gap(problem, w)
    assert cert is not None and cert.dual <= opt + 1e-10 * abs(opt)


@pytest.mark.parametrize("name,params", [
    ("quadratics", {}), ("ridge", {}), ("simplex-ls", {}), ("breast-cancer", {}),
    ("constrained-logistic", {"ball": "l2"}), ("sparse-logistic", {}),
    ("quadratics", {"mirror": "diagonal", "diagonal": True}),
])
def test_small_instances_are_certified_and_agree_with_cvxpy(name, params):
    sol = reference_solve(generate(name, **params))
    assert sol.label == GLOBAL
    assert sol.certificate.kind == "duality-gap"
    assert sol.certificate.relative <= 1e-10
    assert sol.agreement is not None and sol.agreement <= 1e-9


@pytest.mark.parametrize("penalty", ["mcp", "scad"])
def test_nonconvex_instance_returns_a_labelled_stationary_point(penalty):
    problem = generate("robust-penalized", penalty=penalty)
    sol = reference_solve(problem)
    assert sol.label == STATIONARY
    assert sol.certificate.kind == "kkt-residual" and sol.certificate.value <= 1e-10
    assert prox_grad_norm(problem, sol.w, 0.1) <= 1e-8


@pytest.mark.parametrize("name", ["lasso-paper", "lowrank-paper"])
def test_paper_instances_certified_to_1e10(name):
    sol = reference_solve(generate(name))
    assert sol.certificate.kind == "duality-gap"
    assert sol.certificate.relative <= 1e-10
    assert sol.agreement <= 1e-9


@pytest.mark.slow
@pytest.mark.parametrize("name,params", [
    ("lasso-paper", {"nnz": 64}), ("lasso-paper", {"nnz": 8}),
    ("lasso-paper", {"clients": 256, "samples": 32}),
    ("lowrank-paper", {"rank": 4}), ("lowrank-paper", {"rank": 1}),
    ("lasso-paper", {"heterogeneity": 3.0}),
])
def test_paper_variants_certified_and_recovered(name, params):
    """The slides' variants: certified to 1e-10, and the centralised optimum recovers the truth."""
    from solvers.metrics import recovery

    problem = generate(name, **params)
    sol = reference_solve(problem)
    assert sol.certificate.relative <= 1e-10 and sol.agreement <= 1e-9
    rec = recovery(problem, sol.w)
    if name == "lasso-paper":
        assert rec["recall"] == 1.0 and rec["precision"] >= 0.95
    else:
        assert rec["rank"] == params["rank"]
