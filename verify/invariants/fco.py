"""FCO eq. 4.5: the dual shadow of FedDualAvg moves by exactly −η_c·(average gradient).

z̄_{r,k+1} = z̄_{r,k} − η_c avg_m g^m_{r,k} for FedDualAvg with η_s = 1 (any ψ, any noise): the
dual states are averaged linearly.  For FedMiD the same identity fails as soon as ψ acts
(prox and averaging do not commute; FCO §4 after Lemma 4.4): Hypothesis must find and shrink
a counterexample, and the matrix reports that outcome as the expected one.
"""

from __future__ import annotations

from hypothesis import strategies as st

from fcocheck.verify.evidence import Evidence, bounded
from fcocheck.verify.invariants.base import IDENTITY_TOL, Invariant, guarded, trace_of
from fcocheck.verify.optimum import optimum
from fcocheck.verify.residuals import shadow_residual as shadow_residual_of
from fcocheck.verify.strategies import Case, instance_specs

ROUNDS = 4


@st.composite
def shadow_cases(draw) -> Case:
    """Instances with any ψ, η_c ≤ 1/(2L), K ≥ 1, η_s = 1, exact or noisy gradients."""
    spec = draw(instance_specs("general", ("zero", "l2sq", "l1")))
    L = optimum(spec).L_max
    hp = {
        "eta_c": draw(st.sampled_from([0.25, 0.1, 0.5])) / L,
        "eta_s": 1.0,
        "local_steps": draw(st.integers(1, 4)),
    }
    oracle = draw(st.sampled_from(["exact", "gaussian:0.5"]))
    return Case(spec, hp, oracle=oracle, seed=draw(st.integers(0, 100)))


def shadow_residual(name: str, case: Case) -> Evidence:
    """Max |z̄_{r,k+1} − (z̄_{r,k} − η_c ḡ_{r,k})| / max|z̄| over every round and local step."""
    t = trace_of(name, case, ROUNDS, record="step")
    resid = float(shadow_residual_of(t, case.hp["eta_c"]).max())
    return bounded(
        "eq-4.5",
        resid,
        IDENTITY_TOL,
        f"{name}: max relative residual of z̄_(k+1) = z̄_k − η_c ḡ_k "
        f"{resid:.2e} (rule ≤ {IDENTITY_TOL:g}); {case.describe()}",
    )


INVARIANTS = (
    Invariant(
        "eq-4.5",
        "FCO eq. (4.5)",
        "FedDualAvg (η_s = 1): z̄_{r,k+1} = z̄_{r,k} − η_c avg_m g^m_{r,k}",
        ("feddualavg",),
        "holds",
        shadow_cases,
        guarded("eq-4.5", lambda c: shadow_residual("feddualavg", c)),
    ),
    Invariant(
        "eq-4.5-fedmid",
        "FCO §4 after Lemma 4.4",
        "FedMiD: the same identity must FAIL (prox and averaging do not commute)",
        ("fedmid",),
        "fails",
        shadow_cases,
        guarded("eq-4.5-fedmid", lambda c: shadow_residual("fedmid", c)),
    ),
)
