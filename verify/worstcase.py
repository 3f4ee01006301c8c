"""Worst cases beside the theorems: which PEP checks which bound, on which grid, with which run.

A ``Target`` ties a theorem of ``rates.catalog`` to a PEPit program (``rates.worstcase``): the
method, the function class (FCO Assumption 2 as the shift class, Thm 4.2's bounded gradients), the
metric, the theorem terms it is compared with and the grid.  ``tightness(name, quick)`` computes
every grid point — one ``Job`` each, so a session caches them in the results store — and, where
the target has one, a measured run of the solvers' implementation on a 2-client instance of the
same class at the same constants (L, B, ζ), which can never exceed the worst case.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from fcocheck.rates.threshold import at_least
from fcocheck.rates.worstcase.spec import InvalidWorstCaseError, PepSpec


class InvalidTargetError(InvalidWorstCaseError):
    """An unknown worst-case target or an empty grid."""


#: What the FCO theorems need and no PEP can express here (reported in the tightness section).
NOT_EXPRESSED = {
    "variance terms (σ)": "PEPit's oracles here are exact; stochastic gradients need a PEP over "
    "distributions (expectations of Gram matrices), not written for federated methods",
    "non-Euclidean h": "the composite map ∇(h + tψ)* for a general 1-strongly convex h needs a Bregman "
    "proximal step per client step; written only for Euclidean h",
    "fedcanon-1, fedcanon-2": "their constants were lost in extraction and the measure is "
    "non-convex stationarity; FedCanon's worst case over the convex class is computed as an algorithm",
    "svrg-5": "a Θ statement over random inner sampling; PEPit computes deterministic worst cases",
    "fco-eq-4.5": "an identity, checked exactly by the invariants; nothing to bound",
}


@dataclass(frozen=True)
class Target:
    """A theorem and the PEP that measures its tightness.

    Attributes:
        name: the target (the theorem's catalog name, or ``fco-4.1/fedmid`` for a variant).
        theorem: catalog name of the bound.
        base: ``PepSpec`` fields shared by every point.
        axes: quick and full grids, each {field: values}.
        terms: the theorem terms compared (deterministic terms, σ = 0).
        het_term: the term the heterogeneity switch measures (``worst0`` is solved with ζ = 0).
        measured: also run the implementation on a 2-client Assumption-2 instance.
        eta_s_rule: ``"one"`` (η_s = 1) or ``"thm-4.1"`` (η_s = 1/(4 η_c K L), Thm 4.1's choice) — unless
            the grid sets ``eta_s`` itself (``worstcase … --grid eta_s=…``): every field a grid names is
            the one the worst case is solved at.
        known: a documented disagreement this target shows (shown as such, not as a new failure).
        twin: the method whose bounded worst case on the same grid confirms the ``known`` cause.

    """

    name: str
    theorem: str
    base: dict[str, Any]
    quick: dict[str, list]
    full: dict[str, list]
    terms: tuple[str, ...]
    het_term: str | None = None
    measured: bool = False
    eta_s_rule: str = "one"
    known: str = ""
    twin: str = ""
    notes: tuple[str, ...] = field(default=())


#: Quick grids keep M·K·R ≤ QUICK_STEPS (each SDP ≤ ~3 s here); full grids go to MAX_CLIENT_STEPS.
QUICK_STEPS = 16
_GRID_Q = {"K": [1, 2, 3], "R": [1, 2, 4, 8], "eta": [0.25]}
_GRID_F = {"K": [1, 2, 3, 4], "R": [1, 2, 4, 8, 12], "eta": [0.05, 0.1, 0.25]}
_FEDDA = {"method": "feddualavg", "M": 2, "clients": "shift", "psi": "convex"}

TARGETS: dict[str, Target] = {
    t.name: t
    for t in (
        Target(
            "fco-4.3",
            "fco-4.3",
            {**_FEDDA, "zeta": 1.0},
            _GRID_Q,
            _GRID_F,
            ("optimisation", "heterogeneity"),
            het_term="heterogeneity",
            measured=True,
            notes=(
                "class: F L-smooth convex, F_m = F + ⟨c_m,·⟩ with ‖c_m‖ ≤ ζ and Σc_m = 0, ψ any closed "
                "convex function, Euclidean h. It contains Assumption 2's quadratics with a common "
                "Hessian, so its worst case bounds theirs from above; the quadratic class itself "
                "(PepSpec.quadratic) took 20–400 s per point here and is left to --grid use",
            ),
        ),
        Target(
            "fco-4.2",
            "fco-4.2",
            {**_FEDDA, "clients": "bounded-gradient", "G": 1.0},
            _GRID_Q,
            _GRID_F,
            ("optimisation", "drift"),
            notes=("class: each F_m L-smooth convex with ‖∇F_m‖ ≤ G everywhere; ψ closed convex",),
        ),
        Target(
            "fco-lemma-4.4",
            "fco-lemma-4.4",
            {**_FEDDA, "zeta": 1.0, "metric": "lemma-4.4"},
            _GRID_Q,
            _GRID_F,
            ("optimisation",),
            notes=(
                "metric: Φ(ŵ) − Φ* − (L/(MKR))Σ‖z̄ − z^m‖² against B/(η_cKR): the lemma with σ = 0 "
                "over the whole shift class",
            ),
        ),
        Target(
            "fco-lemma-4.5",
            "fco-lemma-4.5",
            {**_FEDDA, "zeta": 1.0, "metric": "discrepancy", "norm": "q"},
            _GRID_Q,
            _GRID_F,
            ("heterogeneity",),
            notes=("metric: (1/M)Σ_m‖z̄_{R−1,K} − z^m_{R−1,K}‖²_* at the end of the last round, in "
                   "Assumption 2's own norm (common Hessian, h = ½‖·‖²_Q: F_m = (L/2)‖w‖² + ⟨c_m, w⟩ in its "
                   "coordinates); in ℓ2 over every L-smooth F the constant grows with K (1.03, 1.07, 1.10, "
                   "1.14, 1.17 at K = 2…6), a worst case of a class the lemma is not stated for",),
        ),
        Target(
            "fco-4.1",
            "fco-4.1",
            {**_FEDDA, "zeta": 1.0},
            {"K": [1, 2, 3], "R": [1, 2, 4, 8], "eta": [0.01]},
            {"K": [1, 2, 4], "R": [1, 2, 4, 8, 12], "eta": [0.001, 0.01]},
            ("optimisation",),
            eta_s_rule="thm-4.1",
            notes=("η_s = 1/(4η_cKL) (Thm 4.1's first branch with σ = 0)",),
        ),
        Target(
            "fco-4.1/fedmid",
            "fco-4.1",
            {**_FEDDA, "method": "fedmid", "zeta": 1.0},
            {"K": [1, 2], "R": [1, 2], "eta": [0.01]},
            {"K": [1, 2, 3], "R": [1, 2, 4], "eta": [0.001, 0.01]},
            ("optimisation",),
            eta_s_rule="thm-4.1",
            known="printed FedMiD (Alg. 2 line 10) applies ψ twice per round: over convex ψ its error is "
            "unbounded at every η_c (a linear ψ = ⟨a,·⟩ moves the server point by an extra η_sη_cK‖a‖)",
            twin="feddualavg",
        ),
        Target(
            "fco-4.1/fedmid-avg",
            "fco-4.1",
            {**_FEDDA, "method": "fedmid-avg", "zeta": 1.0},
            {"K": [1, 2], "R": [1, 2], "eta": [0.01]},
            {"K": [1, 2, 3], "R": [1, 2, 4], "eta": [0.001, 0.01]},
            ("optimisation",),
            eta_s_rule="thm-4.1",
            known="with Thm 4.1's η_s = Θ(1/(η_cKL)) > 1 the averaging server extrapolates past the clients' "
            "prox points, where a convex ψ can be arbitrarily large: Thm 4.1's 'sufficiently small η_c' must "
            "depend on ψ, which the statement does not say",
            twin="feddualavg",
        ),
        Target(
            "fco-4.3/fedmid",
            "fco-4.3",
            {**_FEDDA, "method": "fedmid", "zeta": 1.0},
            {"K": [1, 2], "R": [1, 2], "eta": [0.25]},
            {"K": [1, 2, 3], "R": [1, 2, 4], "eta": [0.1, 0.25]},
            ("optimisation", "heterogeneity"),
            known="printed FedMiD applies ψ twice per round (η_s = 1): unbounded over convex ψ, while the "
            "averaging server of §3.1 (fedmid-avg) is bounded on the same grid",
            twin="fedmid-avg",
            notes=(
                "FedMiD is not covered by Thm 4.3 (FedDualAvg only): the bound is the η_s = 1 shape "
                "its averaging twin obeys",
            ),
        ),
    )
}


#: The targets of the quick report (the two FedMiD targets at Thm 4.1's η_s need SCS, ~35 s each: full only).
#: The quick report's grids keep M·K·R ≤ 8: R = 1, 2, 4 at K = 1 and K = 1, 2, 3 at R = 1 — three values
#: per axis, the least that lets the growth rule judge both.
REPORT_STEPS = 8
REPORT_TARGETS = ("fco-4.3", "fco-4.2", "fco-lemma-4.4", "fco-lemma-4.5", "fco-4.1", "fco-4.3/fedmid")


def target_specs(
    target: Target, quick: bool, overrides: dict[str, list] | None = None, cap: int | None = None
) -> list[PepSpec]:
    """The grid of ``target``; every point validated (``check_spec``).

    The built-in grids drop points with M·K·R above their cap (``QUICK_STEPS`` quick,
    ``MAX_CLIENT_STEPS`` full); a grid the user gives (``overrides``) is never trimmed silently: a
    point past the limit raises ``InvalidWorstCaseError`` naming it.
    """
    from fcocheck.rates.worstcase.methods import METHODS
    from fcocheck.rates.worstcase.spec import MAX_CLIENT_STEPS, check_spec

    axes = {**(target.quick if quick else target.full), **(overrides or {})}
    cap = cap or (QUICK_STEPS if quick else MAX_CLIENT_STEPS)
    specs = []
    for spec in _grid(target.base, axes):
        if not overrides and spec.M * spec.K * spec.R > cap:
            continue
        if target.eta_s_rule == "thm-4.1" and "eta_s" not in (overrides or {}):  # a grid's η_s is the user's
            check_spec(spec, METHODS)  # η_c, K, L valid before they are divided by
            spec = spec.with_(eta_s=1.0 / (4 * spec.eta * spec.K * spec.L))
        specs.append(check_spec(spec, METHODS))
    return specs


def _grid(base: dict[str, Any], axes: dict[str, list]) -> list[PepSpec]:
    """Every point of the product of ``axes`` over ``base`` (an unknown field is a named error)."""
    keys, out = list(axes), []
    fields = set(PepSpec.__dataclass_fields__) - {"extra"}
    own = _own_parameters(base.get("method", ""))
    unknown = sorted(k for k in {*keys, *base} if k not in fields and k not in own)
    if unknown:
        raise InvalidWorstCaseError(f"grid field {unknown[0]!r}; the rule is fields of PepSpec "
                                    f"{sorted(fields)} or the method's own hyper-parameters {sorted(own)}")
    for values in itertools.product(*(axes[k] for k in keys)):
        point = {**base, **dict(zip(keys, values, strict=True))}
        extra = tuple(sorted((k, float(v)) for k, v in point.items() if k not in fields))  # a card's own
        try:
            out.append(PepSpec(**{k: v for k, v in point.items() if k in fields}, extra=extra))
        except TypeError as exc:
            raise InvalidWorstCaseError(f"grid {point}: {exc}; the rule is fields of PepSpec") from None
    return out


def _own_parameters(method: str) -> set[str]:
    """A card's hyper-parameters beyond the shared η_c, η_s, K (empty for other methods)."""
    from fcocheck.rates.worstcase.cards import SHARED
    from fcocheck.solvers.algorithms import card_of

    card = card_of(method)
    return set() if card is None else {p.name for p in card.params} - set(SHARED)


def measured_instance(zeta: float) -> tuple[Any, Any]:
    """The 2-client Assumption-2 instance of the measured runs (common diagonal Q with L = 1, ψ = 0.01‖·‖₁).

    Equal client weights, so the instance is in the shift class with ζ = ``problem.meta['zeta']``.
    """
    from fcocheck.verify.experiments.instances import quadratics

    return quadratics(zeta, clients=2, assumption2=False)


def start_at(reference_w: Any, B: float, seed: int = 0) -> Any:
    """w0 = w* + u with ½‖u‖² = B, u a seeded random direction (so the run's B is the PEP's B)."""
    import numpy as np

    u = np.random.default_rng(seed).standard_normal(np.asarray(reference_w).shape)
    return np.asarray(reference_w) + u * np.sqrt(2 * B) / np.linalg.norm(u)


def pep_job(spec: dict[str, Any], instance: bool = False) -> dict[str, Any]:
    """One worst case (a session ``Job``): ``WorstCase.as_dict()`` (with the worst instance if asked)."""
    from fcocheck.rates.worstcase.solve import worst_case

    return worst_case(PepSpec(**spec), instance).as_dict()


def measured_job(spec: dict[str, Any]) -> dict[str, Any]:
    """Φ(ŵ) − Φ* of the solvers' FedDualAvg on ``measured_instance`` at the point's (K, R, η_c, η_s, B)."""
    from fcocheck.solvers.engine.run import run
    from fcocheck.solvers.engine.trace import INTERRUPTED

    s = PepSpec(**spec)
    problem, ref = measured_instance(s.zeta)
    hp = {"eta_c": s.eta, "eta_s": s.eta_s, "local_steps": s.K, **dict(s.extra)}
    trace = run(s.method, problem, hp, rounds=s.R, reference=ref, w0=start_at(ref.w, s.B))
    if trace.status == INTERRUPTED:  # not a measurement: the job is not stored, a resume runs it again
        raise KeyboardInterrupt
    gap = trace["gap_avg"]
    return {
        "status": trace.status,
        "measured": float(gap[-1]),
        "L": float(problem.meta["L"]),
        "zeta": float(problem.meta["zeta"]),
    }


def point_jobs(target: Target, specs: list[PepSpec]) -> list[Any]:
    """The session jobs of a grid: each worst case, its ζ = 0 twin and its measured run (deduplicated)."""
    from fcocheck.solvers import algorithms
    from fcocheck.verify.sweep.session import Job

    jobs: dict[str, Any] = {}
    for s in specs:
        user = algorithms.definition(s.method)  # a user's card: its PEP program is derived from it
        jobs["pep:" + s.key] = Job("pep:" + s.key, pep_job, (s.as_dict(),), user)
        if target.het_term is not None and s.zeta > 0:
            s0 = s.with_(zeta=0.0)
            jobs["pep:" + s0.key] = Job("pep:" + s0.key, pep_job, (s0.as_dict(),), user)
        if target.measured:
            jobs["run:" + s.key] = Job("run:" + s.key, measured_job, (s.as_dict(),), user)
    return list(jobs.values())


def assemble(
    target: Target, specs: list[PepSpec], results: dict[str, dict[str, Any]]
) -> list[dict[str, Any]]:
    """One point per spec: the symbol values, the worst case (and ζ = 0 twin), the measured run."""
    points = []
    for s in specs:
        w = results["pep:" + s.key]
        p: dict[str, Any] = {
            "L": s.L,
            "B": s.B,
            "zeta": s.zeta,
            "G": s.G,
            "M": s.M,
            "K": s.K,
            "R": s.R,
            "eta_c": s.eta,
            "eta_s": s.eta_s,
            "status": w.get("status"),
            "worst": w.get("value"),
            "solver": w.get("solver", ""),
            "seconds": w.get("seconds", 0.0),
            "dimension": w.get("dimension", 0),
            "error": w.get("error", ""),
        }
        if target.het_term is not None and s.zeta > 0:
            p["worst0"] = results["pep:" + s.with_(zeta=0.0).key].get("value")
        if target.measured:
            m = results["run:" + s.key]
            p["measured"] = m.get("measured") if m.get("status") == "completed" else None
        points.append(p)
    return points


@dataclass(frozen=True)
class Plan:
    """A target's grid, its twin grid and the session jobs computing both."""

    target: Target
    specs: list[PepSpec]
    twins: list[PepSpec]
    jobs: list[Any]


def plan(
    name: str, quick: bool = True, overrides: dict[str, list] | None = None, cap: int | None = None
) -> Plan:
    """The grid and jobs of target ``name`` (raises ``InvalidTargetError`` for an unknown or empty one)."""
    if name not in TARGETS:
        raise InvalidTargetError(
            f"worst-case target {name!r} is unknown; the rule is one of {sorted(TARGETS)}"
        )
    target = TARGETS[name]
    specs = target_specs(target, quick, overrides, cap)
    if not specs:
        raise InvalidTargetError(
            f"the grid of {name} is empty: every point has M·K·R above {QUICK_STEPS if quick else 'its cap'}"
        )
    twins = [s.with_(method=target.twin) for s in specs] if target.twin else []
    bare = Target("twin", target.theorem, {}, {}, {}, ())  # twins: the worst case only
    return Plan(target, specs, twins, point_jobs(target, specs) + point_jobs(bare, twins))


def plan_jobs(names: list[str], quick: bool = True, cap: int | None = None) -> list[Any]:
    """The session jobs of several targets, deduplicated (``tightness_many`` computes the same set)."""
    return list({j.name: j for n in names for j in plan(n, quick, cap=cap).jobs}.values())


def compute(plans: list[Plan], session: Any = None) -> dict[str, dict[str, Any]]:
    """Every job of ``plans`` (deduplicated), through ``session`` (cached in its store) or in process."""
    jobs = list({j.name: j for p in plans for j in p.jobs}.values())
    if session is None:
        from fcocheck.verify.sweep.session import call_job

        return {j.name: call_job(j)[0] for j in jobs}
    return session.jobs("worstcase", "pep", 0, jobs)


def judge(p: Plan, results: dict[str, dict[str, Any]], quick: bool = True) -> dict[str, Any]:
    """The tightness payload of a computed plan: rows, verdicts, status."""
    from fcocheck.rates import catalog
    from fcocheck.rates.verdict import combine, known_disagreement
    from fcocheck.rates.worstcase.tightness import (
        soundness_verdict,
        term_constants,
        tightness_rows,
        tightness_verdict,
    )

    target = p.target
    theorem = catalog.get(target.theorem)
    rows = tightness_rows(theorem, assemble(target, p.specs, results), target.terms, target.het_term)
    relation = "leq" if theorem.relation == "leq" else "lesssim"
    verdicts = {"tightness": tightness_verdict(relation, rows)}
    if target.measured:
        verdicts["soundness"] = soundness_verdict(rows)
    if target.known:
        twin_rows = [results["pep:" + s.key] for s in p.twins]
        diag = f"{target.twin} on the same grid: " + ", ".join(
            f"{t.get('status')} {t.get('value') or float('nan'):.3g}" for t in twin_rows
        )
        verdicts["tightness"] = known_disagreement(
            verdicts["tightness"], target.known, confirm_known(rows, twin_rows), diag
        )
    return {
        "name": target.name,
        "theorem": target.theorem,
        "method": target.base["method"],
        "status": combine(list(verdicts.values())),
        "relation": relation,
        "terms": list(target.terms),
        "het_term": target.het_term,
        "notes": list(target.notes),
        "known": target.known,
        "rows": rows,
        "term_constants": term_constants(rows, target.terms),
        "verdicts": {k: v.as_dict() for k, v in verdicts.items()},
        "quick": quick,
    }


def tightness(
    name: str, quick: bool = True, session: Any = None, overrides: dict[str, list] | None = None
) -> dict[str, Any]:
    """The tightness study of target ``name`` (a JSON payload; see ``judge``).

    Args:
        name: a key of ``TARGETS``.
        quick: the quick grid (M·K·R ≤ ``QUICK_STEPS``) or the full one.
        session: a sweep ``Session`` (caches every point in its store); None computes in process.
        overrides: grid axes replacing the target's ({"K": [1, 2]}).

    """
    p = plan(name, quick, overrides)
    return judge(p, compute([p], session), quick)


def tightness_many(
    names: list[str], quick: bool = True, session: Any = None, cap: int | None = None
) -> list[dict[str, Any]]:
    """Several targets with their jobs computed together (one batch on the session's executor).

    ``cap`` lowers the built-in grids' M·K·R limit (the quick report uses ``REPORT_STEPS``).
    """
    plans = [plan(n, quick, cap=cap) for n in names]
    results = compute(plans, session)
    return [judge(p, results, quick) for p in plans]


def algorithm_grid(method: str, axes: dict[str, list], base: dict[str, Any] | None = None) -> list[PepSpec]:
    """The grid of a bare algorithm (no theorem): ``axes`` over ``PepSpec`` fields, every point validated."""
    from fcocheck.rates.worstcase.methods import METHODS
    from fcocheck.rates.worstcase.spec import check_spec

    return [check_spec(spec, METHODS) for spec in _grid({"method": method, **(base or {})}, axes)]


def algorithm_worst_cases(specs: list[PepSpec], session: Any = None) -> list[dict[str, Any]]:
    """The worst case of each spec (``WorstCase.as_dict()``), cached through ``session``."""
    from fcocheck.solvers import algorithms
    from fcocheck.verify.sweep.session import Job

    jobs = [Job("pep+instance:" + s.key, pep_job, (s.as_dict(), True), algorithms.definition(s.method))
            for s in specs]
    bare = Plan(Target("algorithm", "", {}, {}, {}, ()), specs, [], jobs)
    results = compute([bare], session)
    return [results["pep+instance:" + s.key] for s in specs]


def confirm_known(rows: list[dict[str, Any]], twins: list[dict[str, Any]]) -> bool:
    """The documented cause holds: the twin is bounded everywhere, the method unbounded (or ≥ 1000× it)."""
    if not twins or any(t.get("status") != "optimal" for t in twins):
        return False
    for r, t in zip(rows, twins, strict=True):
        if r.get("status") == "unbounded":
            continue
        if r.get("status") != "optimal" or not at_least(float(r["worst"]), 1e3 * float(t["value"])):
            return False
    return True
