"""The desirable properties of seed 004 §3.1 as checks on one (instance, hyper-parameter) case.

* (A) fixed-point stability — started at the certified optimum w* with the state consistent
  with it (``verify.optimum.state_at_optimum``), exact gradients: the drift
  max_{r ≤ R_A} ‖w_r − w*‖ / max(1, ‖w*‖) must stay ≤ TOL_A.
* (B) all data on one node, (C) each feature on one node (GLM), (D) identical data on every
  node — "converges in O(1) rounds": from w₀ = 0 with exact gradients, the relative gap
  (Φ(w_R) − Φ*) / max(1, |Φ*|) after R_O1 rounds must be ≤ TOL_O1.  R_O1 is a constant, so a
  method whose round count grows with the conditioning of the instance fails on some instance
  (Hypothesis looks for it).

A case the algorithm refuses to run (its ``check_problem`` or hyper-parameter rules) is
``n/a`` with the refusal's message; a diverging run is a measured failure (drift = ∞), never a
crash.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from solvers.algorithms.base import Algorithm
from solvers.engine import run
from solvers.errors import FcocheckError
from verify.cases import build
from verify.evidence import Evidence, bounded, not_applicable
from verify.optimum import optimum, state_at_optimum
from verify.strategies import Case

R_A, TOL_A = 10, 1e-8
R_O1, TOL_O1 = 5, 1e-8
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


def fast_convergence(alg: Algorithm, case: Case, prop: str, rounds: int = R_O1) -> Evidence:
    """Properties (B)–(D): the relative gap after ``rounds`` rounds from w₀ = 0."""
    problem, opt = build(case.spec), optimum(case.spec)
    scale = max(1.0, abs(opt.objective))
    start_gap = (problem.Phi(problem.zero()) - opt.objective) / scale
    if start_gap <= TOL_O1:
        return not_applicable(prop, f"w₀ = 0 is already optimal ({case.describe()})")
    try:
        t = run(alg, problem, case.hp, rounds=rounds, oracle="exact", seed=0, reference=opt.objective)
    except FcocheckError as exc:
        return not_applicable(prop, str(exc))
    gap = float(t["gap"][-1]) / scale if t.status == "completed" else np.inf
    return bounded(
        prop,
        gap,
        TOL_O1,
        f"(Φ(w_{rounds}) − Φ*)/max(1,|Φ*|) = {gap:.2e} (rule ≤ {TOL_O1:g}; "
        f"from {start_gap:.2e}); status {t.status}; {case.describe()}",
        rounds=rounds,
        status=t.status,
        start_gap=start_gap,
    )


def check_property(alg: Algorithm, prop: str, case: Case) -> Evidence:
    """Dispatch: ``A`` → ``fixed_point``, ``B``/``C``/``D`` → ``fast_convergence``."""
    return fixed_point(alg, case) if prop == "A" else fast_convergence(alg, case, prop)
