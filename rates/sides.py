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


def crossover_sides(x: Sequence[float], ratio: Sequence[float], crossover: float | Sequence[float],
                    name: str = "x") -> Verdict:
    """A wins (``ratio`` < 1) at x ≤ crossover/MARGIN, B (> 1) at x ≥ MARGIN·crossover (module docstring).

    Args:
        x: the sweep.
        ratio: y_A/y_B at each point (nan: not measured; 0 and ∞ are decisive).
        crossover: x*, where the claim says the winner changes: one, or one per point (a sweep of a class
            parameter draws each point's instance, with its own constants).
        name: the swept name, for the reason.

    Returns:
        Consistent when every judged point has the named winner (the reason names the sides measured),
        inconsistent naming the points where it does not, inconclusive when no point is judged.

    """
    stars = np.broadcast_to(np.asarray(crossover, dtype=float), (len(x),))
    judged = [(float(v), float(r) < 1.0, float(s)) for v, r, s in zip(x, ratio, stars, strict=True)
              if not np.isnan(r) and float(r) != 1.0 and (at_most(v, s / MARGIN) or at_least(v, MARGIN * s))]
    one = bool(np.all(stars == stars[0]))
    at = (f"{name}* = {stars[0]:.3g}" if one else
          f"{name}* = {stars.min():.3g}…{stars.max():.3g} (each point's)")
    evidence = {"crossover": float(stars[0]) if one else stars.tolist(), "margin": MARGIN}
    if not judged:
        return Verdict(INCONCLUSIVE, "crossover sides",
                       f"no point of the sweep is {MARGIN:g}× away from {at} with a measured winner (a tie, "
                       "or both runs within their resolution, is not judged)", evidence)
    wrong = [v for v, a_wins, s in judged if a_wins != (v < s)]
    sides = sorted({f"{name} ≲ {name}*" if v < s else f"{name} ≳ {name}*" for v, _, s in judged})
    miss = f" (not at {name} = {', '.join(f'{v:g}' for v in wrong)})" if wrong else ""
    return Verdict(CONSISTENT if not wrong else INCONSISTENT, "crossover sides",
                   f"{at}; sides measured: {', '.join(sides)}; the named run wins at "
                   f"{len(judged) - len(wrong)} of {len(judged)} points{miss}",
                   {**evidence, "wrong": wrong, "sides": sides})
