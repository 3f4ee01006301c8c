"""No legend is clipped and no panel is squeezed by its legend (issue 34).

The report's PNGs clip whatever reaches outside the figure; two-column legends of long labels
under a 4.2-inch panel reached 60–340 px outside it (measured before the fix).  ``legend_overflow``
measures the farthest reach from matplotlib's own layout; it is shown to flag the old construction,
and every figure ``layout`` builds — any number of lines, label lengths, panels — must come out
with every legend inside and every plotting area at least ``MIN_AXES_HEIGHT`` tall.
"""

from __future__ import annotations

import warnings

import matplotlib.pyplot as plt
from hypothesis import given, settings
from hypothesis import strategies as st

from fcocheck.reports import draw
from fcocheck.reports.plotdata import Figure, Line, Panel

X = [float(t) for t in range(1, 30)]


def _figure(lines: int, label: int, panels: int, kind: str = "lines") -> Figure:
    ls = [Line(f"seed {i} " + "w" * label, X, [1 / (t + i + 1) for t in X]) for i in range(lines)]
    data = {"x": [1.0, 2.0, 3.0], "y": [1.5, 2.5, 2.0]} if kind == "scatter" else \
        {"labels": ["a", "b"], "values": [1e-3, 1e-9], "tol": 1e-6} if kind == "bars" else {}
    return Figure("t", "t", [Panel("a title", "R", "gap", ls, True, True, kind, data) for _ in range(panels)])


def _shortest_axes(f: plt.Figure) -> float:
    h = f.get_size_inches()[1]
    return min(ax.get_position().height * h for ax in f.axes if ax.get_visible())


def test_the_measure_flags_the_old_two_column_legend():
    """Violation: the construction the report used — ncol=2 under the axes, tight_layout — clips."""
    f, ax = plt.subplots(figsize=(4.2, 4.0))
    for i in range(3):
        ax.plot(X, [1 / (t + i) for t in X], label=f"measured seed {i} " + "x" * 25)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, frameon=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # matplotlib says it cannot apply the tight layout
        f.tight_layout()
    try:
        assert draw.legend_overflow(f) > 20
    finally:
        plt.close(f)


@settings(max_examples=25, deadline=None)
@given(lines=st.integers(1, 12), label=st.integers(0, 150), panels=st.integers(1, 5),
       kind=st.sampled_from(["lines", "lines", "scatter", "bars"]))
def test_every_legend_lies_inside_its_figure(lines, label, panels, kind):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f = draw.layout(_figure(lines, label, panels, kind))
    try:
        assert draw.legend_overflow(f) <= 0
        assert _shortest_axes(f) >= draw.MIN_AXES_HEIGHT - 0.05
    finally:
        plt.close(f)


def test_a_plain_figure_keeps_its_size():
    """Legal and ordinary: two short labels need no growth — the figure stays 4.2 × 4.0 inches."""
    f = draw.layout(_figure(2, 3, 1))
    try:
        assert tuple(f.get_size_inches()) == (4.2, 4.0)
    finally:
        plt.close(f)
