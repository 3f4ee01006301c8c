"""Helpers shared by the command-line sub-commands (light: nothing heavy at import)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from fcocheck.solvers.errors import FcocheckError

if TYPE_CHECKING:
    from fcocheck.solvers.problem import Problem


class UsageError(FcocheckError):
    """A malformed command-line argument."""


def parse_params(items: list[str]) -> dict[str, str]:
    """``["k=v", ...]`` → ``{"k": "v"}``."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--param {item!r} is malformed; the rule is NAME=VALUE")
        out[key] = value
    return out


def _creatable(path: Path, what: str) -> None:
    """A directory that exists, or whose nearest existing ancestor is a writable directory."""
    if path.exists() and not path.is_dir():
        raise UsageError(f"{what} {str(path)!r} is a file; the rule is a directory")
    probe = path
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not (probe.is_dir() and os.access(probe, os.W_OK | os.X_OK)):
        raise UsageError(f"{what} {str(path)!r} cannot be created or written ({str(probe)!r} is not a "
                         "writable directory); the rule is a writable path")


def check_writable(target: str | os.PathLike | None, directory: bool = False,
                   create_parents: bool = False) -> None:
    """Refuse, before any work, an output path that cannot be written.

    A file target needs a writable parent directory that exists (or, with ``create_parents``,
    can be created) and must not be a directory; a directory target must be a directory or
    creatable.  A path the file system cannot even look up (a name over 255 bytes, a loop of links)
    is refused with its cause.  Nothing is created here.
    """
    if target is None:
        return
    try:
        _check_writable(Path(target), directory, create_parents)
    except OSError as exc:
        raise UsageError(f"output path {str(target)[:80]!r}{'...' if len(str(target)) > 80 else ''}: "
                         f"{exc.strerror or exc}; the rule is a path the file system accepts (each name at "
                         "most 255 bytes)") from None


def _check_writable(path: Path, directory: bool, create_parents: bool) -> None:
    if directory:
        _creatable(path, "output directory")
        return
    if path.is_dir():
        raise UsageError(f"output file {str(path)!r} is a directory; the rule is a file path")
    parent = path.parent if str(path.parent) else Path(".")
    if create_parents:
        _creatable(parent, f"directory of {str(path)!r}")
        if path.exists() and not os.access(path, os.W_OK):
            raise UsageError(f"output file {str(path)!r} is not writable; the rule is a writable path")
        return
    if not parent.is_dir():
        raise UsageError(f"output file {str(path)!r}: directory {str(parent)!r} does not exist; the "
                         "rule is an existing, writable directory")
    if not os.access(parent, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UsageError(f"output file {str(path)!r} is not writable; the rule is a writable path")


def load_problem(spec: str, params: dict[str, str], seed: int | None) -> Problem:
    """A generator name (with parameters) or the path of an instance file."""
    from fcocheck.solvers.generators import generate
    from fcocheck.solvers.instance_io import load_instance

    if spec.endswith(".npz") or Path(spec).is_file():
        if params:
            raise UsageError("--param applies to generators, not to instance files")
        return load_instance(spec)
    if seed is not None:
        params = {**params, "seed": str(seed)}
    return generate(spec, **params)
