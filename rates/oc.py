"""A bound's rule with its operating characteristics measured at the claim's own design.

A claim "y ≲ b" (an upper bound with a free constant) can only be falsified by a ratio y/b that keeps
growing along a direction in which the theorem is asymptotic (R → ∞, ζ → 0, K → ∞ at fixed η_cK).  The
rule ``bounded_ratio`` judges exactly that, and measures how often it errs:

* **statistic**: T = the least-squares slope of the seed-mean log ratio r = log(y/b) against
  t = log(x/x₀) over the tail of the window (its last half, at least 3 points), x the direction's
  coordinate oriented so that it grows into the regime;
* **legal family** (the bound holds with some constant): the ratio flat; falling (y faster than b);
  and *saturating* — rising but bounded, like a·x/(x + c) that reaches 80% of its plateau by the
  geometric middle of the window (a·K/(K + 4) on K = 4 … 64 is such a ratio: 0.8 at K = 16);
* **critical value** c: the 99.5% quantile of T over the legal family at the measurement's own points,
  seeds and log-noise σ (pooled across seeds; for one seed the residual of a smooth fit, or
  ``NOISE_FLOOR`` for a deterministic curve), exact since T is linear in Gaussian log-noise, so the
  rule's size is at most 0.5% per legal shape by construction (≤ 1% as re-measured);
* **decision**: T > c — *inconsistent* (the ratio still grows at the window's end faster than any
  legal one does); otherwise *consistent* only if the rule rejects every listed violation in at least
  ``POWER`` of simulated repetitions (y ∝ b^p for p = 0.5, 0.7, 0.8; flat; rising; or, where b does
  not move along the direction, y growing like x^q) — else *inconclusive (no power)*, naming them;
* **reported**: the size and the power per violation re-measured on ``REPS`` fresh repetitions
  (independent of the calibration), the noise, T and c.

Every simulation is seeded from ``seed``: the same data give the same verdict and the same figures.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from statistics import NormalDist
from typing import Any

import numpy as np

from fcocheck.rates.threshold import above, below
from fcocheck.rates.verdict import CONSISTENT, INCONCLUSIVE, INCONSISTENT, MIN_SPAN, Verdict

SIZE = 0.005  # every rule's false-alarm rate on its legal boundary by construction (≤ 1% as re-measured)
LEVEL = 1.0 - SIZE  # the critical value's quantile: size ≤ 0.5% on each legal shape, so ≤ 1% as re-measured
POWER = 0.95  # the power every listed violation must reach for ``consistent``
REPS = 2000  # fresh repetitions for the reported size and power: a Monte-Carlo error of ±0.16% at 0.5%
NOISE_FLOOR = 1e-3  # log-noise assumed at least (a deterministic curve still has rounding and bend)
SATURATION = 0.8  # a legal ratio has reached this share of its plateau by the window's middle
POWERS = (0.5, 0.7, 0.8)  # y ∝ b^p: violations of y ≲ b as b shrinks
SLOW = (0.08, 0.2, 0.5)  # y ∝ x^q: violations where b does not move along x
MIN_POINTS = 4  # sweep points the rule needs (a tail slope over the last half, and a middle)


@dataclass(frozen=True)
class OC:
    """Operating characteristics of one rule at one design: measured, not asserted."""

    size: float
    size_by: dict[str, float]
    power: dict[str, float]
    noise: float
    critical: float
    reps: int
    seeds: int
    points: int
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        """JSON form."""
        return asdict(self)

    @property
    def weakest(self) -> tuple[str, float] | None:
        """The violation with the least power."""
        return min(self.power.items(), key=lambda kv: kv[1]) if self.power else None


def power_summary(power: dict[str, float]) -> dict[str, Any]:
    """The evidence's ``power`` entry: the violations rejected in ≥ ``POWER`` of repetitions, and the rest."""
    return {"rejects": [k for k, v in power.items() if v >= POWER],
            "misses": {k: f"{v:.0%}" for k, v in power.items() if v < POWER}}


def log_noise(Y: np.ndarray, deterministic: bool = False) -> float:
    """σ of log y, at least ``NOISE_FLOOR``.

    Pooled across seeds (S ≥ 2); for one seed, ``NOISE_FLOOR`` if the curve is deterministic (exact
    gradients: its bend is the signal, not noise), else the residual of a quadratic in the index.
    """
    L = np.log(np.atleast_2d(np.asarray(Y, dtype=float)))
    S, P = L.shape
    if S == 1 and deterministic:
        return NOISE_FLOOR
    if S >= 2:
        sigma = float(np.sqrt(np.mean(np.var(L, axis=0, ddof=1))))
    elif P >= 4:
        i = np.arange(P, dtype=float)
        coef = np.polyfit(i, L[0], 2)
        sigma = float(np.sqrt(np.sum((L[0] - np.polyval(coef, i)) ** 2) / (P - 3)))
    else:
        sigma = 0.0
    return max(sigma, NOISE_FLOOR)


def mean_log_noise(G: np.ndarray, seed: int = 0, boots: int = 400) -> float:
    """σ of log(mean over seeds) of per-seed values G (seeds × points): a bootstrap over seeds, pooled.

    For a claim on an expectation (E[Φ(ŵ)] − Φ*) the measured curve is the mean over seeds; its noise is
    that of the mean, not of one seed's log.
    """
    G = np.atleast_2d(np.asarray(G, dtype=float))
    idx = np.random.default_rng([seed, 0xB0]).integers(0, G.shape[0], size=(boots, G.shape[0]))
    L = np.log(np.maximum(G[idx].mean(axis=1), 1e-300))
    return max(float(np.sqrt(np.mean(np.var(L, axis=0, ddof=1)))), NOISE_FLOOR)


def resolved_prefix(G: np.ndarray, floor: np.ndarray) -> int:
    """How many leading points (in the claim's direction) every row resolves: y > its floor, y > 0, finite.

    A measurement at or below its resolution (a gap within the reference's certificate, rounding) says
    nothing about a rate; a point after the first unresolved one is not used either, so the window
    judged is the part of the sweep before the measurement runs out.
    """
    ok = np.all((G > floor) & (G > 0) & np.isfinite(G), axis=0)
    return int(ok.size if ok.all() else np.argmin(ok))


def instance_noise(G: np.ndarray) -> float:
    """σ of log y across instances once each instance's own level is removed (S ≥ 2 rows).

    Instances of a class differ by a constant factor (their own constant, free under ≲) that moves no
    slope; only how their curves' shapes differ is noise for the rate: the residual of the two-way
    model log y_ij = a_i + b_j, with (S − 1)(P − 1) degrees of freedom.
    """
    L = np.log(np.atleast_2d(np.asarray(G, dtype=float)))
    S, P = L.shape
    if S < 2 or P < 2:
        return NOISE_FLOOR
    resid = L - L.mean(axis=1, keepdims=True) - L.mean(axis=0, keepdims=True) + L.mean()
    return max(float(np.sqrt(np.sum(resid**2) / ((S - 1) * (P - 1)))), NOISE_FLOOR)


def _tail(t: np.ndarray) -> np.ndarray:
    """The indices of the window's last half (at least 3 points)."""
    return np.arange(min(len(t) // 2, len(t) - 3), len(t))


def tail_slope(t: np.ndarray, R: np.ndarray) -> np.ndarray:
    """Least-squares slope of each row of R (…, P) against t over the tail: shape (…)."""
    idx = _tail(t)
    tt = t[idx] - t[idx].mean()
    rr = R[..., idx] - R[..., idx].mean(axis=-1, keepdims=True)
    return (rr @ tt) / (tt @ tt)


def simulate(curve: np.ndarray, b: np.ndarray, t: np.ndarray, seeds: int, sigma: float, reps: int,
             rng: np.random.Generator) -> np.ndarray:
    """T for ``reps`` simulated measurements of ``curve`` (log-normal noise σ, ``seeds`` rows each)."""
    noise = sigma * rng.standard_normal((reps, seeds, len(t)))
    R = (np.log(curve / b)[None, None, :] + noise).mean(axis=1)
    return tail_slope(t, R)


def legal_shapes(t: np.ndarray, b: np.ndarray) -> dict[str, np.ndarray]:
    """Y for each legal shape: the ratio flat, falling, saturating by mid-window (module docstring)."""
    mid = float(t[-1]) / 2
    # x/(x + c) in x = x₀eᵗ, with c set so that it is at SATURATION of its plateau at the middle
    return {"ratio flat": b.copy(), "ratio falling": b * np.exp(-0.5 * t),
            "ratio saturating": b / (1 + (1 / SATURATION - 1) * np.exp(-(t - mid)))}


def violation_shapes(t: np.ndarray, b: np.ndarray) -> dict[str, np.ndarray]:
    """The violations of y ≲ b along t, as curves y (module docstring).

    A bound that shrinks along t is violated by y ∝ b^p, p < 1 (and by y flat or rising); one that
    grows (a time constant 1/rate) by y ∝ b^(2 − p), growing faster than it; one that does not move by
    y ∝ x^q.
    """
    change = float(np.log(b[-1] / b[0]))
    if change < -1e-9:
        out = {f"y ∝ bound^{p:g}": b[0] * (b / b[0]) ** p for p in POWERS}
        out.update({"y flat": np.full_like(b, b[0]), "y rising": b[0] * np.exp(0.3 * t)})
        return out
    if change > 1e-9:
        return {f"y ∝ bound^{2 - p:g}": b[0] * (b / b[0]) ** (2 - p) for p in POWERS}
    return {f"y ∝ x^{q:g}": b * np.exp(q * t) for q in SLOW}


def spread(t: np.ndarray, seeds: int, sigma: float) -> float:
    """Standard deviation of T under log-noise σ on ``seeds`` rows (T is linear in the noise)."""
    idx = _tail(t)
    tt = t[idx] - t[idx].mean()
    return sigma / np.sqrt(seeds) / float(np.sqrt(tt @ tt))


def critical_value(t: np.ndarray, b: np.ndarray, seeds: int, sigma: float, level: float = LEVEL) -> float:
    """Max over the legal family of its noise-free T plus the ``level`` normal quantile of T's spread.

    T is a fixed linear function of Gaussian log-noise, so this quantile is exact (no simulation).
    """
    z = NormalDist().inv_cdf(level)
    sd = spread(t, seeds, sigma)
    return max(float(tail_slope(t, np.log(y / b))) + z * sd for y in legal_shapes(t, b).values())


def characteristics(t: np.ndarray, b: np.ndarray, seeds: int, sigma: float, seed: int | tuple[int, ...],
                    violations: dict[str, np.ndarray] | None = None, level: float = LEVEL) -> OC:
    """The critical value (exact on the legal family) and the size and power measured by simulation.

    ``seed``: an integer, or a tuple (one of several tests of one claim: its own stream, so that the
    claim's summed size averages independent Monte-Carlo errors instead of repeating one).
    """
    rng = np.random.default_rng([*np.atleast_1d(seed).tolist(), 0x0C])
    legal = legal_shapes(t, b)
    crit = critical_value(t, b, seeds, sigma, level)
    size_by = {k: float(np.mean(simulate(y, b, t, seeds, sigma, REPS, rng) > crit)) for k, y in legal.items()}
    viol = violation_shapes(t, b) if violations is None else violations
    power = {k: float(np.mean(simulate(y, b, t, seeds, sigma, REPS, rng) > crit)) for k, y in viol.items()}
    return OC(max(size_by.values()), size_by, power, sigma, crit, REPS, seeds, len(t))


def bounded_ratio(x: np.ndarray, b: np.ndarray, Y: np.ndarray, seed: int | tuple[int, ...] = 0,
                  violations: Callable[[np.ndarray, np.ndarray], dict[str, np.ndarray]] | None = None,
                  label: str = "x", deterministic: bool = False, noise: float | None = None,
                  level: float = LEVEL) -> Verdict:
    """Y ≲ b along x (module docstring): the verdict with its measured size and power.

    Args:
        x: the direction's coordinate at each point, > 0, growing into the theorem's regime (R; 1/ζ).
        b: the bound (every constant 1) at each point.
        Y: the measurement, seeds × points.
        seed: seeds the simulations (a tuple: one test's own stream among several, ``characteristics``).
        violations: ``(t, b) -> {name: y}`` to replace the default violations.
        label: the coordinate's name in messages.
        deterministic: one seed of an exact-gradient run (its log-noise is ``NOISE_FLOOR``).
        noise: the curve's log-noise when the caller knows it better (a mean over seeds:
            ``mean_log_noise``); by default estimated from Y.
        level: the critical value's quantile (one of several tests of one claim takes a share of
            1 − ``LEVEL``).

    """
    x, b = np.asarray(x, dtype=float), np.asarray(b, dtype=float)
    Yr = np.atleast_2d(np.asarray(Y, dtype=float))
    rule = f"bounded ratio along {label} (calibrated: size ≤ 1%, power ≥ {POWER:.0%})"
    if x.ndim != 1 or x.size < MIN_POINTS or b.shape != x.shape or Yr.shape[1] != x.size:
        raise ValueError(f"x, b, Y of shapes {x.shape}, {b.shape}, {Yr.shape}; the rule is ≥ {MIN_POINTS} "
                         "points, one b per point, Y seeds × points")
    if not (np.all(Yr > 0) and np.all(np.isfinite(Yr)) and np.all(b > 0) and np.all(x > 0)):
        return Verdict(INCONCLUSIVE, rule, "a value is not positive and finite: no log ratio", {})
    t = np.log(x / x[0])
    if below(float(x.max() / x.min()), MIN_SPAN):
        span = x.max() / x.min()
        return Verdict(INCONCLUSIVE, rule, f"{label} moves only {span:.3g}× over the window; the rule is "
                       f"≥ {MIN_SPAN:g}×", {})
    sigma = log_noise(Yr / b, deterministic) if noise is None else max(float(noise), NOISE_FLOOR)
    oc = characteristics(t, b, Yr.shape[0], sigma, seed, None if violations is None else violations(t, b),
                         level)
    T = float(tail_slope(t, np.log(Yr / b).mean(axis=0)))
    ratio = (Yr / b).mean(axis=0)
    ev = {"tail_slope": T, "critical": oc.critical, "C": float(ratio.max()), "ratios": ratio.tolist(),
          "oc": oc.as_dict(), "power": power_summary(oc.power)}
    head = (f"tail slope of log(y/bound) in log {label} {T:.3g} (critical {oc.critical:.3g}, the legal "
            f"family's {100 * level:.3g}% quantile at log-noise {sigma:.2g}); size {oc.size:.1%}")
    if above(T, oc.critical):
        return Verdict(INCONSISTENT, rule, f"{head}: the ratio keeps growing at the window's end", ev)
    weak = {k: v for k, v in oc.power.items() if v < POWER}
    if weak:
        return Verdict(INCONCLUSIVE, rule, f"no power: {head}; but it rejects "
                       + ", ".join(f"{k} in only {v:.0%}" for k, v in weak.items())
                       + f" of {oc.reps} repetitions", ev)
    return Verdict(CONSISTENT, rule,
                   f"{head}; power " + ", ".join(f"{k} {v:.0%}" for k, v in oc.power.items()), ev)
