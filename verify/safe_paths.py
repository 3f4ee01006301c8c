"""Paths built from stored or user data must stay inside the directory they are written to.

A results store is data: a crafted (yet well-formed) store can name a counterexample file
``/etc/x`` or ``../../x``.  ``inside(root, rel)`` resolves the path and refuses it unless it lies
under ``root`` (after following symbolic links), so nothing is ever written elsewhere.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from fcocheck.solvers.errors import FcocheckError


class UnsafePathError(FcocheckError):
    """A file name from stored or user data that would leave the output directory."""


def inside(root: Path, rel: str) -> Path:
    """``root / rel`` if it stays under ``root``; otherwise ``UnsafePathError``."""
    parts = PurePosixPath(str(rel)).parts
    if not rel or PurePosixPath(str(rel)).is_absolute() or Path(str(rel)).is_absolute() or ".." in parts \
            or "\x00" in str(rel):
        raise UnsafePathError(f"file name {str(rel)!r} from the results store leaves the output directory "
                              f"{str(root)!r}; the rule is a relative path without '..'")
    base = root.resolve()
    target = (base / rel).resolve()
    if target != base and base not in target.parents:
        raise UnsafePathError(f"file name {str(rel)!r} resolves to {str(target)!r}, outside {str(base)!r}; "
                              "the rule is a path inside the output directory (no escaping symlinks)")
    return target
