"""Judging an experiment's measurement: each claim type's rule, run with its violations (power).

One function per claim type; each fits, applies the ``rates.verdict`` rule and demonstrates power
with the violations of ``rates.power`` built from the same measurement (same sweep points, same
noise).  Experiments call these and never a bare rule, so no verdict prints ``consistent`` without
having rejected its violations on the experiment's own data.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from fcocheck.rates.fit import SlopeFit, loglog_slope
from fcocheck.rates.oc import bounded_ratio
from fcocheck.rates.power import (
    Violation,
    ablation,
    exponent_violations,
    powered,
    rate_violations,
)
from fcocheck.rates.threshold import above, at_most
from fcocheck.rates.verdict import (
    CONSISTENT,
    INCONSISTENT,
    Verdict,
    exponent_verdict,
    inequality_verdict,
    linear_verdict,
)


def exponent(x: Sequence[float], Y: np.ndarray, predicted: float, sense: str = "two-sided", seed: int = 0,
             label: str = "x", ratio_max: float | None = None) -> tuple[SlopeFit, Verdict]:
    """Fit log y against log x and judge the exponent, with its violations (``exponent_violations``)."""
    xa = np.asarray(x, dtype=float)

    def judge(data: np.ndarray) -> Verdict:
        return exponent_verdict(loglog_slope(xa, data, seed=seed), predicted, sense, ratio_max=ratio_max)

    fit = loglog_slope(xa, Y, seed=seed)
    violations = exponent_violations(xa, Y, predicted, sense, label)
    return fit, powered(judge, np.asarray(Y, dtype=float), violations)


def bound(x: Sequence[float], rate: Sequence[float], Y: np.ndarray, seed: int = 0,
          label: str = "x", deterministic: bool = False, noise: float | None = None) -> Verdict:
    """Y ≲ rate along x, x growing into the theorem's regime (``rates.oc.bounded_ratio``).

    Its size and power are measured at this design.  It replaces the one-constant rule, which rejected
    legal saturating ratios and passed y ∝ bound^0.7 at log-noise 0.2 in 30–55% of repetitions.
    """
    return bounded_ratio(np.asarray(x, dtype=float), np.asarray(rate, dtype=float),
                         np.asarray(Y, dtype=float), seed=seed, label=label, deterministic=deterministic,
                         noise=noise)


def linear(Y: np.ndarray, start: int, stop: int, seed: int = 0) -> Verdict:
    """A linear rate on [start, stop), with the sub-linear ``rate_violations``."""
    return powered(lambda data: linear_verdict(data, start, stop, seed=seed), np.asarray(Y, dtype=float),
                   rate_violations(Y, start, stop))


def inequality(lhs: Sequence[float], terms: dict[str, Sequence[float]], tested: Sequence[str],
               labels: list[str]) -> Verdict:
    """LHS ≤ Σ terms (constant 1) run by run, with power on each ``tested`` term (``ablation``)."""
    return ablation(np.asarray(lhs, dtype=float), {k: np.asarray(v, dtype=float) for k, v in terms.items()},
                    tested, labels, inequality_verdict)


def identity(residual: float, tol: float, what: str) -> Verdict:
    """An exact identity: residual ≤ tol; power: a residual 10× the tolerance must fail."""
    def judge(r: float) -> Verdict:
        ok = at_most(r, tol)
        return Verdict(CONSISTENT if ok else INCONSISTENT, "identity",
                       f"{what}: max relative residual {r:.2e} (rule ≤ {tol:g})", {"residual": r})

    return powered(judge, residual, [Violation("residual 10× the tolerance", 10 * tol)])


def differs(residual: float, floor: float, reference: float, what: str) -> Verdict:
    """A claim that an identity must fail: residual > floor.

    Power: the residual of the method for which the identity holds (``reference``) is rejected.
    """
    def judge(r: float) -> Verdict:
        ok = above(r, floor)
        return Verdict(CONSISTENT if ok else INCONSISTENT, "must differ",
                       f"{what}: residual {r:.2e} (rule > {floor:g})", {"residual": r})

    return powered(judge, residual, [Violation("the identity holding", reference)])


def control(rule, data: np.ndarray, good: np.ndarray, what: str) -> Verdict:
    """A negative control: ``rule`` (a judged claim) must come out inconsistent on ``data``.

    Power: the curve that satisfies the claim (``good``), offered as the control, is rejected.
    """
    def judge_control(d: np.ndarray) -> Verdict:
        inner = rule(d)
        ok = inner.status == INCONSISTENT
        return Verdict(CONSISTENT if ok else INCONSISTENT, f"negative control ({what})",
                       f"{what}: {inner.reason.split('; power')[0]}", {"inner": inner.status})

    return powered(judge_control, data, [Violation("the curve that satisfies the claim", good)])
