"""Method cards, one file per method: every module here defines ``CARD`` (``fcocheck.solvers.card.Card``).

The registry (``fcocheck.solvers.algorithms``) imports every module of this package and registers
its card, so a method added here is at once known to ``run``, ``sweep``, ``check``, ``worstcase`` and
the report — nothing else is edited.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the registry imports this package while it is being built: no import of it here
    from fcocheck.solvers.card import Card


def cards() -> list[Card]:
    """The card of every module of this package, in module-name order."""
    out = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        out.append(module.CARD)
    return out
