"""``index.html``: one self-contained page that reads offline (rendered from a Jinja2 template).

CSS inline, PNG figures embedded as data URIs (the PNG and SVG files are linked beside them), and
the theorems' statements and conditions as MathML, which browsers render natively: no script,
no font or network access.  Beside it, ``gallery/``: one page per theorem (``render_gallery``).
Machine-readable hooks: every experiment's verdict box carries
``data-experiment`` and ``data-status``, every figure ``data-figure`` (its PNG path).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from markupsafe import Markup

from fcocheck.reports.model import Report
from fcocheck.reports.templates import environment
from fcocheck.reports.text import mathml
from fcocheck.reports.view import view
from fcocheck.solvers.files import Writer

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1180px;margin:2em auto;
padding:0 1em;
color:#222;line-height:1.45}
h1{margin-bottom:.2em}h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:.6em 0;font-size:.9em}td,th{border:1px solid #ccc;padding:.25em .5em;
text-align:left;vertical-align:top}th{background:#f4f4f4}
.badge{display:inline-block;border-radius:4px;padding:0 .45em;font-weight:600;font-size:.85em;color:#fff}
.consistent,.holds,.proved{background:#2e7d32}.inconsistent,.fails,.broken{background:#c62828}
.inconclusive,.n-a{background:#9e9e9e}.does-not-apply{background:#607d8b}.error{background:#6a1b9a}.known-disagreement{background:#ef6c00}
.verdict{border:1px solid #ccc;border-left:6px solid #9e9e9e;border-radius:4px;padding:.5em .8em;
margin:.8em 0}
.verdict.consistent{border-left-color:#2e7d32;background:#f3faf3}.verdict.inconsistent{border-left-color:#c62828;
background:#fdf3f3}.verdict.inconclusive{background:#fafafa}.verdict.known-disagreement{border-left-color:#ef6c00;
background:#fff6ee}.verdict .badge{margin-right:.4em}
.check{margin:.2em 0}.power{font-size:.82em;color:#555;margin-left:1.5em}
.math{font-size:1.1em}math{font-size:1.15em}.muted{color:#666;font-size:.88em}
code{background:#f4f4f4;padding:0 .2em}
figure{margin:.6em 0}figure img{width:min(100%,900px);border:1px solid #eee}
figcaption{font-size:.85em;color:#555}
.toc{background:#fafafa;border:1px solid #e4e4e4;border-radius:4px;padding:.4em 1em;font-size:.9em}
.toc ol{margin:.2em 0;padding-left:1.4em}.toc>ol{columns:2}.toc ol ol{columns:1;font-size:.95em}
dl.terms{display:grid;grid-template-columns:max-content 1fr;gap:.3em 1em;font-size:.92em}dl.terms dd{margin:0}
.matrix td{text-align:center;font-size:.85em}.matrix td.alg{text-align:left;font-weight:600}
footer{margin-top:3em;border-top:2px solid #ddd;font-size:.85em;color:#444}
.glance td{font-size:.95em}
"""
FOOTER = ("machine", "libraries", "sweeps", "jobs", "figures", "store", "store_code_versions", "seeds_note")


def render_html(r: Report, out: Path) -> Path:
    """Write ``out/index.html`` and the gallery (``render_gallery``)."""
    env = environment(autoescape=True)
    env.filters["mathml"] = lambda latex: Markup(mathml(latex))  # noqa: S704 - converter output
    p = r.provenance
    page = env.get_template("report.html.j2").render(
        **view(r, out, embed=True), css=CSS, up="",
        footer_json=json.dumps({k: p[k] for k in FOOTER if k in p}, indent=1, ensure_ascii=False))
    render_gallery(env, view(r, out, embed=False), Writer(out))
    return Writer(out).write_text("index.html", page)


def render_gallery(env: Any, v: dict[str, Any], w: Writer) -> None:
    """``gallery/NAME.html``, one page per theorem, and ``gallery/index.html`` listing them.

    A page holds the theorem's statement, each experiment's verdict with its rule's measured size and
    power, its figure, and the worst cases of its bound (the tightness studies of that theorem); the
    figures are the report's own files (``../figures``), so a page costs no second copy of them.
    """
    worst_of = {t["name"]: [x for x in v["tightness"] if x["theorem"] == t["name"]] for t in v["theorems"]}
    common = {"css": CSS, "up": "../", "mode": v["mode"], "seed": v["seed"], "generated": v["generated"]}
    for t in v["theorems"]:
        w.write_text(f"gallery/{t['page']}", env.get_template("claim.html.j2").render(
            t=t, worst_cases=worst_of[t["name"]], **common))
    w.write_text("gallery/index.html", env.get_template("gallery.html.j2").render(
        theorems=v["theorems"], worst_of=worst_of, **common))
