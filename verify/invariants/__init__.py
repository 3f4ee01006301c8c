"""Every invariant of the toolkit: ``INVARIANTS`` (name → ``Invariant``), ``get(name)``."""

from __future__ import annotations

from fcocheck.verify.invariants import (
    cards,
    controls,
    counts,
    fco,
    logged,
    moments,
    oracles,
    reductions,
    relational,
    sampling,
    seed004,
    skip,
    written_baselines,
)
from fcocheck.verify.invariants.base import Invariant, expected

INVARIANTS: dict[str, Invariant] = {
    inv.name: inv
    for module in (
        cards,
        seed004,
        fco,
        written_baselines,
        logged,
        controls,
        reductions,
        relational,
        counts,
        skip,
        oracles,
        moments,
        sampling,
    )
    for inv in module.INVARIANTS
}


def _add_card(card) -> None:  # noqa: ANN001
    INVARIANTS.update({inv.name: inv for inv in cards.card_invariants([card])})


def _drop_card(name: str) -> None:
    """Drop every invariant that concerns the card ``name``.

    Its own and the generic ones (client split, zero weight …) built for it while it was registered.
    """
    for key in [k for k, inv in INVARIANTS.items() if name in inv.algorithms]:
        INVARIANTS.pop(key, None)


def _registered() -> None:
    """Invariants of users' cards registered before this module was imported, and of those to come."""
    from fcocheck.solvers import algorithms

    for card in algorithms.CARDS.values():
        if f"written-{card.name}" not in INVARIANTS:
            _add_card(card)
    algorithms._ON_REGISTER.append(_add_card)
    algorithms._ON_UNREGISTER.append(_drop_card)


_registered()


def for_algorithm(name: str) -> list[Invariant]:
    """The invariants that concern registry entry ``name``."""
    return [inv for inv in INVARIANTS.values() if name in inv.algorithms]


__all__ = ["INVARIANTS", "Invariant", "expected", "for_algorithm"]
