"""A claim measured: its runs on the drawn instances at every point of its sweep, read by its statistic."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, NamedTuple

import numpy as np

from fcocheck.rates.oc import resolved_prefix
from fcocheck.verify.claim import (
    AT_MOST,
    DERIVED,
    GAP_METRICS,
    IDENTITY,
    Claim,
    InvalidClaimError,
    as_expr,
    method_name,
)
from fcocheck.verify.claim_expr import bound_terms, evaluate, is_expression, own_constants, point, positive


def twin_measure(c: Claim, t: Any, twin: Any, resolution: float = 0.0) -> float:
    """The claim's measure of a run and its twin (``TWIN_MEASURES``).

    ``w_hat_distance_sq`` = ½‖ŵ − ŵ_twin‖² with ŵ the run's output average (eq. 4.2 for FedDualAvg);
    ``w_distance_relative`` = ‖w_R − w_R,twin‖ / ‖w_R,twin‖ (the last iterates; 0 or ∞ when the twin
    ends at 0); ``gap_ratio`` = (Φ(w_R) − Φ*) / (Φ(w_R) − Φ*)_twin, each gap's last round and at least 0
    (0 when the run's is; ∞ when only the twin's is: nothing to be far below); ``gap_avg_ratio`` =
    (Φ(ŵ) − Φ*) / (Φ(ŵ) − Φ*)_twin, which of the two is nearer the optimum (a crossover's measure): a gap
    within ``resolution`` (the instance's, ``RESOLVED`` × its certificate) is 0, a run that did not
    complete is at ∞, and two gaps of 0 (or two failed runs) are no measurement (nan: neither wins).
    """
    if c.measure == "gap_avg_ratio":  # a run that did not complete (diverged) is at ∞ and loses
        own, other = (float(x["gap_avg"][-1]) if x.status == "completed" else float("inf") for x in (t, twin))
        own, other = (0.0 if g <= resolution else g for g in (own, other))
        if own == other and own in (0.0, float("inf")):
            return float("nan")  # both at the optimum, or both failed: neither wins
        return 0.0 if own == 0 or other == float("inf") else float("inf") if other == 0 else own / other
    if c.measure == "gap_ratio":
        own, other = max(float(t["gap"][-1]), 0.0), max(float(twin["gap"][-1]), 0.0)
        return 0.0 if own == 0 else (own / other if other > 0 else float("inf"))
    if c.measure == "w_hat_distance_sq":
        d = np.asarray(t.meta["w_hat"]) - np.asarray(twin.meta["w_hat"])
        return 0.5 * float(d @ d)
    w, w2 = np.asarray(t.final_w), np.asarray(twin.final_w)
    apart, size = float(np.linalg.norm(w - w2)), float(np.linalg.norm(w2))
    return apart / size if size > 0 else (0.0 if apart == 0 else float("inf"))


def _twin_claim(c: Claim) -> Claim:
    """The claim its runs' twins are runs of (``Claim.twin``'s changes; no twin, controls nor full design)."""
    return replace(c, **dict(c.twin), twin={}, controls={}, full={})


def _twin_point(c: Claim, v: float, own: Mapping[str, float]) -> tuple[Claim, dict[str, Any], int]:
    """The twin's claim, hyper-parameters and rounds at swept value ``v``.

    A twin whose method has no hyper-parameter of the swept name runs without it (the swept η_c of FedMiD
    is no hp of PGM); one that has it follows the sweep.
    """
    tc = _twin_claim(c)
    hp, rounds, _ = point(tc, v, own)
    if c.along[0] in hp and not _takes(tc, c.along[0]):  # another method's hp: the swept one is the run's
        hp.pop(c.along[0])
    return tc, hp, rounds


def _twin_runs(c: Claim, v: float, own: Mapping[str, float], q: Any, r: Any, s: int, record: str) -> list:
    """The twins of the runs at swept value ``v`` on instance ``s`` (``_twin_point``), same oracle seeds."""
    from fcocheck.verify.experiments.base import runs

    tc, hp, rounds = _twin_point(c, v, own)
    return runs(method_name(tc), q, hp, rounds, tc.oracle, noise_seeds(c, s), r, record=record,
                **run_options(tc, q, r, s))


def _takes(c: Claim, name: str) -> bool:
    """Whether the claim's method has a hyper-parameter ``name``."""
    from dataclasses import fields

    from fcocheck.solvers import algorithms

    return name in {f.name for f in fields(algorithms.get(method_name(c)).hyper)}


def _instance_constants(c: Claim, p: Any, ref: Any) -> dict[str, float]:
    """The instance's constants that the claim names and does not state (``INSTANCE``)."""
    need = own_constants(c)
    out: dict[str, float] = {"M": int(p.M)} if "M" in need else {}
    if need - {"M"}:
        from fcocheck.solvers.constants import compute_constants

        k = compute_constants(p, ref.w)
        for name in need - {"M"}:
            value = getattr(k, name)
            if value is None:
                raise InvalidClaimError(f"claim {c.name!r}: the instance's {name} is not computable for "
                                        f"{p.name}; the rule is to state it in constants")
            out[name] = float(value)
    return out


def curve(c: Claim, t: Any, hp: Mapping[str, Any] | None = None) -> np.ndarray:
    """One run's curve of the claim's measure.

    A trace metric, one derived from it (``DERIVED``), or an identity's residual read with the run's
    hyper-parameters ``hp`` (``verify.residuals.RESIDUALS``).
    """
    from fcocheck.verify.residuals import RESIDUALS

    if c.measure in RESIDUALS:
        return np.asarray(RESIDUALS[c.measure](t, hp or {}), dtype=float)
    metric, power = DERIVED.get(c.measure, (c.measure, 1))
    if metric not in t.arrays:
        raise InvalidClaimError(f"claim {c.name!r}: measure {c.measure!r}; the rule is a trace metric "
                                f"{sorted(t.arrays)} or one of {sorted(DERIVED)}")
    return np.asarray(t[metric], dtype=float) ** power


def statistic(c: Claim, curve: np.ndarray) -> float:
    """The claim's number from one run's curve of its metric (``Claim.statistic``)."""
    if c.statistic == "last_step_mean":
        if curve.ndim != 2:
            raise InvalidClaimError(f"claim {c.name!r}: statistic last_step_mean of {c.measure!r} (shape "
                                    f"{curve.shape}); the rule is a per-local-step metric (rounds × steps)")
        return float(np.mean(curve[:, -1]))
    if c.statistic == "tail_mean":
        from fcocheck.verify.experiments.base import tail_mean

        return tail_mean(curve, c.tail)
    if c.statistic == "max":
        return float(np.max(curve))
    if c.statistic not in ("last", "mean"):  # limit, mean_above_floor: across runs (measure_instance)
        raise ValueError(f"statistic {c.statistic!r} is not one run's number")
    return float(curve[-1] if c.statistic == "last" else np.mean(curve))


def noise_seeds(c: Claim, instance_seed: int) -> list[int]:
    """The oracle seeds of one instance's runs: its own seed, or 1000·seed + k for repetition k."""
    return [instance_seed] if c.repeats == 1 else [1000 * instance_seed + k for k in range(c.repeats)]


class Measurement(NamedTuple):
    """What ``measure`` returns (shapes: S instances, P points, ``repeats`` repetitions)."""

    G: np.ndarray  #: the measurement, S × repeats × P
    floor: np.ndarray  #: each measurement's resolution, S × P
    bound: np.ndarray  #: the bound on each instance's constants, S × P
    B: float  #: the largest ½‖w₀ − w*‖² over the instances
    residual: np.ndarray  #: ``statistic="limit"``: each limit's convergence residual, S × P (else 0)
    seeds: list[int]  #: the instances' seeds
    skipped: list[int]  #: ``redraw``: the instances replaced (a point unresolved)
    random: bool = True  #: some run drew random numbers (oracle noise, the method's own draws)
    lacking: tuple[str, ...] = ()  #: ``condition``: what each draw it rejected lacked
    terms: Mapping[str, np.ndarray] | None = None  #: sense ``≤``: each term of the bound, S × repeats × P


class _Row(NamedTuple):
    """One instance's share of a ``Measurement``: repeats × P, then P each, its B."""

    G: np.ndarray
    floor: np.ndarray
    bound: np.ndarray
    B: float
    residual: np.ndarray
    random: bool = True
    terms: Mapping[str, np.ndarray] | None = None


def instances_at(c: Claim, s: int) -> list[tuple[Any, Any]]:
    """Instance ``s`` of the claim's class (problem, reference) at every point of its sweep.

    One instance for the whole sweep (the fixed one, or the seed's draw), or the seed's draw at each
    value of a swept generator parameter.
    """
    from fcocheck.verify.experiments.instances import drawn

    what, values = c.along
    gen, params = c.problem
    fixed = (c.instance if c.instance is not None else None if what.startswith("problem.")
             else drawn(gen, s, c.reference_tol, **params))
    return [fixed or drawn(gen, s, c.reference_tol, **{**params, what.removeprefix("problem."): v})
            for v in values]


#: the stream of a claim's start points (``run_options``): apart from every instance's and oracle's
START_STREAM = 0x57A27


def run_options(c: Claim, q: Any, r: Any, s: int) -> dict[str, Any]:
    """The engine's options of the claim's runs on instance ``s``: its participation and start point.

    ``start`` = ρ: w₀ = w* + ρ·u with u uniform on the unit sphere, drawn from instance ``s``'s own
    stream (the same u at every point of its sweep: a fixed distance to the optimum, B = ρ²/2 in the
    Euclidean h).
    """
    out: dict[str, Any] = {}
    if c.participation is not None:
        out["participation"] = c.participation
    if c.start is not None:
        u = np.random.default_rng([START_STREAM, s]).standard_normal(q.dim)
        out["w0"] = r.w + c.start * u / np.linalg.norm(u)
    return out


def lacks(c: Claim, s: int) -> str | None:
    """What instance ``s`` lacks for the claim to speak of it (``Claim.condition``), or None."""
    if c.condition is None:
        return None
    for q, r in instances_at(c, s):
        why = c.condition(q, r)
        if why is not None:
            return str(why)
    return None


class _Plan(NamedTuple):
    """What instance ``s``'s runs are (``_plan``): everything but the runs themselves."""

    cases: list[tuple[Any, Any]]  #: (problem, reference) at each point (``instances_at``)
    options: list[dict[str, Any]]  #: the engine's options at each point (``run_options``)
    own: list[dict[str, float]]  #: the instance's constants at each point (``_instance_constants``)
    points: list[tuple[dict[str, Any], int, dict[str, float]]]  #: (hp, rounds, names) at each point
    record: str  #: ``round`` or ``step`` (a per-step statistic or a residual)
    longest: tuple[dict[str, Any], int] | None  #: ``prefixes``: (hp, rounds) of the one longest run


def _plan(c: Claim, s: int) -> _Plan:
    """Instance ``s``'s runs described: what ``measure_instance`` runs and ``planned_runs`` lists.

    One function for both, so the runs a claim prefetches are the runs its instances ask for.
    """
    from fcocheck.verify.residuals import RESIDUALS

    values = c.along[1]
    cases = instances_at(c, s)
    options = [run_options(c, q, r, s) for q, r in cases]  # a start point per point: drawn once
    own = [_instance_constants(c, q, r) for q, r in cases]
    if c.constants_over == "sweep":
        own = [{k: max(o[k] for o in own) for k in own[0]}] * len(own)
    longest = None
    if prefixes(c):
        hp, rounds, _ = point(c, max(values), own[int(np.argmax(values))])
        longest = (hp, rounds)
    points = [point(c, v, own[j]) for j, v in enumerate(values)]
    record = "step" if c.statistic == "last_step_mean" or c.measure in RESIDUALS else "round"
    return _Plan(cases, options, own, points, record, longest)


def planned_runs(c: Claim, s: int, plan: _Plan | None = None) -> list[Any]:
    """Every run ``measure_instance(c, s)`` asks for, its twins' included.

    One ``verify.experiments.base.Run`` per point and noise seed, of per-round or per-step records (a
    per-step run is held apart until its one recall; a claim with per-step records and a twin or one run
    to the largest R plans none: those are asked for as before); with
    ``statistic="limit"``, the first per-step run of each point's limit (``experiments.limits.limit_gap``:
    R rounds, exact gradients, the instance's seed; the runs to 2R, 4R depend on it).  ``plan``: instance
    ``s``'s ``_plan``, when made already.
    Why: ``measure`` runs these for all its instances at once (``verify.experiments.base.prefetch``).
    """
    from fcocheck.verify.experiments.base import Run

    p = plan or _plan(c, s)
    if c.statistic == "limit":
        return [Run(method_name(c), q, hp, rounds, "exact", s, r, {}, "step")
                for (q, r), (hp, rounds, _) in zip(p.cases, p.points, strict=True)]
    if p.record != "round" and (p.longest is not None or c.twin):
        return []
    name, seeds = method_name(c), noise_seeds(c, s)
    if p.longest is not None:
        (q, r), (hp, rounds) = p.cases[0], p.longest
        return [Run(name, q, hp, rounds, c.oracle, k, r, p.options[0]) for k in seeds]
    out = [Run(name, q, hp, rounds, c.oracle, k, r, o, p.record)
           for (q, r), (hp, rounds, _), o in zip(p.cases, p.points, p.options, strict=True) for k in seeds]
    if c.twin:
        for v, (q, r), own in zip(c.along[1], p.cases, p.own, strict=True):
            tc, hp, rounds = _twin_point(c, v, own)
            o = run_options(tc, q, r, s)
            out += [Run(method_name(tc), q, hp, rounds, tc.oracle, k, r, o) for k in seeds]
    return out


def measure_instance(c: Claim, s: int, plan: _Plan | None = None) -> _Row:
    """Instance ``s`` of the claim's class at every point of its sweep (``measure``).

    ``plan``: its ``_plan``, when ``measure`` made it already (its hp expressions are sympy's to evaluate).
    """
    from fcocheck.rates.fit import phase_factor, phase_rate
    from fcocheck.solvers.reference.certificate import RESOLVED
    from fcocheck.verify.experiments.base import runs, tail_mean

    values = c.along[1]
    P = len(values)
    G, floor, bound, resid = np.empty((c.repeats, P)), np.zeros(P), np.empty(P), np.zeros(P)
    above = np.zeros(c.repeats)  # ``mean_above_floor``: each repetition's floor
    terms: dict[str, np.ndarray] = {}  # sense ``≤``: each term of the bound at each run of each point
    B = 0.0
    cases, options, own, points, record, longest_point = plan or _plan(c, s)
    longest = None
    random = False  # ``limit``: exact gradients, a dual-averaging method (``claim_check.check``)
    if longest_point is not None:  # one run to the sweep's largest R; each point reads its first R rounds
        hp, rounds = longest_point
        longest = runs(method_name(c), cases[0][0], hp, rounds, c.oracle, noise_seeds(c, s), cases[0][1],
                       **options[0])
    # the points of one R as one batch (not with a start or a participation of the claim's own: per run)
    together = (_points_together(c, cases, points, s) if longest is None and c.statistic != "limit"
                and record == "round" and not options[0] else None)
    for j, v in enumerate(values):
        q, r = cases[j]
        hp, rounds, ctx = points[j]
        where = f"instance {s}, {c.symbols()['name']} = {v:g}"
        if c.sense != AT_MOST:  # an inequality's terms may be measured on the runs: below
            bound[j] = positive(c, np.array([evaluate(c, "bound", c.bound, ctx)]), where)[0]
        if c.measure in GAP_METRICS:
            floor[j] = RESOLVED * r.certificate.value
        if c.statistic == "limit":
            G[0, j], resid[j] = _limit(c, q, r, hp, rounds, s, floor[j])
        else:
            traces = longest or (together[j] if together else runs(
                method_name(c), q, hp, rounds, c.oracle, noise_seeds(c, s), r, record=record,
                **options[j]))
            twins = _twin_runs(c, v, own[j], q, r, s, record) if c.twin else []
            for k, t in enumerate(traces):
                random = random or bool(t.meta.get("random", True))
                if c.twin:
                    random = random or bool(twins[k].meta.get("random", True))
                    G[k, j] = twin_measure(c, t, twins[k], RESOLVED * r.certificate.value)
                    continue
                y = curve(c, t, hp)[: rounds + 1] if longest else curve(c, t, hp)
                if c.statistic == "mean_above_floor":  # the running mean now, its floor once the sweep is run
                    G[k, j] = float(np.mean(y[:-1]))
                    if v == max(values):
                        above[k] = tail_mean(y[:-1], c.tail)
                elif c.statistic in ("rate", "factor"):  # resolved where its phase is: judged where finite
                    G[k, j] = (phase_rate if c.statistic == "rate" else phase_factor)(y, floor[j])
                else:
                    G[k, j] = statistic(c, y)
            if c.sense == AT_MOST:
                for name, x in terms_at(c, traces, ctx, where, rounds if longest else None).items():
                    terms.setdefault(name, np.empty((c.repeats, P)))[:, j] = x
                bound[j] = positive(c, np.array([sum(terms[name][:, j].mean() for name in terms)]), where)[0]
        B = max(B, 0.5 * float(np.sum((options[j].get("w0", q.zero()) - r.w) ** 2)))
    if c.statistic == "mean_above_floor":
        G = np.maximum(G - above[:, None], 1e-300)
    if c.statistic in ("rate", "factor"):  # the gap's resolution is in the phase; resolved where positive
        floor = np.zeros(P)
    return _Row(G, floor, bound, B, resid, random, terms or None)


def terms_at(c: Claim, traces: Sequence[Any], ctx: Mapping[str, float], where: str,
             rounds: int | None = None) -> dict[str, np.ndarray]:
    """Sense ``≤``: each term of the bound at one point, run by run, its ``run_terms`` read off each run.

    A run term is its trace metric's value at round ``rounds`` (None: the run's last — a sweep of R read
    off one longer run passes its point's R) on each run (repetition): the lemma bounds an expectation by
    expectations, and the rule judges the runs' mean of lhs − rhs, each run's right side paired with its
    left (``rates.inequality``).  A term without a run term is the same for every run.
    """
    at = -1 if rounds is None else rounds
    read: dict[str, list[float]] = {}
    for name, metric in c.run_terms.items():
        if any(metric not in t.arrays for t in traces):
            raise InvalidClaimError(f"claim {c.name!r}: run term {name} = {metric!r}, which the runs of "
                                    f"{method_name(c)} do not record; the rule is a trace metric "
                                    f"{sorted(traces[0].arrays)}")
        read[name] = [float(np.asarray(t[metric], dtype=float)[at]) for t in traces]
    return {label: np.array([evaluate(c, f"bound term {label!r} at {where}", term,
                                      {**ctx, **{k: v[r] for k, v in read.items()}})
                             for r in range(len(traces))])
            for label, term in bound_terms(c).items()}


#: statistics of a curve's first R rounds alone (``prefixes``)
PREFIX_STATISTICS = ("last", "mean", "tail_mean", "mean_above_floor", "rate", "factor")



def _points_together(c: Claim, cases: list, points: list, s: int) -> list[list[Any]]:
    """Every sweep point's runs on instance ``s`` (``measure_instance``), the points of one R as one batch.

    ``verify.experiments.base.runs_together``: the traces ``runs`` gives point by point, in fewer calls.
    """
    from fcocheck.verify.experiments.base import runs_together

    by_rounds: dict[int, list[int]] = {}
    for j, (_, rounds, _) in enumerate(points):
        by_rounds.setdefault(rounds, []).append(j)
    out: list[list[Any]] = [[] for _ in points]
    for rounds, js in by_rounds.items():
        got = runs_together(method_name(c), [(cases[j][0], points[j][0], noise_seeds(c, s), cases[j][1])
                                             for j in js], rounds, c.oracle)
        for j, traces in zip(js, got, strict=True):
            out[j] = traces
    return out

def prefixes(c: Claim) -> bool:
    """Whether a sweep of R is read off one run to the largest R: the same bits, one run per instance.

    A run of R rounds is the first R rounds of a longer one (the engine draws every random choice round by
    round, and nothing in a round depends on the rounds to come) — so when no hyper-parameter depends on
    R (a number, or an expression without R: a step on the instance's L) and the statistic reads the
    curve's first R rounds only (a rate: the phase of those rounds, ``rates.fit.phase_rate``).
    """
    return (c.along[0] == "rounds" and c.statistic in PREFIX_STATISTICS and not c.twin
            and not any(is_expression(x) and "R" in {str(s) for s in as_expr(x, c.name).free_symbols}
                        for x in c.hp.values()))


def first_seeds(c: Claim, seed: int, instances: Sequence[int] | None = None) -> list[int]:
    """The instance seeds ``measure`` measures before any replacement (``redraw``) would be drawn.

    The fixed instance's (the study seed) unless it lacks the claim's ``condition``; ``instances``; or the
    first ``seeds`` draws ``seed, seed + 1, …`` that do not lack it (a draw that lacks it is never run).
    """
    if c.instance is not None:
        return [seed] if lacks(c, seed) is None else []
    if instances is not None:
        return list(instances)
    return [s for s in range(seed, seed + c.seeds) if lacks(c, s) is None]


def measure(c: Claim, seed: int = 0, instances: Sequence[int] | None = None) -> Measurement:
    """``measured(c, seed, instances)``, its instances' runs run first across them: the same bits, faster.

    A claim's instances are measured one by one (a draw may be replaced); their runs that may batch
    (``verify.experiments.base.prefetch``: a FedDualAvg-type method, every client, per-round records or a
    limit's first per-step run) run first as few batches across the first draws (``first_seeds``) — each
    run the bits it has alone — and are held in the run memo (``holding``) while ``measured`` asks for
    them instance by instance.
    """
    from fcocheck.verify.experiments.base import holding, prefetch

    plans = {s: _plan(c, s) for s in first_seeds(c, seed, instances)}
    planned = [r for s, p in plans.items() for r in planned_runs(c, s, p)]
    with holding(len(planned)):
        prefetch(planned)
        return measured(c, seed, instances, plans)


def measured(c: Claim, seed: int = 0, instances: Sequence[int] | None = None,
             plans: Mapping[int, _Plan] | None = None) -> Measurement:
    """The measurement, its resolution, the bound, the class's B and the limits' residuals.

    Instances are drawn with seeds ``seed, seed + 1, …`` (the study seed reaches the instance), or are
    ``instances`` (a control or a check on the claim's own draw); an instance without the claim's
    ``condition``, or (with ``redraw``) unresolved at a point, is replaced from the study seed's own
    stream (``verify.experiments.base.draw_instances``).
    The measurement is instances × repetitions × sweep points, its resolution and the bound (each
    instance's own constants) instances × points; B is the largest ½‖w₀ − w*‖² over the instances (the
    class's initial condition, for the worst case).  Every run goes through
    ``verify.experiments.base.runs``, so a report stores it in its run tables.  ``plans``: instances'
    ``_plan``, made already (``measure``).
    """
    from fcocheck.verify.experiments.base import draw_instances

    plans = plans or {}

    def measure_one(s: int) -> _Row:
        return measure_instance(c, s, plans.get(s))

    skipped: list[int] = []
    lacking: list[str] = []

    def accept(s: int) -> _Row | None:  # None: replace it (it lacks the condition, or is unresolved)
        why = lacks(c, s)
        if why is not None:
            lacking.append(f"instance {s}: {why}")
            return None
        row = measure_one(s)
        if not c.redraw or c.sense == IDENTITY:  # an identity resolves nothing away: 0 is a measurement
            return row
        resolved = resolved_prefix(row.G.mean(axis=0)[None, :], row.floor[None, :]) == row.floor.size
        return row if resolved else None

    if c.instance is not None:  # one fixed instance
        why = lacks(c, seed)
        lacking += [f"the instance: {why}"] if why is not None else []
        drawn = [] if lacking else [(seed, measure_one(seed))]
    elif instances is not None:
        drawn = [(s, measure_one(s)) for s in instances]
    elif c.redraw or c.condition is not None:
        # at most ``redraw`` replacements: the draw stops at the rejection after the last one
        drawn, skipped = draw_instances(seed, c.seeds, accept, c.redraw + 1)
    else:
        drawn = [(seed + i, measure_one(seed + i)) for i in range(c.seeds)]
    rows = [r for _, r in drawn]
    P = len(c.along[1])
    if not rows:
        return Measurement(np.empty((0, c.repeats, P)), np.zeros((0, P)), np.empty((0, P)), 0.0,
                           np.zeros((0, P)), [], skipped, lacking=tuple(lacking))
    terms = {k: np.array([r.terms[k] for r in rows]) for k in rows[0].terms} if rows[0].terms else None
    return Measurement(np.array([r.G for r in rows]), np.array([r.floor for r in rows]),
                       np.array([r.bound for r in rows]), max(r.B for r in rows),
                       np.array([r.residual for r in rows]), [s for s, _ in drawn], skipped,
                       any(r.random for r in rows), tuple(lacking), terms)


def _limit(c: Claim, q: Any, r: Any, hp: dict[str, Any], rounds: int, s: int,
           resolution: float) -> tuple[float, float]:
    """``statistic="limit"``: lim_R Φ(ŵ_R) − Φ* and its residual (``verify.experiments.limits``)."""
    from fcocheck.verify.experiments.limits import limit_gap

    try:
        return limit_gap(method_name(c), q, r, hp, rounds, s, resolution)
    except KeyError as exc:
        raise InvalidClaimError(f"claim {c.name!r}: statistic limit of {method_name(c)!r}, which logs no "
                                f"{exc}; the rule is a dual-averaging method (its shadow's primal images)") \
            from exc
