"""The key a figure's files were drawn from: a drawing is reused only when nothing deciding its bytes changed.

``figure_key(fig)`` is the SHA-256 of

* the drawing code this process runs: ``reports/draw.py``'s source, read when this module is imported
  (``draw`` imports it at its own import), so a later edit of the file is not taken for the code running;
* the versions of matplotlib, Pillow (matplotlib's PNG writer) and zlib, and every rc setting in force
  (a ``matplotlibrc`` or an ``rc_context`` changes the picture);
* the figure's data, each value tagged with its type: a float by its exact hexadecimal form (−0.0 and
  0.0 apart), an array by dtype, shape, bytes and mask, a dict's keys with their types, a tuple apart
  from a list, a dataclass by its name and fields.

Data holding anything else (an object array, a value of another class, a cycle) has no key (None): such
a figure is always drawn.  The key file ``.STEM.drawn`` holds the key and the SHA-256 of the PNG and of
the SVG written from it (``key_text``); ``reusable`` is true only when all three still match, so files
that anything else rewrote are drawn again.
"""

from __future__ import annotations

import dataclasses
import hashlib
import stat
import zlib
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import PIL

try:  # the drawing code as this process imported it
    _SOURCE: bytes | None = Path(__file__).with_name("draw.py").read_bytes()
except OSError:  # pragma: no cover - an install without sources: no key, every figure drawn
    _SOURCE = None

#: the largest key file read back (a key and two file digests, one per line)
KEY_BYTES = 3 * 65


def _token(h: Any, tag: bytes, payload: bytes = b"") -> None:
    """One tagged, length-prefixed item (no two different sequences of items feed the same bytes)."""
    h.update(tag + len(payload).to_bytes(8, "little") + payload)


def _feed(h: Any, x: Any) -> None:
    """Hash ``x`` exactly, with its type (module docstring); TypeError for what has no exact form."""
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        _token(h, b"D", type(x).__qualname__.encode())
        for f in dataclasses.fields(x):
            _token(h, b"f", f.name.encode())
            _feed(h, getattr(x, f.name))
    elif isinstance(x, dict):
        _token(h, b"{", str(len(x)).encode())
        for k in sorted(x, key=lambda k: (type(k).__qualname__, repr(k))):
            _feed(h, k)
            _feed(h, x[k])
    elif isinstance(x, (list, tuple)):
        _token(h, b"[" if isinstance(x, list) else b"(", str(len(x)).encode())
        for v in x:
            _feed(h, v)
    elif x is None or isinstance(x, bool):
        _token(h, b"c", repr(x).encode())
    elif isinstance(x, int):
        _token(h, b"i", str(x).encode())
    elif isinstance(x, float):
        _token(h, b"x", x.hex().encode())
    elif isinstance(x, str):
        _token(h, b"s", x.encode("utf-8", "surrogatepass"))
    elif isinstance(x, np.ndarray) and x.dtype != object:
        _token(h, b"a", f"{x.dtype.str}{x.shape}".encode())
        _token(h, b"b", np.ascontiguousarray(x).tobytes())
        if isinstance(x, np.ma.MaskedArray):
            _token(h, b"m", np.ascontiguousarray(np.ma.getmaskarray(x)).tobytes())
    elif isinstance(x, np.generic) and not isinstance(x, np.object_):
        _token(h, b"g", x.dtype.str.encode() + x.tobytes())
    else:
        raise TypeError(f"{type(x).__name__} in a figure's data has no exact key")


def _renderer(h: Any) -> None:
    """What decides the bytes besides the data (module docstring)."""
    _token(h, b"r", _SOURCE or b"")
    _token(h, b"v", f"{matplotlib.__version__} {PIL.__version__} {zlib.ZLIB_RUNTIME_VERSION}".encode())
    for k, v in sorted(dict.items(matplotlib.rcParams)):
        _token(h, b"p", f"{k}={v!r}".encode())


def figure_key(fig: Any) -> str | None:
    """The SHA-256 hex key of ``fig`` as this process would draw it, or None (always drawn)."""
    if _SOURCE is None:
        return None
    h = hashlib.sha256()
    try:
        _renderer(h)
        _feed(h, fig)
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
