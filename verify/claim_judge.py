"""A claim judged: its rule on the measurement, its controls, where it vanishes, and its worst case."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from fcocheck.rates.oc import MIN_POINTS, bounded_ratio, instance_noise, resolved_prefix
from fcocheck.rates.verdict import INCONCLUSIVE, INCONSISTENT, NOT_APPLICABLE, Verdict, known_disagreement
from fcocheck.solvers.readable import readable_name
from fcocheck.verify.claim import AT_MOST, CROSSOVER, IDENTITY, LAW, LOWER, UPPER, Claim
from fcocheck.verify.claim_check import check, validate
from fcocheck.verify.claim_expr import law_exponent, law_x, vanishing_point
from fcocheck.verify.claim_measure import Measurement, measure


def judge(c: Claim, seed: int = 0, quick: bool = True) -> tuple[list[Verdict], dict[str, Any]]:
    """The claim's verdicts and what was measured (at its quick design, or its full one).

    The verdicts: on the drawn instances (with size and power), each negative control
    (``control_verdicts``), the limits' settling (``statistic="limit"``), the measure where the bound
    vanishes (``vanishing``), then against the class's worst case where it applies;
    ``rates.verdict.combine`` of them is the claim's status.  When too few instances can be drawn —
    they lack the claim's ``condition`` (does not apply) or ``redraw`` runs out of resolved ones
    (inconclusive) — one verdict says so and nothing else is judged (``_too_few``).
    """
    from fcocheck.verify.claim_admit import admit
    from fcocheck.verify.claim_worst import worst_case

    c = admit(c).design(quick)
    m = measure(c, seed)
    if len(m.seeds) < _needed(c):
        return [_too_few(c, m)], {"seeds": m.seeds, "skipped": m.skipped}
    v, measured = judge_data(c, m.G, m.floor, m.bound, seed, m.seeds, m.random, m.terms)
    if c.known is not None and v.status == INCONSISTENT:  # the documented cause, measured on the instances
        confirmed, numbers = c.known[1](c, m.seeds)
        v = known_disagreement(v, c.known[0], bool(confirmed), str(numbers))
    if m.skipped:
        measured["skipped"] = m.skipped
    verdicts = [v, *control_verdicts(c, m.G, m.floor, m.bound, seed, measured)] if c.controls else [v]
    if c.statistic == "limit":
        verdicts.append(settled(m))
    if c.vanishes:
        verdicts.append(vanishing(c, m.G, seed, measured, m.floor))
    if not c.worst:
        return verdicts, measured
    w, rows = worst_case(c, m.B)
    measured["worst_case"] = rows
    return [*verdicts, w], measured


def judge_measured(c: Claim, seed: int = 0) -> tuple[Verdict, dict[str, Any], float]:
    """The verdict on the drawn instances, what was measured, and the class's B (``judge_data``)."""
    validate(c)
    m = measure(c, seed)
    if len(m.seeds) < _needed(c):
        return _too_few(c, m), {"seeds": m.seeds, "skipped": m.skipped}, m.B
    v, measured = judge_data(c, m.G, m.floor, m.bound, seed, m.seeds, m.random, m.terms)
    return v, measured, m.B


def _needed(c: Claim) -> int:
    """Instances a verdict needs: the fixed one, or ``seeds`` drawn."""
    return 1 if c.instance is not None else c.seeds


def _too_few(c: Claim, m: Measurement) -> Verdict:
    """Fewer instances than needed: the class lacks the claim's condition, or too few resolve every point.

    Not applicable when every rejected draw (or the fixed instance) lacked the condition — the class is
    outside the claim — naming what they lacked; otherwise inconclusive, counting both causes.
    """
    draws = len(m.seeds) + len(m.skipped)
    shown = "; ".join(m.lacking[:3]) + (f"; … ({len(m.lacking)} in all)" if len(m.lacking) > 3 else "")
    if m.lacking and (c.instance is not None or len(m.lacking) == len(m.skipped)):
        where = ("the fixed instance lacks it" if c.instance is not None else
                 f"{draws - len(m.lacking)} of {draws} draws have it, {c.seeds} instances needed")
        return Verdict(NOT_APPLICABLE, "applicability", f"the claim's condition: {where} ({shown})",
                       {"lacking": list(m.lacking), "skipped": m.skipped})
    lacked = f", {len(m.lacking)} of them lacking the claim's condition ({shown})" if m.lacking else ""
    return Verdict(INCONCLUSIVE, "resolution", f"only {len(m.seeds)} of {c.seeds} instances resolve every "
                   f"point of the sweep: {len(m.skipped)} draws rejected ({m.skipped}){lacked}, {c.redraw} "
                   f"replacements allowed; the rule is {c.seeds} — allow more redraws or end the sweep "
                   "earlier",
                   {"skipped": m.skipped, "lacking": list(m.lacking)})


def judge_data(c: Claim, G3: np.ndarray, floor: np.ndarray, b: np.ndarray, seed: int = 0,
               seeds: Sequence[int] | None = None, random: bool = True,
               terms: Mapping[str, np.ndarray] | None = None) -> tuple[Verdict, dict[str, Any]]:
    """The claim's rule on a measurement (instances × repetitions × points), its resolution and bound.

    Sense ``Θ``: the log–log slope over the resolved points against the bound's exponent (``_law``).
    Sense ``≲`` — one bound for every instance and one *random* run per point (``random``: oracle noise
    or the method's own draws): every instance is judged against the same bound, pooled
    (``rates.oc.bounded_ratio`` with the instances' two-way noise).  Otherwise each instance against its
    own bound with its own noise — a deterministic run's curve is exact (how two instances' shapes
    differ is two experiments, not noise), repetitions give their spread — on the points it resolves,
    with 1/S of the false-alarm budget (``verify.experiments.judge.bound_instances``).  Sense ``≳``: the
    same rule on the reciprocals (``_lower``).  Sense ``=``: every run at every point within the
    tolerance (``_identity``).  Sense ``≶``: the winner on each side of each instance's crossover
    (``_crossover``).  Sense ``≤``: every instance and point, its mean over the repetitions against the sum
    of ``terms`` (each S × repeats × P, run by run; ``_at_most``).
    """
    from fcocheck.verify.experiments.judge import bound_instances

    informative = _informative_horizons(c, G3)
    if informative < len(c.along[1]):  # a rate of the first R rounds, the same from some R on
        return _frozen(c, G3, floor, b, seed, seeds, random, informative)
    if c.sense == LOWER:
        return _lower(c, G3, floor, b, seed, seeds, random)
    if c.statistic == "factor" and np.isinf(G3).any():  # an upper bound or a law on q: a diverged run
        i, k, j = (int(x[0]) for x in np.nonzero(np.isinf(G3)))
        s = seeds[i] if seeds is not None else seed + i
        reason = (f"diverged: q = ∞ on instance {s} (run {k}) at {readable_name(c.symbols()['name'])} = "
                  f"{c.along[1][j]:g} — the run left the finite numbers, where the bound {c.bound_text()} is "
                  f"{b[i, j]:.3g}")
        return Verdict(INCONSISTENT, "bounded factor", reason, {}), _measured(c, G3, floor, b, seed, seeds)
    if c.sense == IDENTITY:
        return _identity(c, G3, b), _measured(c, G3, floor, b, seed, seeds)
    if c.sense == CROSSOVER:
        return _crossover(c, G3, b, seed, seeds, random), _measured(c, G3, floor, b, seed, seeds)
    if c.sense == AT_MOST:
        if not terms:
            from fcocheck.verify.claim import InvalidClaimError

            raise InvalidClaimError(f"claim {c.name!r}: sense {AT_MOST} judged without the bound's terms; "
                                    "the rule is the terms measured with it (claim_measure.measure)")
        return _at_most(c, G3, b, terms, seed, seeds)
    G = G3.mean(axis=1)
    x = np.asarray(c.along[1], dtype=float)
    if c.direction == "shrinks":
        x = 1.0 / x
    order = np.argsort(x)
    name = c.symbols()["name"]
    shown = ("1/" if c.direction == "shrinks" else "") + readable_name(name)  # the judged coordinate
    pooled = _one_bound(c, b) and random
    measured = _measured(c, G3, floor, b, seed, seeds)
    kept = resolved_prefix(G[:, order], floor[:, order])
    if kept < len(order):
        measured["unresolved_from"] = float(c.along[1][order[kept]])
    if not pooled and c.sense == UPPER:
        Y = G3 if c.repeats > 1 else G
        v = bound_instances(x[order], b[:, order], Y[..., order], seed=seed, label=shown,
                            floor=floor[:, order], deterministic=c.repeats == 1 and not random)
        return v, measured
    if kept < MIN_POINTS:
        where = f"{name} = {c.along[1][order[kept]]:g}"
        reason = (f"an instance's measurement is unresolved from {where} (≤ {float(floor.max()):.1e}, 10³× "
                  f"its reference's certificate, or not positive): {kept} resolved points; the rule is ≥ "
                  f"{MIN_POINTS} — end the sweep earlier")
        return Verdict(INCONCLUSIVE, "resolution", reason, {}), measured
    order = order[:kept]
    if c.sense == LAW:
        along = np.asarray(c.along[1], dtype=float)[order]
        return _law(c, G3[..., order], along, seed, measured), measured
    # one row per instance: the rule averages log ratios (each instance's constant cancels from a slope)
    v = bounded_ratio(x[order], b[0, order], G[:, order], seed=seed, label=shown,
                      noise=instance_noise(G[:, order]))
    return v, measured


def _identity(c: Claim, G3: np.ndarray, b: np.ndarray) -> Verdict:
    """An identity: the largest measure over every run and point at most the tolerance ``bound``.

    Not a rate, so nothing is resolved away: a residual of exactly 0 holds, a non-finite one breaks it.
    Power: a residual 10× the tolerance is rejected (``verify.experiments.judge.identity``); on real runs,
    the claim's controls must break it.
    """
    from fcocheck.verify.experiments.judge import identity

    worst = float(np.max(G3)) if G3.size and np.all(np.isfinite(G3)) else float("inf")
    S, runs, P = G3.shape
    return identity(worst, float(b.flat[0]), f"{c.measure}, the largest over {S} instance(s) × {runs} "
                    f"run(s) × {P} points")


def _crossover(c: Claim, G3: np.ndarray, b: np.ndarray, seed: int, seeds: Sequence[int] | None,
               random: bool) -> Verdict:
    """A crossover: the named winner on each side of each instance's own crossover (``rates.sides``).

    Each instance's crossover is the bound on its constants (at each point: a sweep of a class parameter
    draws each point's instance); the run and its twin swapped must be rejected (power).  The comparisons
    are exact: runs that drew random numbers (a method's own draws; ``claim_check`` refuses a noisy
    oracle and sampled clients) make a comparison at one point a coin the rule does not toss —
    inconclusive, saying so.
    """
    from fcocheck.rates.power import Violation, powered
    from fcocheck.rates.sides import crossover_sides
    from fcocheck.verify.experiments.judge import every_instance

    if random:
        return Verdict(INCONCLUSIVE, "crossover sides", "the runs drew random numbers (oracle noise, "
                       "sampled clients, the method's own draws): the rule compares exact runs point by "
                       "point — state the claim with exact gradients and every client")
    name = readable_name(c.symbols()["name"])
    verdicts = []
    for i in range(G3.shape[0]):
        ratio = G3[i, 0]  # exact runs: every repetition is the same comparison
        with np.errstate(divide="ignore"):
            swapped = 1.0 / ratio

        def rule(r: np.ndarray, x_star: np.ndarray = b[i]) -> Verdict:
            return crossover_sides(c.along[1], r, x_star, name)

        verdicts.append(powered(rule, ratio, [Violation("the run and its twin swapped", swapped)]))
    return every_instance(verdicts, seeds if seeds is not None else [seed + i for i in range(G3.shape[0])])


def _at_most(c: Claim, G3: np.ndarray, b: np.ndarray, terms: Mapping[str, np.ndarray], seed: int,
             seeds: Sequence[int] | None) -> tuple[Verdict, dict[str, Any]]:
    """An inequality with every constant 1 (``≤``), run by run: ``rates.inequality.bounded_by``.

    Each instance × point is one run of the rule: its repetitions' mean against the mean of its terms'
    sum (``b``: S × P), with the standard error of the repetitions' differences lhs − rhs (``terms``, S ×
    repeats × P: a term read off the runs is paired with their left side; S × P: known exactly, the same
    for every repetition); each term containing a
    ``tested`` name, deleted, must be detected (power).  What was measured gains each term's mean over the
    repetitions (S × P).
    """
    from fcocheck.rates.inequality import bounded_by
    from fcocheck.verify.claim_expr import tested_terms

    S, _, P = G3.shape
    ids = list(seeds) if seeds is not None else [seed + i for i in range(S)]
    name = readable_name(c.symbols()["name"])
    labels = [f"instance {ids[i]}: {name} = {c.along[1][j]:g}" for i in range(S) for j in range(P)]
    lhs = [G3[i, :, j] for i in range(S) for j in range(P)]
    arrays = {k: np.asarray(v, dtype=float) for k, v in terms.items()}  # S × P: known exactly, every run
    runs = {k: [v[i, :, j] if v.ndim == 3 else v[i, j] for i in range(S) for j in range(P)]
            for k, v in arrays.items()}
    v = bounded_by(lhs, runs, tested_terms(c), labels, seed)
    measured = _measured(c, G3, np.zeros_like(b), b, seed, ids)
    measured["terms"] = {k: (x.mean(axis=1) if x.ndim == 3 else x).tolist() for k, x in arrays.items()}
    return v, measured


def _informative_horizons(c: Claim, G3: np.ndarray) -> int:
    """How many of a sweep of R carry information for a rate (or factor) of the first R rounds.

    The statistic is read off the curve's phase down to its floor (``rates.fit.phase_rate``); once every
    instance's curve is at its floor by some R, each longer horizon reads the same phase and gives the
    same bits.  Counted: the horizons up to the first from which every run's value equals its value at
    the largest R (all of them for any other claim, or when a value at the largest R is not a measured
    positive number: the rules judge those).
    """
    P = len(c.along[1])
    if c.along[0] != "rounds" or c.statistic not in ("rate", "factor") or P < 2:
        return P
    order = np.argsort(np.asarray(c.along[1], dtype=float))
    G = G3[..., order]
    if not np.all(np.isfinite(G[..., -1]) & (G[..., -1] > 0)):  # unmeasured, stalled or diverged: judged
        return P
    same = np.all(G == G[..., -1:], axis=(0, 1))
    first = P - int(np.argmin(same[::-1])) if not same.all() else 0  # the start of the trailing run of same
    return first + 1


def _frozen(c: Claim, G3: np.ndarray, floor: np.ndarray, b: np.ndarray, seed: int,
            seeds: Sequence[int] | None, random: bool, informative: int) -> tuple[Verdict, dict[str, Any]]:
    """A rate of the first R rounds judged on the horizons before it freezes (``_informative_horizons``).

    With fewer than ``MIN_POINTS`` of them the claim has no power: every curve that reaches its floor as
    early — a linear one, or a fast polynomial or stretched-exponential one — reads the same, and the
    verdict says so (never consistent).  Otherwise the claim is judged on them, saying where it stopped.
    """
    kept, G, fl, bb = _on_points(c, np.sort(np.argsort(np.asarray(c.along[1], dtype=float))[:informative]),
                                 G3, floor, b)
    last = float(max(kept.along[1]))
    if informative < MIN_POINTS:
        reason = (f"no power: the {c.statistic} of the first R rounds is the same from R = {last:g} on, on "
                  f"every instance (the curves are at their floor by then): {informative} informative "
                  f"horizon(s), the rule needs {MIN_POINTS} — any curve at its floor by R = {last:g} reads "
                  "the same (a linear one, or 1/t^6, exp(−√t) as fast); a sublinear one that is not is "
                  "rejected")
        return Verdict(INCONCLUSIVE, "informative horizons", reason, {"frozen_from": last}), \
            _measured(c, G3, floor, b, seed, seeds)
    v, measured = judge_data(kept, G, fl, bb, seed, seeds, random)
    return replace(v, reason=f"{v.reason} (judged on R ≤ {last:g}: the {c.statistic} is the same from there "
                   "on, on every instance)"), measured


def _lower(c: Claim, G3: np.ndarray, floor: np.ndarray, b: np.ndarray, seed: int,
           seeds: Sequence[int] | None, random: bool) -> tuple[Verdict, dict[str, Any]]:
    """A lower bound y ≳ b judged as 1/y ≲ 1/b by the upper rule, its size and power (a time constant).

    Its violations are the upper rule's on the reciprocals: along a growing 1/b, a time constant growing
    like (1/b)^1.2 … 1.5 — a rate vanishing like b^1.2 … 1.5, faster than the bound allows.  A run that
    does not contract (any repetition's −log q ≤ 0, ``statistic="rate"``) fails the bound outright.  A
    point not measured on some instance (no rate, or y within its resolution) is never cut from the
    sweep's end — the small-bound end is where a lower bound fails — the verdict is inconclusive, naming
    it; the sweep's start alone unmeasured (``_unmeasured_start``: a rate along R whose first horizons hold
    no linear phase of 3 points, which is how a sublinear curve starts) is cut, the rest judged when at
    least ``MIN_POINTS`` remain.  What is measured is reported as measured (y and b), the judged ratio
    named.
    """
    measured = _measured(c, G3, floor, b, seed, seeds)
    name = readable_name(c.symbols()["name"])
    if c.statistic == "rate":
        stalled = ~np.isnan(G3) & (G3 <= 0)
        if stalled.any():
            i, k, j = (int(x[0]) for x in np.nonzero(stalled))
            s = seeds[i] if seeds is not None else seed + i
            reason = (f"no contraction: −log q = {G3[i, k, j]:.3g} ≤ 0 on instance {s} at {name} = "
                      f"{c.along[1][j]:g}, where the bound {c.bound_text()} is {b[i, j]:.3g} > 0")
            return Verdict(INCONSISTENT, "lower bound", reason, {"rate": float(G3[i, k, j])}), measured
    missing = ~np.all(G3 > floor[:, None, :], axis=(0, 1))  # nan compares False: not measured
    why = "no linear phase of 3 points, or" if c.statistic in ("rate", "factor") else "at or below"
    keep = _unmeasured_start(c, missing)
    if keep is None:
        where = ", ".join(f"{v:g}" for v in np.asarray(c.along[1])[missing])
        at_start = _unmeasured_start(c, missing, least=0) is not None  # only the start, too few left
        said = (f"only the sweep's start, and {int((~missing).sum())} points remain where the rule needs "
                f"{MIN_POINTS} — extend the sweep" if at_start else
                "a lower bound's sweep is never cut where it ends, the end where it fails — run longer, or "
                "start further from the optimum")
        reason = (f"not measured at {name} = {where} on some instance ({c.statistic} of {c.measure}: {why} "
                  f"its resolution): {said}")
        return Verdict(INCONCLUSIVE, "resolution", reason, {}), measured
    sub, G, fl, bb = _on_points(replace(c, sense=UPPER), keep, G3, floor, b)
    values = sub.along[1]
    v, upper = judge_data(sub, 1.0 / G, np.zeros_like(fl), 1.0 / bb, seed, seeds, random)
    measured.update({k: x for k, x in upper.items() if k not in measured}, judged="bound / measured ≲ 1")
    if missing.any():
        cut = ", ".join(f"{v:g}" for v in np.asarray(c.along[1])[missing])
        edge = f"≥ {min(values):g}" if c.direction == "grows" else f"≤ {max(values):g}"
        v = replace(v, reason=f"{v.reason} (judged where {name} {edge}: {name} = {cut} not measured on some "
                    f"instance — {c.statistic} of {c.measure}: {why} its resolution)")
        measured["unmeasured_start"] = [float(x) for x in np.asarray(c.along[1])[missing]]
    return replace(v, rule=f"{v.rule} (1/y ≲ 1/bound)"), measured


def _on_points(c: Claim, idx: np.ndarray, G3: np.ndarray, floor: np.ndarray,
               b: np.ndarray) -> tuple[Claim, np.ndarray, np.ndarray, np.ndarray]:
    """The claim and its measurement on the sweep's points ``idx`` (indices in the sweep's own order)."""
    values = tuple(np.asarray(c.along[1])[idx].tolist())
    return replace(c, along=(c.along[0], values)), G3[..., idx], floor[:, idx], b[:, idx]


def _unmeasured_start(c: Claim, missing: np.ndarray, least: int = MIN_POINTS) -> np.ndarray | None:
    """The points a lower bound is judged on: all, or all but an unmeasured start; None when it cannot be.

    Along the direction (growing values, or shrinking ones for ``direction="shrinks"``) the unmeasured
    points must be the first ones, and at least ``least`` measured ones must follow: the direction's
    end, where a lower bound fails, is then measured.  Indices in the sweep's own order.
    """
    values = np.asarray(c.along[1], dtype=float)
    order = np.argsort(values if c.direction == "grows" else -values)
    k = int(np.argmin(missing[order])) if not missing.all() else len(order)
    if missing[order][k:].any() or len(order) - k < least:
        return None
    return np.sort(order[k:])


def _one_bound(c: Claim, b: np.ndarray) -> bool:
    """One bound for every run: every instance's the same to 10⁻⁹ relative, one run per point.

    Two instances' measured μ of one class's 0.1 may differ in their last bits.
    """
    return c.repeats == 1 and bool(np.allclose(b, b[:1], rtol=1e-9, atol=0.0))


def _measured(c: Claim, G3: np.ndarray, floor: np.ndarray, b: np.ndarray, seed: int,
              seeds: Sequence[int] | None) -> dict[str, Any]:
    """What was measured, in the claim's own terms.

    The sweep, the bound (one row when every instance shares it), the instances' means, their
    resolution, the seeds (and each repetition).
    """
    G = G3.mean(axis=1)
    out = {"along": list(c.along[1]), "bound": (b[0] if _one_bound(c, b) else b).tolist(),
           "mean": G.mean(axis=0).tolist(), "instances": G.tolist(), "resolution": floor.tolist(),
           "seeds": list(seeds) if seeds is not None else [seed + i for i in range(G.shape[0])]}
    if c.repeats > 1:
        out["repetitions"] = G3.tolist()
    return out


def settled(m: Measurement) -> Verdict:
    """``statistic="limit"``: every resolved point's limit settled (residual ≤ ``LIMIT_TOL``)."""
    from fcocheck.rates.threshold import at_most
    from fcocheck.verify.experiments.judge import identity
    from fcocheck.verify.experiments.limits import LIMIT_DOUBLINGS, LIMIT_TOL

    resolved = m.G.mean(axis=1) > m.floor
    worst = float(m.residual[resolved].max()) if resolved.any() else 0.0
    if at_most(worst, LIMIT_TOL):
        return identity(worst, LIMIT_TOL, "lim Φ(ŵ_R) reached (tail R/2…R vs 3R/4…R) at every resolved point")
    return Verdict(INCONCLUSIVE, "limit reached", f"a limit had not settled after {LIMIT_DOUBLINGS} "
                   f"doublings of R: residual {worst:.2e} (rule ≤ {LIMIT_TOL:g}); no floor measured")


#: ``Claim.vanishes``: the measure where the bound vanishes, relative to its value at the nearest point
VANISH = 1e-3


def vanishing(c: Claim, G3: np.ndarray, seed: int, measured: dict[str, Any],
              floor: np.ndarray | None = None) -> Verdict:
    """``Claim.vanishes``: the measure where the bound vanishes is ≤ ``VANISH`` × its value nearest it.

    The same instances are run at the bound's zero (``vanishing_point``; the bound is not evaluated there:
    it is 0 by the claim); each must vanish — a value within its resolution (``floor``: a gap within its
    reference's certificate) counts as 0.  It is compared with the nearest point of the sweep that every
    instance resolves (none: inconclusive).  Power (``verify.experiments.judge.vanishes``): the measure
    kept there on every instance, or on one, is rejected.
    """
    from fcocheck.verify.experiments.judge import vanishes

    v0 = vanishing_point(c)
    at_zero = replace(c, along=(c.along[0], (v0,)), bound=1, controls={}, full={}, vanishes=False)
    seeds = measured.get("seeds", [seed + i for i in range(G3.shape[0])])
    m0 = measure(at_zero, seed, seeds)
    zero = m0.G.mean(axis=1)[:, 0]
    measured["at_zero"] = zero.tolist()
    G = G3.mean(axis=1)
    F = np.zeros_like(G) if floor is None else floor
    resolved = [j for j in range(G.shape[1]) if np.all((G[:, j] > F[:, j]) & (G[:, j] > 0))]
    name = readable_name(c.symbols()["name"])
    if not resolved:
        return Verdict(INCONCLUSIVE, "vanishes", f"no point of the sweep is resolved on every instance: "
                       f"nothing to compare {c.measure} at {name} = {v0:g} with")
    j = min(resolved, key=lambda k: abs(float(c.along[1][k]) - v0))
    zero = np.where(zero <= m0.floor[:, 0], 0.0, zero)
    return vanishes(zero, G[:, j], seeds,
                    f"{c.measure} at {name} = {v0:g} / at {name} = {c.along[1][j]:.3g}", VANISH)


def control_verdicts(c: Claim, G3: np.ndarray, floor: np.ndarray, b: np.ndarray, seed: int,
                     measured: dict[str, Any]) -> list[Verdict]:
    """Each negative control (``Claim.controls``): the claim's own rule must reject the variant's runs.

    The variant — the claim with the control's changes (another method, a hyper-parameter …) — is
    measured on the same instances and sweep and judged by the same rule against the claim's bound; it
    must come out inconsistent.  Power: the claim's own measurement, offered as the control, is not
    rejected (``verify.experiments.judge.control``), so a rule that rejects everything cannot pass it.
    A law's control is judged on each instance (``law_each``): a variant's exponent is its own on each
    instance (FedMiD-avg's drift floor grows like ζ^2.4 on one instance and ζ^7.6 on another), and one
    interval pooled over a few instances' slopes is too wide to reject anything.
    """
    from fcocheck.verify.experiments.judge import control

    out = []
    measured["controls"] = {}
    for label, changes in c.controls.items():
        variant = replace(c, **dict(changes), controls={}, full={})
        check(variant)
        mv = measure(variant, seed, measured["seeds"])
        G3v = mv.G
        measured["controls"][label] = G3v.mean(axis=1).tolist()
        if c.sense == CROSSOVER and mv.random:  # its comparisons would be coins (``_crossover``)
            out.append(Verdict(INCONCLUSIVE, f"negative control ({label})", f"{label}: the runs drew random "
                               "numbers; a crossover compares exact runs"))
            continue

        # the claim's rule, its words naming what the variant measures (Φ of the running average …)
        named = replace(c, measure=variant.measure)

        def rule(d: np.ndarray, fl: np.ndarray = mv.floor, random: bool = mv.random,
                 named: Claim = named) -> Verdict:
            D = np.asarray(d).reshape(G3.shape)
            if c.sense == LAW:
                return law_each(named, D, fl, b, seed, measured["seeds"])
            return judge_data(named, D, fl, b, seed, random=random)[0]

        out.append(control(rule, G3v, G3, label))
    return out


def law_each(c: Claim, G3: np.ndarray, floor: np.ndarray, b: np.ndarray, seed: int,
             seeds: Sequence[int]) -> Verdict:
    """A law judged on each instance by its own exponent (a negative control's rule).

    Rejected if the rule rejects it on at least one instance and accepts it on none (an instance whose
    curve bends too much for its points — an interval like [−0.16, 12.1] — neither accepts nor rejects);
    accepted if it accepts it on one.
    """
    from fcocheck.rates.verdict import CONSISTENT, INCONSISTENT

    rows = [judge_data(c, G3[i:i + 1], floor[i:i + 1], b[i:i + 1], seed)[0] for i in range(G3.shape[0])]
    text = "; ".join(f"[{s}] {v.reason.split('; power')[0]}" for s, v in zip(seeds, rows, strict=True))
    status = (CONSISTENT if any(v.status == CONSISTENT for v in rows) else
              INCONSISTENT if any(v.status == INCONSISTENT for v in rows) else INCONCLUSIVE)
    return Verdict(status, rows[0].rule, text)


def _law(c: Claim, G3: np.ndarray, along: np.ndarray, seed: int, measured: dict[str, Any]) -> Verdict:
    """Measured ∝ bound: the log–log slope along the law's coordinate against the bound's exponent.

    Two-sided, with its violations (``verify.experiments.judge.exponent``); every run is a row
    (instances and repetitions: the interval takes their spread).
    """
    from fcocheck.verify.experiments.judge import exponent as judge_exponent

    p = law_exponent(c)
    x, label = law_x(c, along)
    fit, v = judge_exponent(list(x), G3.reshape(-1, G3.shape[-1]), p, "two-sided", seed, label)
    measured["fit"] = {**fit.as_dict(), "predicted": p, "x": x.tolist(), "label": label}
    return v


#: the public name (``fcocheck.judge_claim``)
judge_claim = judge
