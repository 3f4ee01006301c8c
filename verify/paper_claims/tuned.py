"""A theorem's published tuned rate and its tuned step, as expressions a claim file names.

``partial(rate, "fco-4.3")`` and ``partial(step, "fco-4.3")`` are built when the claim is judged (the
step balances the theorem's decreasing term against the others: ``rates.algebra.tuning_constants``).
"""

from __future__ import annotations

from functools import cache
from typing import Any

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


#: R swept by a tuned-rate claim (the window where the bounded-ratio rule has its power, quick design)
ROUNDS = (10, 20, 40, 80, 160, 320, 640)


def claim(name: str, theorem: Any, label: str, local_steps: int, **fields: Any) -> Any:
    """FedDualAvg at ``theorem``'s tuned step, judged against its tuned rate along R.

    What the tuned claims share: the method, the bound and the step (the theorem's own, ``rate`` and
    ``step``), K, the sweep ``ROUNDS``, the theorem and its source; ``fields`` holds the rest (the class,
    the stated constants, the oracle, the full design).  Their worst case is the theorem's tightness
    study (``verify.worstcase``).
    """
    from functools import partial

    from fcocheck.verify.claim import Claim

    hp = {"eta_c": partial(step, theorem.name), "local_steps": local_steps}
    return Claim(name, method="feddualavg", bound=partial(rate, theorem.name), label=label,
                 along=("rounds", ROUNDS), hp=hp, worst=False, theorem=theorem.name, **fields)
