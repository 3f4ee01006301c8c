"""``index.html``: one self-contained page that reads offline.

``index.html``: one self-contained page (CSS inline, PNG figures embedded as data URIs, SVG and PNG files
linked beside it) that reads offline. Machine-readable hooks: every experiment's verdict box carries
``data- experiment`` and ``data-status``; every figure ``data-figure`` (its PNG path).
"""

from __future__ import annotations

import base64
import html
import json
from pathlib import Path
from typing import Any

from reports.model import Report

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1180px;margin:2em auto;
padding:0 1em;
color:#222;line-height:1.45}
h1{margin-bottom:.2em}h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:.6em 0;font-size:.9em}td,th{border:1px solid #ccc;padding:.25em .5em;
text-align:left;vertical-align:top}th{background:#f4f4f4}
.badge{display:inline-block;border-radius:4px;padding:0 .45em;font-weight:600;font-size:.85em;color:#fff}
.consistent,.holds,.reproduced,.proved{background:#2e7d32}.inconsistent,.fails,.broken,.not-reproduced{background:#c62828}
.inconclusive,.n-a{background:#9e9e9e}.error{background:#6a1b9a}.known-disagreement{background:#ef6c00}
.verdict{border:1px solid #ccc;border-left:6px solid #9e9e9e;border-radius:4px;padding:.5em .8em;
margin:.8em 0}
.verdict.consistent{border-left-color:#2e7d32;background:#f3faf3}.verdict.inconsistent{border-left-color:#c62828;
background:#fdf3f3}.verdict.inconclusive{background:#fafafa}.verdict.known-disagreement{border-left-color:#ef6c00;
background:#fff6ee}.verdict .badge{margin-right:.4em}
.check{margin:.2em 0}.muted{color:#666;font-size:.88em}code{background:#f4f4f4;padding:0 .2em}
figure{margin:.6em 0}figure img{max-width:100%;border:1px solid #eee}figcaption{font-size:.85em;color:#555}
.matrix td{text-align:center;font-size:.85em}.matrix td.alg{text-align:left;font-weight:600}
footer{margin-top:3em;border-top:2px solid #ddd;font-size:.85em;color:#444}
.glance td{font-size:.95em}
"""


BOX = {"reproduced": "consistent", "not reproduced": "inconsistent", "inconclusive": "inconclusive",
       "error": "error"}
FOOTER = ("machine", "libraries", "sweeps", "jobs", "store", "store_code_versions", "seeds_note")


def esc(x: Any) -> str:
    """HTML-escaped text."""
    return html.escape(str(x), quote=True)


def badge(status: str) -> str:
    """A coloured status label."""
    return f'<span class="badge {esc(status.replace(" ", "-").replace("/", "-"))}">{esc(status)}</span>'


def _figure(out: Path, stem: str | None, caption: str) -> str:
    if not stem:
        return ""
    png = out / "figures" / f"{stem}.png"
    data = base64.b64encode(png.read_bytes()).decode()
    return (
        f'<figure data-figure="figures/{esc(stem)}.png"><img alt="{esc(caption)}" '
        f'src="data:image/png;base64,{data}"><figcaption>{esc(caption)} — '
        f'<a href="figures/{esc(stem)}.png">PNG</a> · <a href="figures/{esc(stem)}.svg">SVG</a>'
        "</figcaption></figure>"
    )


def _glance(r: Report) -> str:
    rows = []
    for t in r.theorems:
        exps = ", ".join(f"{esc(b.result['name'])} {badge(b.result['status'])}" for b in t.experiments)
        rows.append(
            f'<tr><td><a href="#{esc(t.name)}">{esc(t.name)}</a></td><td>{badge(t.status)}</td>'
            f"<td>{esc(t.citation)}</td><td>{exps}</td></tr>"
        )
    for b in r.reproductions:
        rows.append(
            f'<tr><td><a href="#{esc(b.rep.name)}">{esc(b.rep.name)}</a></td><td>{badge(b.rep.status)}</td>'
            f"<td>{esc(b.rep.cite)}</td><td>{esc(b.rep.title)}</td></tr>"
        )
    s = r.summary()
    inv = s["invariants"]
    props = "; ".join(
        f"{p}: " + ", ".join(f"{v} {k}" for k, v in c.items()) for p, c in s["properties"].items()
    )
    return (
        '<h2 id="glance">At a glance</h2>'
        f"<p>Theorems: {_counts(s['theorems'])}. Experiments: {_counts(s['experiments'])}. "
        f"Invariants: {inv['proved']} proved, {inv['broken']} broken. Reproductions: "
        f'{_counts(s["reproductions"])}.</p><p class="muted">Properties (algorithms × A–D): {esc(props)}</p>'
        '<table class="glance"><tr><th>theorem / figure</th><th>verdict</th><th>source</th>'
        "<th>experiments</th></tr>" + "".join(rows) + "</table>"
    )


def _counts(c: dict[str, int]) -> str:
    return ", ".join(f"{v} {badge(k)}" for k, v in c.items()) or "none"


def _experiment(out: Path, b: Any) -> str:
    res = b.result
    checks = "".join(
        f'<div class="check">{badge(c["status"])} <b>{esc(c["rule"])}</b>: {esc(c["reason"])}</div>'
        for c in res["checks"]
    )
    notes = "".join(f'<p class="muted">{esc(n)}</p>' for n in res.get("notes", []))
    return (
        f'<div class="verdict {esc(res["status"].replace(" ", "-"))}" data-experiment="{esc(res["name"])}" '
        f'data-status="{esc(res["status"])}"><h3>{badge(res["status"])} {esc(res["name"])}</h3>'
        f'<p class="muted">{esc(res["design"])} ({res["seconds"]:.1f}s)</p>{checks}{notes}'
        + _figure(
            out, b.figure, f"{res['name']}: measured (median, 10–90% band over seeds), fitted and predicted"
        )
        + "</div>"
    )


def _theorems(out: Path, r: Report) -> str:
    parts = ['<h2 id="theorems">Theorems</h2>']
    for t in r.theorems:
        conds = "".join(f"<li><code>{esc(c)}</code></li>" for c in t.conditions)
        parts.append(
            f'<h3 id="{esc(t.name)}">{badge(t.status)} {esc(t.name)} — {esc(t.title)}</h3>'
            f'<p class="muted">{esc(t.citation)}</p><p><code>{esc(t.statement)}</code></p>'
            + (f"<ul>{conds}</ul>" if conds else "")
            + "".join(_experiment(out, b) for b in t.experiments)
        )
    return "".join(parts)


def _conformance(r: Report) -> str:
    if not r.invariants and not r.properties:
        return ""
    inv_rows = "".join(
        f"<tr><td>{esc(c['column'])}</td><td>{esc(c['algorithm'])}</td><td>{esc(c['expect'])}</td>"
        f"<td>{badge(c['outcome'])} {'' if c['ok'] else badge('broken')}</td><td>{c['examples']}</td>"
        f"<td>{_link(c)}{esc(c['detail'][:160])}</td></tr>"
        for c in r.invariants
    )
    by = {(c["algorithm"], c["column"]): c for c in r.properties}
    cols = list(r.property_rules)
    head = "".join(f'<th title="{esc(r.property_rules[p])}">{esc(p)}</th>' for p in cols)
    rows = []
    for alg in r.algorithms:
        cells = []
        for p in cols:
            c = by.get((alg, p))
            cells.append(
                "<td></td>"
                if c is None
                else f'<td data-cell="{esc(alg)}:{esc(p)}">{badge(c["outcome"])}'
                f"{'<br>' + _link(c, short=True) if c.get('counterexample') else ''}</td>"
            )
        rows.append(f'<tr><td class="alg">{esc(alg)}</td>{"".join(cells)}</tr>')
    rules = "".join(f"<li><b>{esc(p)}</b>: {esc(t)}</li>" for p, t in r.property_rules.items())
    return (
        '<h2 id="conformance">Conformance</h2><h3>Invariants (must come out as proved)</h3>'
        "<table><tr><th>invariant</th><th>algorithms</th><th>expect</th><th>outcome</th><th>cases</th>"
        f"<th>evidence</th></tr>{inv_rows}</table><h3>Properties (seed 004 §3.1)</h3><ul>{rules}</ul>"
        f'<p class="muted">{esc(r.provenance.get("rules", ""))}</p>'
        f'<table class="matrix"><tr><th>algorithm</th>{head}</tr>{"".join(rows)}</table>'
    )


def _link(c: dict[str, Any], short: bool = False) -> str:
    ce = c.get("counterexample")
    if not ce:
        return ""
    text = "counterexample" if short else f"counterexample ({c.get('size')})"
    return f'<a class="counterexample" href="{esc(ce)}">{esc(text)}</a> '


def _table(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return ""
    cols = list(rows[0])
    body = "".join(
        "<tr>" + "".join(f"<td>{esc(_fmt(row.get(c)))}</td>" for c in cols) + "</tr>" for row in rows
    )
    return "<table><tr>" + "".join(f"<th>{esc(c)}</th>" for c in cols) + f"</tr>{body}</table>"


def _fmt(v: Any) -> str:
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def _reproductions(out: Path, r: Report) -> str:
    parts = ['<h2 id="reproductions">Paper reproductions</h2>']
    for b in r.reproductions:
        rep = b.rep
        finds = "".join(
            f'<div class="check">{badge(f.status)} {esc(f.claim)} — <span class="muted">'
            f"{esc(f.evidence)}</span></div>"
            for f in rep.findings
        )
        notes = "".join(f'<p class="muted">{esc(n)}</p>' for n in rep.notes)
        parts.append(
            f'<h3 id="{esc(rep.name)}">{badge(rep.status)} {esc(rep.title)}</h3>'
            f'<p class="muted">{esc(rep.cite)}. {esc(rep.design)}</p>'
            f'<div class="verdict {BOX[rep.status]}" data-reproduction="{esc(rep.name)}" '
            f'data-status="{esc(rep.status)}">{finds}</div>'
            + _table(rep.table)
            + _figure(out, b.figure, f"{rep.title} (median, 10–90% band over seeds)")
            + notes
        )
    return "".join(parts)


def _footer(r: Report) -> str:
    p = r.provenance
    return (
        "<footer><h2>Provenance</h2>"
        f"<p>fcocheck {esc(p.get('fcocheck'))}, code version <code>{esc(p.get('code_version'))}</code>, git "
        f"<code>{esc(p.get('git'))}</code>; mode {esc(p.get('mode'))}, seed {esc(p.get('seed'))}, "
        "conformance "
        f"budget {esc(p.get('conformance_budget'))}; executor {esc(p.get('executor'))}; generated "
        f"{esc(p.get('generated'))} in {esc(p.get('wall_seconds'))} s.</p>"
        f"<pre>{esc(json.dumps({k: p[k] for k in FOOTER if k in p}, indent=1, ensure_ascii=False))}</pre>"
        "</footer>"
    )


def _errors(r: Report) -> str:
    if not r.errors:
        return ""
    items = "".join(f"<li>{esc(e)}</li>" for e in r.errors)
    return (f'<section class="errors" data-errors="{len(r.errors)}"><h3>Could not be computed</h3>'
            f"<p>Recorded, and the report went on:</p><ul>{items}</ul></section>")


def render_html(r: Report, out: Path) -> Path:
    """Write ``out/index.html``."""
    body = (
        f'<h1>fcocheck report</h1><p class="muted">{esc(r.mode)} mode · seed {r.seed} · '
        f"{esc(r.provenance.get('generated', ''))}</p>"
        + _glance(r)
        + _errors(r)
        + _theorems(out, r)
        + _conformance(r)
        + _reproductions(out, r)
        + _footer(r)
    )
    page = (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>fcocheck report ({esc(r.mode)})'
        f"</title><style>{CSS}</style></head><body>{body}</body></html>"
    )
    path = out / "index.html"
    path.write_text(page, encoding="utf-8")
    return path
