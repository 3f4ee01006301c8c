"""Verdicts: ``consistent``, ``inconsistent`` or ``inconclusive``, each with its rule and numbers.

The numeric rules (δ = ``DELTA``, w = ``MAX_WIDTH``; [lo, hi] is the fit's 98% interval (``rates.fit``)):

* **exponent, two-sided** (a Θ-claim: "slope 2"): inconsistent if the interval ± δ excludes p,
  however wide it is (a flat curve whose interval excludes p is inconsistent, not "no trend");
  otherwise inconclusive if hi − lo > w (the sweep cannot resolve the exponent), else consistent.
  δ allows for lower-order terms over a finite sweep.
* **exponent, upper** (a ≲-claim along a sweep that grows x): inconsistent if lo > p + δ; otherwise
  inconclusive if the interval is wider than w; else consistent (lo ≤ p + δ: the measurement
  grows no faster than the bound) — however far below the bound with constants 1 the measurement
  sits (the constants are free: only the shape is checked).  Sweeps whose theorem regime is x → 0 (a step
  size) are fitted against 1/x, so "grows" always points into the regime.
* **exponent, lower** (a ≲-claim as x → 0: y ≤ C·x^p for every small x, so y must vanish at least
  as fast as x^p; a ζ² floor as ζ → 0): inconsistent if hi < p − δ (y/x^p grows without bound as
  x → 0); otherwise inconclusive if the interval is wider than w; else consistent.  Faster vanishing
  is consistent: the claim bounds the ratio, not the local slope.
* **bounded ratio** (y ≲ bound with a free constant, along a direction into the theorem's regime):
  ``rates.oc.bounded_ratio`` — the tail slope of log(y/bound) against a critical value calibrated on
  the legal family (flat, falling, saturating ratios), with its size and power measured at the
  design; it replaced the one-constant and the every-local-slope rules (the first rejected legal
  saturating ratios and passed y ∝ bound^0.7 in 30–55% of noisy repetitions, the second rejected a
  bounded floor a·K/(K + 4)).
* **inequality** (constant 1, e.g. Lemma 4.4): ``rates.inequality.bounded_by`` — run by run, a mean
  over seeds above its bound by more than its Bonferroni t-quantile × standard error (exactly, for a
  deterministic run), with its size and power (each tested term deleted) measured.
* **linear rate**: a claim (``verify.paper_claims.fedcanon_pl_linear``) — the rate of the gap's linear
  phase within the first R rounds is a lower bound ≳ 1 along R (the bounded-ratio rule on its
  reciprocal); it replaced a window-shape rule (the log-decrement of the last third against the middle
  third), which had no power against exp(−t^0.75) on any window a converging curve fills.

Every threshold above is applied to a computed statistic through ``rates.threshold`` (a value within
a relative 1e-9 of a threshold is the threshold), so that no verdict depends on the last bits that
differ between machines.

``consistent`` stands only where the rule also rejects the violations of its claim: the exponent,
identity and must-differ rules through ``rates.power.powered`` (plus ``exponent_oc``'s exact rates);
the bounded-ratio and inequality rules by their own simulated power (``rates.oc``,
``rates.inequality``).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from fcocheck.rates.fit import SlopeFit
from fcocheck.rates.threshold import above, at_least, at_most, below

CONSISTENT, INCONSISTENT, INCONCLUSIVE = "consistent", "inconsistent", "inconclusive"
KNOWN = "known disagreement"  # inconsistent, with a documented cause that a diagnostic confirmed
#: the claim cannot be asked of this instance (it lacks a class, a parameter the claim sweeps): not a
#: verdict, and never counted as an inconclusive one
NOT_APPLICABLE = "does not apply"
#: the claim could not be judged: its judging raised (the message is the reason); never a verdict on it
ERROR = "error"
STATUSES = (CONSISTENT, INCONSISTENT, INCONCLUSIVE, KNOWN, NOT_APPLICABLE, ERROR)
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
    if above(fit.hi - fit.lo, max_width):
        return f"98% CI [{fit.lo:.3g}, {fit.hi:.3g}] is wider than {max_width}: the sweep cannot resolve it"
    return None


def exponent_oc(fit: SlopeFit, predicted: float, sense: str, delta: float = DELTA) -> dict[str, Any]:
    """The exponent rule's size and power at this fit's standard error (Student t, exact pivot).

    The rule rejects when the ``LEVEL`` interval β̂ ± t_c·ŝe lies beyond p ± δ, i.e. when
    (β̂ − p − δ)/ŝe > t_c (or (β̂ − p + δ)/ŝe < −t_c, two-sided).  At a true exponent β that statistic
    is noncentral t with ``dof`` degrees of freedom and noncentrality (β − p ∓ δ)/se, so P(reject | β)
    is exact given se.  Size: the largest rate at a legal exponent (the edges p ± δ: (1 − LEVEL)/2
    each by construction); power: the rate at each violation of ``rates.power.exponent_violations``
    (p ± ½, p + 1, p − 1, flat …), with se the fit's own (a plug-in estimate of the design's).
    """
    from scipy.stats import t as student

    from fcocheck.rates.fit import LEVEL

    dof = fit.n_seeds - 1 if fit.n_seeds >= 2 else fit.n_points - 2
    tc = float(student.ppf(1 - (1 - LEVEL) / 2, dof))
    se = (fit.hi - fit.lo) / (2 * tc) if tc > 0 else 0.0
    rejects = exponent_rejects(fit, predicted, sense, delta)

    edges = {"two-sided": (predicted - delta, predicted + delta), "upper": (predicted + delta,),
             "lower": (predicted - delta,)}[sense]
    if sense == "upper":
        alts = [predicted + 0.5, predicted + 1.0]
    elif sense == "lower":
        alts = [predicted - 0.5, predicted - 1.0, 0.0]
    else:
        alts = [predicted - 0.5, predicted + 0.5, 0.0] + ([0.5] if predicted < 0 else [])
    power: dict[str, float] = {}
    for q in alts:
        name = "flat" if q == 0 else f"slope {q:+g}"
        if abs(q - predicted) >= 0.25 and name not in power:
            power[name] = float(rejects(q))
    return {"size": float(np.max(rejects(np.array(edges)))), "power": power, "reps": 0,
            "method": f"exact (noncentral t, {dof} dof, at the fit's se {se:.3g})"}


def exponent_rejects(fit: SlopeFit, predicted: float, sense: str, delta: float = DELTA) -> Any:
    """The exponent rule's exact rejection rate as a function of the true exponent β (``exponent_oc``)."""
    from scipy.stats import nct
    from scipy.stats import t as student

    from fcocheck.rates.fit import LEVEL

    dof = fit.n_seeds - 1 if fit.n_seeds >= 2 else fit.n_points - 2
    tc = float(student.ppf(1 - (1 - LEVEL) / 2, dof))
    se = (fit.hi - fit.lo) / (2 * tc) if tc > 0 else 0.0

    def rejects(beta: Any) -> Any:
        beta = np.asarray(beta, dtype=float)
        if se <= 0:
            return (((beta > predicted + delta) & (sense != "lower"))
                    | ((beta < predicted - delta) & (sense != "upper"))).astype(float)
        hi = nct.sf(tc, dof, (beta - predicted - delta) / se) if sense != "lower" else 0.0
        lo = nct.cdf(-tc, dof, (beta - predicted + delta) / se) if sense != "upper" else 0.0
        return hi + lo

    return rejects


def law_departure(fit: SlopeFit, predicted: float, sense: str, delta: float = DELTA) -> dict[str, Any]:
    """The smallest relative exponent departure ε the exponent rule rejects at 95% (``rates.departure``).

    The exponents p(1 − ε) and p(1 + ε) (the ones a sense can reject; an absolute departure ±ε when p = 0),
    the first ε of a fine geometric grid at which the rule's exact rejection rate ``rejects(β)`` (vectorised)
    reaches 95%.  Reported, not a gate: the rule's
    slack δ for lower-order terms keeps ε ≥ δ/|p|, so its own gate is its power against p ± ½.
    """
    from fcocheck.rates.departure import POWER

    rejects = exponent_rejects(fit, predicted, sense, delta)
    scale = abs(predicted) if predicted != 0 else 1.0
    sides = {"two-sided": (-1, 1), "upper": (1,), "lower": (-1,)}[sense]
    grid = np.concatenate([[0.0], np.geomspace(1e-3, 8.0, 400)])  # ε to about 2%, one vectorised evaluation
    power = np.min([rejects(predicted + side * grid * scale) for side in sides], axis=0)
    reached = np.nonzero(power >= POWER)[0]
    eps = float(grid[reached[0]]) if reached.size else math.inf
    if not math.isfinite(eps):
        words = "no departure it can detect"
    elif predicted != 0:
        words = f"slopes outside {predicted:g}(1 ± {eps:.2g})"
    else:
        words = f"slopes beyond ±{eps:.2g}"
    return {"eps_min": eps, "scale": "exponent", "direction": sense, "excludes": words}


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
        sense: ``two-sided``, ``upper`` (grows no faster than x^p) or ``lower`` (vanishes at least
            as fast as x^p as x → 0).
        delta: asymptotic slack.
        max_width: widest interval that still resolves an exponent.
        ratio_max: for ``upper``, max over the sweep of measured / bound with every hidden constant 1,
            reported as evidence only (the constants are free; it never decides).

    """
    if sense not in ("two-sided", "upper", "lower"):
        raise ValueError(f"sense = {sense!r}; the rule is 'two-sided', 'upper' or 'lower'")
    ev = {
        "slope": fit.slope,
        "ci": [fit.lo, fit.hi],
        "predicted": predicted,
        "delta": delta,
        "r2": fit.r2,
        "method": fit.method,
    }
    rule = f"exponent ({sense})"
    if np.isfinite(fit.lo) and np.isfinite(fit.hi):
        ev["oc"] = exponent_oc(fit, predicted, sense, delta)
    if not (np.isfinite(fit.lo) and np.isfinite(fit.hi)):
        return Verdict(INCONCLUSIVE, rule, f"the fit is not finite (CI [{fit.lo}, {fit.hi}])", ev)
    # an interval that excludes the claim contradicts it however wide it is; a wide one that
    # contains it cannot resolve it
    excluded = {"two-sided": above(fit.lo, predicted + delta) or below(fit.hi, predicted - delta),
                "upper": above(fit.lo, predicted + delta), "lower": below(fit.hi, predicted - delta)}[sense]
    why = None if excluded else _unresolved(fit, predicted, max_width)
    if why:
        return Verdict(INCONCLUSIVE, rule, why, ev)
    if sense == "two-sided":
        ok = not excluded
        text = "contains" if ok else "excludes"
        also = f" (as it does any exponent in [{fit.lo - delta:.3f}, {fit.hi + delta:.3f}])" if ok else ""
        return _gated(ok, rule, f"CI [{fit.lo:.3f}, {fit.hi:.3f}] ±{delta} {text} the predicted {predicted:g}"
                      + also, ev)
    ev["ratio_max"] = ratio_max
    if sense == "lower":
        ok = at_least(fit.hi, predicted - delta)
        return _gated(ok, rule, f"slope {fit.slope:.3f} (CI high {fit.hi:.3f}) " + ("≥" if ok else "<")
                      + f" predicted {predicted:g} − {delta} (vanishes at least as fast as x^{predicted:g})",
                      ev)
    ok = at_most(fit.lo, predicted + delta)
    return _gated(ok, rule, f"slope {fit.slope:.3f} (CI low {fit.lo:.3f}) " + ("≤" if ok else ">")
                  + f" predicted {predicted:g} + {delta}", ev)


def _gated(ok: bool, rule: str, head: str, ev: dict[str, Any]) -> Verdict:
    """The exponent rule's verdict, with its size printed, kept ``consistent`` only with its power.

    A consistent exponent whose exact power (``exponent_oc``) against a listed violation is below the
    rules' ``POWER`` is ``inconclusive (no power)``: three instances with a 98% interval of width 0.6
    accept p and p − ½ on the same runs (a fresh reader's λ² and λ^1.5, both consistent), and the
    power against p − ½ there is 81%, not the 95% a consistent verdict promises.
    """
    from fcocheck.rates.oc import POWER

    oc = ev.get("oc") or {}
    head += f"; size {oc['size']:.1%}" if "size" in oc else ""
    if not ok:
        return Verdict(INCONSISTENT, rule, head, ev)
    weak = {k: v for k, v in (oc.get("power") or {}).items() if v < POWER}
    if weak:
        return Verdict(INCONCLUSIVE, rule, f"no power: {head}; but it rejects "
                       + ", ".join(f"{k} in only {v:.0%}" for k, v in weak.items())
                       + " (exact, at the fit's se)", ev)
    return Verdict(CONSISTENT, rule, head, ev)


def known_disagreement(v: Verdict, cause: str, confirmed: bool, diagnostic: str) -> Verdict:
    """An inconsistent verdict re-filed as ``known disagreement`` when its cause is confirmed.

    The documented cause must be confirmed by a diagnostic measured in the same run; otherwise the
    verdict stays inconsistent (a new failure must never hide behind a documented one).

    Args:
        v: the verdict of the claim.
        cause: the documented disagreement (README, "Known disagreements").
        confirmed: whether the diagnostic confirms that cause here.
        diagnostic: the diagnostic's numbers.

    """
    if v.status != INCONSISTENT:
        return v
    ev = {**v.evidence, "known_cause": cause, "diagnostic": diagnostic, "confirmed": confirmed}
    if confirmed:
        return Verdict(KNOWN, v.rule, f"{v.reason}; documented cause confirmed: {cause} ({diagnostic})", ev)
    return Verdict(INCONSISTENT, v.rule, f"{v.reason}; NOT the documented cause ({cause}): {diagnostic}", ev)


def combine(verdicts: list[Verdict]) -> str:
    """Inconsistent if any check is; else error, known disagreement if any is; else consistent if all are.

    Checks that do not apply are left out (all of them: the result does not apply); anything else is
    inconclusive.
    """
    states = {v.status for v in verdicts}
    if states == {NOT_APPLICABLE}:
        return NOT_APPLICABLE
    states.discard(NOT_APPLICABLE)
    if INCONSISTENT in states:
        return INCONSISTENT
    if ERROR in states:
        return ERROR
    if KNOWN in states:
        return KNOWN
    return CONSISTENT if states == {CONSISTENT} else INCONCLUSIVE
