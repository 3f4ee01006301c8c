"""A figure already drawn from the same data is not drawn again (``reports.draw``, ``reports.figure_key``).

What must redraw: data changed by one ulp (or in type: −0.0, a dtype, a dict key's type, a tuple for a
list, an array's mask or its last element), a file missing or rewritten by something else, a key file that
does not match, another drawing code, library version or rc setting; data the key cannot hold exactly is
always drawn (no key kept); a drawing cut short removes its stale key first, so the older data redraws
too.  A link where a figure file or its key lies is refused, as the drawing refuses it.
"""

from __future__ import annotations

import subprocess
import sys

import matplotlib
import numpy as np
import pytest

from fcocheck.reports import draw, figure_key
from fcocheck.reports.plotdata import Figure, Line, Panel
from fcocheck.solvers.files import UnsafePathError

key = figure_key.figure_key


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
    assert draw.draw(_figure(), tmp_path) == (tmp_path / "f.png", tmp_path / "f.svg", False)
    first = _bytes(tmp_path)
    assert draw.draw(_figure(), tmp_path) == (tmp_path / "f.png", tmp_path / "f.svg", True)  # reused
    assert counted == ["f"] and _bytes(tmp_path) == first
    lines = (tmp_path / ".f.drawn").read_text().splitlines()
    assert lines[0] == key(_figure()) and len(lines) == 3


def test_what_must_redraw_redraws(tmp_path, counted, monkeypatch):
    draw.draw(_figure(), tmp_path)
    draw.draw(_figure(np.nextafter(1.0, 2.0)), tmp_path)  # one ulp
    assert len(counted) == 2
    draw.draw(_figure(), tmp_path)
    assert len(counted) == 3
    for name in ("f.png", "f.svg"):
        (tmp_path / name).unlink()
        draw.draw(_figure(), tmp_path)
        assert (tmp_path / name).is_file()
    assert len(counted) == 5
    good = (tmp_path / ".f.drawn").read_text()
    for text in ("0" * 64 + good[64:], good + "\n", good[:64]):  # another key, one byte more, the key alone
        (tmp_path / ".f.drawn").write_text(text)
        draw.draw(_figure(), tmp_path)
    assert len(counted) == 8
    png = (tmp_path / "f.png").read_bytes()
    (tmp_path / "f.png").write_bytes(png[:-1] + bytes([png[-1] ^ 1]))  # rewritten by something else
    draw.draw(_figure(), tmp_path)
    assert len(counted) == 9 and (tmp_path / "f.png").read_bytes() == png


def test_the_drawing_code_libraries_and_rc_settings_are_in_the_key(tmp_path, counted, monkeypatch):
    base = key(_figure())
    with monkeypatch.context() as m:
        m.setattr(figure_key, "_SOURCE", figure_key._SOURCE + b"\n# an edit")
        assert key(_figure()) != base
    for module in (matplotlib, figure_key.PIL):
        with monkeypatch.context() as m:
            m.setattr(module, "__version__", module.__version__ + ".post1")
            assert key(_figure()) != base
    draw.draw(_figure(), tmp_path)
    with matplotlib.rc_context({"axes.facecolor": "yellow"}):
        assert key(_figure()) != base
        draw.draw(_figure(), tmp_path)
    assert counted == ["f", "f"] and key(_figure()) == base


def test_another_process_computes_the_same_key():
    code = ("from tests.reports.test_draw_reuse import _figure, key; print(key(_figure()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == key(_figure())


def test_the_data_are_keyed_exactly_with_their_types():
    def k(data):
        return key(_figure(data=data))

    pairs = [({"a": 0.0}, {"a": -0.0}), ({1: 0.5}, {"1": 0.5}), ({"a": (1.0,)}, {"a": [1.0]}),
             ({"a": np.array([0.5])}, {"a": np.array([0.5], np.float32)}),
             ({"a": np.zeros(2)}, {"a": np.zeros(2, np.int64)}),  # the same 16 bytes
             ({"a": np.zeros(4)}, {"a": np.zeros((2, 2))}), ({"a": np.float64(1)}, {"a": np.int64(1)}),
             ({"a": np.ma.masked_array([1.0, 2.0], [False, True])}, {"a": np.array([1.0, 2.0])}),
             ({"a": None}, {"a": "None"}), ({"a": True}, {"a": 1})]
    late = np.arange(2000.0)
    late[-1] = np.nextafter(late[-1], 0.0)
    pairs.append(({"a": np.arange(2000.0)}, {"a": late}))  # every element, not a summary
    for a, b in pairs:
        assert k(a) is not None and k(b) is not None and k(a) != k(b), (a, b)
    assert k({"a": float("nan")}) == k({"a": float("nan")})


def test_data_the_key_cannot_hold_is_always_drawn(tmp_path, counted, monkeypatch):
    cyclic: list = []
    cyclic.append(cyclic)
    for odd in ({1, 2}, np.array([object()]), object(), cyclic):
        assert key(_figure(data={"odd": odd})) is None
    fig = _figure(data={"odd": {1, 2}})  # a set: no exact form (the line panel does not read it)
    for _ in range(2):
        draw.draw(fig, tmp_path)
    assert counted == ["f", "f"] and not (tmp_path / ".f.drawn").exists()
    monkeypatch.setattr(figure_key, "_SOURCE", None)  # no source to key the drawing code with
    assert key(_figure()) is None


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
