"""Control-variate identities: FedCanon Σ_i c_i = 0, SCAFFOLD c = Σ_i p_i c_i, Scaffnew Σ_i h_i.

* FedCanon (eqs. 7d–7f): Σ_i p_i c_i^t = 0 for every t, also under client sampling
  (only sampled clients update, and Σ_{i∈S} p_i c_i^{t+1} = Σ_{i∈S} p_i c_i^t).
* SCAFFOLD (Karimireddy et al. Alg. 1, docs/baselines.md): the server control c equals
  Σ_i p_i c_i after every round, under sampling too.
* Scaffnew (Mishchenko et al. Alg. 2): Σ_i p_i h_i = 0; with the prox at communication (the
  toolkit's composite form) Σ_i p_i h_i = (prox_{tψ}(v) − v)/t ∈ −∂ψ(x⁺), t = γ/p.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from fcocheck.solvers.engine.run import prepare
from fcocheck.verify.cases import build
from fcocheck.verify.evidence import Evidence, bounded
from fcocheck.verify.invariants.base import IDENTITY_TOL, Invariant, guarded, trace_of
from fcocheck.verify.optimum import optimum
from fcocheck.verify.strategies import Case, instance_specs, run_options

ROUNDS = 6


def identity_scale(case: Case, W: np.ndarray) -> float:
    """Rounding scale of a logged sum of controls: max(1, ‖∇F_m(0)‖ stacked, L_max·max|w_r|)."""
    p = build(case.spec)
    grads = float(np.linalg.norm(p.client_grads(np.zeros((p.M, p.dim)))))
    return max(1.0, grads, optimum(case.spec).L_max * float(np.abs(W).max()))


@st.composite
def control_cases(draw, psi: tuple[str, ...] = ("zero", "l2sq", "l1"), sampling: bool = True) -> Case:
    """Control-variate methods with noise, K ≥ 1 and (optionally) client sampling."""
    spec = draw(instance_specs("general", psi))
    L = optimum(spec).L_max
    hp = {"eta_l": draw(st.sampled_from([0.25, 0.1])) / L, "local_steps": draw(st.integers(1, 4))}
    return Case(spec, hp, **draw(run_options(spec.M, sampling)))


def logged_zero(name: str, key: str, what: str):
    """Check that the logged residual ``key`` of ``name`` stays ≤ tol·scale at every round."""

    def check(case: Case) -> Evidence:
        t = trace_of(name, case, ROUNDS)
        resid = float(np.max(t[key])) / identity_scale(case, t["server_w"])
        return bounded(
            f"{name}:{key}",
            resid,
            IDENTITY_TOL,
            f"{what}: max_t {key}/scale = {resid:.2e} (rule ≤ {IDENTITY_TOL:g}); {case.describe()}",
        )

    return check


@st.composite
def skip_cases(draw, psi: tuple[str, ...]) -> Case:
    """Scaffnew cases: γ ≤ 1/L, p ∈ (0, 1]."""
    spec = draw(instance_specs("general", psi))
    L = optimum(spec).L_max
    hp = {"gamma": draw(st.sampled_from([0.5, 0.1, 1.0])) / L, "p": draw(st.sampled_from([0.5, 0.2, 1.0]))}
    return Case(
        spec, hp, oracle=draw(st.sampled_from(["exact", "gaussian:0.5"])), seed=draw(st.integers(0, 100))
    )


def subdifferential_distance(kind: str, lam: float, x: np.ndarray, s: np.ndarray) -> float:
    """dist(s, ∂ψ(x)) for ψ ∈ {0, (λ/2)‖·‖², λ‖·‖₁}."""
    if kind == "zero":
        return float(np.abs(s).max(initial=0.0))
    if kind == "l2sq":
        return float(np.abs(s - lam * x).max(initial=0.0))
    on = x != 0
    off = np.maximum(np.abs(s[~on]) - lam, 0.0)
    return float(max(np.abs(s[on] - lam * np.sign(x[on])).max(initial=0.0), off.max(initial=0.0)))


def composite_scaffnew(case: Case) -> Evidence:
    """−Σ_i p_i h_i ∈ ∂ψ(x⁺) after every round of composite Scaffnew."""
    p = build(case.spec)
    s = prepare("scaffnew-composite", p, case.hp, ROUNDS, case.oracle, None, "round", False, None, "auto")
    rng = np.random.default_rng(case.seed)
    state = s.algorithm.init(p, s.hp, s.w0, rng)
    worst = 0.0
    for _ in range(ROUNDS):
        state, _ = s.algorithm.round(state, s.hp, s.env, rng, np.arange(p.M))
        worst = max(
            worst, subdifferential_distance(case.spec.psi, case.spec.lam, state.w, -(p.weights @ state.H))
        )
    resid = worst / identity_scale(case, state.w[None, :])
    return bounded(
        "scaffnew-composite:subgradient",
        resid,
        1e-10,
        f"max_t dist(−Σ p_i h_i, ∂ψ(x⁺))/scale = {resid:.2e} (rule ≤ 1e-10); {case.describe()}",
    )


INVARIANTS = (
    Invariant(
        "fedcanon-sum",
        "FedCanon eqs. (7d)–(7f)",
        "Σ_i c_i^t = 0 for FedCanon, every t, under sampling",
        ("fedcanon",),
        "holds",
        control_cases,
        guarded("fedcanon-sum", logged_zero("fedcanon", "control_sum", "‖Σ M p_i c_i‖")),
    ),
    Invariant(
        "fedcanon2-sum",
        "FedCanon Alg. 2",
        "Σ_i c_i^t = 0 for FedCanon II, every t, under sampling",
        ("fedcanon2",),
        "holds",
        control_cases,
        guarded("fedcanon2-sum", logged_zero("fedcanon2", "control_sum", "‖Σ M p_i c_i‖")),
    ),
    Invariant(
        "scaffold-c",
        "Karimireddy et al. 2020 Alg. 1; docs/baselines.md",
        "SCAFFOLD's server control c = Σ_i p_i c_i after every round, under sampling",
        ("scaffold",),
        "holds",
        lambda: control_cases(("zero",)),
        guarded("scaffold-c", logged_zero("scaffold", "control_gap", "‖c − Σ p_i c_i‖")),
    ),
    Invariant(
        "scaffnew-sum",
        "Mishchenko et al. 2022 Alg. 2",
        "Σ_i h_i = 0 for Scaffnew, every round",
        ("scaffnew",),
        "holds",
        lambda: skip_cases(("zero",)),
        guarded("scaffnew-sum", logged_zero("scaffnew", "control_sum", "‖Σ M p_i h_i‖")),
    ),
    Invariant(
        "scaffnew-composite",
        "docs/baselines.md (composite Scaffnew)",
        "composite Scaffnew: −Σ_i p_i h_i ∈ ∂ψ(x⁺) after every communication",
        ("scaffnew-composite",),
        "holds",
        lambda: skip_cases(("zero", "l2sq", "l1")),
        guarded("scaffnew-composite", composite_scaffnew),
    ),
)
