"""A figure already drawn from the same data is not drawn again (``reports.draw``'s key file).

What must redraw: data changed by one ulp, a file missing, a key file that does not match, another
renderer (this module's source or matplotlib), data the key cannot hold exactly (always drawn, no key
kept), a drawing cut short (its stale key is gone first, so the older data redraws too).  A link where a
figure file or its key lies is refused, as the drawing refuses it.
"""

from __future__ import annotations

import numpy as np
import pytest

from fcocheck.reports import draw
from fcocheck.reports.plotdata import Figure, Line, Panel
from fcocheck.solvers.files import UnsafePathError


def _figure(y0: float = 1.0, data: dict | None = None) -> Figure:
    x = [1.0, 2.0, 4.0, 8.0]
    line = Line(label="measured", x=x, median=[y0 / v for v in x], style="measured")
    return Figure(stem="f", title="t", panels=[Panel("p", "R", "gap", [line], logx=True, logy=True,
                                                     data=data or {})])


@pytest.fixture
def counted(monkeypatch):
    """``draw.layout`` wrapped: the list of the stems it drew."""
    calls: list[str] = []
    real = draw.layout

    def layout(fig):
        calls.append(fig.stem)
        return real(fig)

    monkeypatch.setattr(draw, "layout", layout)
    return calls


def _bytes(out) -> tuple[bytes, bytes]:
    return (out / "f.png").read_bytes(), (out / "f.svg").read_bytes()


def test_the_same_data_is_drawn_once(tmp_path, counted):
    assert draw.draw(_figure(), tmp_path) == (tmp_path / "f.png", tmp_path / "f.svg")
    first = _bytes(tmp_path)
    assert draw.draw(_figure(), tmp_path) == (tmp_path / "f.png", tmp_path / "f.svg")
    assert counted == ["f"] and _bytes(tmp_path) == first
    assert (tmp_path / ".f.drawn").read_text() == draw.figure_key(_figure())


def test_what_must_redraw_redraws(tmp_path, counted, monkeypatch):
    draw.draw(_figure(), tmp_path)
    draw.draw(_figure(np.nextafter(1.0, 2.0)), tmp_path)  # one ulp
    assert len(counted) == 2
    draw.draw(_figure(), tmp_path)
    assert len(counted) == 3
    (tmp_path / "f.svg").unlink()
    draw.draw(_figure(), tmp_path)
    assert len(counted) == 4 and (tmp_path / "f.svg").is_file()
    (tmp_path / ".f.drawn").write_text("0" * 64)
    draw.draw(_figure(), tmp_path)
    assert len(counted) == 5
    (tmp_path / ".f.drawn").write_text(draw.figure_key(_figure()) + "0")  # the key and more
    draw.draw(_figure(), tmp_path)
    assert len(counted) == 6
    monkeypatch.setattr(draw, "_renderer", lambda: b"another renderer")
    draw.draw(_figure(), tmp_path)
    assert len(counted) == 7


def test_data_the_key_cannot_hold_is_always_drawn(tmp_path, counted):
    fig = _figure(data={"odd": {1, 2}})  # a set: no exact JSON form
    assert draw.figure_key(fig) is None
    with pytest.raises(TypeError):  # what the key refuses, it refuses loudly inside
        draw._plain({1, 2})
    for _ in range(2):
        draw.draw(fig, tmp_path)
    assert counted == ["f", "f"] and not (tmp_path / ".f.drawn").exists()
    assert draw.figure_key(_figure(data={"a": np.arange(3.0), "s": np.float64(0.5)})) is not None
    key = draw.figure_key
    assert key(_figure(data={"a": np.array([0.5])})) != key(_figure(data={"a": np.array([0.5], np.float32)}))
    late = np.arange(2000.0)
    late[-1] = np.nextafter(late[-1], 0.0)
    assert key(_figure(data={"a": np.arange(2000.0)})) != key(_figure(data={"a": late}))  # every element


def test_a_drawing_cut_short_leaves_no_key(tmp_path, monkeypatch, counted):
    draw.draw(_figure(), tmp_path)
    old = _bytes(tmp_path)
    real = draw.Writer.open

    def open_(self, rel, *a, **k):
        if str(rel).endswith(".svg"):
            raise KeyboardInterrupt
        return real(self, rel, *a, **k)

    monkeypatch.setattr(draw.Writer, "open", open_)
    with pytest.raises(KeyboardInterrupt):
        draw.draw(_figure(2.0), tmp_path)  # the PNG of the new data written, the SVG not
    assert not (tmp_path / ".f.drawn").exists()
    monkeypatch.setattr(draw.Writer, "open", real)
    draw.draw(_figure(), tmp_path)  # the old data again: drawn, not taken from the mixed files
    assert counted == ["f", "f", "f"] and _bytes(tmp_path) == old


@pytest.mark.parametrize("name", ["f.png", "f.svg", ".f.drawn"])
def test_a_link_where_a_file_lies_is_refused(tmp_path, name):
    draw.draw(_figure(), tmp_path)
    target = tmp_path / "elsewhere"
    target.write_bytes((tmp_path / name).read_bytes())
    (tmp_path / name).unlink()
    (tmp_path / name).symlink_to(target)
    with pytest.raises(UnsafePathError):
        draw.draw(_figure(), tmp_path)
