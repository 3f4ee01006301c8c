"""Seed 004's identities: Lemma 4, Proposition 1, Theorem 5 (Konečný et al. 2016, App. A)."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from fcocheck.solvers.smoothness import sample_smoothness
from fcocheck.verify.cases import build
from fcocheck.verify.evidence import Evidence, bounded
from fcocheck.verify.invariants.base import IDENTITY_TOL, Invariant, guarded, same_iterates, trace_of
from fcocheck.verify.optimum import optimum
from fcocheck.verify.strategies import Case, instance_specs

ROUNDS = 6


@st.composite
def _ridge_cases(draw, sigma: bool = True) -> Case:
    spec = draw(instance_specs("general", ("l2sq",)))
    hp = {"sigma": float(draw(st.sampled_from([0, 1, spec.M])))} if sigma else {}
    return Case(spec, hp)


def lemma_4(case: Case) -> Evidence:
    """Σ_k p_k g_k^t = 0 for every t of Alg. 5 (logged as ``g_sum``)."""
    t = trace_of("primal-method", case, ROUNDS)
    scale = max(1.0, float(np.linalg.norm(build(case.spec).grad_F(np.zeros(case.spec.dim)))))
    resid = float(np.max(t["g_sum"])) / scale
    return bounded(
        "lemma-4",
        resid,
        IDENTITY_TOL,
        f"max_t ‖Σ_k M p_k g_k^t‖/scale = {resid:.2e} "
        f"(rule ≤ {IDENTITY_TOL:g}) over {ROUNDS} rounds; {case.describe()}",
    )


def theorem_5(case: Case) -> Evidence:
    """Alg. 5's w^t equals (1/(λn)) X α^t of Alg. 6 for ridge regression."""
    a = trace_of("primal-method", case, ROUNDS)
    b = trace_of("dual-method", case, ROUNDS)
    return same_iterates(
        "theorem-5", a, b, f"primal vs dual method, {ROUNDS} rounds; {case.describe()}", 1e-9
    )


@st.composite
def _svrg_cases(draw) -> Case:
    spec = draw(instance_specs("general", ("zero", "l2sq", "l1")))
    Ls = sample_smoothness(build(spec))
    hp = {"h": draw(st.sampled_from([0.1, 0.5, 0.05])) / Ls, "m": draw(st.sampled_from([5, 1, 20]))}
    optimum(spec)
    return Case(spec, hp, seed=draw(st.integers(0, 100)))


def proposition_1(case: Case) -> Evidence:
    """DANE (η = 1, μ = 0, one SVRG epoch from w^t) = naive FSVRG given the same samples."""
    dane = {"eta": 1.0, "mu": 0.0, "local_solver": "svrg", **case.hp}
    a = trace_of("dane", case, ROUNDS, hp=dane)
    b = trace_of("naive-fsvrg", case, ROUNDS)
    return same_iterates(
        "proposition-1", a, b, f"DANE(svrg) vs naive FSVRG, {ROUNDS} rounds; {case.describe()}", 1e-10
    )


INVARIANTS = (
    Invariant(
        "lemma-4",
        "FO16 App. A.1, Lemma 4",
        "Σ_k g_k^t = 0 for the Primal Method, every t",
        ("primal-method",),
        "holds",
        _ridge_cases,
        guarded("lemma-4", lemma_4),
    ),
    Invariant(
        "theorem-5",
        "FO16 App. A, Theorem 5",
        "ridge regression: Primal Method w^t = (1/(λn)) X α^t of the Dual Method",
        ("primal-method", "dual-method"),
        "holds",
        _ridge_cases,
        guarded("theorem-5", theorem_5),
    ),
    Invariant(
        "proposition-1",
        "FO16 §3.5, Proposition 1",
        "DANE (η=1, μ=0, one SVRG epoch from w^t) = naive FSVRG with the same samples",
        ("dane", "naive-fsvrg"),
        "holds",
        _svrg_cases,
        guarded("proposition-1", proposition_1),
    ),
)
