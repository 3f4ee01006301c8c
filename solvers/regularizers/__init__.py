"""Regularisers ψ and their registry: ``make({"name": "l1", "lam": 0.5})``."""

from __future__ import annotations

from typing import Any

from fcocheck.solvers.errors import InvalidRegularizerError
from fcocheck.solvers.regularizers.base import Regularizer, Zero
from fcocheck.solvers.regularizers.free_tail import FreeTail
from fcocheck.solvers.regularizers.group import GroupLasso
from fcocheck.solvers.regularizers.norms import L1, ElasticNet, L2Squared, soft_threshold
from fcocheck.solvers.regularizers.nuclear import Nuclear
from fcocheck.solvers.regularizers.sets import (
    Box,
    L1Ball,
    L2Ball,
    Monotone,
    NonNegative,
    Simplex,
    project_simplex,
)
from fcocheck.solvers.regularizers.weakly_convex import MCP, SCAD
from fcocheck.solvers.spec import build_from_spec, closest

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


def make(spec: dict[str, Any]) -> Regularizer:
    """Build a regulariser from its JSON description ``{"name": ..., params...}``.

    Raises:
        InvalidRegularizerError: unknown name or parameter, or a parameter breaking its rule.

    """
    cls, params = build_from_spec("regularizer", spec, REGISTRY, PARAMETERS, InvalidRegularizerError)
    if "groups" in params:
        params["groups"] = tuple(int(g) for g in params["groups"])
    if "shape" in params:
        params["shape"] = tuple(int(s) for s in params["shape"])
    return cls(**params)


__all__ = [
    "REGISTRY", "PARAMETERS", "Regularizer", "Zero", "L1", "L2Squared", "ElasticNet",
    "GroupLasso", "Nuclear", "L1Ball", "L2Ball", "Box", "Simplex", "NonNegative", "Monotone",
    "MCP", "SCAD", "FreeTail", "make", "closest", "soft_threshold", "project_simplex",
]
