"""The key a figure's files were drawn from: a drawing is reused only when nothing deciding its bytes changed.

``figure_key(fig)`` is the SHA-256 of

* the drawing code this process runs: ``reports/draw.py``'s source, read when this module is imported
  (``draw`` imports it at its own import), so a later edit of the file is not taken for the code running;
* the versions of matplotlib, Pillow (matplotlib's PNG writer) and zlib, and every rc setting in force
  (a ``matplotlibrc`` or an ``rc_context`` changes the picture);
* the figure's data, each value tagged with its type (``solvers.exact_digest``: a float by its exact
  hexadecimal form, −0.0 and 0.0 apart, an array by dtype, shape, bytes and mask, a dict's keys with
  their types, a tuple apart from a list, a dataclass by its name and fields).

Data holding anything else (an object array, a value of another class, a cycle) has no key (None): such
a figure is always drawn.  The key file ``.STEM.drawn`` holds the key and the SHA-256 of the PNG and of
the SVG written from it (``key_text``); ``reusable`` is true only when all three still match, so files
that anything else rewrote are drawn again.
"""

from __future__ import annotations

import hashlib
import stat
import zlib
from pathlib import Path
from typing import Any

import matplotlib
import PIL

from fcocheck.solvers.exact_digest import feed, token

try:  # the drawing code as this process imported it
    _SOURCE: bytes | None = Path(__file__).with_name("draw.py").read_bytes()
except OSError:  # pragma: no cover - an install without sources: no key, every figure drawn
    _SOURCE = None

#: the largest key file read back (a key and two file digests, one per line)
KEY_BYTES = 3 * 65


def _renderer(h: Any) -> None:
    """What decides the bytes besides the data (module docstring)."""
    token(h, b"r", _SOURCE or b"")
    token(h, b"v", f"{matplotlib.__version__} {PIL.__version__} {zlib.ZLIB_RUNTIME_VERSION}".encode())
    for k, v in sorted(dict.items(matplotlib.rcParams)):
        token(h, b"p", f"{k}={v!r}".encode())


def figure_key(fig: Any) -> str | None:
    """The SHA-256 hex key of ``fig`` as this process would draw it, or None (always drawn)."""
    if _SOURCE is None:
        return None
    h = hashlib.sha256()
    try:
        _renderer(h)
        feed(h, fig)
    except (TypeError, RecursionError):
        return None
    return h.hexdigest()


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def key_text(key: str, png: Path, svg: Path) -> str:
    """The key file's text: the key, then the digests of the two files just written."""
    return f"{key}\n{_digest(png)}\n{_digest(svg)}\n"


def reusable(png: Path, svg: Path, key_file: Path, key: str) -> bool:
    """Whether the key file vouches for ``key`` and for both files' present bytes, all three regular files.

    Links are refused by the caller (``Writer.path``), as writing would refuse them.
    """
    try:
        if not all(stat.S_ISREG(p.lstat().st_mode) for p in (png, svg, key_file)):
            return False
        with open(key_file, "rb") as fh:
            text = fh.read(KEY_BYTES + 1)
        return text.decode("ascii", "replace") == key_text(key, png, svg)
    except OSError:  # missing or unreadable: draw it
        return False
