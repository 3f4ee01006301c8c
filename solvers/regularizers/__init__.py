"""Regularisers ψ (SPEC 2.1) and their registry: ``make({"name": "l1", "lam": 0.5})``."""

from __future__ import annotations

import difflib
from typing import Any

from solvers.errors import InvalidRegularizerError
from solvers.regularizers.base import Regularizer, Zero
from solvers.regularizers.free_tail import FreeTail
from solvers.regularizers.group import GroupLasso
from solvers.regularizers.norms import L1, ElasticNet, L2Squared, soft_threshold
from solvers.regularizers.nuclear import Nuclear
from solvers.regularizers.sets import (
    Box,
    L1Ball,
    L2Ball,
    Monotone,
    NonNegative,
    Simplex,
    project_simplex,
)
from solvers.regularizers.weakly_convex import MCP, SCAD

REGISTRY: dict[str, type[Regularizer]] = {
    cls.name: cls
    for cls in (
        Zero, L1, L2Squared, ElasticNet, GroupLasso, Nuclear, L1Ball, L2Ball, Box, Simplex,
        NonNegative, Monotone, MCP, SCAD,
    )
}

PARAMETERS: dict[str, tuple[str, ...]] = {
    "zero": (), "l1": ("lam",), "l2sq": ("lam",), "elastic_net": ("lam1", "lam2"),
    "group_lasso": ("lam", "groups"), "nuclear": ("lam", "shape"), "l1_ball": ("radius",),
    "l2_ball": ("radius",), "box": ("lo", "hi"), "simplex": ("radius",), "nonneg": (),
    "monotone": (), "mcp": ("lam", "gamma"), "scad": ("lam", "a"),
}


def closest(name: str, choices: list[str] | tuple[str, ...]) -> str:
    """A ``; did you mean 'x'?`` suffix naming the closest choice, or ''."""
    match = difflib.get_close_matches(name, list(choices), n=1)
    return f"; did you mean {match[0]!r}?" if match else ""


def make(spec: dict[str, Any]) -> Regularizer:
    """Build a regulariser from its JSON description ``{"name": ..., params...}``.

    Raises:
        InvalidRegularizerError: unknown name or parameter, or a parameter breaking its rule.

    """
    if not isinstance(spec, dict) or "name" not in spec:
        raise InvalidRegularizerError(
            f"regularizer spec {spec!r} is invalid; the rule is a dict with a 'name' key"
        )
    name = str(spec["name"])
    if name not in REGISTRY:
        raise InvalidRegularizerError(
            f"unknown regularizer {name!r}; known: {sorted(REGISTRY)}{closest(name, list(REGISTRY))}"
        )
    params = {k: v for k, v in spec.items() if k != "name"}
    for key in params:
        if key not in PARAMETERS[name]:
            raise InvalidRegularizerError(
                f"regularizer {name!r} has no parameter {key!r}; its parameters are "
                f"{list(PARAMETERS[name])}{closest(key, PARAMETERS[name])}"
            )
    if "groups" in params:
        params["groups"] = tuple(int(g) for g in params["groups"])
    if "shape" in params:
        params["shape"] = tuple(int(s) for s in params["shape"])
    return REGISTRY[name](**params)


__all__ = [
    "REGISTRY", "PARAMETERS", "Regularizer", "Zero", "L1", "L2Squared", "ElasticNet",
    "GroupLasso", "Nuclear", "L1Ball", "L2Ball", "Box", "Simplex", "NonNegative", "Monotone",
    "MCP", "SCAD", "FreeTail", "make", "closest", "soft_threshold", "project_simplex",
]
