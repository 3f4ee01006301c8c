"""Mirror maps h (SPEC 2.2) and their registry: ``make({"name": "pnorm", "p": 1.5})``."""

from __future__ import annotations

from typing import Any

from solvers.errors import InvalidMirrorMapError
from solvers.mirror_maps.base import MirrorMap
from solvers.mirror_maps.free_tail import FreeTailMirror
from solvers.mirror_maps.maps import DiagonalQuadratic, Entropy, Euclidean, PNorm

REGISTRY: dict[str, type[MirrorMap]] = {
    cls.name: cls for cls in (Euclidean, DiagonalQuadratic, PNorm, Entropy)
}
PARAMETERS: dict[str, tuple[str, ...]] = {
    "euclidean": (), "diagonal": ("a",), "pnorm": ("p",), "entropy": (),
}


def make(spec: dict[str, Any]) -> MirrorMap:
    """Build a mirror map from ``{"name": ..., params...}``.

    Raises:
        InvalidMirrorMapError: unknown name or parameter, or a parameter breaking its rule.

    """
    from solvers.regularizers import closest

    if not isinstance(spec, dict) or "name" not in spec:
        raise InvalidMirrorMapError(
            f"mirror spec {spec!r} is invalid; the rule is a dict with a 'name' key"
        )
    name = str(spec["name"])
    if name not in REGISTRY:
        raise InvalidMirrorMapError(
            f"unknown mirror map {name!r}; known: {sorted(REGISTRY)}{closest(name, list(REGISTRY))}"
        )
    params = {k: v for k, v in spec.items() if k != "name"}
    for key in params:
        if key not in PARAMETERS[name]:
            raise InvalidMirrorMapError(
                f"mirror map {name!r} has no parameter {key!r}; its parameters are "
                f"{list(PARAMETERS[name])}{closest(key, PARAMETERS[name])}"
            )
    if "a" in params:
        params["a"] = tuple(float(x) for x in params["a"])
    return REGISTRY[name](**params)


__all__ = [
    "REGISTRY", "MirrorMap", "Euclidean", "DiagonalQuadratic", "PNorm", "Entropy",
    "FreeTailMirror", "make",
]
