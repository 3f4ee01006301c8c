"""Seeded instance generators, registered by name (``fcocheck problems`` lists them)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from fcocheck.solvers import memory
from fcocheck.solvers.errors import InvalidProblemError
from fcocheck.solvers.generators.classification import breast_cancer_dirichlet, sparse_logistic
from fcocheck.solvers.generators.constrained import (
    constrained_logistic,
    robust_penalized,
    simplex_least_squares,
)
from fcocheck.solvers.generators.paper import lasso_paper, lowrank_paper
from fcocheck.solvers.generators.quadratic import quadratics
from fcocheck.solvers.generators.ridge import bag_of_words, ridge
from fcocheck.solvers.problem import Problem

GENERATORS: dict[str, Callable[..., Problem]] = {
    "lasso-paper": lasso_paper,
    "lowrank-paper": lowrank_paper,
    "sparse-logistic": sparse_logistic,
    "breast-cancer": breast_cancer_dirichlet,
    "quadratics": quadratics,
    "ridge": ridge,
    "bag-of-words": bag_of_words,
    "constrained-logistic": constrained_logistic,
    "simplex-ls": simplex_least_squares,
    "robust-penalized": robust_penalized,
}


def parameters(name: str) -> dict[str, Any]:
    """A generator's parameters and their defaults."""
    sig = inspect.signature(GENERATORS[name])
    return {k: p.default for k, p in sig.parameters.items()}


def describe(name: str) -> str:
    """First line of the generator's docstring."""
    return (inspect.getdoc(GENERATORS[name]) or "").splitlines()[0]


SEED_MAX = 2**63 - 1  # seeds are stored as SQLite INTEGER (signed 64-bit)
SIZES = ("clients", "samples", "d", "d1", "d2", "min_size", "max_size", "words")
MAX_FLOATS = 2**31  # 16 GiB of float64: refused before anything is allocated


def _check_value(name: str, key: str, value: Any, default: Any) -> Any:
    """Type and range rules common to every generator (seed, sizes, finite reals)."""
    if isinstance(default, bool):
        ok, rule = isinstance(value, bool), "a boolean"
    elif isinstance(default, int):
        ok, rule = isinstance(value, int) and not isinstance(value, bool), "an integer"
        if ok and key == "seed" and not 0 <= value <= SEED_MAX:
            ok, rule = False, "an integer in [0, 2^63 - 1]"
        elif ok and key in SIZES and value < 1:
            ok, rule = False, "an integer >= 1"
    elif isinstance(default, float):
        ok = isinstance(value, int | float) and not isinstance(value, bool) and bool(np.isfinite(value))
        rule = "a finite number"
    else:
        ok, rule = isinstance(value, str), "a string"
    if not ok:
        raise InvalidProblemError(f"{name}: parameter {key} = {value!r}; the rule is {rule}")
    return float(value) if isinstance(default, float) else value


def _check_size(name: str, params: dict[str, Any]) -> None:
    """Refuse instances whose data would not fit in memory, before allocating them.

    Two rules: at most ``MAX_FLOATS`` values whatever the machine, and the generation's peak
    (``memory.instance_bytes``) within the share of the memory available now (``memory.check``).
    """
    p = {**{k: v for k, v in params.items() if k in SIZES}}
    clients = p.get("clients", 1)
    per = p.get("samples", 1) * p.get("d", 1) * p.get("d1", 1) * p.get("d2", 1)
    if name == "quadratics":
        per = p.get("d", 1) ** 2
    if clients * per > MAX_FLOATS:
        raise InvalidProblemError(
            f"{name}: {clients} clients x {per} values each = {clients * per:.3g} floats; the rule is at "
            f"most {MAX_FLOATS:.3g} (16 GiB)")
    parts = memory.instance_bytes(clients * per)
    memory.check(f"instance {name!r} ({clients} clients x {per} values)", sum(parts.values()), parts,
                 "fewer clients, samples or dimensions")


def _coerce(name: str, key: str, value: Any, default: Any) -> Any:
    """Convert a command-line string to the default's type, then apply ``_check_value``."""
    if isinstance(value, str) and not isinstance(default, str):
        text = value.strip().lower()
        try:
            if isinstance(default, bool):
                if text not in ("true", "false", "1", "0"):
                    raise ValueError(value)
                value = text in ("true", "1")
            else:
                value = int(text) if isinstance(default, int) else float(text)
        except ValueError:
            raise InvalidProblemError(
                f"{name}: parameter {key} = {value!r} is not a valid {type(default).__name__}"
            ) from None
    return _check_value(name, key, value, default)


def check_parameters(name: str, params: dict[str, Any], strict: bool = False) -> dict[str, Any]:
    """The generator's parameters converted and checked (types, ranges, memory), nothing built.

    ``strict`` (typed input such as a sweep file): no conversion from strings; ``"4"`` for an
    integer parameter is an error, not 4.

    Raises:
        InvalidProblemError: unknown generator or parameter (with the closest name), a value
            breaking its rule, or an instance too large for memory.

    """
    from fcocheck.solvers.spec import closest

    if name not in GENERATORS:
        raise InvalidProblemError(
            f"unknown problem {name!r}; known: {sorted(GENERATORS)}{closest(name, list(GENERATORS))}"
        )
    defaults = parameters(name)
    for key in params:
        if key not in defaults:
            raise InvalidProblemError(
                f"problem {name!r} has no parameter {key!r}; its parameters are "
                f"{list(defaults)}{closest(key, list(defaults))}"
            )
    convert = _check_value if strict else _coerce
    values = {k: convert(name, k, v, defaults[k]) for k, v in params.items()}
    _check_size(name, {**defaults, **values})
    return values


def generate(name: str, **params: Any) -> Problem:
    """Build the named instance; string parameter values are converted to the default's type.

    Raises:
        InvalidProblemError: see ``check_parameters``.

    """
    values = check_parameters(name, params)  # first: it names an unknown generator
    return GENERATORS[name](**values)


__all__ = ["GENERATORS", "check_parameters", "generate", "parameters", "describe"]
