"""A theorem's published tuned rate and its tuned step, as expressions a claim file names.

``partial(rate, "fco-4.3")`` and ``partial(step, "fco-4.3")`` are built when the claim is judged (the
step balances the theorem's decreasing term against the others: ``rates.algebra.tuning_constants``).
"""

from __future__ import annotations

from functools import cache

import sympy as sp


def rate(theorem: str) -> sp.Expr:
    """The theorem's published tuned rate (the catalog's tuned terms)."""
    from fcocheck.rates.catalog import THEOREMS

    return THEOREMS[theorem].tuned


@cache
def step(theorem: str) -> sp.Expr:
    """The theorem's tuned η_c, an expression in its constants and R."""
    from fcocheck.rates.algebra import tuning_constants
    from fcocheck.rates.catalog import THEOREMS

    return tuning_constants(THEOREMS[theorem]).step
