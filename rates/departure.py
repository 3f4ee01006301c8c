"""A bounded-ratio verdict's power as a function of the departure ε, exactly, and the smallest one it detects.

The rule (``rates.oc.bounded_ratio``) reads two linear statistics of the seed-mean log ratio
r = log(y/b) along t = log(x/x₀): the tail slope T and the levelling L — how much faster the tail's
local slopes fall than a steady rise's would (``rates.oc.weights``).  Log-normal noise of σ on S rows
makes them jointly normal: T = T₀ + sd_T·Z₁, L = L₀ + sd_L·Z₂ with corr(Z₁, Z₂) = ρ.  The rule calls
the ratio growing when T > c and L ≤ d (it rose and is not levelling off), so

    P(inconsistent) = P(L ≤ d) − P(T ≤ c, L ≤ d) = Φ(k) − Φ₂(h, k; ρ),  h = (c − T₀)/sd_T, k = (d − L₀)/sd_L,

with Φ₂ the bivariate normal distribution function (``bvn_cdf``, exact through Owen's T function).

A departure ε from the claim moves the ratio by ε·u(t): u = −log(b/b₀) when b shrinks (y ∝ b^(1−ε), the
error of claiming 1/R when the truth is R^−0.9, whatever the bound's own exponent), u = +log(b/b₀) when
b grows (a time constant), u = t when b hardly moves (y growing like x^ε); so T₀ = ε·g, L₀ = ε·e with
g, e the statistics of u.  ``Detection.power(ε)`` is the exact probability the rule rejects; several
instances, each judged on its own, reject when any does: 1 − Π(1 − pᵢ(ε)).  ``eps_min`` is the smallest
ε whose power reaches ``POWER``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy.special import ndtr, owens_t

POWER = 0.95  # the power at which the smallest detected departure is read
EPS_MAX = 0.1  # a consistent verdict must exclude a departure this large (else: inconclusive, weak)
EPS_CAP = 64.0  # departures beyond this are reported as not detected (∞)


def bvn_cdf(h: Any, k: Any, rho: float) -> Any:
    """Φ₂(h, k; ρ) = P(Z₁ ≤ h, Z₂ ≤ k) for standard normals of correlation ρ (Owen 1956, via T(h, a)).

    Elementwise over arrays h, k (finite, or ±∞); exact to rounding (checked against scipy's integration).
    """
    rho = min(max(float(rho), -0.999999), 0.999999)
    h, k = np.broadcast_arrays(np.asarray(h, dtype=float), np.asarray(k, dtype=float))
    hf = np.where(np.isfinite(h), np.where(h == 0, 1e-12, h), 1.0)
    kf = np.where(np.isfinite(k), np.where(k == 0, 1e-12, k), 1.0)
    s = np.sqrt(1.0 - rho * rho)
    value = (0.5 * (ndtr(hf) + ndtr(kf)) - owens_t(hf, (kf - rho * hf) / (hf * s))
             - owens_t(kf, (hf - rho * kf) / (kf * s)) - np.where(hf * kf > 0, 0.0, 0.5))
    value = np.clip(value, 0.0, 1.0)
    value = np.where(np.isposinf(h), ndtr(np.where(np.isfinite(k), k, np.sign(k) * 40)), value)
    value = np.where(np.isposinf(k), ndtr(np.where(np.isfinite(h), h, np.sign(h) * 40)), value)
    return np.where(np.isneginf(h) | np.isneginf(k), 0.0, value)


def rejects(t0: Any, d0: Any, crit: Any, dcrit: float, sd_t: float, sd_d: float, rho: float) -> Any:
    """P(T > crit, L ≤ dcrit) for T ~ N(t0, sd_t²), L ~ N(d0, sd_d²) of correlation ρ (module docstring)."""
    k = (dcrit - np.asarray(d0, dtype=float)) / sd_d
    return np.maximum(ndtr(k) - bvn_cdf((np.asarray(crit, dtype=float) - t0) / sd_t, k, rho), 0.0)


@dataclass(frozen=True)
class Detection:
    """How one test's rejection grows with the departure ε (module docstring).

    Attributes:
        scale: ``bound`` (y ∝ b^(1∓ε)) or ``x`` (y ∝ b·x^ε, the bound flat along the sweep).
        g: T's mean per unit ε.
        e: L's mean per unit ε.
        sd_t: T's standard deviation.
        sd_d: L's standard deviation.
        rho: their correlation.
        crit: the critical value of T.
        dcrit: the levelling beyond which a rise is levelling off (not a violation).

    """

    scale: str
    g: float
    e: float
    sd_t: float
    sd_d: float
    rho: float
    crit: float
    dcrit: float

    def power(self, eps: Any) -> Any:
        """The probability that the rule rejects a departure ε (elementwise over an array of them)."""
        eps = np.asarray(eps, dtype=float)
        return rejects(eps * self.g, eps * self.e, self.crit, self.dcrit, self.sd_t, self.sd_d, self.rho)

    def as_dict(self) -> dict:
        """JSON form."""
        return asdict(self)


def combined_power(detections: Sequence[Detection], eps: Any) -> Any:
    """Several tests, each on its own data: the probability that at least one rejects (elementwise in ε)."""
    miss = np.ones_like(np.asarray(eps, dtype=float))
    for d in detections:
        miss = miss * (1.0 - d.power(eps))
    return 1.0 - miss


def eps_min(detections: Sequence[Detection], power: float = POWER) -> float:
    """The smallest ε ≥ 0 detected with probability ``power`` (``math.inf`` up to ``EPS_CAP``).

    Scanned on a geometric grid from 10⁻⁴ (the power need not grow for ever: a large departure of a
    curved bound may look like a ratio levelling off), then bisected below the first ε that reaches it.
    """
    if not detections:
        return math.inf
    grid = np.concatenate([[0.0], np.geomspace(1e-4, EPS_CAP, 97)])
    reached = np.nonzero(combined_power(detections, grid) >= power)[0]
    if reached.size == 0:
        return math.inf
    hit = int(reached[0])
    if hit == 0:
        return 0.0
    lo, hi = float(grid[hit - 1]), float(grid[hit])
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if float(combined_power(detections, mid)) >= power else (mid, hi)
    return hi


def excludes(scale: str, eps: float, direction: str = "shrinks") -> str:
    """What a consistent verdict excludes, in words (``y ∝ bound^0.93 and slower``, ``growth x^0.05 …``)."""
    if math.isinf(eps):
        return "no departure it can detect"
    if scale == "x":
        return f"growth x^{eps:.2g} and faster"
    power = 1.0 - eps if direction == "shrinks" else 1.0 + eps
    return f"y ∝ bound^{power:.3g} and {'slower' if direction == 'shrinks' else 'faster'}"
