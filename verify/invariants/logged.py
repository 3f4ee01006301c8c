"""Logged quantities recomputed from the step records, independently of the code that logs them.

* **eq. (4.2)**: ŵ = (1/(KR)) Σ_{r<R} Σ_{k=1..K} ∇(h + η̃_{r,k}ψ)*(z̄_{r,k}) with η̃_{r,k} = η_s η_c r K + η_c k,
  rebuilt here from the logged dual shadow z̄ and the hyper-parameters, against the ŵ the engine
  accumulated from the algorithm's ``avg_terms`` (a ŵ that averages server iterates, or uses a
  wrong η̃ schedule, fails);
* **discrepancy** (Lemma 4.4's overhead): Σ_m p̃_m ‖z̄_{r,k} − z^m_{r,k}‖²_* rebuilt from the logged
  per-client dual states with p̃ = p_m renormalised over the sampled clients, against the logged
  ``discrepancy_steps`` (a wrong weight, a missing square or a shifted k fails).
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from fcocheck.solvers.composite import composite_map
from fcocheck.verify.cases import InstanceSpec, build
from fcocheck.verify.evidence import Evidence, bounded
from fcocheck.verify.invariants.base import IDENTITY_TOL, Invariant, guarded, relative, trace_of
from fcocheck.verify.optimum import optimum
from fcocheck.verify.strategies import Case, coverage, instance_specs, run_options

ROUNDS = 3
DUAL = ("feddualavg", "feddualavg-osp")


@st.composite
def dual_cases(draw, exact: bool = False) -> Case:
    """Any ψ, η_c ≤ 1/(2L), η_s ∈ {1, ½, 2}, K ≥ 1; noisy or exact, with or without sampling.

    ``exact``: exact gradients and every client (the written-out references).
    """
    spec = draw(instance_specs("general", ("zero", "l2sq", "l1")))
    L = optimum(spec).L_max
    hp = {
        "eta_c": draw(st.sampled_from([0.25, 0.1, 0.5])) / L,
        "eta_s": draw(st.sampled_from([1.0, 0.5, 2.0])),
        "local_steps": draw(st.integers(1, 4)),
    }
    return Case(spec, hp) if exact else Case(spec, hp, **draw(run_options(spec.M)))


def coverage_examples() -> list[Case]:
    """Every oracle kind × participation mode on 3 heterogeneous clients with ℓ1 (K = 3, η_s = ½)."""
    spec = InstanceSpec("general", 3, 2, 3, 1.0, "l1", 0.1, 11)
    return coverage(spec, {"eta_c": 0.25 / optimum(spec).L_max, "eta_s": 0.5, "local_steps": 3})


def w_hat_residual(alg, case: Case) -> Evidence:
    """ŵ of eq. (4.2) rebuilt from the dual shadow against the engine's ŵ."""
    t = trace_of(alg, case, ROUNDS, record="step")
    p = build(case.spec)
    z = t["dual_shadow"]
    R, K = z.shape[0], z.shape[1] - 1
    eta_c, eta_s = case.hp["eta_c"], case.hp.get("eta_s", 1.0)
    images = [
        composite_map(p.h, p.psi, z[r, k], eta_s * eta_c * r * K + eta_c * k)
        for r in range(R)
        for k in range(1, K + 1)
    ]
    want = np.mean(images, axis=0)
    resid = relative(np.asarray(t.meta["w_hat"]) - want, want)
    return bounded(
        "eq-4.2",
        resid,
        IDENTITY_TOL,
        f"{_name(alg)}: max relative difference between the logged ŵ and (1/KR)Σ∇(h+η̃ψ)*(z̄_(r,k)) "
        f"rebuilt from the dual shadow {resid:.2e} (rule ≤ {IDENTITY_TOL:g}); {case.describe()}",
    )


def discrepancy_residual(alg, case: Case) -> Evidence:
    """Σ_m p̃_m‖z̄ − z^m‖²_* rebuilt from the per-client duals against the logged discrepancy."""
    t = trace_of(alg, case, ROUNDS, record="step")
    p = build(case.spec)
    Z, logged = t["client_duals"], t["discrepancy_steps"]  # (R, K, |S|, dim), (R, K)
    R, K = logged.shape
    want = np.zeros((R, K))
    for r in range(R):
        idx = t["sampled"][r].astype(int) if "sampled" in t else np.arange(p.M)
        w = p.weights[idx] / p.weights[idx].sum()
        for k in range(K):
            zbar = w @ Z[r, k]
            want[r, k] = float(w @ p.h.dual_norm(Z[r, k] - zbar[None, :]) ** 2)
    scale = max(1.0, float(np.max(np.abs(Z))) ** 2)
    resid = float(np.max(np.abs(logged - want)) / scale)
    return bounded(
        "discrepancy",
        resid,
        IDENTITY_TOL,
        f"{_name(alg)}: max |logged − rebuilt| discrepancy / max‖z‖² {resid:.2e} "
        f"(rule ≤ {IDENTITY_TOL:g}); {case.describe()}",
    )


def _name(alg) -> str:
    return alg if isinstance(alg, str) else alg.name


INVARIANTS = tuple(
    inv
    for name in DUAL
    for inv in (
        Invariant(
            f"eq-4.2-{name}",
            "FCO eq. (4.2)",
            f"{name}: the logged ŵ is the average of the primal images of the dual shadow, "
            "∇(h + η̃_{r,k}ψ)*(z̄_{r,k}), k = 1..K",
            (name,),
            "holds",
            dual_cases,
            guarded(f"eq-4.2-{name}", lambda c, n=name: w_hat_residual(n, c)),
            examples=coverage_examples,
        ),
        Invariant(
            f"discrepancy-{name}",
            "FCO Lemma 4.4",
            f"{name}: the logged discrepancy is Σ_m p̃_m‖z̄_(r,k) − z^m_(r,k)‖²_* of the clients' dual states",
            (name,),
            "holds",
            dual_cases,
            guarded(f"discrepancy-{name}", lambda c, n=name: discrepancy_residual(n, c)),
            examples=coverage_examples,
        ),
    )
)
