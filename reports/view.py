"""The report as the renderers print it: every sentence readable, every formula as LaTeX.

``view(report, out)`` turns the ``Report`` into plain dicts for the Jinja2 templates
(``reports/templates/report.html.j2`` and ``report.md.j2``): citations by paper name with the
bibliography (``reports.text``), floats at four significant digits, long evidence cut at a word,
theorem statements and conditions as LaTeX (MathML in the HTML, ``$…$`` in the Markdown), and
each figure with its caption.  Both formats render the same view, so they say the same things.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from fcocheck.rates.catalog import THEOREMS
from fcocheck.reports.glossary import STATUSES, TERMS
from fcocheck.reports.model import Report
from fcocheck.reports.stored import reading
from fcocheck.reports.text import BIBLIOGRAPHY, readable, shorten
from fcocheck.solvers.files import is_counterexample_link, plain_name

EVIDENCE_CHARS = 220


def _number(v: Any) -> str:
    """A table cell: 4 significant digits, and a dash for what was not measured."""
    if v is None:
        return "—"
    return f"{v:.4g}" if isinstance(v, float) else readable(v)


def _figure(out: Path, stem: str | None, caption: str, embed: bool) -> dict[str, Any] | None:
    if not stem:
        return None
    fig = {"png": f"figures/{stem}.png", "svg": f"figures/{stem}.svg", "caption": readable(caption)}
    if embed:
        fig["data"] = base64.b64encode((out / "figures" / f"{stem}.png").read_bytes()).decode()
    return fig


def _check(c: dict[str, Any]) -> dict[str, Any]:
    power = c.get("evidence", {}).get("power", {})
    oc = c.get("evidence", {}).get("oc") or {}
    power_oc = ", ".join(f"{k} {v:.0%}" for k, v in oc.get("power", {}).items())
    return {
        "status": c["status"],
        "rule": readable(c["rule"]),
        "reason": readable(c["reason"]),
        "rejects": power.get("rejects", []),
        "misses": list(power.get("misses", {})),
        # measured operating characteristics (rules calibrated by simulation: rates/oc.py)
        "oc": (f"measured size {oc['size']:.1%}; power {power_oc} "
               + (f"({oc['reps']} repetitions)" if oc.get("reps") else f"({oc.get('method', 'exact')})")
               if power_oc else ""),
    }


def _theorem(out: Path, t: Any, embed: bool) -> dict[str, Any]:
    thm = THEOREMS.get(t.name)
    latex = thm.latex() if thm is not None else {"bound": t.statement}  # a user's claim: its own
    exps = []
    for b in t.experiments:
        res = b.result
        with reading("experiment", res.get("name") if isinstance(res, dict) else res):
            exps.append(
                {
                    "name": str(res["name"]),
                    "status": str(res["status"]),
                    "design": readable(res["design"]),
                    "seconds": f"{res['seconds']:.1f}",
                    "checks": [_check(c) for c in res["checks"]],
                    "notes": [readable(n) for n in res.get("notes", [])],
                    "figure": _figure(out, b.figure, b.caption, embed),
                }
            )
    return {
        "name": t.name,
        "page": plain_name(t.name) + ".html",
        "title": readable(t.title),
        "citation": readable(t.citation),
        "status": t.status,
        "statement": latex["bound"],
        "tuned": latex.get("tuned"),
        "conditions": list(t.conditions),
        "assumptions": [readable(a) for a in thm.assumptions] if thm is not None else [],
        "experiments": exps,
    }


def _not_expressed() -> list[dict[str, str]]:
    from fcocheck.verify.worstcase import NOT_EXPRESSED

    return [{"what": readable(k), "why": readable(v)} for k, v in NOT_EXPRESSED.items()]


def _link(rel: Any) -> str | None:
    """A counterexample link from the store, kept only as ``counterexamples/NAME`` (no scheme, no ``..``).

    Autoescaping makes a value safe inside an attribute, not as a URL: ``javascript:…`` survives it.
    """
    return rel if is_counterexample_link(rel) else None


def _invariant(c: dict[str, Any]) -> dict[str, Any]:
    with reading("conformance", c.get("column") if isinstance(c, dict) else c):
        return _invariant_view(c)


def _invariant_view(c: dict[str, Any]) -> dict[str, Any]:
    return {
        "column": c["column"],
        "algorithm": c["algorithm"],
        "expect": c["expect"],
        "outcome": c["outcome"],
        "ok": c["ok"],
        "examples": c["examples"],
        "counterexample": _link(c.get("counterexample")),
        "size": c.get("size"),
        "detail": shorten(readable(c["detail"]), EVIDENCE_CHARS),
    }


def _reproduction(out: Path, b: Any, embed: bool) -> dict[str, Any]:
    rep = b.rep
    table = [{k: _number(v) for k, v in row.items()} for row in rep.table]
    return {
        "name": rep.name,
        "title": readable(rep.title),
        "cite": readable(rep.cite),
        "design": readable(rep.design),
        "status": rep.status,
        "box": rep.status.replace(" ", "-"),
        "findings": [
            {"status": f.status, "claim": readable(f.claim), "evidence": readable(f.evidence)}
            for f in rep.findings
        ],
        "table": table,
        "columns": list(table[0]) if table else [],
        "notes": [readable(n) for n in rep.notes],
        "figure": _figure(out, b.figure, b.caption, embed),
    }


def _tightness(out: Path, b: Any, embed: bool) -> dict[str, Any]:
    with reading("worst-case", b.result.get("name") if isinstance(b.result, dict) else b.result):
        return _tightness_view(out, b, embed)


def _tightness_view(out: Path, b: Any, embed: bool) -> dict[str, Any]:
    res = b.result
    tv = res["verdicts"]["tightness"]["evidence"]
    rows = res["rows"]
    meas = [r["measured_over_worst"] for r in rows if r.get("measured_over_worst") is not None]
    table = [
        {
            "K": r["K"],
            "R": r["R"],
            "η_c": _number(float(r["eta_c"])),
            "η_s": _number(float(r["eta_s"])),
            "ζ": _number(float(r["zeta"])),
            "bound": _number(float(r["bound"])),
            "worst case": "unbounded" if r["status"] == "unbounded" else _number(r.get("worst")),
            "ratio": _number(r.get("ratio")),
            "measured": _number(r.get("measured")),
            "measured / worst": _number(r.get("measured_over_worst")),
        }
        for r in rows
    ]
    return {
        "name": res["name"],
        "theorem": res["theorem"],
        "method": res["method"],
        "status": res["status"],
        "relation": res["relation"],
        "terms": ", ".join(res["terms"]),
        "c_max": _number(tv.get("c_max")),
        "c_terms": term_constants_text(rows, res["terms"]),
        "measured_max": _number(max(meas)) if meas else "—",
        "verdicts": [
            {
                "name": k,
                "status": v["status"],
                "rule": readable(v["rule"]),
                "reason": shorten(readable(v["reason"]), 2 * EVIDENCE_CHARS),
            }
            for k, v in res["verdicts"].items()
        ],
        "notes": [readable(n) for n in res.get("notes", [])],
        "table": table,
        "columns": list(table[0]) if table else [],
        "figure": _figure(out, b.figure, b.caption, embed),
    }


def term_constants_text(rows: list[dict[str, Any]], terms: list[str]) -> str:
    """Each term's own constant, sup over R, where attained (``rates.worstcase.tightness.term_constants``).

    Computed from the rows (a stored payload from before the constants were recorded has them too).
    """
    from fcocheck.rates.worstcase.tightness import term_constants

    parts = []
    for term, c in term_constants(rows, terms).items():
        at = c["at"]
        where = f"K = {at['K']}, η_c = {_number(float(at['eta_c']))}, R = {at['R']}"
        rising = "; a lower estimate: still rising at a group's last R" if c["rising"] else ""
        skipped = f"; {c['skipped']} points without a finite worst case" if c["skipped"] else ""
        parts.append(f"{term} {c['sup']:.3g} ({where}{rising}{skipped})")
    return "; ".join(parts) or "—"


def view(r: Report, out: Path, embed: bool) -> dict[str, Any]:
    """Everything the templates print (``embed``: PNGs inline as base64, for the HTML)."""
    by = {(c["algorithm"], c["column"]): {**c, "claim": readable(c.get("claim") or ""),
                                          "counterexample": _link(c.get("counterexample"))}
          for c in r.properties}
    matrix = [{"algorithm": a, "cells": [by.get((a, p)) for p in r.property_rules]} for a in r.algorithms]
    return {
        "terms": TERMS,
        "statuses": STATUSES,
        "mode": r.mode,
        "seed": r.seed,
        "summary": r.summary(),
        "generated": r.provenance.get("generated", ""),
        "theorems": [_theorem(out, t, embed) for t in r.theorems],
        "invariants": [_invariant(c) for c in r.invariants],
        "properties": [{"name": p, "rule": readable(t)} for p, t in r.property_rules.items()],
        "matrix": matrix,
        "rules": r.provenance.get("rules", {}),
        "reproductions": [_reproduction(out, b, embed) for b in r.reproductions],
        "tightness": [_tightness(out, b, embed) for b in r.tightness],
        "not_expressed": _not_expressed() if r.tightness else [],
        "errors": [readable(e) for e in r.errors],
        "bibliography": [{"n": i + 1, **vars(p)} for i, p in enumerate(BIBLIOGRAPHY)],
        "provenance": r.provenance,
    }
