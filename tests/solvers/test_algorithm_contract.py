"""The contract every registry entry passes (optax ``_OPTIMIZERS_UNDER_TEST`` style).

Finite and shape-stable, seed-deterministic to the bit, exact call counts (checked against a
counting oracle, not only against the algorithm's own log), and convergence where the theory
says so — and non-convergence, with the reason, where it does not.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from fcocheck.solvers.algorithms import ALGORITHMS
from fcocheck.solvers.engine import run
from fcocheck.solvers.generators import generate
from fcocheck.solvers.oracles import Oracle, parse_oracle
from fcocheck.solvers.reference import reference_solve

NAMES = sorted(ALGORITHMS)
R, K, P = 4, 3, 3

#: Hyper-parameters of the entries whose names differ from FedHyper/StepHyper.
CASES: dict[str, dict] = {
    "fedcanon": {"eta_l": 0.05, "local_steps": K, "b": 2},
    "fedcanon2": {"eta_l": 0.05, "local_steps": K, "b": 2},
    "scaffold": {"eta_l": 0.05, "local_steps": K, "b": 2},
    "proxskip": {"gamma": 0.05, "p": 0.4},
    "scaffnew": {"gamma": 0.05, "p": 0.4},
    "scaffnew-composite": {"gamma": 0.05, "p": 0.4},
    "za1": {"eta": 0.05, "local_steps": K},
    "feddr": {"eta": 0.5, "alpha": 1.5, "local_solver": "gd", "local_steps": K},
    "fedadmm": {"eta": 0.5, "local_solver": "gd", "local_steps": K},
    "gd": {"h": 0.05},
    "heavy-ball": {"eta": 0.05, "beta": 0.5},
    "nesterov": {"eta": 0.05, "beta": 0.5},
    "sgd": {"h": 0.01, "m": 7},
    "svrg": {"h": 0.01, "m": 7},
    "dane": {"local_solver": "gd", "local_steps": K},
    "naive-fsvrg": {"h": 0.01, "m": 5},
    "fsvrg": {"h": 0.05},
    "primal-method": {},
    "dual-method": {},
    "cocoa+": {"local_steps": 2},
    "one-shot": {"local_solver": "gd", "local_steps": 20},
}
#: Entries that only run on L2-regularised linear predictors (FO16 eq. 11).
RIDGE_ONLY = ("primal-method", "dual-method", "cocoa+")
#: Entries whose iterates do not depend on the seed with exact gradients.
DETERMINISTIC = ("gd", "dane", "primal-method", "dual-method", "cocoa+", "one-shot")


def hyper(name: str, eta: float = 0.05, k: int = K) -> dict:
    if name in CASES:
        return dict(CASES[name])
    if ALGORITHMS[name].family == "federated":
        return {"eta_c": eta, "eta_s": 1.0, "local_steps": k}
    return {"eta": eta, "local_steps": k}


@pytest.fixture(scope="module")
def lasso():
    return generate("lasso-paper", clients=5, samples=12, d=16, nnz=4)


@pytest.fixture(scope="module")
def ridge_problem():
    return generate("ridge", clients=5, samples=60, d=16, lam=0.1)


def instance(name, lasso, ridge_problem):
    return ridge_problem if name in RIDGE_ONLY else lasso


def oracle_for(name: str, spec: str) -> str:
    return "exact" if ALGORITHMS[name].exact_oracle else spec


@dataclasses.dataclass(frozen=True)
class CountingOracle(Oracle):
    """Exact gradients that count every row queried (a list, so the frozen oracle can append)."""

    rows: list = dataclasses.field(default_factory=list)

    def grads(self, source, W, rng):
        self.rows.append(W.shape[0])
        return super().grads(source, W, rng)


@pytest.mark.parametrize("name", NAMES)
def test_finite_and_shape_stable(name, lasso, ridge_problem):
    p = instance(name, lasso, ridge_problem)
    P_run = None if not ALGORITHMS[name].participation else P
    t = run(name, p, hyper(name), rounds=R, oracle=oracle_for(name, "minibatch:4"), seed=3,
            participation=P_run, reference=False, record="step")
    assert t.status == "completed" and t.meta["completed"] == R
    assert t["server_w"].shape == (R + 1, p.dim)
    for key, arr in t.arrays.items():
        assert np.all(np.isfinite(arr)), key
        assert arr.shape[0] in (R, R + 1), key
    for key in ("objective", "prox_grad_norm", "grad_calls", "density"):
        assert t[key].shape == (R + 1,)


@pytest.mark.parametrize("name", NAMES)
def test_seed_determinism_is_bitwise(name, lasso, ridge_problem):
    p = instance(name, lasso, ridge_problem)
    P_run = None if not ALGORITHMS[name].participation else P
    runs = [run(name, p, hyper(name), rounds=R, oracle=oracle_for(name, "gaussian:0.5"), seed=s,
                participation=P_run, reference=False) for s in (7, 7, 8)]
    assert runs[0].arrays.keys() == runs[1].arrays.keys()
    for key in runs[0].arrays:
        np.testing.assert_array_equal(runs[0][key], runs[1][key], err_msg=key)
    different = not np.array_equal(runs[0]["server_w"], runs[2]["server_w"])
    assert different == (name not in DETERMINISTIC)


def expected_counts(name: str, M: int, S: int, dim: int) -> dict[str, int]:
    """Per-round counts derived from each algorithm's definition (S clients sampled).

    The FedCanon rows are FedCanon Table III: FedCanon 1 prox and 3d floats per client
    (x_i up, x^{t+1} and g^t down), FedCanon II M proxes and 2d floats, FedMiD/FedDualAvg
    M·K client proxes.
    """
    fam = ALGORITHMS[name].family
    b = CASES.get(name, {}).get("b", 1)
    table = {
        "fedcanon": {"grad_calls": S * K * b, "prox_calls_server": 1, "prox_calls_client": 0,
                     "floats_up": S * dim, "floats_down": 2 * S * dim},
        "fedcanon2": {"grad_calls": S * K * b, "prox_calls_server": 0, "prox_calls_client": M,
                      "floats_up": S * dim, "floats_down": M * dim},
        "scaffold": {"grad_calls": S * K * b, "prox_calls_server": 0, "floats_up": 2 * S * dim,
                     "floats_down": 2 * S * dim},
        "za1": {"grad_calls": S * K, "prox_calls_client": S * K, "prox_calls_server": 1,
                "floats_up": S * dim, "floats_down": 2 * S * dim},
    }
    for momentum in ("heavy-ball", "nesterov"):
        table[momentum] = {"grad_calls": S, "prox_calls_server": 0, "floats_up": S * dim,
                           "floats_down": S * dim}
    for split in ("feddr", "fedadmm"):
        table[split] = {"grad_calls": S * K, "prox_calls_server": 1, "floats_up": S * dim,
                        "floats_down": S * dim}
    if name in table:
        return table[name]
    if name == "centralized":
        return {"grad_calls": M * K, "prox_calls_server": K}
    if name == "local":
        return {"grad_calls": K, "prox_calls_client": K}
    card = ALGORITHMS[name].card
    if card is not None:  # stated once, on the card's pieces
        c = card.counts(S, M, K, dim)
        return {"grad_calls": c.grad, "prox_calls_client": c.prox_client, "prox_calls_server": c.prox_server,
                "subgrad_calls": c.subgrad, "floats_up": c.floats_up, "floats_down": c.floats_down}
    out = {"grad_calls": S * K, "floats_up": S * dim, "floats_down": S * dim}
    if fam == "sequential":
        return {**out, "prox_calls_server": 1}
    out["prox_calls_server"] = 1
    out["prox_calls_client"] = S * K if name == "feddualavg" else 0
    return out


#: Entries whose counts are random (Geometric local steps) or drawn from the data directly.
OWN_COUNTS = ("proxskip", "scaffnew", "scaffnew-composite",
              *[n for n in NAMES if ALGORITHMS[n].exact_oracle])


@pytest.mark.parametrize("name", [n for n in NAMES if n not in OWN_COUNTS])
def test_call_counts_are_exact(name, lasso):
    P_run = P if ALGORITHMS[name].participation else None
    S = P_run or lasso.M
    oracle = CountingOracle()
    t = run(name, lasso, hyper(name), rounds=R, oracle=oracle, seed=0, participation=P_run, reference=False)
    assert t["grad_calls"][-1] == sum(oracle.rows)  # the engine itself never queries the oracle
    for key, per_round in expected_counts(name, lasso.M, S, lasso.dim).items():
        np.testing.assert_array_equal(t[key], per_round * np.arange(R + 1), err_msg=key)


@pytest.mark.parametrize("name", ["proxskip", "scaffnew", "scaffnew-composite"])
def test_skip_methods_count_their_geometric_local_steps(name, lasso):
    """One prox (or communication) per round; M gradient queries per local step taken."""
    oracle = CountingOracle()
    t = run(name, lasso, hyper(name), rounds=30, oracle=oracle, seed=0, reference=False)
    steps = t["local_steps_taken"]
    assert t["grad_calls"][-1] == sum(oracle.rows) == lasso.M * steps.sum()
    assert np.all(steps >= 1)
    prox = 0 if name == "scaffnew" else 1
    np.testing.assert_array_equal(t["prox_calls_server"], prox * np.arange(31))


# --- convergence on a small strongly convex instance with exact gradients ------------------
MU, L_SMOOTH, LAM = 0.1, 1.0, 0.3


@pytest.fixture(scope="module")
def quad():
    p = generate("quadratics", clients=6, d=12, L=L_SMOOTH, mu=MU, zeta=1.0, lam=LAM)
    return p, reference_solve(p)


def _gap(name, problem, ref, hp, rounds):
    return run(name, problem, hp, rounds=rounds, oracle="exact", seed=0, reference=ref)


@pytest.mark.parametrize("name", ["fedmid-osp", "pgm", "mirror-descent", "centralized"])
def test_proximal_gradient_methods_converge_linearly(name, quad):
    """K = 1 (FedMiD-OSP = PGM, FCO eq. 2.1) or full-batch PGM: linear rate (1 − μ/L)^r."""
    p, ref = quad
    hp = {"eta_c": 1.0, "local_steps": 1} if name == "fedmid-osp" else {"eta": 1.0, "local_steps": 1}
    t = _gap(name, p, ref, hp, 400)
    # Φ(w_r) − Φ* ≤ (1 − μ/L)^r · (L/2)‖w_0 − w*‖² for PGM with η = 1/L (Beck–Teboulle).
    bound = (1 - MU / L_SMOOTH) ** 400 * 0.5 * L_SMOOTH * np.sum(ref.w**2)
    assert t["gap"][-1] <= max(bound, 1e-12 * abs(ref.objective))
    assert t["gap"][-1] >= -1e-12 * abs(ref.objective)
    assert t["density"][-1] < 1.0  # exact zeros, the prox's doing


@pytest.mark.parametrize("name", ["feddualavg", "dual-averaging"])
def test_dual_averaging_obeys_lemma_4_4_with_exact_gradients(name, quad):
    """σ = 0: Φ(ŵ) − Φ* ≤ B/(η_c K R) + (L/(MKR)) Σ discrepancy (Lemma 4.4, η_s = 1)."""
    p, ref = quad
    k = 1 if name == "dual-averaging" else 5
    eta = 1 / (4 * L_SMOOTH)
    hp = {"eta_c": eta, "local_steps": k} if name == "feddualavg" else {"eta": eta}
    rounds = 200
    t = _gap(name, p, ref, hp, rounds)
    B = 0.5 * np.sum(ref.w**2)  # D_h(w*, 0), Euclidean
    overhead = t["discrepancy_overhead"][-1] if "discrepancy_overhead" in t else 0.0
    assert 0 <= t["gap_avg"][-1] <= B / (eta * k * rounds) + overhead
    assert t["gap"][-1] < 1e-3 * abs(ref.objective)


def test_fedavg_and_fedavg_subgradient_solve_the_smooth_problem(quad):
    """ψ = 0, K = 1: FedAvg and FedAvg(∂) are gradient descent and converge linearly."""
    p0 = generate("quadratics", clients=6, d=12, L=L_SMOOTH, mu=MU, zeta=1.0, lam=0.0)
    ref = reference_solve(p0)
    for name in ("fedavg", "fedavg-subgrad"):
        t = _gap(name, p0, ref, {"eta_c": 1.0, "local_steps": 1}, 400)
        assert t["gap"][-1] <= 1e-12 * abs(ref.objective) + 0.5 * (1 - MU) ** 400 * np.sum(ref.w**2)


def test_fedavg_subgradient_plateaus_with_a_constant_step(quad):
    """ψ = λ‖·‖₁: constant-step subgradient steps stall at a floor O(√(η) λ d) and are never sparse."""
    p, ref = quad
    eta = 0.05
    t = _gap("fedavg-subgrad", p, ref, {"eta_c": eta, "local_steps": 1}, 1000)
    d = p.dim
    # ‖w_r − w*‖² → ≤ 4ηλ²d/μ, so Φ − Φ* ≤ 2λ√d δ + (L/2) δ² with δ² = 4ηλ²d/μ.
    delta = np.sqrt(4 * eta * LAM**2 * d / MU)
    assert t["gap"][-1] <= 2 * LAM * np.sqrt(d) * delta + 0.5 * L_SMOOTH * delta**2
    assert t["gap"][-1] > 1e-8  # it does not converge
    assert t["density"][-1] == 1.0


def test_fedmid_as_written_converges_to_the_doubled_regulariser(quad):
    """Finding: Alg. 2 applies ψ on clients (line 8) and again on the server (line 10).

    With exact gradients, K = 1, η_s = 1 a round is prox_{ηψ}∘prox_{ηψ}(w − η∇F(w)) = PGM on
    F + 2ψ for ψ = λ‖·‖₁ (soft-thresholds compose additively), so FedMiD converges to the
    certified argmin of F + 2λ‖·‖₁ and stays away from Φ*.
    """
    p, ref = quad
    p2 = generate("quadratics", clients=6, d=12, L=L_SMOOTH, mu=MU, zeta=1.0, lam=2 * LAM)
    ref2 = reference_solve(p2)
    t = _gap("fedmid", p, ref, {"eta_c": 1.0, "local_steps": 1}, 400)
    np.testing.assert_allclose(t.final_w, ref2.w, atol=1e-9)
    assert t["gap"][-1] > 1e-3


def test_fedmid_on_constraints_converges_for_one_client_and_is_biased_for_many():
    """ψ = χ_C, K = 1, η_s = 1: projection is idempotent, so with one client FedMiD is projected GD
    and converges; with heterogeneous clients a round is avg_m Proj(w − η∇F_m(w)) ≠
    Proj(w − η∇F(w)), a biased fixed point — while FedDualAvg (exact dual averaging) converges.
    """
    p = generate("simplex-ls", clients=4, samples=20, d=6)
    ref = reference_solve(p)
    eta = 1 / 2.2  # L = 2.19 for this instance
    one = dataclasses.replace(p, X=p.X[:1], y=p.y[:1], weights=np.ones(1))
    ref_one = reference_solve(one)
    t1 = run("fedmid", one, {"eta_c": eta}, rounds=2000, reference=ref_one)
    assert t1["gap"][-1] <= 1e-12 * max(1.0, abs(ref_one.objective))
    many = run("fedmid", p, {"eta_c": eta}, rounds=2000, reference=ref)
    assert many["gap"][-1] > 1e-5 * abs(ref.objective)  # measured 2.6e-4 relative: a stall, not noise
    da = run("feddualavg", p, {"eta_c": eta}, rounds=2000, reference=ref)
    assert abs(da["gap"][-1]) <= 1e-12 * max(1.0, abs(ref.objective))


def test_feddualavg_osp_collapses_to_the_prox_of_the_unregularised_path(quad):
    """OSP clients query ∇F at z (no ψ): z_r → argmin F and w_r = prox_{η r ψ}(z_r) → 0 for ℓ1."""
    p, ref = quad
    t = run("feddualavg-osp", p, {"eta_c": 1.0, "local_steps": 1}, rounds=400, reference=ref, record="step")
    z = t["server_z"][-1]
    np.testing.assert_allclose(z, np.linalg.solve(p.Q[0], -p.c.mean(axis=0)), atol=1e-9)
    soft = np.sign(z) * np.maximum(np.abs(z) - 400 * LAM, 0)
    np.testing.assert_allclose(t.final_w, soft, atol=1e-12)
    assert t["density"][-1] == 0.0 and t["gap"][-1] > 1.0


def test_local_baseline_converges_to_its_own_client_optimum(quad):
    p, ref = quad
    c = 2
    pc = dataclasses.replace(p, Q=p.Q[c:c + 1], c=p.c[c:c + 1], weights=np.ones(1))
    ref_c = reference_solve(pc)
    t = run("local", p, {"eta": 1.0, "local_steps": 4, "client": c}, rounds=100, reference=ref)
    np.testing.assert_allclose(t.final_w, ref_c.w, atol=1e-9)
    assert t["gap"][-1] > 1e-3  # heterogeneity: the client's optimum is not the federation's


def test_oracle_specs_are_accepted_by_every_algorithm(lasso):
    for spec in ("exact", "gaussian:0.1", "minibatch:2"):
        assert run("feddualavg", lasso, hyper("feddualavg"), rounds=1, oracle=parse_oracle(spec),
                   reference=False).status == "completed"
