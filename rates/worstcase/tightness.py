"""How tight a bound is: worst case (PEP) beside the theorem's terms and a measured run.

For grid points p (each a dict of symbol values plus ``worst``, and optionally ``worst0`` — the worst
case with the heterogeneity switched off — and ``measured``), with the theorem's deterministic
terms T_i(p) (σ = 0, constants 1):

* ratio(p) = worst(p) / Σ_i T_i(p): the smallest constant that makes the bound hold at p;
* per-term constants: worst0 / T_opt for the optimisation term, (worst − worst0) / T_het for the
  heterogeneity (or drift) term;
* growth (``growth``): successive slopes of log ratio in log R and in log K — a bound of the right
  shape keeps the ratio bounded (its slope dies out), a wrong one lets it grow like a power.

Verdict rules (each has a test feeding it a violation, tests/rates/test_worstcase.py):

* ``leq`` (constant 1 printed): inconsistent where ratio > 1 + ``SOLVER_TOL``;
* ``lesssim``: along R and along K, the successive slopes s_1 … s_n of log ratio in log R (or K)
  decide (``slope_state``): **flat** when s_n ≤ ``MAX_SLOPE``; **grows** (inconsistent) when the
  ratio still rises at the grid's end and either does not decelerate (s_n > ``STALL``·s_{n−1}: a
  power R^α keeps its slope) or decelerates towards a positive power (the geometric extrapolation
  of the slopes, s_∞ = s_n − d_n q/(1 − q) with d_i = s_{i−1} − s_i and q = d_n/d_{n−1} < 1, exceeds
  ``MAX_SLOPE``: R^α(1 − c/R) converges to slope α); also **flat** when that extrapolation is ≤ 0
  (the decrements already outweigh the remaining rise: R/(R + c) at slope 0.15); otherwise
  **rising** (inconclusive): the ratio still rises but decelerates, as a legal R^p ρ^R does before
  its peak at R = p/ln(1/ρ) — the grid does not show whether it levels off, and the verdict says to
  extend it.  The worst case unbounded
  over the class while the bound is finite is inconsistent.  ``slope_oc`` runs the rule on stated
  legal and violating shapes at the grid's own R (or K) values and reports its size and power; a
  ``consistent`` verdict covers only the axes where that power is ≥ 95% against every violation (an
  axis below it is named, like an axis the grid does not vary), and says the smallest growth x^α of
  the constant it detects (``departure``);
* soundness: a run on an instance of the class can never exceed the worst case — measured >
  worst·(1 + ``SOLVER_TOL``) + ``ABS_TOL`` is inconsistent (the implementation or the PEP program
  is wrong).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fcocheck.rates.departure import POWER
from fcocheck.rates.theorem import Theorem
from fcocheck.rates.threshold import above, at_most
from fcocheck.rates.verdict import CONSISTENT, INCONCLUSIVE, INCONSISTENT, Verdict

SOLVER_TOL = (
    1e-5  # relative accuracy of an interior-point PEP solve (CLARABEL's default gap 1e-8, with slack)
)
ABS_TOL = 1e-9
MAX_SLOPE = 0.15  # d log ratio / d log R allowed at the grid's end (lower-order terms)
STALL = 0.95  # a slope still ≥ this share of the previous one is not decelerating: a power
FLAT, GROWS, RISING = "flat", "grows", "rising"
POWERS = (0.3, 0.5, 1.0)  # violations x^α of a bounded ratio that the rule must reject
_PARAMS = ("L", "B", "zeta", "G", "M", "K", "R", "eta_c", "eta_s", "sigma")


def bound_terms(theorem: Theorem, point: dict[str, Any], terms: tuple[str, ...]) -> dict[str, float]:
    """The named terms of ``theorem`` at ``point`` (σ = 0, free constants 1)."""
    import sympy as sp

    from fcocheck.rates.symbols import BY_NAME

    subs = {BY_NAME[k]: float(point[k]) for k in _PARAMS if k in point}
    subs[BY_NAME["sigma"]] = 0.0
    subs.update(dict.fromkeys(theorem.constants, 1.0))
    out = {}
    for name in terms:
        value = sp.N(theorem.term(name).subs(subs))
        if not value.is_number:
            raise ValueError(f"term {name!r} of {theorem.name} is not a number at {point}: {value}")
        out[name] = float(value)
    return out


def tightness_rows(
    theorem: Theorem, points: list[dict[str, Any]], terms: tuple[str, ...], het_term: str | None = None
) -> list[dict[str, Any]]:
    """Each point with its bound terms, total, ratio and per-term constants."""
    rows = []
    for p in points:
        t = bound_terms(theorem, p, terms)
        total = sum(t.values())
        worst = _num(p.get("worst"))
        row = {**p, "terms": t, "bound": total, "ratio": worst / total if total > 0 else float("nan")}
        if "worst0" in p and terms:
            w0 = _num(p["worst0"])
            row["c_" + terms[0]] = w0 / t[terms[0]] if t[terms[0]] > 0 else float("nan")
            if het_term is not None and t.get(het_term, 0) > 0:
                row["c_" + het_term] = (worst - w0) / t[het_term]
        if p.get("measured") is not None:
            row["measured_over_worst"] = _num(p["measured"]) / worst if worst > 0 else float("nan")
        rows.append(row)
    return rows


def term_constants(rows: list[dict[str, Any]], terms: tuple[str, ...] | list[str]) -> dict[str, dict]:
    """Each term's own constant, sup over R: c_term = (its share of the worst case) / term.

    With the heterogeneity switch (``worst0`` solved at ζ = 0), the optimisation term's constant is
    W(ζ = 0)/term and the heterogeneity term's (W − W(ζ = 0))/term (``tightness_rows``).  For each group
    of the grid (K, η_c, η_s) the sup over its R, where it is attained, and whether that is the group's
    last R (``rising``: the sup may lie beyond the grid; a group with one R cannot show a sup and counts
    as rising); the term's constant is the largest over the groups, a lower estimate (``rising``) when any
    group is still rising (its sup beyond the grid may exceed it).  Points without a finite constant (an
    unbounded or failed worst case) are counted in ``skipped``.  A term with no measured share is absent.
    """
    out: dict[str, dict[str, Any]] = {}
    for term in terms:
        key = "c_" + term
        groups: dict[tuple, list[dict[str, Any]]] = {}
        skipped = 0
        for r in rows:
            if r.get(key) is None:
                continue
            if not np.isfinite(r[key]):
                skipped += 1
                continue
            groups.setdefault((r["K"], r["eta_c"], r["eta_s"]), []).append(r)
        if not groups:
            continue
        per = []
        for (K, eta, eta_s), rs in sorted(groups.items()):
            rs = sorted(rs, key=lambda r: r["R"])
            best = max(rs, key=lambda r: r[key])
            per.append({"K": K, "eta_c": eta, "eta_s": eta_s, "sup": float(best[key]), "R": best["R"],
                        "R_max": rs[-1]["R"], "rising": best["R"] == rs[-1]["R"]})
        top = max(per, key=lambda g: g["sup"])
        out[term] = {"sup": top["sup"], "at": {k: top[k] for k in ("K", "eta_c", "eta_s", "R")},
                     "rising": any(g["rising"] for g in per), "skipped": skipped, "groups": per}
    return out


def slopes_of(x: Any, y: Any) -> np.ndarray:
    """Successive slopes of log y in log x."""
    return np.diff(np.log(np.asarray(y, dtype=float))) / np.diff(np.log(np.asarray(x, dtype=float)))


def extrapolated_slope(s: np.ndarray) -> float | None:
    """s_∞ = s_n − d_n q/(1 − q) when the slopes' decrements shrink geometrically (q < 1), else None."""
    if len(s) < 3:
        return None
    d1, d2 = s[-3] - s[-2], s[-2] - s[-1]
    if not (d1 > 0 and 0 < d2 < d1):
        return None
    q = d2 / d1
    return float(s[-1] - d2 * q / (1 - q))


def slope_state(s: np.ndarray) -> str:
    """``FLAT``, ``GROWS`` or ``RISING`` for the slopes s_1 … s_n (n ≥ 2) of one group (module doc)."""
    if at_most(s[-1], MAX_SLOPE):
        return FLAT
    if above(s[-1], STALL * s[-2]):
        return GROWS
    limit = extrapolated_slope(s)
    if limit is None:
        return RISING
    if above(limit, MAX_SLOPE):
        return GROWS
    return FLAT if at_most(limit, 0.0) else RISING


def slope_oc(x: list[float]) -> dict[str, Any]:
    """The rule's size and power at the grid values ``x`` (ratios known exactly; shapes stated here).

    Legal (the constant is bounded): saturating a·x/(x + c) and R^p ρ^R whose rise has ended by the
    grid's middle value (c ≤ x_mid/4; peak p/ln(1/ρ) ≤ x_mid), and falling ratios.  Violations: x^α
    for α ∈ ``POWERS`` and x^α(1 − c/x) (a power approached from above).  Size is the share of the
    legal shapes judged ``GROWS`` (a false alarm); ``inconclusive`` the share judged ``RISING``;
    power the share of each violation judged ``GROWS``.
    """
    x = np.asarray(sorted(set(x)), dtype=float)
    if len(x) < 3:
        return {"size": None, "power": {}, "inconclusive": None}
    mid = float(np.exp(np.mean(np.log(x[[0, -1]]))))
    legal = [x / (x + c) for c in np.geomspace(0.01, mid / 4, 12)]
    legal += [x**p * np.exp(-p * x / peak) for p in (0.5, 1.0, 2.0, 3.0)
              for peak in np.geomspace(x[0] / 2, mid, 6)]
    legal += [x**-p for p in (0.0, 0.5, 1.0, 2.0)]
    states = [slope_state(slopes_of(x, y)) for y in legal]
    power = {f"x^{a:g}": float(np.mean([slope_state(slopes_of(x, x**a * (1 - c / x))) == GROWS
                                        for c in (0.0,) + tuple(0.5 * x[0] * f for f in (0.2, 0.5, 0.9))]))
             for a in POWERS}
    return {"size": states.count(GROWS) / len(states), "inconclusive": states.count(RISING) / len(states),
            "power": power}



def growth(rows: list[dict[str, Any]], axis: str) -> dict[str, Any]:
    """How the ratio grows along ``axis`` (R or K), the other grid values held fixed.

    In each group (rows equal but for ``axis``, sorted by it) the successive slopes of log ratio in
    log ``axis`` are judged by ``slope_state``; ``grows`` and ``rising`` list the groups so judged,
    ``judged`` counts the groups of at least 3 points (none: the axis has no power on this grid) and
    ``oc`` is the rule's size and power at the axis' grid values (``slope_oc``).
    """
    groups: dict[tuple, list[tuple[float, float]]] = {}
    for r in rows:
        if np.isfinite(r["ratio"]) and r["ratio"] > 0:
            key = tuple((k, r[k]) for k in ("K", "R", "eta_c", "zeta", "M") if k != axis and k in r)
            groups.setdefault(key, []).append((float(r[axis]), float(r["ratio"])))
    last, found, judged, values, short = float("nan"), {GROWS: [], RISING: []}, 0, set(), []
    for key, pts in groups.items():
        pts = sorted(set(pts))
        if len(pts) < 3:  # two points cannot tell a saturating ratio from a growing one
            continue
        slopes = slopes_of([p[0] for p in pts], [p[1] for p in pts])
        state = slope_state(slopes)
        if state == RISING and len(pts) == 3:  # three values can show a stall, never a levelling off
            short.append(dict(key))
            continue
        judged += 1
        values.update(p[0] for p in pts)
        last = float(slopes[-1]) if not np.isfinite(last) else max(last, float(slopes[-1]))
        if state != FLAT:
            found[state].append({"at": dict(key), "slopes": [float(v) for v in slopes],
                                 "extrapolated": extrapolated_slope(slopes)})
    return {"last_slope": last, "grows": found[GROWS], "rising": found[RISING], "judged": judged,
            "short": short, "oc": slope_oc(sorted(values)) if judged else None, "values": sorted(values)}


def departure(by_axis: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The smallest growth x^α of the constant the rule detects on every grid axis it judges.

    Exactly (the ratios are worst cases, no noise), as a verdict's ``departure`` (``rates.departure``'s
    ``x`` scale): α scanned from 0.01 to 2 on each axis's grid values, against x^α and x^α(1 − c/x)
    (``slope_oc``'s violations).
    """
    found = {}
    for a, g in by_axis.items():
        xs = np.asarray(sorted(g["values"]), dtype=float) if g.get("values") else None
        if xs is None or len(xs) < 3:
            continue
        found[a] = next((float(al) for al in np.geomspace(0.01, 2.0, 60)
                         if all(slope_state(slopes_of(xs, xs**al * (1 - c / xs))) == GROWS
                                for c in (0.0, 0.1 * xs[0], 0.45 * xs[0]))), float("inf"))
    eps = max(found.values()) if found else float("inf")
    return {"eps_min": eps, "scale": "x", "direction": "flat", "by_axis": found,
            "excludes": f"growth x^{eps:.2g} and faster of the smallest constant" if np.isfinite(eps)
            else "no growth it can detect"}


def tightness_verdict(relation: str, rows: list[dict[str, Any]]) -> Verdict:
    """The bound against its worst cases (rules in the module docstring)."""
    if not rows:
        return Verdict(INCONCLUSIVE, "worst case", "no grid point was solved")
    unbounded = [_label(r) for r in rows if r.get("status") == "unbounded"]
    failed = [_label(r) for r in rows if r.get("status") not in ("optimal", "unbounded")]
    ratios = np.array([r["ratio"] for r in rows if r.get("status") == "optimal"], dtype=float)
    ev: dict[str, Any] = {
        "c_max": float(np.nanmax(ratios)) if ratios.size else None,
    }
    if unbounded:
        return Verdict(
            INCONSISTENT,
            "worst case",
            f"unbounded over the class at {unbounded} while the bound is finite",
            ev,
        )
    if ratios.size == 0:
        return Verdict(INCONCLUSIVE, "worst case", f"every solve failed: {failed}", ev)
    if relation == "leq":
        bad = [_label(r) for r in rows if r.get("status") == "optimal" and above(r["ratio"], 1 + SOLVER_TOL)]
        if bad:
            return Verdict(
                INCONSISTENT,
                "worst case ≤ bound (constant 1)",
                f"worst case exceeds the bound at {bad} (max ratio {ev['c_max']:.4g})",
                ev,
            )
        return Verdict(
            CONSISTENT,
            "worst case ≤ bound (constant 1)",
            f"holds with constant 1 over the whole class: max ratio {ev['c_max']:.4g}",
            ev,
        )
    solved = [r for r in rows if r.get("status") == "optimal"]
    by_axis = {axis: growth(solved, axis) for axis in ("R", "K")}
    ev.update({f"slope_{a}": g["last_slope"] for a, g in by_axis.items()})
    ev["grows"] = {a: g["grows"] for a, g in by_axis.items() if g["grows"]}
    ev["rising"] = {a: g["rising"] for a, g in by_axis.items() if g["rising"]}
    ev["oc"] = {a: g["oc"] for a, g in by_axis.items() if g["oc"]}
    weak = {a: {k: p for k, p in g["oc"]["power"].items() if p < POWER}
            for a, g in by_axis.items() if g["judged"] and g["oc"] and g["oc"]["power"]}
    weak = {a: w for a, w in weak.items() if w}
    ev["departure"] = departure(by_axis)
    blind = [a for a, g in by_axis.items() if g["judged"] == 0 or a in weak]
    rule = (f"constant bounded in R and K (last slope ≤ {MAX_SLOPE}; a slope that stalls or converges "
            "above it is a power)")

    def where(found: dict[str, list[dict[str, Any]]]) -> str:
        return "; ".join(f"along {a} at {g[0]['at']}: slopes {[round(v, 2) for v in g[0]['slopes']]}"
                         for a, g in found.items())

    if ev["grows"]:
        return Verdict(INCONSISTENT, rule, f"the smallest constant keeps growing {where(ev['grows'])}", ev)
    note = f"; {len(failed)} point(s) failed to solve: {failed}" if failed else ""
    if ev["rising"]:
        return Verdict(INCONCLUSIVE, rule, f"the smallest constant still rises at the grid's end but "
                       f"decelerates {where(ev['rising'])}: a bounded ratio such as R^p·ρ^R rises until "
                       "R = p/ln(1/ρ); extend the grid to see whether it levels off" + note, ev)
    why = {a: (f"it rejects {', '.join(f'{k} in only {p:.0%}' for k, p in weak[a].items())}" if a in weak
               else "no group with 3 grid values") for a in blind}
    if len(blind) == len(by_axis):
        return Verdict(INCONCLUSIVE, rule, "no power along "
                       + "; ".join(f"{a}: {w}" for a, w in why.items()) + note, ev)
    judged = [a for a in by_axis if a not in blind]
    if blind:  # said, not hidden: the verdict covers the axes the grid varies with power
        note += f"; judged along {judged} only (no power along " + "; ".join(
            f"{a}: {w}" for a, w in why.items()) + ")"
    for a, g in by_axis.items():
        if g["short"]:
            note += (f"; along {a} not judged at {g['short']}: three values, still rising (three can "
                     "show a stall, never a levelling off)")
    slopes = ", ".join(f"{a} {ev['slope_' + a]:.2f}" for a in judged)
    return Verdict(CONSISTENT, rule, f"smallest constant {ev['c_max']:.3g}; last slopes {slopes}" + note, ev)


def soundness_verdict(rows: list[dict[str, Any]]) -> Verdict:
    """A measured run on an instance of the class must not exceed the worst case."""
    pairs = [r for r in rows if r.get("measured") is not None and r.get("status") == "optimal"]
    if not pairs:
        return Verdict(INCONCLUSIVE, "measured ≤ worst case", "no measured run beside a solved worst case")
    bad = [_label(r) for r in pairs
           if not at_most(_num(r["measured"]), _num(r["worst"]) * (1 + SOLVER_TOL) + ABS_TOL)]
    top = max(_num(r["measured"]) / max(_num(r["worst"]), 1e-300) for r in pairs)
    ev = {"max_measured_over_worst": top, "points": len(pairs)}
    if bad:
        return Verdict(
            INCONSISTENT,
            "measured ≤ worst case",
            f"a run beats its class's worst case at {bad}: the implementation or the PEP is wrong",
            ev,
        )
    return Verdict(
        CONSISTENT,
        "measured ≤ worst case",
        f"every run ≤ its worst case on {len(pairs)} points (max measured/worst {top:.3g})",
        ev,
    )


def _num(x: Any) -> float:
    return float("nan") if x is None else float(x)


def _label(r: dict[str, Any]) -> str:
    return ",".join(f"{k}={r[k]:g}" for k in ("K", "R", "eta_c", "zeta") if k in r)
