"""Building components from JSON specs ``{"name": ..., params...}`` with helpful errors."""

from __future__ import annotations

import difflib
import numbers
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np


def closest(name: str, choices: Sequence[str]) -> str:
    """A ``; did you mean 'x'?`` suffix naming the closest choice, or ''."""
    match = difflib.get_close_matches(name, list(choices), n=1)
    return f"; did you mean {match[0]!r}?" if match else ""


def build_from_spec(
    kind: str,
    spec: Any,
    registry: Mapping[str, Callable[..., Any]],
    parameters: Mapping[str, Sequence[str]],
    error: type[Exception],
) -> tuple[Callable[..., Any], dict[str, Any]]:
    """Validate ``spec`` against a registry; return (constructor, parameters).

    Args:
        kind: what is built ("regularizer", "mirror map"), for messages.
        spec: the JSON description.
        registry: name → constructor.
        parameters: name → accepted parameter names.
        error: exception type raised on bad input.

    """
    if not isinstance(spec, dict) or "name" not in spec:
        raise error(f"{kind} spec {spec!r} is invalid; the rule is a dict with a 'name' key")
    name = str(spec["name"])
    if name not in registry:
        raise error(f"unknown {kind} {name!r}; known: {sorted(registry)}{closest(name, list(registry))}")
    params = {k: v for k, v in spec.items() if k != "name"}
    for key, value in params.items():
        if key not in parameters[name]:
            raise error(f"{kind} {name!r} has no parameter {key!r}; its parameters are "
                        f"{list(parameters[name])}{closest(key, parameters[name])}")
        if not (_number(value) or (key in LIST_PARAMETERS and isinstance(value, list | tuple)
                                   and len(value) <= MAX_LIST and all(_number(v) for v in value))):
            shape = "a list of numbers" if key in LIST_PARAMETERS else "a number"
            raise error(f"{kind} {name!r}: {key} = {value!r} ({type(value).__name__}); the rule is {shape} "
                        "(never a string or a boolean: nothing is coerced)")
    return registry[name], params


#: parameters given as lists (group labels, a nuclear norm's shape, a diagonal mirror map's entries)
LIST_PARAMETERS = ("groups", "shape", "a")
MAX_LIST = 10**7


def _number(v: Any) -> bool:
    """A real number (Python or numpy), never a boolean or a string."""
    return isinstance(v, numbers.Real) and not isinstance(v, bool | np.bool_)
