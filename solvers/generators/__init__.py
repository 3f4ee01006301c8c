"""Seeded instance generators, registered by name (``fcocheck problems`` lists them)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from solvers.errors import InvalidProblemError
from solvers.generators.classification import breast_cancer_dirichlet, sparse_logistic
from solvers.generators.constrained import (
    constrained_logistic,
    robust_penalized,
    simplex_least_squares,
)
from solvers.generators.paper import lasso_paper, lowrank_paper
from solvers.generators.quadratic import quadratics
from solvers.generators.ridge import bag_of_words, ridge
from solvers.problem import Problem

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


def _coerce(name: str, key: str, value: Any, default: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        if isinstance(default, bool):
            if value.lower() not in ("true", "false", "1", "0"):
                raise ValueError(value)
            return value.lower() in ("true", "1")
        if isinstance(default, int):
            return int(value)
        if isinstance(default, float):
            return float(value)
    except ValueError:
        raise InvalidProblemError(
            f"{name}: parameter {key} = {value!r} is not a valid {type(default).__name__}"
        ) from None
    return value


def generate(name: str, **params: Any) -> Problem:
    """Build the named instance; string parameter values are converted to the default's type.

    Raises:
        InvalidProblemError: unknown generator or parameter (with the closest name).

    """
    from solvers.spec import closest

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
    return GENERATORS[name](**{k: _coerce(name, k, v, defaults[k]) for k, v in params.items()})


__all__ = ["GENERATORS", "generate", "parameters", "describe"]
