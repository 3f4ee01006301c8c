"""Mirror maps h and their registry: ``make({"name": "pnorm", "p": 1.5})``."""

from __future__ import annotations

from typing import Any

from fcocheck.solvers.errors import InvalidMirrorMapError
from fcocheck.solvers.mirror_maps.base import MirrorMap
from fcocheck.solvers.mirror_maps.free_tail import FreeTailMirror
from fcocheck.solvers.mirror_maps.maps import DiagonalQuadratic, Entropy, Euclidean, PNorm
from fcocheck.solvers.spec import build_from_spec

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
    cls, params = build_from_spec("mirror map", spec, REGISTRY, PARAMETERS, InvalidMirrorMapError)
    if "a" in params:
        params["a"] = tuple(float(x) for x in params["a"])
    return cls(**params)


__all__ = [
    "REGISTRY", "MirrorMap", "Euclidean", "DiagonalQuadratic", "PNorm", "Entropy",
    "FreeTailMirror", "make",
]
