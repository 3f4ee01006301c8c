"""Which of two runs wins on each side of a crossover: the rule of a claim "A beats B iff x ≲ x*".

A remark such as FCO's after Thm 4.2 — rate (4.3) beats rate (4.1) iff R ≲ L²B/G² — names a crossover x*
known up to its constants.  Measured as the ratio y_A/y_B at each point x of a sweep, it is judged only
where the constants cannot move the crossover past the point: at x ≤ x*/``MARGIN`` A must win
(ratio < 1), at x ≥ ``MARGIN``·x* B must (ratio > 1); the points between, and those where the ratio was not
measured (nan: both runs within their resolution), are not judged.  The comparisons are exact (runs
without random numbers): the rule has no false alarms to measure; its power is that the same ratios with
A and B swapped are rejected whenever a point is judged.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from fcocheck.rates.threshold import at_least, at_most
from fcocheck.rates.verdict import CONSISTENT, INCONCLUSIVE, INCONSISTENT, Verdict

#: how far from the crossover a point must be to be judged (its constants are free)
MARGIN = 4.0


def crossover_sides(x: Sequence[float], ratio: Sequence[float], crossover: float,
                    name: str = "x") -> Verdict:
    """A wins (``ratio`` < 1) at x ≤ crossover/MARGIN, B (> 1) at x ≥ MARGIN·crossover (module docstring).

    Args:
        x: the sweep.
        ratio: y_A/y_B at each point (nan: not measured; 0 and ∞ are decisive).
        crossover: x*, where the claim says the winner changes.
        name: the swept name, for the reason.

    Returns:
        Consistent when every judged point has the named winner (the reason names the sides measured),
        inconsistent naming the points where it does not, inconclusive when no point is judged.

    """
    judged = [(float(v), float(r) < 1.0) for v, r in zip(x, ratio, strict=True)
              if not np.isnan(r) and float(r) != 1.0
              and (at_most(v, crossover / MARGIN) or at_least(v, MARGIN * crossover))]
    evidence = {"crossover": float(crossover), "margin": MARGIN}
    if not judged:
        return Verdict(INCONCLUSIVE, "crossover sides",
                       f"no point of the sweep is {MARGIN:g}× away from {name}* = {crossover:.3g} with a "
                       "measured winner (a tie, or both runs within their resolution, is not judged)",
                       evidence)
    wrong = [v for v, a_wins in judged if a_wins != (v < crossover)]
    sides = sorted({f"{name} ≲ {name}*" if v < crossover else f"{name} ≳ {name}*" for v, _ in judged})
    miss = f" (not at {name} = {', '.join(f'{v:g}' for v in wrong)})" if wrong else ""
    return Verdict(CONSISTENT if not wrong else INCONSISTENT, "crossover sides",
                   f"{name}* = {crossover:.3g}; sides measured: {', '.join(sides)}; the named run wins at "
                   f"{len(judged) - len(wrong)} of {len(judged)} points{miss}",
                   {**evidence, "wrong": wrong, "sides": sides})
