"""A bound's rule with its operating characteristics measured at the claim's own design.

A claim "y ≲ b" (an upper bound with a free constant) can only be falsified by a ratio y/b that keeps
growing along a direction in which the theorem is asymptotic (R → ∞, ζ → 0, K → ∞ at fixed η_cK).  The
rule ``bounded_ratio`` judges exactly that, and measures how often it errs:

* **statistics** (``weights``): T = the least-squares slope of the seed-mean log ratio r = log(y/b)
  against t = log(x/x₀) over the tail of the window (its last half, at least 3 points), x the
  direction's coordinate oriented so that it grows into the regime; and L = λ·T − E, how far the
  window's last local slope E falls below the share λ of T that a ratio levelling off stays under
  (``levelling``; a power law has E = T, so L < 0);
* **legal family** (the bound holds with some constant, ``legal_shapes``): the ratio flat; falling (y
  faster than b); *saturating* — rising but bounded, a·x/(x + c) at 80% of its plateau by the
  window's geometric middle or by any later point before the last; and *levelling off* — rising like
  x^a and flat from any point of the window before the last (a·K/(K + 4) on K = 4 … 64 is a saturating
  ratio; x/(x + 80) on R = 10 … 640 reaches 80% at R = 320; R^0.5 capped at R = 160 levels off);
* **decision**: T > c with L ≤ d — *inconsistent* (the ratio still grows at the window's end, at a
  pace that is not slowing); T > c with L > d — *inconclusive (rose inside the window)*: the ratio rose
  and is levelling off, and the window to extend to is named (the local slopes' decay, extrapolated);
  otherwise *consistent* if the smallest departure it detects with 95% power (``rates.departure``:
  y ∝ b^(1−ε), or growth x^ε where b does not move) is at most ``EPS_MAX``, and *inconclusive (weak)*
  beyond it, naming the design that would detect it (more instances or repetitions, or a longer
  window, computed from these same characteristics);
* **calibration**: d = the 99.5% normal quantile of L's spread; c = the smallest value that keeps
  P(T > c, L ≤ d) ≤ 0.5% for every legal shape at the measurement's own points, seeds and log-noise σ
  (pooled across seeds; for one seed the residual of a smooth fit, or ``NOISE_FLOOR`` for a
  deterministic curve) — exact, since T and L are linear in Gaussian log-noise (``rates.departure``);
* **reported**: the size (the largest over the legal family, by kind) and the power against named
  violations (y ∝ b^p for p = 0.5, 0.7, 0.8; flat; rising; or y growing like x^q where b does not move)
  re-measured on ``REPS`` fresh repetitions (independent of the calibration), the smallest departure
  detected, the noise, T, L and their critical values.

Under noise a ratio that saturates just before the window's end cannot be told from a steady rise:
keeping the size on it costs power, so a noisy design is often *weak*, and the help it names is more
rows (a longer window moves the legal family's late members with it).

Every simulation is seeded from ``seed``: the same data give the same verdict and the same figures.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from statistics import NormalDist
from typing import Any

import numpy as np

from fcocheck.rates.departure import EPS_MAX, Detection, eps_min, excludes, rejects
from fcocheck.rates.threshold import above, below
from fcocheck.rates.verdict import CONSISTENT, INCONCLUSIVE, INCONSISTENT, MIN_SPAN, Verdict

SIZE = 0.005  # every rule's false-alarm rate on its legal boundary by construction (≤ 1% as re-measured)
LEVEL = 1.0 - SIZE  # the critical value's quantile: size ≤ 0.5% on each legal shape, so ≤ 1% as re-measured
POWER = 0.95  # the power at which a departure counts as detected (``rates.departure``)
REPS = 2000  # fresh repetitions for the reported size and power: a Monte-Carlo error of ±0.16% at 0.5%
NOISE_FLOOR = 1e-3  # log-noise assumed at least (a deterministic curve still has rounding and bend)
SATURATION = 0.8  # a legal ratio has reached this share of its plateau by the window's middle
POWERS = (0.5, 0.7, 0.8)  # y ∝ b^p: violations of y ≲ b as b shrinks
SLOW = (0.08, 0.2, 0.5)  # y ∝ x^q: violations where b does not move along x
MIN_POINTS = 4  # sweep points the rule needs (a tail slope over the last half, and a middle)


@dataclass(frozen=True)
class OC:
    """Operating characteristics of one rule at one design: measured, not asserted.

    ``size_by``: the measured false-alarm rate of each kind of legal shape (the largest of its kind);
    ``critical``/``levelling``: the critical values of T and L; ``detection``: the power as a function
    of the departure ε (``rates.departure.Detection``).
    """

    size: float
    size_by: dict[str, float]
    power: dict[str, float]
    noise: float
    critical: float
    reps: int
    seeds: int
    points: int
    levelling: float = 0.0
    detection: dict = field(default_factory=dict)
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


def _slopes(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(w_T, w_E): T = w_T·r, the tail's least-squares slope; E = w_E·r, the window's last local slope."""
    idx = _tail(t)
    tt = t[idx] - t[idx].mean()
    w_t = np.zeros(len(t))
    w_t[idx] = tt / (tt @ tt)
    w_e = np.zeros(len(t))
    w_e[-1] = 1.0 / (t[-1] - t[-2])
    w_e[-2] = -w_e[-1]
    return w_t, w_e


#: how much above the legal ratios' largest end slope per unit of tail slope a levelling end may be (twice:
#: the latest-saturating legal ratio then ends half as steep as λ allows, which low noise resolves)
LEVELLING = 2.0
#: λ at most this: an end slope of 90% of the tail slope or more is never a ratio levelling off
MAX_LEVELLING = 0.9


def levelling(t: np.ndarray) -> float:
    """λ: a rise has levelled off when its last local slope E is below λ·T (module docstring).

    ``LEVELLING`` × the largest E₀/T₀ over the legal ratios that rise in the tail (a ratio saturating
    by the point before the last has the largest), at most ``MAX_LEVELLING``: a power law (E₀ = T₀) never
    levels off; a log-like growth (E₀ ≈ 0.8–0.9·T₀) may be called rising inside a short window (it is
    inconclusive there, never consistent).  It depends on the window only: the shapes
    are the bound times a function of t.
    """
    w_t, w_e = _slopes(t)
    names, logs = legal_logs(t)
    late = logs[[k not in EARLY for k in names]]
    t0, e0 = late @ w_t, late @ w_e
    ratios = e0[t0 > 1e-9] / t0[t0 > 1e-9]
    return min(MAX_LEVELLING, LEVELLING * float(ratios.max())) if ratios.size else MAX_LEVELLING


def weights(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(w_T, w_L): T = w_T·r, the tail slope; L = w_L·r = λ·T − E, how far the end is below a steady rise."""
    return _weights(tuple(float(v) for v in t))


@lru_cache(maxsize=256)
def _weights(key: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray]:
    t = np.array(key)
    w_t, w_e = _slopes(t)
    return w_t, levelling(t) * w_t - w_e


def tail_slope(t: np.ndarray, R: np.ndarray) -> np.ndarray:
    """Least-squares slope of each row of R (…, P) against t over the tail: shape (…)."""
    return np.asarray(R) @ weights(t)[0]


def _spreads(t: np.ndarray, seeds: int, sigma: float) -> tuple[float, float, float]:
    """(sd_T, sd_L, ρ) under log-noise σ on ``seeds`` rows (both statistics are linear in the noise)."""
    w_t, w_d = weights(t)
    s = sigma / np.sqrt(seeds)
    nt, nd = float(np.linalg.norm(w_t)), float(np.linalg.norm(w_d))
    return s * nt, s * nd, float(w_t @ w_d) / (nt * nd)


def spread(t: np.ndarray, seeds: int, sigma: float) -> float:
    """Standard deviation of T under log-noise σ on ``seeds`` rows."""
    return _spreads(t, seeds, sigma)[0]


def simulate(curve: np.ndarray, b: np.ndarray, t: np.ndarray, seeds: int, sigma: float, reps: int,
             rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(T, L) for ``reps`` simulated measurements of ``curve`` (log-normal noise σ, ``seeds`` rows each)."""
    n_t, n_l = noise_draws(t, seeds, sigma, reps, rng)
    r = np.log(curve / b)
    w_t, w_l = weights(t)
    return r @ w_t + n_t, r @ w_l + n_l


def noise_draws(t: np.ndarray, seeds: int, sigma: float, reps: int,
                rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The noise parts of (T, L) in ``reps`` measurements (each ``seeds`` rows of log-noise σ).

    Both statistics are linear in the seed-mean log ratio, so a curve's simulated (T, L) is its
    noise-free pair plus these; one call's draws serve every curve (common random numbers).
    """
    noise = (sigma * rng.standard_normal((reps, seeds, len(t)))).mean(axis=1)
    w_t, w_l = weights(t)
    return noise @ w_t, noise @ w_l


#: the legal shapes a consistent verdict must pass (the rest may be called rising inside the window)
EARLY = ("ratio flat", "ratio falling", "ratio saturating")
#: the slopes x^a of the legal ratios that level off (each from every point of the window)
KINK_SLOPES = tuple(float(a) for a in np.geomspace(0.02, 4.0, 16))


def legal_shapes(t: np.ndarray, b: np.ndarray) -> dict[str, np.ndarray]:
    """Y for each legal shape (module docstring): the ratio flat, falling, saturating, levelling off.

    Saturating: x/(x + c) at ``SATURATION`` of its plateau by the window's middle (``ratio saturating``)
    or by a later point k before the last (``ratio saturating by point k``); levelling off: x^a up to
    point k, flat after it, for k = 1 … P − 2 and a in ``KINK_SLOPES`` (``ratio levelling off at point k,
    slope a``).
    """
    mid = float(t[-1]) / 2

    def saturating(at: float) -> np.ndarray:  # x/(x + c) in x = x₀eᵗ, at SATURATION of its plateau at t = at
        return b / (1 + (1 / SATURATION - 1) * np.exp(-(t - at)))

    out = {"ratio flat": b.copy(), "ratio falling": b * np.exp(-0.5 * t), "ratio saturating": saturating(mid)}
    for k in range(1, len(t) - 1):
        if t[k] > mid:
            out[f"ratio saturating by point {k}"] = saturating(float(t[k]))
        for a in KINK_SLOPES:
            out[f"ratio levelling off at point {k}, slope {a:.3g}"] = b * np.exp(a * np.minimum(t, t[k]))
    return out


def legal_logs(t: np.ndarray) -> tuple[tuple[str, ...], np.ndarray]:
    """The legal shapes' names and log ratios log(y/b) (shapes × points): they depend on the window only."""
    return _legal_logs(tuple(float(v) for v in t))


@lru_cache(maxsize=256)
def _legal_logs(key: tuple[float, ...]) -> tuple[tuple[str, ...], np.ndarray]:
    t = np.array(key)
    shapes = legal_shapes(t, np.ones(len(t)))
    return tuple(shapes), np.log(np.array(list(shapes.values())))


def _kind(name: str) -> str:
    """A legal shape's kind (its name up to the point it names)."""
    return name.split(" by point")[0].split(" at point")[0]


def violation_shapes(t: np.ndarray, b: np.ndarray) -> dict[str, np.ndarray]:
    """The named violations of y ≲ b along t, as curves y (module docstring).

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


#: the least tail slope of log b in log x for the departure to be read in the bound's exponent
MOVES = 0.1


def departure_scale(t: np.ndarray, b: np.ndarray) -> tuple[str, str, np.ndarray]:
    """(scale, direction, u): a departure ε moves log(y/b) by ε·u (``rates.departure``).

    u = −log(b/b₀) where b shrinks along t (y ∝ b^(1−ε)), +log(b/b₀) where it grows (y ∝ b^(1+ε)) —
    its log slope over the tail at least ``MOVES`` —, t where it hardly moves (y ∝ b·x^ε).
    """
    lb = np.log(b / b[0])
    slope = float(_slopes(t)[0] @ lb)
    if slope <= -MOVES:
        return "bound", "shrinks", -lb
    if slope >= MOVES:
        return "bound", "grows", lb
    return "x", "flat", t.copy()


def critical_values(t: np.ndarray, b: np.ndarray, seeds: int, sigma: float, level: float = LEVEL
                    ) -> tuple[float, float]:
    """(c, d): T's critical value and L's (module docstring, calibration).

    d = the ``level`` normal quantile of L's spread.  c keeps every legal shape's false alarm at most
    1 − level: the ratios flat, falling and saturating by the window's middle by T alone (they pass as
    consistent, c ≥ T₀ + z·sd_T), the ratios that saturate or level off later by P(T > c, L ≤ d) (they
    may exceed c, as rising inside the window, but not look like a steady rise) — exact
    (``rates.departure.rejects``), by bisection for all of them at once.
    """
    sd_t, sd_d, rho = _spreads(t, seeds, sigma)
    z = NormalDist().inv_cdf(level)
    d = z * sd_d
    w_t, w_d = weights(t)
    names, logs = legal_logs(t)
    early = np.array([k in EARLY for k in names])
    c_early = float((logs[early] @ w_t).max()) + z * sd_t
    t0, d0 = logs[~early] @ w_t, logs[~early] @ w_d
    alpha = 1.0 - level
    bound_by = rejects(t0, d0, -np.inf, d, sd_t, sd_d, rho) > alpha  # late shapes that constrain c at all
    if not bound_by.any():
        return c_early, float(d)
    t0, d0 = t0[bound_by], d0[bound_by]
    lo, hi = t0 - 12 * sd_t, t0 + 12 * sd_t
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        high = rejects(t0, d0, mid, d, sd_t, sd_d, rho) > alpha
        lo, hi = np.where(high, mid, lo), np.where(high, hi, mid)
    return max(c_early, float(hi.max())), float(d)


def critical_value(t: np.ndarray, b: np.ndarray, seeds: int, sigma: float, level: float = LEVEL) -> float:
    """T's critical value (``critical_values``)."""
    return critical_values(t, b, seeds, sigma, level)[0]


def detection(t: np.ndarray, b: np.ndarray, seeds: int, sigma: float, crit: float, dcrit: float) -> Detection:
    """The rule's rejection as a function of the departure ε at this design (``rates.departure``)."""
    scale, _, u = departure_scale(t, b)
    w_t, w_d = weights(t)
    sd_t, sd_d, rho = _spreads(t, seeds, sigma)
    return Detection(scale, float(u @ w_t), float(u @ w_d), sd_t, sd_d, rho, crit, dcrit)


def characteristics(t: np.ndarray, b: np.ndarray, seeds: int, sigma: float, seed: int | tuple[int, ...],
                    violations: dict[str, np.ndarray] | None = None, level: float = LEVEL) -> OC:
    """The critical values (exact on the legal family) and the size and power measured by simulation.

    ``seed``: an integer, or a tuple (one of several tests of one claim: its own stream, so that the
    claim's summed size averages independent Monte-Carlo errors instead of repeating one).
    """
    rng = np.random.default_rng([*np.atleast_1d(seed).tolist(), 0x0C])
    crit, dcrit = critical_values(t, b, seeds, sigma, level)
    w_t, w_l = weights(t)

    def rejected(logs: np.ndarray) -> np.ndarray:  # curves × points of log(y/b) → share rejected, each
        n_t, n_l = noise_draws(t, seeds, sigma, REPS, rng)
        T, L = (logs @ w_t)[:, None] + n_t, (logs @ w_l)[:, None] + n_l
        return np.mean((T > crit) & (L <= dcrit), axis=1)

    names, logs = legal_logs(t)
    size_by: dict[str, float] = {}
    for name, rate in zip(names, rejected(logs), strict=True):
        size_by[_kind(name)] = max(size_by.get(_kind(name), 0.0), float(rate))
    viol = violation_shapes(t, b) if violations is None else violations
    power = dict(zip(viol, map(float, rejected(np.log(np.array(list(viol.values())) / b))), strict=True)) \
        if viol else {}
    found = detection(t, b, seeds, sigma, crit, dcrit)
    return OC(max(size_by.values()), size_by, power, sigma, crit, REPS, seeds, len(t), dcrit, found.as_dict())


def bounded_ratio(x: np.ndarray, b: np.ndarray, Y: np.ndarray, seed: int | tuple[int, ...] = 0,
                  violations: Callable[[np.ndarray, np.ndarray], dict[str, np.ndarray]] | None = None,
                  label: str = "x", deterministic: bool = False, noise: float | None = None,
                  level: float = LEVEL, gate: bool = True) -> Verdict:
    """Y ≲ b along x (module docstring): the verdict with its measured size, power and smallest departure.

    Args:
        x: the direction's coordinate at each point, > 0, growing into the theorem's regime (R; 1/ζ).
        b: the bound (every constant 1) at each point.
        Y: the measurement, seeds × points.
        seed: seeds the simulations (a tuple: one test's own stream among several, ``characteristics``).
        violations: ``(t, b) -> {name: y}`` to replace the default named violations (reported).
        label: the coordinate's name in messages.
        deterministic: one seed of an exact-gradient run (its log-noise is ``NOISE_FLOOR``).
        noise: the curve's log-noise when the caller knows it better (a mean over seeds:
            ``mean_log_noise``); by default estimated from Y.
        level: the critical values' quantile (one of several tests of one claim takes a share of
            1 − ``LEVEL``).
        gate: a consistent verdict whose smallest detected departure exceeds ``EPS_MAX`` is inconclusive
            (weak); False for one of several tests whose departures the caller combines
            (``verify.experiments.judge.bound_instances``).

    """
    x, b = np.asarray(x, dtype=float), np.asarray(b, dtype=float)
    Yr = np.atleast_2d(np.asarray(Y, dtype=float))
    rule = f"bounded ratio along {label} (calibrated: size ≤ 1%, detects ε ≤ {EPS_MAX:g} at {POWER:.0%})"
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
    r = np.log(Yr / b).mean(axis=0)
    w_t, w_l = weights(t)
    T, L = float(r @ w_t), float(r @ w_l)
    found = Detection(**oc.detection)
    eps = eps_min([found])
    direction = departure_scale(t, b)[1]
    ratio = (Yr / b).mean(axis=0)
    ev = {"tail_slope": T, "critical": oc.critical, "levelling": L, "levelling_critical": oc.levelling,
          "C": float(ratio.max()), "ratios": ratio.tolist(), "oc": oc.as_dict(),
          "power": power_summary(oc.power),
          "departure": {"eps_min": eps, "scale": found.scale, "direction": direction,
                        "excludes": excludes(found.scale, eps, direction)}}
    head = (f"tail slope of log(y/bound) in log {label} {T:.3g} (critical {oc.critical:.3g} at log-noise "
            f"{sigma:.2g}); size {oc.size:.1%}")
    if above(T, oc.critical):
        if above(L, oc.levelling):
            X = x[0] * float(np.exp(extend_to(t, r, oc.critical)))
            ev["extend_to"] = X
            where = (f"extend the window to {label} ≈ {X:.3g}" if X <= x[-1] * 2.0**40 else
                     "its rise slows too slowly to say where it would stop: extend the window by decades")
            return Verdict(INCONCLUSIVE, rule, f"rose inside the window: {head}, but it is levelling off "
                           f"(its last local slope is {L:.3g} below {levelling(t):.2g}× the tail slope, "
                           f"beyond the {oc.levelling:.3g} a steady rise reaches 0.5% of the time): a "
                           f"bounded ratio, or one still growing — {where}", ev)
        return Verdict(INCONSISTENT, rule, f"{head}: the ratio keeps growing at the window's end", ev)
    listed = "; power " + ", ".join(f"{k} {v:.0%}" for k, v in oc.power.items())
    if gate and not eps <= EPS_MAX:
        ev["design"] = {**design_help(t, b, Yr.shape[0], sigma, level), "rows_now": Yr.shape[0]}
        return Verdict(INCONCLUSIVE, rule, f"weak: {head}; it excludes only {ev['departure']['excludes']} "
                       f"(95%), not a departure of {EPS_MAX:g} — {design_text(ev['design'], x[0], label)}"
                       + listed, ev)
    return Verdict(CONSISTENT, rule, f"{head}; excludes {ev['departure']['excludes']} (95%)" + listed, ev)


def extend_to(t: np.ndarray, r: np.ndarray, crit: float) -> float:
    """The window's end (in t) at which a ratio levelling off as now would be told from a growing one.

    The tail's local slopes fall from s₁ (the first half's mean) to s₂ (the last half's) over Δ in t:
    a decay q = (s₂/s₁)^(1/Δ) per unit t, extrapolated until the local slope is half the critical tail
    slope, at t*; a window [0, 2t*] has its tail beyond it.  Already flat (s₂ ≤ 0): one more doubling of
    the window's span in t.
    """
    idx = _tail(t)
    slopes = np.diff(r[idx]) / np.diff(t[idx])
    mids = 0.5 * (t[idx][1:] + t[idx][:-1])
    h = max((len(idx) - 1) // 2, 1)
    s1, s2 = float(slopes[:h].mean()), float(slopes[-h:].mean())
    c1, c2 = float(mids[:h].mean()), float(mids[-h:].mean())
    if s2 <= 0 or s1 <= s2 or s2 <= crit / 2:
        return 2.0 * float(t[-1])
    q = np.log(s2 / s1) / (c2 - c1)
    return 2.0 * (c2 + float(np.log(crit / (2 * s2))) / q)


def design_help(t: np.ndarray, b: np.ndarray, seeds: int, sigma: float, level: float = LEVEL,
                target: float = EPS_MAX) -> dict[str, float | int | None]:
    """What would bring the smallest detected departure to ``target``: more rows, a longer window, or both.

    ``seeds``: the fewest rows (instances × repetitions averaged, or repetitions of one instance) at the
    same window, by doubling up to 2¹² times today's (None: more rows alone cannot: the legal family
    keeps it above); ``window``: the end in t of the shortest window with the same spacing and the bound
    continued as the tail's power law, up to 2⁴⁰ times today's span in x, with ``window_seeds`` rows
    (today's when they suffice there; None when no such window is found).
    """
    def eps_at(tt: np.ndarray, bb: np.ndarray, n: int) -> float:
        crit, dcrit = critical_values(tt, bb, n, sigma, level)
        return eps_min([detection(tt, bb, n, sigma, crit, dcrit)])

    def fewest(tt: np.ndarray, bb: np.ndarray) -> int | None:
        """The fewest rows seeds·2^k (k ≤ 12) that reach the target at this window, by bisection."""
        if eps_at(tt, bb, seeds) <= target:
            return seeds
        if eps_at(tt, bb, seeds * 2**12) > target:
            return None
        lo, hi = 0, 12
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if eps_at(tt, bb, seeds * 2**mid) <= target else (mid, hi)
        return seeds * 2**hi

    step = float(t[-1] - t[-2])
    slope = float(tail_slope(t, np.log(b)))

    def longer(m: int) -> tuple[np.ndarray, np.ndarray]:
        k = np.arange(1, m + 1)
        return np.concatenate([t, t[-1] + step * k]), np.concatenate([b, b[-1] * np.exp(slope * step * k)])

    here = fewest(t, b)
    m, top = 1, int(np.ceil(40 * np.log(2) / step))
    while m <= top and fewest(*longer(m)) is None:  # doubling the points added, then bisection
        m *= 2
    if m > top:
        return {"seeds": here, "window": None, "window_seeds": None}
    lo, hi = m // 2, m
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if fewest(*longer(mid)) is not None else (mid, hi)
    return {"seeds": here, "window": float(longer(hi)[0][-1]), "window_seeds": fewest(*longer(hi))}


def design_text(help_: dict[str, Any], x0: float, label: str) -> str:
    """``design_help``'s answer in words."""
    parts = []
    if help_.get("seeds") is not None:
        parts.append(f"{help_['seeds']} rows (instances, or repetitions) at this window")
    if help_.get("window") is not None:
        rows = help_.get("window_seeds")
        parts.append(f"a window to {label} ≈ {x0 * np.exp(help_['window']):.3g}"
                     + (f" with {rows} rows" if rows and rows != help_.get("rows_now") else ""))
    return ("it would with " + " or ".join(parts)) if parts else (
        "no window within 2⁴⁰× its span nor 2¹²× its rows would: state a sharper claim")
