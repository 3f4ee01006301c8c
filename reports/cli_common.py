"""Helpers shared by the command-line sub-commands."""

from __future__ import annotations

from pathlib import Path

from solvers.errors import FcocheckError
from solvers.generators import generate
from solvers.instance_io import load_instance
from solvers.problem import Problem


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


def load_problem(spec: str, params: dict[str, str], seed: int | None) -> Problem:
    """A generator name (with parameters) or the path of an instance file."""
    if spec.endswith(".npz") or Path(spec).is_file():
        if params:
            raise UsageError("--param applies to generators, not to instance files")
        return load_instance(spec)
    if seed is not None:
        params = {**params, "seed": str(seed)}
    return generate(spec, **params)
