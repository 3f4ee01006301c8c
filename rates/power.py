"""Power: a verdict rule is shown to reject the violations of its claim, on the experiment's own data.

A rule that cannot come out ``inconsistent`` on the data its experiment produces proves nothing
when it prints ``consistent``.  So every judged claim carries its **violations**: counterfeit data
at the experiment's own sweep points and with its own noise, that break the claim in a named way
(an exponent off by ½, a flat curve, a curve that rises, a residual 10× the tolerance).
``powered`` runs the rule on the measured data and on every violation:

* the verdict keeps ``consistent`` only if the rule rejects (``inconsistent``) every violation;
  otherwise it is ``inconclusive (no power: …)`` naming the violations that would also pass;
* the evidence lists what the rule rejects and what it misses, so the report can show it.

Counterfeits keep the measurement's noise: an exponent violation multiplies each measured row by
(x/x₀)^(q − ŝ) — the fitted trend ŝ is replaced by q, the residuals stay.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from fcocheck.rates.fit import loglog_slope
from fcocheck.rates.verdict import CONSISTENT, INCONCLUSIVE, INCONSISTENT, Verdict

STEP = 0.5  # an exponent violation differs from the claim by at least this much


@dataclass(frozen=True)
class Violation:
    """Counterfeit data breaking the claim in the way ``name`` says."""

    name: str
    data: np.ndarray


def _rows(Y: np.ndarray) -> np.ndarray:
    Y = np.asarray(Y, dtype=float)
    return Y[None, :] if Y.ndim == 1 else Y


def retrend(x: np.ndarray, Y: np.ndarray, slope: float) -> np.ndarray:
    """The measured rows with their log–log trend in x replaced by ``slope`` (residuals kept)."""
    x = np.asarray(x, dtype=float)
    Yr = _rows(Y)
    fitted = loglog_slope(x, Yr).slope
    out = Yr * (x / x[0]) ** (slope - fitted)
    return out if np.ndim(Y) > 1 else out[0]


def exponent_violations(x: Sequence[float], Y: np.ndarray, predicted: float, sense: str = "two-sided",
                        label: str = "x") -> list[Violation]:
    """Violations of "y ∝ x^p" (two-sided) or "y grows no faster than x^p" (upper).

    Two-sided: exponents p ± ½, flat (0) and, for a decreasing claim, rising (+½); those within ¼ of
    p are dropped.  Upper: exponents p + ½ and p + 1 (faster growth than the bound allows).  Lower:
    exponents p − ½, p − 1 and flat (vanishing more slowly than the bound as x → 0).
    """
    x = np.asarray(x, dtype=float)
    if sense == "upper":
        alts = [predicted + STEP, predicted + 2 * STEP]
    elif sense == "lower":
        alts = [predicted - STEP, predicted - 2 * STEP, 0.0]
    else:
        alts = [predicted - STEP, predicted + STEP, 0.0] + ([STEP] if predicted < 0 else [])
    seen: list[float] = []
    out = []
    for q in alts:
        if abs(q - predicted) < 0.25 or any(abs(q - s) < 1e-9 for s in seen):
            continue
        seen.append(q)
        base = f"({label})" if " " in label else label  # (K − 1)^1.5, not K − 1^1.5
        name = "flat" if q == 0 else f"{base}^{q:+g}"
        out.append(Violation(name, retrend(x, Y, q)))
    return out


def powered(judge: Callable[[np.ndarray], Verdict], data: np.ndarray,
            violations: Sequence[Violation]) -> Verdict:
    """The rule's verdict on ``data``, kept ``consistent`` only if it rejects every violation.

    Args:
        judge: the rule, as a function of the data (everything else fixed).
        data: the measurement.
        violations: counterfeit data breaking the claim (``exponent_violations`` …).

    """
    v = judge(data)
    outcomes = {viol.name: judge(viol.data).status for viol in violations}
    rejects = [n for n, s in outcomes.items() if s == INCONSISTENT]
    misses = {n: s for n, s in outcomes.items() if s != INCONSISTENT}
    ev = {**v.evidence, "power": {"rejects": rejects, "misses": misses}}
    if not violations:
        note = "no violation was tried"
    elif misses:
        note = "would also pass: " + ", ".join(f"{n} ({s})" for n, s in misses.items())
    else:
        note = "rejects " + ", ".join(rejects)
    if v.status == CONSISTENT and (misses or not violations):
        return Verdict(INCONCLUSIVE, v.rule, f"no power: {v.reason}; but it {note}", ev)
    return Verdict(v.status, v.rule, f"{v.reason}; power: {note}", ev)
