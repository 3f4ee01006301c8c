"""The check suite for one algorithm (a user's, or a registry entry): contract, invariants, properties.

``suite(alg)`` lists ``SuiteCheck``s; each runs to one ``Evidence``.  ``required`` checks must
hold (the contract, the equivalence the algorithm claims, the identities it logs, the
properties it ``expects``); the others are reported.

Contract: finite and shape-stable; bit-deterministic for a seed; converges on a small
well-conditioned convex instance with its simplest hyper-parameters (relative gap ≤ 1e-6 in
R_CONVERGE rounds, exact gradients).  Logged identities: any of ``control_sum``,
``control_gap``, ``g_sum`` the algorithm logs must stay ≤ 1e-11·scale.  Equivalence: with
``equivalent_to``, its iterates equal the registry entry's (noisy oracle, client sampling) over
Hypothesis-drawn cases.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import strategies as st

from fcocheck.solvers import algorithms
from fcocheck.solvers.algorithms.base import Algorithm
from fcocheck.solvers.engine import run
from fcocheck.solvers.smoothness import sample_smoothness
from fcocheck.verify.cases import InstanceSpec, build
from fcocheck.verify.evidence import FAILS, HOLDS, NA, Evidence, bounded
from fcocheck.verify.hyper import hyper_strategy
from fcocheck.verify.invariants.base import IDENTITY_TOL, guarded, relative
from fcocheck.verify.invariants.controls import identity_scale
from fcocheck.verify.optimum import optimum, state_at_optimum
from fcocheck.verify.properties import PROPERTIES, check_property
from fcocheck.verify.relations import (
    client_permutation,
    client_split,
    local_objective,
    reduction,
    shrinks_with,
    translation,
    zero_weight_client,
)
from fcocheck.verify.search import search, simplest
from fcocheck.verify.strategies import Case, cases, instance_specs, run_options

R_CONTRACT, R_CONVERGE, TOL_CONVERGE = 4, 400, 1e-6
LOGGED = ("control_sum", "control_gap", "g_sum")


@dataclass(frozen=True)
class SuiteCheck:
    """One named check; ``run()`` returns its Evidence."""

    name: str
    required: bool
    run: Callable[[], Evidence]


def _reference(alg: Algorithm) -> Algorithm | None:
    ref = getattr(alg, "equivalent_to", None)
    return algorithms.get(ref) if ref else None


def _strategy(alg: Algorithm, L: float, Ls: float) -> st.SearchStrategy:
    if getattr(alg, "hyper_strategy", None) is None and _reference(alg) is not None:
        return hyper_strategy(_reference(alg), L, Ls)
    return hyper_strategy(alg, L, Ls)


def _with_defaults(alg: Algorithm) -> Algorithm:
    """Fill a user algorithm's hyper strategy and optimum state from its reference entry."""
    ref = _reference(alg)
    if ref is None:
        return alg
    changes: dict[str, Any] = {}
    if getattr(alg, "hyper_strategy", None) is None:
        changes["hyper_strategy"] = lambda L, Ls: hyper_strategy(ref, L, Ls)
    if getattr(alg, "at_optimum", None) is None:
        changes["at_optimum"] = lambda p, hp, w: state_at_optimum(ref, p, hp, w)
    return dataclasses.replace(alg, **changes) if changes else alg


def _psi(alg: Algorithm) -> str:
    return "l1" if alg.solves_composite else "zero"


def contract_case(alg: Algorithm) -> Case:
    """A small well-conditioned instance and the simplest hyper-parameters of ``alg``."""
    spec = InstanceSpec("general", 3, 3, 6, 1.0, _psi(alg), 0.0 if _psi(alg) == "zero" else 0.1, 1)
    opt = optimum(spec)
    hp = simplest(_strategy(alg, opt.L_max, sample_smoothness(build(spec))))
    return Case(spec, hp)


def finite_and_shaped(alg: Algorithm) -> Evidence:
    """Every logged array finite, R+1 server iterates of the model's dimension."""
    case = contract_case(alg)
    p = build(case.spec)
    t = run(alg, p, case.hp, rounds=R_CONTRACT, oracle="gaussian:0.5", seed=3, reference=False)
    bad = [k for k, a in t.arrays.items() if not np.all(np.isfinite(a))]
    ok = t.status == "completed" and t["server_w"].shape == (R_CONTRACT + 1, p.dim) and not bad
    return Evidence(
        "contract-finite",
        HOLDS if ok else FAILS,
        detail=f"status {t.status}, server_w "
        f"{t['server_w'].shape}, non-finite: {bad or 'none'}; {case.describe()}",
    )


def deterministic(alg: Algorithm) -> Evidence:
    """Two runs with one seed are equal bit for bit."""
    case = contract_case(alg)
    a, b = (
        run(alg, build(case.spec), case.hp, rounds=R_CONTRACT, oracle="gaussian:0.5", seed=7, reference=False)
        for _ in range(2)
    )
    diff = [k for k in a.arrays if not np.array_equal(a[k], b[k])]
    return Evidence(
        "contract-deterministic",
        FAILS if diff else HOLDS,
        detail=f"arrays that differ between two runs with seed 7: {diff or 'none'}",
    )


def converges(alg: Algorithm) -> Evidence:
    """Relative gap ≤ TOL_CONVERGE after R_CONVERGE rounds (exact gradients)."""
    case = contract_case(alg)
    opt = optimum(case.spec)
    t = run(
        alg, build(case.spec), case.hp, rounds=R_CONVERGE, oracle="exact", seed=0, reference=opt.objective
    )
    gap = float(t["gap"][-1]) / max(1.0, abs(opt.objective)) if t.status == "completed" else np.inf
    return bounded(
        "contract-converges",
        gap,
        TOL_CONVERGE,
        f"relative gap after {R_CONVERGE} rounds {gap:.2e} "
        f"(rule ≤ {TOL_CONVERGE:g}); status {t.status}; {case.describe()}",
    )


@st.composite
def _equivalence_cases(draw, alg: Algorithm) -> Case:
    spec = draw(instance_specs("general", (_psi(alg),) if alg.solves_composite else ("zero",)))
    hp = draw(_strategy(alg, optimum(spec).L_max, sample_smoothness(build(spec))))
    return Case(spec, hp, **draw(run_options(spec.M, alg.participation)))


def equivalence(alg: Algorithm, case: Case) -> Evidence:
    """The iterates of ``alg`` and of its ``equivalent_to`` entry agree to IDENTITY_TOL."""
    ref = _reference(alg)
    hp_ref = alg.hp_map(case.hp) if getattr(alg, "hp_map", None) else case.hp
    kw = {
        "rounds": 5,
        "oracle": case.oracle,
        "seed": case.seed,
        "participation": case.participation,
        "reference": False,
    }
    a, b = run(alg, build(case.spec), case.hp, **kw), run(ref, build(case.spec), hp_ref, **kw)
    resid = (
        relative(a["server_w"] - b["server_w"], b["server_w"])
        if a.status == b.status == "completed"
        else np.inf
    )
    return bounded(
        f"equivalent-to-{ref.name}",
        resid,
        IDENTITY_TOL,
        f"max relative difference from "
        f"{ref.name}'s iterates {resid:.2e} (rule ≤ {IDENTITY_TOL:g}); {case.describe()}",
    )


def logged_identities(alg: Algorithm, case: Case) -> Evidence:
    """Every logged control/perturbation sum stays at rounding level."""
    p = build(case.spec)
    t = run(
        alg,
        p,
        case.hp,
        rounds=6,
        oracle=case.oracle,
        seed=case.seed,
        participation=case.participation,
        reference=False,
    )
    keys = [k for k in LOGGED if k in t]
    if not keys:
        return Evidence("logged-identities", NA, detail="logs none of " + ", ".join(LOGGED))
    worst = max(float(np.max(t[k])) for k in keys) / identity_scale(case, t["server_w"])
    return bounded(
        "logged-identities",
        worst,
        IDENTITY_TOL,
        f"max over {keys} / scale = {worst:.2e} (rule ≤ {IDENTITY_TOL:g}); {case.describe()}",
    )


def _searched(
    name: str,
    alg: Algorithm,
    check: Callable[[Case], Evidence],
    budget: str | int,
    strategy: st.SearchStrategy,
) -> Callable[[], Evidence]:
    def go() -> Evidence:
        found = search(strategy, guarded(name, check), budget)
        if found.outcome == FAILS:
            return dataclasses.replace(
                found.evidence, detail=f"counterexample (shrunk): {found.evidence.detail}"
            )
        if found.evidence is not None:
            return found.evidence
        return Evidence(name, NA, detail="; ".join(found.reasons[:2]))

    return go


def suite(alg: Algorithm, budget: str | int = "quick") -> list[SuiteCheck]:
    """Every check that applies to ``alg``."""
    alg = _with_defaults(alg)
    checks = [
        SuiteCheck("contract-finite", True, lambda: finite_and_shaped(alg)),
        SuiteCheck("contract-deterministic", True, lambda: deterministic(alg)),
        SuiteCheck("contract-converges", True, lambda: converges(alg)),
    ]
    if _reference(alg) is not None:
        checks.append(
            SuiteCheck(
                f"equivalent-to-{alg.equivalent_to}",
                True,
                _searched("equivalence", alg, lambda c: equivalence(alg, c), budget, _equivalence_cases(alg)),
            )
        )
    if alg.family == "federated":
        for rel, fn in (("client-permutation", client_permutation), ("client-split", client_split),
                        ("zero-weight-client", zero_weight_client)):
            run_rel = _searched(rel, alg, lambda c, f=fn: f(alg, c), budget, _equivalence_cases(alg))
            checks.append(SuiteCheck(rel, True, run_rel))
    checks.append(SuiteCheck("translation", True, _searched(
        "translation", alg, lambda c: translation(alg, c), budget, _equivalence_cases(alg))))
    for fld in getattr(alg, "shrinks_with", ()) or ():
        check = lambda c, f=fld: shrinks_with(alg, c, f)  # noqa: E731
        name = f"shrinks-with-{fld}"
        checks.append(SuiteCheck(name, True, _searched(name, alg, check, budget, _equivalence_cases(alg))))
    for changes, target, hp_map in getattr(alg, "reduces_to", ()) or ():
        name = f"reduces-to-{target}"
        check = lambda c, ch=changes, t=target, m=hp_map: reduction(alg, c, ch, t, m)  # noqa: E731
        checks.append(SuiteCheck(name, True, _searched(name, alg, check, budget, _equivalence_cases(alg))))
    declared = getattr(alg, "local_objective", None)
    if declared is not None:
        check = lambda c: local_objective(alg, c, declared)  # noqa: E731
        checks.append(SuiteCheck("local-objective", True,
                                 _searched("local-objective", alg, check, budget, _equivalence_cases(alg))))
    checks.append(
        SuiteCheck(
            "logged-identities",
            True,
            _searched(
                "logged-identities", alg, lambda c: logged_identities(alg, c), budget, _equivalence_cases(alg)
            ),
        )
    )
    expects = getattr(alg, "expects", {}) or {}
    kinds = ("zero", "l2sq", "l1") if alg.solves_composite else ("zero",)
    for prop, (layout, _) in PROPERTIES.items():
        strategy = cases(alg, layout, kinds, 1 if prop == "A" else 2)
        checks.append(
            SuiteCheck(
                f"property-{prop}",
                prop in expects,
                _searched(prop, alg, lambda c, p=prop: check_property(alg, p, c), budget, strategy),
            )
        )
    return checks


def verdict(check: SuiteCheck, ev: Evidence, alg: Algorithm) -> bool:
    """Whether a check's evidence is acceptable (required checks must hold or be n/a)."""
    expects = getattr(alg, "expects", {}) or {}
    prop = check.name.removeprefix("property-")
    if prop in expects:  # an expectation the search could not evaluate (n/a) is not met
        return ev.outcome == expects[prop]
    return not check.required or ev.outcome != FAILS


def run_suite(alg: Algorithm, budget: str | int = "quick") -> list[tuple[SuiteCheck, Evidence, bool]]:
    """Run every check: (check, evidence, acceptable)."""
    out = []
    for check in suite(alg, budget):
        ev = check.run()
        out.append((check, ev, verdict(check, ev, alg)))
    return out
