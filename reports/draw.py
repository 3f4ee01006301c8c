"""Drawing: ``Figure`` (plain data from ``reports.plotdata``) → PNG and SVG files. Nothing else.

Matplotlib runs headless (Agg); SVG text is kept as text and the SVG carries no creation date, so
the same data draws the same file.  So a figure already on disk is not drawn again: beside
``<stem>.png`` and ``<stem>.svg`` the key file ``.<stem>.drawn`` vouches for what they were drawn from
(``reports.figure_key`` says what the key holds); a figure whose key and files still match is reused
(a report rerun on its own output redraws nothing: two thirds of its CPU were the figures).
"""

from __future__ import annotations

import math
import os
import textwrap
from pathlib import Path
from typing import NamedTuple

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.ticker import Formatter, FuncFormatter, LogLocator  # noqa: E402

from fcocheck.reports.figure_key import figure_key, key_text, reusable  # noqa: E402
from fcocheck.reports.plotdata import Figure, Line, Panel  # noqa: E402
from fcocheck.solvers.files import Writer, safe_stem

STYLES = {
    "measured": {"lw": 1.8},
    "fit": {"lw": 1.2, "ls": "--", "color": "black"},
    "predicted": {"lw": 1.2, "ls": ":", "color": "tab:red"},
    "bound": {"lw": 1.0, "ls": "-.", "color": "grey"},
    "reference": {"lw": 1.0, "ls": "-", "color": "grey"},
}
# svg.hashsalt: element ids from a fixed salt, not a random one, so the same data draws the same SVG
plt.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "fcocheck", "figure.dpi": 100, "font.size": 9,
                     "axes.titlesize": 9})


def _line(ax: plt.Axes, line: Line) -> None:
    x, y = np.asarray(line.x), np.asarray(line.median)
    style = dict(STYLES.get(line.style, {}))
    (h,) = ax.plot(x, y, label=line.label, **style)
    if line.lo is not None and line.hi is not None:
        ax.fill_between(x, line.lo, line.hi, color=h.get_color(), alpha=0.2, lw=0)


def _panel(ax: plt.Axes, p: Panel) -> None:
    ax.set_title(p.title)
    ax.set_xlabel(p.xlabel)
    ax.set_ylabel(p.ylabel)
    if p.kind == "bars":
        vals = np.maximum(np.asarray(p.data["values"], dtype=float), 1e-300)
        ax.bar(
            p.data["labels"],
            vals,
            color=["tab:green" if v <= (p.data["tol"] or 0) else "tab:red" for v in vals],
        )
        if p.data.get("tol"):
            ax.axhline(p.data["tol"], color="black", ls="--", lw=1, label=f"tolerance {p.data['tol']:g}")
            _legend_below(ax)
        ax.set_yscale("log")
        return
    if p.kind == "scatter":
        x, y = np.asarray(p.data["x"]), np.asarray(p.data["y"])
        ax.scatter(x, y, s=14, color="tab:blue", label="runs")
        lim = [min(x.min(), y.min()) / 2, max(x.max(), y.max()) * 2]
        ax.plot(lim, lim, color="black", ls="--", lw=1, label="LHS = RHS")
        ax.set_xscale("log")
        ax.set_yscale("log")
        _legend_below(ax)
        return
    if p.kind == "pattern":
        rows = [
            ("clients (fraction ≠ 0)", p.data["client_fraction"]),
            ("FedMiD server", p.data["fedmid_server"]),
            ("FedDualAvg server", p.data["feddualavg_server"]),
        ]
        img = np.array([r for _, r in rows], dtype=float)
        ax.imshow(img, aspect="auto", cmap="Greys", vmin=0, vmax=1, interpolation="nearest")
        ax.set_yticks(range(len(rows)), [r for r, _ in rows])
        for i, (label, row) in enumerate(rows):  # an empty row says why, inside the figure
            note = p.data.get("notes", {}).get(label)
            if note and not np.any(np.asarray(row, dtype=float)):
                ax.text(0.5, i, textwrap.fill(note, 52), transform=ax.get_yaxis_transform(), ha="center",
                        va="center", fontsize=7, color="tab:red")
        return
    for line in p.lines:
        _line(ax, line)
    if p.logx:
        ax.set_xscale("log")
    if p.logy and any(
        np.nanmin(np.asarray(line.median, dtype=float), initial=np.inf) > 0 for line in p.lines
    ):
        ax.set_yscale("log")
    if p.lines:
        _legend_below(ax)


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _power_of_ten(x: float, _pos: int | None = None) -> str:
    """A log axis' tick label: 10ᵏ, or m×10ᵏ off the decades, in Unicode superscripts (no mathtext)."""
    if not np.isfinite(x) or x <= 0:
        return ""
    k = int(round(math.log10(x)))
    if abs(x - 10.0**k) <= 1e-9 * x:
        return "10" + str(k).translate(_SUPERSCRIPT)
    k = math.floor(math.log10(x) + 1e-9)  # not a decade: m×10ᵏ with 1 ≤ m < 10
    return f"{x / 10.0**k:.3g}×10" + str(k).translate(_SUPERSCRIPT)


class _MinorLog(Formatter):
    """Minor labels m×10ᵏ, only on an axis spanning less than two decades (else none)."""

    def __call__(self, x: float, pos: int | None = None) -> str:
        """The label of the minor tick at ``x``."""
        lo, hi = sorted(self.axis.get_view_interval())
        if not (lo > 0 and hi / lo < 100.0):
            return ""
        return _power_of_ten(x)


def _log_ticks(ax: plt.Axes) -> None:
    """Log axes: labels 10ᵏ as plain text, minor ticks at 2 and 5 × 10ᵏ (labelled on short axes).

    Matplotlib's defaults parse every label as mathtext ($10^{k}$, a pyparsing run per label and
    render) and build 8 minor tick objects a decade, at each of a figure's three renders (layout,
    PNG, SVG): together half of the report's drawing time, for the same picture.
    """
    for axis in (ax.xaxis, ax.yaxis):
        if axis.get_scale() == "log":
            axis.set_major_formatter(FuncFormatter(_power_of_ten))
            axis.set_minor_locator(LogLocator(base=10.0, subs=(2.0, 5.0)))
            axis.set_minor_formatter(_MinorLog())


#: legend labels are wrapped at this many characters; two columns only when every label is short
LEGEND_WRAP, TWO_COLUMNS = 46, 24


def _legend_below(ax: plt.Axes) -> None:
    """The legend under the axes, outside the plotting area: it never covers data.

    Long labels are wrapped and set in one column, so that a legend is never wider than its panel;
    ``layout`` then makes the figure tall enough to hold it.
    """
    handles, labels = ax.get_legend_handles_labels()
    ncol = 2 if max(map(len, labels), default=0) <= TWO_COLUMNS else 1
    labels = [textwrap.fill(s, LEGEND_WRAP) for s in labels]
    ax.legend(handles, labels, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=ncol,
              frameon=False)


def legend_overflow(f: plt.Figure) -> float:
    """How far (pixels) the farthest legend reaches outside the figure; ≤ 0 when all lie inside."""
    renderer = f.canvas.get_renderer()
    box, worst = f.bbox, -np.inf
    for ax in f.axes:
        legend = ax.get_legend()
        if legend is not None and ax.get_visible():
            b = legend.get_window_extent(renderer)
            worst = max(worst, box.x0 - b.x0, b.x1 - box.x1, box.y0 - b.y0, b.y1 - box.y1)
    return float(worst)


#: the least height (inches) of a panel's plotting area once its legend has taken its room
MIN_AXES_HEIGHT = 2.4


def _fit_legends(f: plt.Figure, rows: int, tries: int = 4) -> None:
    """Grow the figure until every legend lies inside it and no panel is squeezed by its legend.

    A PNG clips whatever reaches outside the figure, and ``tight_layout`` makes room for a legend
    by shrinking the axes above it; the figure is made taller instead (each row by the same amount).
    """
    for _ in range(tries):
        over = legend_overflow(f)
        w, h = f.get_size_inches()
        shortest = min(ax.get_position().height * h for ax in f.axes if ax.get_visible())
        grow = max((over + 4) / f.dpi * 2 if over > 0 else 0.0, (MIN_AXES_HEIGHT - shortest) * rows)
        if grow <= 0:
            return
        f.set_size_inches(w, h + grow)
        f.tight_layout()


def layout(fig: Figure) -> plt.Figure:
    """The matplotlib figure of ``fig``: panels in up to three columns, every legend inside."""
    n = len(fig.panels)
    cols = min(n, 3)
    rows = math.ceil(n / cols)
    f, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 4.0 * rows), squeeze=False)
    for ax, p in zip(axes.ravel(), fig.panels, strict=False):
        _panel(ax, p)
        _log_ticks(ax)
    for ax in axes.ravel()[n:]:
        ax.set_visible(False)
    f.tight_layout()
    _fit_legends(f, rows)
    return f


class Drawn(NamedTuple):
    """A figure's two files, and whether they were kept from an earlier drawing of the same data."""

    png: Path
    svg: Path
    reused: bool


def _kept(writer: Writer, earlier: Writer | None, names: tuple[str, ...], key: str) -> bool:
    """Whether this data's drawing is in ``writer``'s folder, or in ``earlier``'s (then linked over)."""
    mine = [writer.path(n, make_dirs=False) for n in names]  # a link raises, as writing would
    if reusable(*mine, key):
        return True
    if earlier is None:
        return False
    theirs = [earlier.path(n, make_dirs=False) for n in names]
    if not reusable(*theirs, key):
        return False
    for src, name in zip(theirs, names, strict=True):
        dst = writer.path(name)
        try:
            os.link(src, dst)
        except OSError:  # another file system, or links not allowed: the bytes then
            writer.write_bytes(name, src.read_bytes())
    return reusable(*mine, key)


def draw(fig: Figure, out: Path | Writer, earlier: Writer | None = None) -> Drawn:
    """Write ``out/<stem>.png`` and ``out/<stem>.svg`` unless already drawn from this data; returns both.

    ``out`` is a folder or a ``Writer`` for one (a report's stage: ``solvers.staging``); ``earlier`` a
    writer for the folder an earlier report drew into, whose files are linked into ``out`` when their key
    matches.  The stem may come from a results store: it must be one plain file name (``safe_stem``),
    and every file goes through ``solvers.files.Writer`` (inside ``out``, no symlink followed, atomic).
    The key file (module docstring) is removed before the drawing and written after both files, so a
    drawing cut short never leaves files that a key vouches for.
    """
    stem = safe_stem(fig.stem)
    writer = out if isinstance(out, Writer) else Writer(out)
    names = (f"{stem}.png", f"{stem}.svg", f".{stem}.drawn")
    key = figure_key(fig)
    png, svg, stale = (writer.path(n, make_dirs=False) for n in names)  # a link raises, as writing would
    if key is not None and _kept(writer, earlier, names, key):
        return Drawn(png, svg, True)
    if stale.exists():
        stale.unlink()
    f = layout(fig)
    try:
        with writer.open(names[0]) as fh:
            f.savefig(fh, dpi=110, format="png")
        with writer.open(names[1]) as fh:
            f.savefig(fh, metadata={"Date": None}, format="svg")
    finally:
        plt.close(f)
    if key is not None:
        writer.write_text(names[2], key_text(key, png, svg))
    return Drawn(png, svg, False)
