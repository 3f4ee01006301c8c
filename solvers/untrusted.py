"""Reading what fcocheck does not control, with bounds, before any of it is believed.

Sweep files, instance meta, store rows and cache entries are read through:

* ``read_bytes(path, what, limit)``: a **regular** file only (a FIFO or ``/dev/zero`` would block or never
  end; a directory is not a file), at most ``limit`` bytes (read ``limit + 1`` and refuse, never the
  whole of an endless stream);
* ``loads(text, what)``: JSON of bounded size and nesting depth (a document nested 10⁵ deep crashed
  Python's parser with ``RecursionError``), with ``NaN``/``Infinity`` refused (they are not JSON).

Every refusal raises the caller's error type with the value and the rule named.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from fcocheck.solvers.errors import FcocheckError

MAX_DEPTH = 64  # nesting of a JSON document (configurations need < 10)
MAX_JSON_BYTES = 64 * 2**20  # a sweep file, a meta string or a stored row


def _fail(error: type[Exception], message: str) -> Exception:
    return error(message)


def regular_file(path: str | os.PathLike, what: str, error: type[Exception] = FcocheckError) -> Path:
    """``path`` if it is an existing regular file (a symlink to one is followed); else ``error``."""
    p = Path(path)
    try:
        st = p.stat()
    except FileNotFoundError:
        raise _fail(error, f"{what} {str(p)!r} does not exist") from None
    except OSError as exc:
        raise _fail(error, f"{what} {str(p)!r}: {exc.strerror}; the rule is a readable regular file") \
            from None
    if not stat.S_ISREG(st.st_mode):
        kind = ("a directory" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode)
                else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else "a socket"
                if stat.S_ISSOCK(st.st_mode) else "not a regular file")
        raise _fail(error, f"{what} {str(p)!r} is {kind}; the rule is a regular file")
    return p


def read_bytes(path: str | os.PathLike, what: str, limit: int = MAX_JSON_BYTES,
               error: type[Exception] = FcocheckError) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes."""
    p = regular_file(path, what, error)
    try:
        with open(p, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise _fail(error, f"{what} {str(p)!r}: {exc.strerror}; the rule is a readable file") from None
    if len(data) > limit:
        raise _fail(error, f"{what} {str(p)!r} is larger than {limit} bytes; the rule is at most {limit}")
    return data


def depth(text: str) -> int:
    """The deepest nesting of ``[``/``{`` outside strings (a linear scan; no recursion)."""
    deepest = level = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            level += 1
            deepest = max(deepest, level)
        elif ch in "]}":
            level -= 1
    return deepest


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a finite JSON number")


def loads(text: str | bytes, what: str, error: type[Exception] = FcocheckError,
          max_depth: int = MAX_DEPTH, limit: int = MAX_JSON_BYTES, constants: bool = False) -> Any:
    """``json.loads`` of untrusted text, bounded in size and depth.

    ``constants``: accept Python's ``NaN``/``Infinity`` extension (fcocheck's own stored payloads carry
    them, e.g. a residual of a diverged run); refused otherwise (configurations are keyed by their JSON).
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _fail(error, f"{what} is not UTF-8 text ({exc.reason}); the rule is JSON") from None
    if len(text) > limit:
        raise _fail(error, f"{what} is {len(text)} characters; the rule is at most {limit}")
    d = depth(text)
    if d > max_depth:
        raise _fail(error, f"{what} is nested {d} deep; the rule is at most {max_depth}")
    try:
        return json.loads(text) if constants else json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise _fail(error, f"{what} is not JSON ({exc}); the rule is a JSON document") from None


def read_json(path: str | os.PathLike, what: str, error: type[Exception] = FcocheckError,
              limit: int = MAX_JSON_BYTES) -> Any:
    """``loads(read_bytes(path))``."""
    return loads(read_bytes(path, what, limit, error), f"{what} {str(path)!r}", error, limit=limit)
