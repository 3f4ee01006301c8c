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
* ``lesssim``: inconsistent where the ratio grows in R or K (last slope > ``MAX_SLOPE`` without
  deceleration), or the worst case is unbounded over the class while the bound is finite;
* soundness: a run on an instance of the class can never exceed the worst case — measured >
  worst·(1 + ``SOLVER_TOL``) + ``ABS_TOL`` is inconsistent (the implementation or the PEP program
  is wrong).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fcocheck.rates.theorem import Theorem
from fcocheck.rates.threshold import above, at_most
from fcocheck.rates.verdict import CONSISTENT, INCONCLUSIVE, INCONSISTENT, Verdict

SOLVER_TOL = (
    1e-5  # relative accuracy of an interior-point PEP solve (CLARABEL's default gap 1e-8, with slack)
)
ABS_TOL = 1e-9
MAX_SLOPE = 0.15  # d log ratio / d log R allowed without deceleration (lower-order terms)
DECEL = 0.8  # a saturating ratio's slope shrinks by at least this factor from one grid step to the next
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


def growth(rows: list[dict[str, Any]], axis: str) -> dict[str, Any]:
    """How the ratio grows along ``axis`` (R or K), the other grid values held fixed.

    In each group (rows equal but for ``axis``, sorted by it) the successive slopes of log ratio
    in log ``axis`` are s_1, s_2, …; a group of at least 3 points **grows** when its last slope
    exceeds ``MAX_SLOPE`` and does not decelerate (s_last > ``DECEL``·s_prev).  ``judged`` counts the
    groups that could be judged (none: the axis has no power on this grid).  A bound of the right shape
    has a ratio that saturates (e.g. R/(R + a): slopes halve per doubling), a wrong one keeps a
    constant slope (R^s).
    """
    groups: dict[tuple, list[tuple[float, float]]] = {}
    for r in rows:
        if np.isfinite(r["ratio"]) and r["ratio"] > 0:
            key = tuple((k, r[k]) for k in ("K", "R", "eta_c", "zeta", "M") if k != axis and k in r)
            groups.setdefault(key, []).append((float(r[axis]), float(r["ratio"])))
    last, grows, judged = float("nan"), [], 0
    for key, pts in groups.items():
        pts = sorted(set(pts))
        if len(pts) < 3:  # two points cannot tell a saturating ratio from a growing one
            continue
        judged += 1
        x, y = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
        slopes = np.diff(y) / np.diff(x)
        last = float(slopes[-1]) if not np.isfinite(last) else max(last, float(slopes[-1]))
        decel = at_most(slopes[-1], DECEL * slopes[-2])
        if above(slopes[-1], MAX_SLOPE) and not decel:
            grows.append({"at": dict(key), "slopes": [float(v) for v in slopes]})
    return {"last_slope": last, "grows": grows, "judged": judged}


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
    blind = [a for a, g in by_axis.items() if g["judged"] == 0]
    rule = f"constant bounded in R and K (slope ≤ {MAX_SLOPE} or decelerating ×{DECEL})"
    if ev["grows"]:
        where = "; ".join(
            f"along {a} at {g[0]['at']}: slopes {[round(v, 2) for v in g[0]['slopes']]}"
            for a, g in ev["grows"].items()
        )
        return Verdict(INCONSISTENT, rule, f"the smallest constant keeps growing {where}", ev)
    note = f"; {len(failed)} point(s) failed to solve: {failed}" if failed else ""
    if len(blind) == len(by_axis):
        return Verdict(INCONCLUSIVE, rule, f"no power along {blind}: no group with 3 grid values" + note, ev)
    judged = [a for a in by_axis if a not in blind]
    if blind:  # said, not hidden: the verdict covers the axes the grid varies
        note += f"; judged along {judged} only ({blind} not varied by 3 values in this grid)"
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
