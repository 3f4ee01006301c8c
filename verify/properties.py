"""The desirable properties of FO16 §3.1 as checks on one (instance, hyper-parameter) case.

* (A) fixed-point stability — started at the certified optimum w* with the state consistent
  with it (``verify.optimum.state_at_optimum``), exact gradients: the drift
  max_{r ≤ R_A} ‖w_r − w*‖ / max(1, ‖w*‖) must stay ≤ TOL_A.
* (B) all data on one node, (C) each feature on one node (GLM), (D) identical data on every
  node — "converges in O(1) rounds, ideally exactly one" (§3.1).  A method converging at a
  linear rate q needs log(ε)/log(q) rounds, a count that grows without bound as ε shrinks and as
  the instance's conditioning worsens; O(1) means the count does **not** grow with ε.  From
  w₀ = 0 with exact gradients, the rounds r(ε) to a relative gap (Φ(w_r) − Φ*)/max(1, |Φ*|) ≤ ε
  are measured for ε = 1e-4, 1e-8 and TOL_O1 = 1e-12 (rounding level: a solution, not an
  approximation) over R_LADDER rounds; the property holds iff r(TOL_O1) ≤ R_O1.  Hypothesis
  searches instances (sizes, conditioning, heterogeneity, ψ) and the method's admissible
  hyper-parameters for one where it does not; the evidence prints the ladder and the observed
  per-round contraction.  A claim's conditions (``verify.claims``) fix hyper-parameters first.

A case the algorithm refuses to run (its ``check_problem`` or hyper-parameter rules) is
``n/a`` with the refusal's message; a diverging run is a measured failure (drift = ∞), never a
crash.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from fcocheck.solvers.algorithms.base import Algorithm
from fcocheck.solvers.engine import run
from fcocheck.solvers.errors import FcocheckError
from fcocheck.verify.cases import build
from fcocheck.verify.evidence import Evidence, bounded, not_applicable
from fcocheck.verify.optimum import optimum, state_at_optimum
from fcocheck.verify.strategies import Case

R_A, TOL_A = 10, 1e-8
R_O1, TOL_O1 = 5, 1e-12
R_LADDER = 30
LADDER = (1e-4, 1e-8, TOL_O1)
PROPERTIES = {
    "A": ("general", "fixed point: started at w* (consistent state) it stays there"),
    "B": ("one-client", "all data on one node: O(1) rounds"),
    "C": ("disjoint", "each feature on one node (GLM): O(1) rounds"),
    "D": ("identical", "identical data on every node: O(1) rounds"),
}


def _started_at_optimum(alg: Algorithm) -> Algorithm:
    """``alg`` whose ``init`` returns the state consistent with w0 = w*."""

    def init(problem: Any, hp: Any, w0: np.ndarray, rng: np.random.Generator) -> Any:
        return state_at_optimum(alg, problem, hp, w0)

    return dataclasses.replace(alg, init=init)


def fixed_point(alg: Algorithm, case: Case, rounds: int = R_A) -> Evidence:
    """Property (A): the drift from w* over ``rounds`` rounds (see the module docstring)."""
    problem, opt = build(case.spec), optimum(case.spec)
    try:
        t = run(
            _started_at_optimum(alg),
            problem,
            case.hp,
            rounds=rounds,
            oracle="exact",
            seed=0,
            reference=opt.objective,
            w0=opt.w,
        )
    except FcocheckError as exc:
        return not_applicable("A", str(exc))
    scale = max(1.0, float(np.linalg.norm(opt.w)))
    dist = np.linalg.norm(t["server_w"] - opt.w, axis=1) / scale
    drift = float(np.max(dist)) if t.status == "completed" else np.inf
    growth = _growth(dist)
    how = (
        ""
        if growth is None
        else f"; drift grows ×{growth:.3g}/round (a repelling fixed point)"
        if growth > 1.5
        else f"; drift ×{growth:.3g}/round"
    )
    return bounded(
        "A",
        drift,
        TOL_A,
        f"max_r≤{rounds} ‖w_r − w*‖/max(1,‖w*‖) = {drift:.2e} "
        f"(rule ≤ {TOL_A:g}){how}; status {t.status}; {case.describe()}",
        rounds=rounds,
        status=t.status,
        first_round=float(dist[1]) if len(dist) > 1 else None,
        growth=growth,
    )


def _growth(dist: np.ndarray) -> float | None:
    """Geometric growth per round of a drift that starts at rounding level (None if it does not)."""
    d = dist[1:]
    if len(d) < 2 or not np.all(np.isfinite(d)) or d[0] <= 0 or d[0] > 1e-12:
        return None
    return float((d[-1] / d[0]) ** (1 / (len(d) - 1)))


def rounds_to(gaps: np.ndarray, eps: float) -> int | None:
    """The first round r with gaps[r] ≤ eps (None if none)."""
    hit = np.flatnonzero(gaps <= eps)
    return int(hit[0]) if len(hit) else None


def contraction(gaps: np.ndarray) -> float | None:
    """Geometric mean per-round factor of the gap over the rounds above rounding level."""
    g = gaps[np.isfinite(gaps) & (gaps > TOL_O1)]
    if len(g) < 3 or g[0] <= 0:
        return None
    return float((g[-1] / g[0]) ** (1 / (len(g) - 1)))


def fast_convergence(alg: Algorithm, case: Case, prop: str, rounds: int = R_LADDER) -> Evidence:
    """Properties (B)–(D): r(TOL_O1) ≤ R_O1 from w₀ = 0 (module docstring)."""
    problem, opt = build(case.spec), optimum(case.spec)
    scale = max(1.0, abs(opt.objective))
    start_gap = (problem.Phi(problem.zero()) - opt.objective) / scale
    if start_gap <= TOL_O1:
        return not_applicable(prop, f"w₀ = 0 is already optimal ({case.describe()})")
    try:
        t = run(alg, problem, case.hp, rounds=rounds, oracle="exact", seed=0, reference=opt.objective)
    except FcocheckError as exc:
        return not_applicable(prop, str(exc))
    gaps = np.asarray(t["gap"], dtype=float) / scale
    ladder = {eps: rounds_to(gaps, eps) for eps in LADDER}
    r_end = ladder[TOL_O1]
    q = contraction(gaps)
    never = f">{len(gaps) - 1}"
    shown = ", ".join(f"r({eps:g}) = {never if r is None else r}" for eps, r in ladder.items())
    rate = "" if q is None else f"; gap ×{q:.3g}/round"
    return bounded(
        prop,
        float(r_end) if r_end is not None else np.inf,
        float(R_O1),
        f"rounds to relative gap ε: {shown} (rule r({TOL_O1:g}) ≤ {R_O1}){rate}; "
        f"status {t.status}; {case.describe()}",
        rounds=rounds,
        status=t.status,
        start_gap=start_gap,
        ladder={str(k): v for k, v in ladder.items()},
        contraction=q,
    )


def check_property(alg: Algorithm, prop: str, case: Case) -> Evidence:
    """Dispatch: ``A`` → ``fixed_point``, ``B``/``C``/``D`` → ``fast_convergence``."""
    return fixed_point(alg, case) if prop == "A" else fast_convergence(alg, case, prop)
