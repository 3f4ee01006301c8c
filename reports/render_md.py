"""``report.md``: the same view as ``index.html`` in Markdown (formulas as ``$…$``, figures linked)."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from fcocheck.reports.model import Report
from fcocheck.reports.templates import environment
from fcocheck.reports.view import view
from fcocheck.solvers.files import Writer

MARK = {
    "consistent": "✅",
    "holds": "✅",
    "inconsistent": "❌",
    "fails": "❌",
    "inconclusive": "❔",
    "known disagreement": "🟠",
    "error": "⚠️",
    "does not apply": "·",
    "n/a": "—",
}
PROVENANCE = ("fcocheck", "code_version", "git", "mode", "seed", "conformance_budget", "executor",
              "generated", "wall_seconds", "store", "machine", "libraries", "sweeps", "jobs", "figures",
              "seeds_note")


def _cell(x: Any) -> str:
    """A Markdown table cell: no pipe or newline breaks the row."""
    return str(x).replace("|", "\\|").replace("\n", " ")


def inert(value: Any) -> str:
    """A value as Markdown text that no renderer turns into markup (every ``{{ … }}`` passes here).

    Stored strings come from a results store or a user's plugin.  ``<``, ``>`` and ``&`` become
    entities, so no raw HTML and no ``<scheme:…>`` autolink survive; ``](``, ``][`` and ``]:`` get a
    space, so no inline link, reference link or link definition is formed from the text (the
    template's own links are template text, not values).  LaTeX between ``$`` keeps its meaning.
    """
    text = html.escape(str(value), quote=False)
    return text.replace("](", "] (").replace("][", "] [").replace("]:", "] :")


def render_md(r: Report, out: Path) -> Path:
    """Write ``out/report.md``."""
    env = environment(autoescape=False, finalize=inert)
    env.filters["cell"] = _cell
    p = r.provenance
    text = env.get_template("report.md.j2").render(
        **view(r, out, embed=False), marks=MARK,
        provenance_items=[(k, p[k]) for k in PROVENANCE if k in p])
    return Writer(out).write_text("report.md", text)
