"""``report.md``: the same view as ``index.html`` in Markdown (formulas as ``$…$``, figures linked)."""

from __future__ import annotations

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


def render_md(r: Report, out: Path) -> Path:
    """Write ``out/report.md``."""
    env = environment(autoescape=False)
    env.filters["cell"] = _cell
    p = r.provenance
    text = env.get_template("report.md.j2").render(
        **view(r, out, embed=False), marks=MARK,
        provenance_items=[(k, p[k]) for k in PROVENANCE if k in p])
    return Writer(out).write_text("report.md", text)
