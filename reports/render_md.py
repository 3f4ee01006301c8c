"""``report.md``: the same content as ``index.html`` in Markdown (figures linked as PNG files)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reports.model import Report

MARK = {
    "consistent": "✅",
    "holds": "✅",
    "reproduced": "✅",
    "inconsistent": "❌",
    "fails": "❌",
    "not reproduced": "❌",
    "inconclusive": "❔",
    "known disagreement": "🟠",
    "error": "⚠️",
    "n/a": "—",
}


def _m(status: str) -> str:
    return f"{MARK.get(status, '')} {status}".strip()


def _cell(x: Any) -> str:
    s = f"{x:.4g}" if isinstance(x, float) else str(x)
    return s.replace("|", "\\|").replace("\n", " ")


def _table(rows: list[dict[str, Any]]) -> list[str]:
    if not rows:
        return []
    cols = list(rows[0])
    return (
        ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        + ["| " + " | ".join(_cell(r.get(c)) for c in cols) + " |" for r in rows]
        + [""]
    )


def _glance(r: Report) -> list[str]:
    rows = [
        {
            "theorem / figure": t.name,
            "verdict": _m(t.status),
            "source": t.citation,
            "experiments": ", ".join(f"{b.result['name']} {_m(b.result['status'])}" for b in t.experiments),
        }
        for t in r.theorems
    ]
    rows += [
        {
            "theorem / figure": b.rep.name,
            "verdict": _m(b.rep.status),
            "source": b.rep.cite,
            "experiments": b.rep.title,
        }
        for b in r.reproductions
    ]
    s = r.summary()
    return [
        "## At a glance",
        "",
        f"Theorems: {s['theorems']}; experiments: {s['experiments']}; invariants: {s['invariants']}; "
        f"reproductions: {s['reproductions']}.",
        "",
        *_table(rows),
        *(["", "**Could not be computed** (recorded, the report went on):", ""]
          + [f"- {e}" for e in r.errors] if r.errors else []),
    ]


def _theorems(r: Report) -> list[str]:
    out = ["## Theorems", ""]
    for t in r.theorems:
        out += [
            f"### {t.name} — {t.title}: {_m(t.status)}",
            "",
            f"*{t.citation}*",
            "",
            f"`{t.statement}`",
            "",
        ]
        out += [f"- `{c}`" for c in t.conditions] + ([""] if t.conditions else [])
        for b in t.experiments:
            res = b.result
            out += [
                f"#### {res['name']}: {_m(res['status'])}",
                "",
                f"{res['design']} ({res['seconds']:.1f}s)",
                "",
            ]
            out += [f"- {_m(c['status'])} **{c['rule']}**: {c['reason']}" for c in res["checks"]] + [""]
            out += [f"> {n}" for n in res.get("notes", [])] + ([""] if res.get("notes") else [])
            if b.figure:
                out += [f"![{res['name']}](figures/{b.figure}.png) ([SVG](figures/{b.figure}.svg))", ""]
    return out


def _conformance(r: Report) -> list[str]:
    if not r.invariants and not r.properties:
        return []
    inv = [
        {
            "invariant": c["column"],
            "algorithms": c["algorithm"],
            "expect": c["expect"],
            "outcome": _m(c["outcome"]) + ("" if c["ok"] else " BROKEN"),
            "cases": c["examples"],
            "evidence": (f"[counterexample]({c['counterexample']}) " if c.get("counterexample") else "")
            + c["detail"][:140],
        }
        for c in r.invariants
    ]
    by = {(c["algorithm"], c["column"]): c for c in r.properties}
    mat = []
    for alg in r.algorithms:
        row: dict[str, Any] = {"algorithm": alg}
        for p in r.property_rules:
            c = by.get((alg, p))
            row[p] = (
                ""
                if c is None
                else (_m(c["outcome"]) + (f" [cx]({c['counterexample']})" if c.get("counterexample") else ""))
            )
        mat.append(row)
    return [
        "## Conformance",
        "",
        "### Invariants (must come out as proved)",
        "",
        *_table(inv),
        "### Properties (seed 004 §3.1)",
        "",
        *[f"- **{p}**: {t}" for p, t in r.property_rules.items()],
        "",
        f"Rules: {r.provenance.get('rules', '')}",
        "",
        *_table(mat),
    ]


def _reproductions(r: Report) -> list[str]:
    out = ["## Paper reproductions", ""]
    for b in r.reproductions:
        rep = b.rep
        out += [f"### {rep.title}: {_m(rep.status)}", "", f"*{rep.cite}.* {rep.design}", ""]
        out += [f"- {_m(f.status)} {f.claim} — {f.evidence}" for f in rep.findings] + [""]
        out += _table(rep.table)
        if b.figure:
            out += [f"![{rep.name}](figures/{b.figure}.png) ([SVG](figures/{b.figure}.svg))", ""]
        out += [f"> {n}" for n in rep.notes] + ([""] if rep.notes else [])
    return out


def _footer(r: Report) -> list[str]:
    p = r.provenance
    keys = (
        "fcocheck",
        "code_version",
        "git",
        "mode",
        "seed",
        "conformance_budget",
        "executor",
        "generated",
        "wall_seconds",
        "store",
        "machine",
        "libraries",
        "sweeps",
        "jobs",
        "seeds_note",
    )
    return ["---", "## Provenance", "", *[f"- **{k}**: `{p[k]}`" for k in keys if k in p], ""]


def render_md(r: Report, out: Path) -> Path:
    """Write ``out/report.md``."""
    lines = [
        f"# fcocheck report ({r.mode} mode, seed {r.seed})",
        "",
        *_glance(r),
        *_theorems(r),
        *_conformance(r),
        *_reproductions(r),
        *_footer(r),
    ]
    path = out / "report.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path
