"""Verdicts: ``consistent``, ``inconsistent`` or ``inconclusive``, each with its rule and numbers.

The numeric rules (δ = ``DELTA``, w = ``MAX_WIDTH``; [lo, hi] is the fit's 95% bootstrap interval):

* **exponent, two-sided** (a Θ-claim: "slope 2"): inconclusive if hi − lo > w (the sweep cannot
  resolve the exponent) or if p ≠ 0 and lo ≤ 0 ≤ hi (no trend: the quantity does not move with the
  sweep variable here — another term dominates or it sits at a floor); else consistent iff
  lo − δ ≤ p ≤ hi + δ, otherwise inconsistent.  δ allows for lower-order terms over a finite sweep.
* **exponent, upper** (a ≲-claim along a sweep that grows x): the same two inconclusive cases; else
  consistent iff lo ≤ p + δ (the measurement grows no faster than the bound); an excess while the
  measurement stays below the bound with every hidden constant 1 is inconclusive (pre-asymptotic);
  otherwise inconsistent.  Sweeps whose theorem regime is x → 0 (a step size) are fitted against
  1/x, so "grows" always points into the regime.
* **one constant** (measured ≤ C·bound across the whole sweep with one C): fit y against the bound's
  value; inconclusive if the bound moves by less than ``MIN_SPAN``× over the sweep; consistent iff
  hi ≥ 1 − δ (y falls at least as fast as the bound, so one C covers every point as the bound
  shrinks) or iff y ≤ bound with every hidden constant 1 at every point (C = 1 covers the sweep;
  the reason then says the asymptotic regime was not reached), otherwise inconsistent.
  C = max y/bound is reported.
* **inequality** (constant 1, e.g. Lemma 4.4): consistent iff every run's slack RHS/LHS ≥ 1.
* **linear rate**: consistent iff the contraction factor's interval lies below 1.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from rates.fit import Contraction, SlopeFit, loglog_slope

CONSISTENT, INCONSISTENT, INCONCLUSIVE = "consistent", "inconsistent", "inconclusive"
DELTA = 0.1
MAX_WIDTH = 1.0
MIN_SPAN = 4.0


@dataclass(frozen=True)
class Verdict:
    """One check's outcome."""

    status: str
    rule: str
    reason: str
    evidence: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """JSON form."""
        return asdict(self)


def _unresolved(fit: SlopeFit, p: float, max_width: float) -> str | None:
    if fit.hi - fit.lo > max_width:
        return f"95% CI [{fit.lo:.3g}, {fit.hi:.3g}] is wider than {max_width}: the sweep cannot resolve it"
    if p != 0 and fit.lo <= 0 <= fit.hi:
        return (
            f"no trend: slope {fit.slope:.3g}, CI [{fit.lo:.3g}, {fit.hi:.3g}] contains 0 — another term "
            "dominates or the quantity is at a floor"
        )
    return None


def exponent_verdict(
    fit: SlopeFit,
    predicted: float,
    sense: str = "two-sided",
    delta: float = DELTA,
    max_width: float = MAX_WIDTH,
    ratio_max: float | None = None,
) -> Verdict:
    """Compare a fitted log–log slope with the predicted exponent (rules in the module docstring).

    Args:
        fit: the measured slope.
        predicted: the theorem's exponent.
        sense: ``two-sided`` or ``upper``.
        delta: asymptotic slack.
        max_width: widest interval that still resolves an exponent.
        ratio_max: for ``upper``, max over the sweep of measured / bound with every hidden constant 1;
            an exponent excess while this stays ≤ 1 is pre-asymptotic, hence inconclusive.

    """
    if sense not in ("two-sided", "upper"):
        raise ValueError(f"sense = {sense!r}; the rule is 'two-sided' or 'upper'")
    ev = {
        "slope": fit.slope,
        "ci": [fit.lo, fit.hi],
        "predicted": predicted,
        "delta": delta,
        "r2": fit.r2,
        "method": fit.method,
    }
    rule = f"exponent ({sense})"
    why = _unresolved(fit, predicted, max_width)
    if why:
        return Verdict(INCONCLUSIVE, rule, why, ev)
    if sense == "two-sided":
        ok = fit.lo - delta <= predicted <= fit.hi + delta
        text = "contains" if ok else "excludes"
        return Verdict(
            CONSISTENT if ok else INCONSISTENT,
            rule,
            f"CI [{fit.lo:.3f}, {fit.hi:.3f}] ±{delta} {text} the predicted {predicted:g}",
            ev,
        )
    ok = fit.lo <= predicted + delta
    ev["ratio_max"] = ratio_max
    if not ok and ratio_max is not None and ratio_max <= 1.0:
        return Verdict(
            INCONCLUSIVE,
            rule,
            f"slope {fit.slope:.3f} exceeds predicted {predicted:g} + {delta}, but "
            f"the measurement stays below the bound with constant 1 (max ratio {ratio_max:.3g}): a finite "
            "sweep cannot show the bound fails",
            ev,
        )
    return Verdict(
        CONSISTENT if ok else INCONSISTENT,
        rule,
        f"slope {fit.slope:.3f} (CI low {fit.lo:.3f}) "
        + ("≤" if ok else ">")
        + f" predicted {predicted:g} + {delta}",
        ev,
    )


def one_constant_verdict(bound: np.ndarray, Y: np.ndarray, delta: float = DELTA, seed: int = 0) -> Verdict:
    """Whether one constant C gives y ≤ C·bound over the whole sweep (rules in the module docstring)."""
    bound = np.asarray(bound, dtype=float)
    Yr = np.atleast_2d(np.asarray(Y, dtype=float))
    span = float(bound.max() / bound.min())
    C = float(np.max(Yr.mean(axis=0) / bound))
    ev = {"C": C, "bound_span": span, "ratios": (Yr.mean(axis=0) / bound).tolist()}
    if span < MIN_SPAN:
        return Verdict(INCONCLUSIVE, "one constant", f"the bound moves only {span:.2g}× over the sweep", ev)
    fit = loglog_slope(bound, Yr, seed=seed)
    ev.update(slope=fit.slope, ci=[fit.lo, fit.hi], r2=fit.r2)
    ok = fit.hi >= 1 - delta
    if not ok and C <= 1.0:
        return Verdict(
            CONSISTENT,
            "one constant",
            f"below the bound with constant 1 at every point (C = {C:.3g}); "
            f"y ∝ bound^{fit.slope:.3f}, so the sweep has not reached the bound's asymptotic regime",
            ev,
        )
    return Verdict(
        CONSISTENT if ok else INCONSISTENT,
        "one constant",
        f"y ∝ bound^{fit.slope:.3f} (CI high {fit.hi:.3f}) "
        + ("≥" if ok else "<")
        + f" 1 − {delta}; C = {C:.3g}",
        ev,
    )


def inequality_verdict(lhs: np.ndarray, rhs: np.ndarray, labels: list[str]) -> Verdict:
    """Constant-1 inequality checked run by run: the slack RHS/LHS must be ≥ 1 everywhere."""
    lhs, rhs = np.asarray(lhs, dtype=float), np.asarray(rhs, dtype=float)
    slack = rhs / np.maximum(lhs, 1e-300)
    bad = [labels[i] for i in np.nonzero(slack < 1)[0]]
    ev = {
        "slack_min": float(slack.min()),
        "slack_max": float(slack.max()),
        "slack": dict(zip(labels, slack.tolist(), strict=True)),
    }
    if bad:
        return Verdict(INCONSISTENT, "inequality (constant 1)", f"RHS < LHS on {len(bad)} run(s): {bad}", ev)
    return Verdict(
        CONSISTENT,
        "inequality (constant 1)",
        f"slack RHS/LHS ∈ [{slack.min():.3g}, {slack.max():.3g}] ≥ 1 on all {len(labels)} runs",
        ev,
    )


def linear_verdict(fit: Contraction) -> Verdict:
    """A linear rate holds iff the fitted contraction factor's interval lies below 1."""
    ev = fit.as_dict()
    ok = fit.hi < 1.0
    return Verdict(
        CONSISTENT if ok else INCONSISTENT,
        "linear rate",
        f"contraction {fit.factor:.4g} per round, CI [{fit.lo:.4g}, {fit.hi:.4g}] over rounds "
        f"[{fit.start}, {fit.stop})",
        ev,
    )


def combine(verdicts: list[Verdict]) -> str:
    """Inconsistent if any check is; consistent if all are; else inconclusive."""
    states = {v.status for v in verdicts}
    if INCONSISTENT in states:
        return INCONSISTENT
    return CONSISTENT if states == {CONSISTENT} else INCONCLUSIVE
