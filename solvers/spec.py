"""Building components from JSON specs ``{"name": ..., params...}`` with helpful errors."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping, Sequence
from typing import Any


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
    for key in params:
        if key not in parameters[name]:
            raise error(f"{kind} {name!r} has no parameter {key!r}; its parameters are "
                        f"{list(parameters[name])}{closest(key, parameters[name])}")
    return registry[name], params
