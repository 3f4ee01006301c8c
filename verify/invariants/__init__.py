"""Every invariant of the toolkit: ``INVARIANTS`` (name → ``Invariant``), ``get(name)``."""

from __future__ import annotations

from fcocheck.verify.invariants import (
    controls,
    counts,
    fco,
    logged,
    moments,
    oracles,
    reductions,
    relational,
    seed004,
    skip,
    written,
    written_baselines,
)
from fcocheck.verify.invariants.base import Invariant, expected

INVARIANTS: dict[str, Invariant] = {
    inv.name: inv
    for module in (
        seed004,
        fco,
        written,
        written_baselines,
        logged,
        controls,
        reductions,
        relational,
        counts,
        skip,
        oracles,
        moments,
    )
    for inv in module.INVARIANTS
}


def for_algorithm(name: str) -> list[Invariant]:
    """The invariants that concern registry entry ``name``."""
    return [inv for inv in INVARIANTS.values() if name in inv.algorithms]


__all__ = ["INVARIANTS", "Invariant", "expected", "for_algorithm"]
