"""Judging an experiment's measurement: each claim type's rule, run with its violations (power).

One function per claim type; each fits, applies the ``rates.verdict`` rule and demonstrates power
with the violations of ``rates.power`` built from the same measurement (same sweep points, same
noise).  Experiments call these and never a bare rule, so no verdict prints ``consistent`` without
having rejected its violations on the experiment's own data.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from fcocheck.rates.departure import EPS_MAX, Detection, eps_min, excludes
from fcocheck.rates.fit import SlopeFit, loglog_slope
from fcocheck.rates.inequality import bounded_by
from fcocheck.rates.oc import (
    LEVEL,
    MIN_POINTS,
    bounded_ratio,
    design_help,
    design_text,
    power_summary,
    resolved_prefix,
)
from fcocheck.rates.power import (
    Violation,
    exponent_violations,
    powered,
)
from fcocheck.rates.threshold import above, at_most
from fcocheck.rates.verdict import (
    CONSISTENT,
    INCONCLUSIVE,
    INCONSISTENT,
    Verdict,
    exponent_verdict,
    law_departure,
)


def exponent(x: Sequence[float], Y: np.ndarray, predicted: float, sense: str = "two-sided", seed: int = 0,
             label: str = "x", ratio_max: float | None = None) -> tuple[SlopeFit, Verdict]:
    """Fit log y against log x and judge the exponent, with its violations (``exponent_violations``)."""
    xa = np.asarray(x, dtype=float)

    def judge(data: np.ndarray) -> Verdict:
        return exponent_verdict(loglog_slope(xa, data, seed=seed), predicted, sense, ratio_max=ratio_max)

    fit = loglog_slope(xa, Y, seed=seed)
    violations = exponent_violations(xa, Y, predicted, sense, label)
    v = powered(judge, np.asarray(Y, dtype=float), violations)
    if np.isfinite(fit.lo) and np.isfinite(fit.hi):  # the smallest departure it rejects, reported
        v = Verdict(v.status, v.rule, v.reason,
                    {**v.evidence, "departure": law_departure(fit, predicted, sense)})
    return fit, v


def bound(x: Sequence[float], rate: Sequence[float], Y: np.ndarray, seed: int | tuple[int, ...] = 0,
          label: str = "x", deterministic: bool = False, noise: float | None = None,
          level: float = LEVEL, gate: bool = True) -> Verdict:
    """Y ≲ rate along x, x growing into the theorem's regime (``rates.oc.bounded_ratio``).

    Its size, power and smallest detected departure are measured at this design.  It replaces the
    one-constant rule, which rejected legal saturating ratios and passed y ∝ bound^0.7 at log-noise 0.2
    in 30–55% of repetitions.
    """
    return bounded_ratio(np.asarray(x, dtype=float), np.asarray(rate, dtype=float),
                         np.asarray(Y, dtype=float), seed=seed, label=label, deterministic=deterministic,
                         noise=noise, level=level, gate=gate)


def bound_instances(x: Sequence[float], rates: np.ndarray, Y: np.ndarray, seed: int = 0,
                    label: str = "x", floor: np.ndarray | None = None, deterministic: bool | None = None
                    ) -> Verdict:
    """Y ≲ rate along x on several instances of a class, each judged against its own bound.

    How two instances' curves differ in shape is not noise but two experiments.  ``Y`` is instances ×
    points (exact gradients: each row deterministic) or instances × repetitions × points (a noisy
    oracle: each instance's noise is its repetitions' spread); ``deterministic=False`` for one random
    run per point (its noise: the residual of a smooth fit, ``rates.oc.log_noise``).  Each instance is
    judged on its own by the bounded-ratio rule (its own ratio y_i/b_i) on the points it resolves
    (``floor``, instances × points: each measurement's resolution; ``rates.oc.resolved_prefix``); the
    claim is inconsistent if it is on any instance, consistent if it is on every instance that resolves
    ≥ ``MIN_POINTS`` points.
    Each instance's test takes 1/S of the claim's false-alarm budget (critical quantile
    1 − (1 − ``LEVEL``)/S), so the claim's size is at most the sum of the instances' (a union bound,
    reported measured, each instance simulated on its own stream ``(seed, i)``: with one stream, three
    instances of one design repeated one Monte-Carlo error three times); power against each violation:
    the least over the instances.  The smallest departure the claim detects is the instances'
    together (any one rejecting: ``rates.departure.eps_min``); a consistent claim whose departure
    exceeds ``EPS_MAX`` is inconclusive (weak), naming the design of its weakest instance that would do.
    """
    B = np.atleast_2d(np.asarray(rates, dtype=float))
    Ya = np.asarray(Y, dtype=float)
    exact = Ya.ndim <= 2 if deterministic is None else deterministic and Ya.ndim <= 2
    Yr = np.atleast_2d(Ya)[:, None, :] if Ya.ndim <= 2 else Ya  # instances × runs × points
    F = np.zeros(Yr[:, 0].shape) if floor is None else np.atleast_2d(np.asarray(floor, dtype=float))
    xa = np.asarray(x, dtype=float)
    verdicts, skipped = [], []
    level = 1.0 - (1.0 - LEVEL) / Yr.shape[0]
    for i in range(Yr.shape[0]):
        k = resolved_prefix(Yr[i], np.broadcast_to(F[i], Yr[i].shape))
        if k < MIN_POINTS:
            skipped.append(i)
            continue
        verdicts.append((i, k, bound(xa[:k], B[i, :k], Yr[i][:, :k], (seed, i), label, deterministic=exact,
                                     level=level, gate=False)))
    rule = f"bounded ratio along {label} on each of {Yr.shape[0]} instances (calibrated)"
    if not verdicts:
        return Verdict(INCONCLUSIVE, "resolution", f"no instance resolves {MIN_POINTS} points along {label} "
                       "(within its reference's resolution, or not positive) — end the sweep earlier",
                       {"skipped": skipped})
    vs = [v for _, _, v in verdicts]
    note = f"; instances {skipped} resolve < {MIN_POINTS} points (not judged)" if skipped else ""
    oc = _pooled_oc(vs)
    slopes = ", ".join(f"{v.evidence.get('tail_slope', float('nan')):.3g}" for v in vs)
    found = [Detection(**v.evidence["oc"]["detection"]) for v in vs if v.evidence.get("oc")]
    eps = eps_min(found)
    scale, direction = (vs[0].evidence["departure"]["scale"], vs[0].evidence["departure"]["direction"]) \
        if found else ("bound", "shrinks")
    departure = {"eps_min": eps, "scale": scale, "direction": direction,
                 "excludes": excludes(scale, eps, direction)}
    ok = (f"the ratio stops growing on every instance (tail slopes {slopes}; critical "
          f"{max(v.evidence.get('critical', float('nan')) for v in vs):.3g}); excludes "
          f"{departure['excludes']} (95%); size ≤ {oc['size']:.1%} (sum over instances); power "
          + ", ".join(f"{k} {p:.0%}" for k, p in oc["power"].items()) + note if oc else note)
    rows = [{"row": i, "points": k, "status": v.status, "reason": v.reason,
             **{key: v.evidence.get(key) for key in ("tail_slope", "critical", "C")}} for i, k, v in verdicts]
    evidence = {"instances": rows, "skipped": skipped, "C": max(v.evidence.get("C", 0.0) for v in vs),
                "departure": departure}
    out = _combine(vs, [str(i) for i, _, _ in verdicts], rule, ok, note, evidence)
    if out.status != CONSISTENT or eps <= EPS_MAX:
        return Verdict(out.status, out.rule, out.reason, {**out.evidence, "departure": departure})
    i, k, weakest = max(verdicts, key=lambda ikv: ikv[2].evidence["departure"]["eps_min"])
    oc = weakest.evidence["oc"]
    design = {**design_help(np.log(xa[:k] / xa[0]), B[i, :k], oc["seeds"], oc["noise"], level),
              "rows_now": oc["seeds"]}
    return Verdict(INCONCLUSIVE, rule, f"weak: the ratio stops growing on every instance (tail slopes "
                   f"{slopes}), but together they exclude only {departure['excludes']} (95%), not a "
                   f"departure of {EPS_MAX:g} — {design_text(design, xa[0], label)} (instance {i}, the "
                   f"weakest){note}",
                   {**out.evidence, "departure": departure, "design": design})


def _pooled_oc(verdicts: Sequence[Verdict]) -> dict | None:
    """The claim's size (the instances' summed: a union bound) and power (the least over them)."""
    ocs = [v.evidence["oc"] for v in verdicts if v.evidence.get("oc")]
    if not ocs:
        return None
    power = {k: min(o["power"].get(k, 0.0) for o in ocs) for k in ocs[0]["power"]}
    return {"size": float(sum(o["size"] for o in ocs)), "power": power, "reps": ocs[0]["reps"]}


def _combine(verdicts: Sequence[Verdict], names: Sequence[str], rule: str | None, ok: str, note: str,
             evidence: dict) -> Verdict:
    """One claim from its instances' verdicts, their size and power pooled in the evidence.

    Inconsistent if any instance is (named); else the first inconclusive one; else the first that is
    otherwise not consistent; else consistent, with ``ok`` as its reason.
    """
    n = len(verdicts)
    oc = _pooled_oc(verdicts)
    pooled = {} if oc is None else {"oc": oc, "power": power_summary(oc["power"])}
    for failing in (lambda v: v.status == INCONSISTENT, lambda v: v.status == INCONCLUSIVE,
                    lambda v: v.status != CONSISTENT):
        hits = [(name, v) for name, v in zip(names, verdicts, strict=True) if failing(v)]
        if hits:
            name, v = hits[0]
            every = ", ".join(str(h) for h, _ in hits)
            which = (f"instance {name}, one of {n}" if len(hits) == 1 else
                     f"instance {name}; {len(hits)} of {n} instances so: {every}")
            return Verdict(v.status, rule or v.rule, f"{v.reason} ({which}){note}",
                           {**v.evidence, **evidence, **pooled})
    return Verdict(CONSISTENT, rule or verdicts[0].rule, ok, {**verdicts[0].evidence, **evidence, **pooled})


def every_instance(verdicts: Sequence[Verdict], seeds: Sequence[int]) -> Verdict:
    """One claim judged on several instances, each by its own verdict (its own window and constants).

    Inconsistent if it is on any instance (named); otherwise the first that is not consistent
    (inconclusive, no power) decides; consistent only if it is on every instance.  Where the instances'
    rules measured their size and power, the claim's are pooled (size summed, power the least).
    """
    ok = (f"on each of {len(verdicts)} instances (seeds {list(seeds)}): "
          + "; ".join(f"[{s}] {v.reason}" for s, v in zip(seeds, verdicts, strict=True)))
    return _combine(verdicts, [f"seed {s}" for s in seeds], None, ok, "",
                    {"instances": [w.evidence for w in verdicts]})


def inequality(lhs: Sequence[float | Sequence[float]], terms: dict[str, Sequence[float]],
               tested: Sequence[str], labels: list[str], seed: int = 0) -> Verdict:
    """LHS ≤ Σ terms (constant 1) run by run: ``rates.inequality.bounded_by`` (size and power measured).

    ``lhs``: per run one value, or one per seed (the rule then allows for the mean's noise).
    """
    return bounded_by(lhs, terms, tested, labels, seed)


def identity(residual: float, tol: float, what: str) -> Verdict:
    """An exact identity: residual ≤ tol; power: a residual 10× the tolerance must fail.

    The margin tol/residual is reported: an identity that holds to rounding sits many decades below
    its tolerance, one that holds only approximately close to it.
    """
    def judge(r: float) -> Verdict:
        ok = at_most(r, tol)
        margin = tol / max(r, 1e-300)
        return Verdict(CONSISTENT if ok else INCONSISTENT, "identity",
                       f"{what}: max relative residual {r:.2e} (rule ≤ {tol:g}; margin ×{margin:.2g})",
                       {"residual": r, "margin": margin})

    return powered(judge, residual, [Violation("residual 10× the tolerance", 10 * tol)])


def differs(residual: float, floor: float, reference: float, what: str) -> Verdict:
    """A claim that an identity must fail: residual > floor.

    Power: the residual of the method for which the identity holds (``reference``) is rejected.
    """
    def judge(r: float) -> Verdict:
        ok = above(r, floor)
        return Verdict(CONSISTENT if ok else INCONSISTENT, "must differ",
                       f"{what}: residual {r:.2e} (rule > {floor:g})", {"residual": r})

    return powered(judge, residual, [Violation("the identity holding", reference)])


def control(rule, data: np.ndarray, good: np.ndarray, what: str) -> Verdict:
    """A negative control: ``rule`` (a judged claim) must come out inconsistent on ``data``.

    The control holds when the rule rejects it, fails when the rule accepts it (the claim's rule passes
    a known violation), and is inconclusive when the rule cannot decide (a weak design, a rise inside the
    window): then the design cannot show its power on real runs, which is not evidence against the
    claim.  Power: on the curve that satisfies the claim (``good``) the control must not hold (a rule
    that rejects everything would pass every control).
    """
    def judge_control(d: np.ndarray) -> Verdict:
        inner = rule(d)
        status = {INCONSISTENT: CONSISTENT, CONSISTENT: INCONSISTENT}.get(inner.status, INCONCLUSIVE)
        return Verdict(status, f"negative control ({what})", f"{what}: {inner.reason.split('; power')[0]}",
                       {"inner": inner.status})

    v, g = judge_control(data), judge_control(good)
    name = "the curve that satisfies the claim"
    ev = {**v.evidence, "power": {"rejects": [name], "misses": {}} if g.status != CONSISTENT
          else {"rejects": [], "misses": {name: g.status}}}
    if v.status == CONSISTENT and g.status == CONSISTENT:
        return Verdict(INCONCLUSIVE, v.rule, f"no power: {v.reason}; but it would also hold on the curve "
                       "that satisfies the claim", ev)
    return Verdict(v.status, v.rule, f"{v.reason}; power: it does not hold on the curve that satisfies the "
                   f"claim ({g.status})", ev)


def vanishes(at_zero: np.ndarray, at_nearest: np.ndarray, seeds: Sequence[int], what: str,
             tol: float) -> Verdict:
    """A measure that vanishes at a point: at_zero ≤ tol × at_nearest (its value nearest) on every instance.

    Power: the measure kept there (its value at the nearest point) on every instance, or on the last
    one only, is rejected — it shows the rule is not one that passes everything, no more (an identity's
    power is of this kind).
    """
    def judge(z: np.ndarray) -> Verdict:
        rel = np.asarray(z, dtype=float) / np.asarray(at_nearest, dtype=float)
        ok = all(at_most(r, tol) for r in rel)
        return Verdict(CONSISTENT if ok else INCONSISTENT, "vanishes",
                       f"{what} on instances {list(seeds)}: {', '.join(f'{r:.1e}' for r in rel)} "
                       f"(rule ≤ {tol:g} on every instance)", {"at_zero": np.asarray(z).tolist()})

    one = np.array(at_zero, dtype=float)
    one[-1] = at_nearest[-1]
    return powered(judge, np.asarray(at_zero, dtype=float),
                   [Violation("kept where it must vanish", np.array(at_nearest, dtype=float)),
                    Violation("kept on one instance", one)])
