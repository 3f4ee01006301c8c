"""Figures drawn in a background process are the same files as figures drawn in process."""

from __future__ import annotations

import pytest

from fcocheck.reports.drawer import Drawer
from fcocheck.reports.plotdata import Figure, Line, Panel


def _figure(stem: str) -> Figure:
    x = [1.0, 2.0, 4.0, 8.0, 16.0]
    line = Line(label="measured", x=x, median=[1 / v for v in x], lo=[0.9 / v for v in x],
                hi=[1.1 / v for v in x], style="measured")
    return Figure(stem=stem, title="t", panels=[Panel("p", "R", "gap", [line], logx=True, logy=True)])


def test_background_drawing_writes_the_same_bytes_as_drawing_in_process(tmp_path):
    with Drawer(background=False) as inline:
        assert inline.submit(_figure("a"), tmp_path / "inline") == "a"
    with Drawer(background=True) as bg:
        stems = [bg.submit(_figure(s), tmp_path / "bg") for s in ("a", "b")]
        bg.wait()
    assert stems == ["a", "b"]
    for ext in ("png", "svg"):
        assert (tmp_path / "bg" / f"a.{ext}").read_bytes() == (tmp_path / "inline" / f"a.{ext}").read_bytes()
        assert (tmp_path / "bg" / f"b.{ext}").stat().st_size > 0


@pytest.mark.parametrize("background", [False, True])
def test_the_drawer_counts_figures_drawn_and_figures_kept(tmp_path, background):
    """The report's "N drawn, M unchanged" line: a figure already drawn from the same data counts as kept,
    new data (or a new stem) as drawn; the counts hold once ``wait`` returns."""
    with Drawer(background=background) as first:
        for s in ("a", "b"):
            first.submit(_figure(s), tmp_path)
        first.wait()
    assert (first.drawn, first.reused) == (2, 0)
    again = _figure("b")
    again.panels[0].lines[0].median[0] *= 2.0  # b's data changed: drawn again
    with Drawer(background=background) as second:
        for fig in (_figure("a"), again, _figure("c")):
            second.submit(fig, tmp_path)
        second.wait()
    assert (second.drawn, second.reused) == (2, 1)


def test_a_figure_that_cannot_be_drawn_raises_at_wait(tmp_path):
    bad = Figure(stem="bad", title="t", panels=[Panel("p", "x", "y", kind="bars", data={})])
    with Drawer(background=True) as bg:
        bg.submit(bad, tmp_path)
        with pytest.raises(KeyError):
            bg.wait()
    with Drawer(background=False) as inline, pytest.raises(KeyError):
        inline.submit(bad, tmp_path)


def test_log_tick_labels_are_powers_of_ten_in_superscripts_and_nothing_else():
    from fcocheck.reports.draw import _power_of_ten

    assert [_power_of_ten(x) for x in (1e-12, 1e-3, 1.0, 10.0, 1e5)] == ["10⁻¹²", "10⁻³", "10⁰", "10¹", "10⁵"]
    assert _power_of_ten(3.0) == "3×10⁰" and _power_of_ten(1.6e-6) == "1.6×10⁻⁶"  # off the decades
    assert _power_of_ten(0.0) == _power_of_ten(-1.0) == _power_of_ten(float("nan")) == ""
