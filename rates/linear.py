"""A linear rate's rule, with its operating characteristics measured at the claim's own window.

A claim "y_t ≤ C·ρ^t for some ρ < 1" (FedCanon Thm 2 to its neighbourhood) is asymptotic, and on a
finite window no shape test separates it from every sub-linear decay: a mixture of two exponentials —
legal — slows down as much as exp(−t^0.75) if its fast mode still carries a large share of y late in
the window.  The rule therefore states the legal family it protects and measures how often it errs:

* **legal family**: y = slow mode + faster modes that carry at most ``SHARE`` of y where the window's
  middle third begins; also a single exponential and an accelerating decay (the decrement growing).
  The share is wide because a gap to a neighbourhood is itself a mixture: Φ(x_t) − Φ(x_∞) has a term
  linear in x_t − x_∞ (rate ρ) and a quadratic one (rate ρ²), so its log-decrement falls from about
  2·(−log ρ) to −log ρ along the window — measured on FedCanon's built-in instances, d₃/d₂ down to
  0.842 over 60 of them, which a share of 0.3 rejected (instance seed 11 at study seed 9) and 0.6
  holds with margin 0.035.  A mixture with a larger late transient is legal too, but on a finite
  window nothing tells it from a sub-linear decay;
* **statistic**: d₂ and d₃, the least-squares log-decrements per round of the seed-mean log curve over
  the window's middle and last thirds, and D = d₃ − κ·d₂, κ the smallest d₃/d₂ of the legal family at
  the least slow rate the data allow (the tail's mean decrement at its lower 99.5% bound, less the
  log 1/(1 − SHARE) nats the faster modes can add to the tail's fall; κ grows with the rate, so
  neither a mixture nor noise moves the boundary into the family) — the worst two-mode mixture,
  searched on a grid of fast rates; every legal
  shape has D ≥ 0 without noise.  exp(−t^0.75) has d₃/d₂ = 0.877 at every time scale, exp(−t^0.5)
  0.767 and 1/t^p about 0.59: at κ ≈ 0.80–0.83 (the built-in windows) the rule rejects the last two
  and has **no power against exp(−t^0.75)** — it says so, ``inconclusive (no power)``, rather than
  pass it as the rule it replaced did;
* **decision**: *inconsistent* if the tail rises (d₂ + d₃ < −z·sd); else *inconclusive* if its fall
  is not resolved from the noise; else *inconsistent* if D < −z·sd(D) (the decay still slows at the
  window's end more than any legal shape does).  With several seeds sd is the spread of each seed's
  own statistic over seeds and z the Student-t ``LEVEL`` quantile (S − 1 dof: noise correlated
  along rounds is allowed for); one curve assumes independent log-noise σ (``NOISE_FLOOR`` when
  exact) and z the normal quantile — the size on the family's boundary is then ≤ 1 − ``LEVEL`` at
  that noise;
* **power**: the rejection rate of each sub-linear decay that falls over the judged tail as the
  measurement does (1/t^p, 1/log^p t, exp(−t^0.5), exp(−t^0.75), time counted from the window's
  start), simulated over ``REPS`` repetitions at the measured noise; ``consistent`` only where every
  one is rejected in ≥ ``POWER`` of them, else *inconclusive (no power)* naming it.  The size is
  re-measured on the legal shapes by the same simulation.

All simulations are seeded from ``seed``.
"""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
from scipy.stats import t as student

from fcocheck.rates.oc import LEVEL, NOISE_FLOOR, OC, POWER, REPS, log_noise, power_summary
from fcocheck.rates.threshold import above, above_each, below, below_each
from fcocheck.rates.verdict import CONSISTENT, INCONCLUSIVE, INCONSISTENT, Verdict

# LEVEL (``rates.oc``'s, one level for every rule): size ≤ 0.5% on the legal family's boundary, ≤ 1% as
# re-measured
SHARE = 0.6  # legal: the faster modes carry at most this share of y where the middle third begins
PARTS = 3  # the window in thirds: the middle and the last are compared
MIN_POINTS = 9  # three points per third at least
ACCELERATION = 1.5  # the legal accelerating shape: the decrement grows by this factor over the window
STRETCHED = (0.5, 0.75)  # exp(−t^β): sub-linear decays the rule must reject


def tail_weights(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Weights w with w·L = −(least-squares slope of L) over the window's middle and over its last third."""
    out = []
    for a, b in ((n - (2 * n) // PARTS, n - n // PARTS), (n - n // PARTS, n)):
        w = np.zeros(n)
        t = np.arange(a, b, dtype=float)
        tc = t - t.mean()
        w[a:b] = -tc / (tc @ tc)
        out.append(w)
    return out[0], out[1]


def worst_mixture(n: int, rate: float, share: float = SHARE) -> tuple[np.ndarray, float]:
    """The legal two-mode log curve with the smallest d₃/d₂ at slow rate ``rate``, and that ratio κ.

    y_t = A·e^(−a t) + e^(−rate·t), the fast mode's share at the middle third's first round equal to
    ``share``, a searched on the grid rate + (rate·(10⁻³ … 10³) ∪ (10⁻³ … 10³)/n): the second part keeps
    fast modes that die inside the window when the slow rate is near 0 (κ → 0 there, not 1).
    """
    t = np.arange(n, dtype=float)
    w2, w3 = tail_weights(n)
    grid = np.geomspace(1e-3, 1e3, 241)
    gaps = np.concatenate([grid * max(rate, 1e-12), grid / n])
    m = n - (2 * n) // PARTS  # the middle third's first round: the fast modes' share there is ``share``
    log_a = np.log(share / (1 - share)) + gaps * m  # log(A e^{−a m} / e^{−b m}) = log(share/(1−share))
    L = np.logaddexp(log_a[:, None] - (rate + gaps)[:, None] * t[None, :], -rate * t[None, :])
    ratio = (L @ w3) / (L @ w2)
    i = int(np.argmin(ratio))
    return L[i], float(min(ratio[i], 1.0))


def legal_shapes(n: int, rate: float) -> dict[str, np.ndarray]:
    """Log curves of the legal family at slow rate ``rate`` (module docstring)."""
    t = np.arange(n, dtype=float)
    accel = rate * (t + (ACCELERATION - 1) * t**2 / (2 * (n - 1)))  # decrement rate → ACCELERATION·rate
    return {"one exponential": -rate * t, "accelerating": -accel,
            f"two modes, fast share {SHARE:g} at mid-window": worst_mixture(n, rate)[0]}


def violation_shapes(n: int, tail_drop: float) -> dict[str, np.ndarray]:
    """Sub-linear log curves on the window's rounds t = 0 … n − 1, each falling by ``tail_drop`` on the tail.

    The tail is the window's last two thirds, which the rule judges; the measurement falls there by
    ``tail_drop``.

    Polynomial 1/(1 + t)^p and 1/log(e + t)^p with p so matched (every p gives the same shape in log y
    up to scale, so one p stands for 1/t, 1/√t, 1/t² …), and exp(−c·t^β) for β in ``STRETCHED``.
    """
    t = np.arange(n, dtype=float)
    m = n - (2 * n) // PARTS
    laws = {"1/t^p": -np.log1p(t), "1/log^p t": -np.log(np.log(np.e + t))}
    laws.update({f"exp(−t^{beta:g})": -(t**beta) for beta in STRETCHED})
    return {name: f * (tail_drop / (f[m] - f[-1])) for name, f in laws.items()}


def _rejects(L: np.ndarray, w2: np.ndarray, w3: np.ndarray, kappa: float, sd_d: float, sd_e: float,
             z: float) -> np.ndarray:
    """Which rows of log curves L (…, n) the rule rejects: the decision of ``linear_rate``, in its order."""
    d2, d3 = L @ w2, L @ w3
    rises = below_each(d2 + d3, -z * sd_e)
    resolved = above_each(d2 + d3, z * sd_e)
    return rises | (resolved & below_each(d3 - kappa * d2, -z * sd_d))


def linear_rate(Y: np.ndarray, start: int, stop: int, seed: int = 0, deterministic: bool = False,
                level: float = LEVEL) -> Verdict:
    """Y (seeds × rounds) contracts linearly on [start, stop): the rule of the module docstring.

    Args:
        Y: the error curve(s), positive.
        start: the window's first round.
        stop: one past its last round.
        seed: seeds the simulations.
        deterministic: one exact-gradient curve (its log-noise is ``NOISE_FLOOR``).
        level: the rule's quantile (one of S instances of a claim takes 1/S of its 1 − ``LEVEL``).

    """
    Yr = np.atleast_2d(np.asarray(Y, dtype=float))[:, start:stop]
    n, S = Yr.shape[1], Yr.shape[0]
    rule = f"linear rate (calibrated: size ≤ {2 * (1 - level):.2%} on its legal family, power ≥ {POWER:.0%})"
    if n < MIN_POINTS:
        return Verdict(INCONCLUSIVE, rule, f"window [{start}, {stop}) has {n} rounds; the rule is "
                       f"≥ {MIN_POINTS}", {"start": start, "stop": stop, "factor": float("nan")})
    if not (np.all(Yr > 0) and np.all(np.isfinite(Yr))):
        return Verdict(INCONCLUSIVE, rule, "a value is not positive and finite: no log curve",
                       {"start": start, "stop": stop, "factor": float("nan")})
    LS = np.log(Yr)
    L = LS.mean(axis=0)
    sigma = log_noise(Yr, deterministic)
    w2, w3 = tail_weights(n)
    d2, d3 = float(L @ w2), float(L @ w3)
    # several seeds: each seed's statistic, its spread over seeds and a t quantile (S − 1 dof) — robust
    # to noise correlated along rounds; one curve: i.i.d. log-noise σ (NOISE_FLOOR when exact)
    z = float(student.ppf(level, S - 1)) if S >= 2 else NormalDist().inv_cdf(level)
    scale = sigma / np.sqrt(S)

    def spread(w: np.ndarray) -> float:
        return (float(np.std(LS @ w, ddof=1) / np.sqrt(S)) if S >= 2 else scale * float(np.linalg.norm(w)))

    sd_e = spread(w2 + w3)
    # κ grows with the slow rate, so it is taken at the least slow rate the data allow: the tail's mean
    # decrement at its lower confidence bound, less the most the faster modes can contribute to the tail's
    # fall (log 1/(1 − SHARE) nats, spread over its rounds) — a mixture's mean decrement overstates its
    # slow rate, and a noisy one must not move the boundary into the legal family
    tail = n - (n - (2 * n) // PARTS)
    rate = (d2 + d3 - z * sd_e) / 2 - np.log(1 / (1 - SHARE)) / tail
    kappa = worst_mixture(n, rate)[1] if rate > 1e-9 else 0.0  # no slow rate resolved: no legal bound
    sd_d = spread(w3 - kappa * w2)
    whole = float(np.polyfit(np.arange(n, dtype=float), L, 1)[0])
    tail_drop = float(L[n - (2 * n) // PARTS] - L[-1])
    rng = np.random.default_rng([seed, 0x11E])
    noise = scale * rng.standard_normal((REPS, n))

    def rate_of(shape: np.ndarray) -> float:
        return float(np.mean(_rejects(shape[None, :] + noise, w2, w3, kappa, sd_d, sd_e, z)))

    size_by = {k: rate_of(v) for k, v in legal_shapes(n, max(rate, 1e-12)).items()}
    power = {k: rate_of(v) for k, v in violation_shapes(n, max(tail_drop, 1e-9)).items()}
    oc = OC(max(size_by.values()), size_by, power, sigma, -z * sd_d, REPS, S, n)
    ev = {"start": start, "stop": stop, "factor": float(np.exp(whole)), "d2": d2, "d3": d3,
          "kappa": kappa, "statistic": d3 - kappa * d2, "oc": oc.as_dict(),
          "power": power_summary(power)}
    head = (f"contraction {np.exp(whole):.4g} per round over [{start}, {stop}); log-decrement of the last "
            f"third {d3:.3g} vs the middle {d2:.3g} (legal ≥ κ = {kappa:.3f} of it, up to "
            f"{z * sd_d:.2g} at log-noise {sigma:.2g}); size {oc.size:.1%}")
    if below(d2 + d3, -z * sd_e):
        return Verdict(INCONSISTENT, rule, f"{head}: the curve rises over the window's last two thirds", ev)
    if not above(d2 + d3, z * sd_e):
        return Verdict(INCONCLUSIVE, rule, f"{head}: no fall resolved over the window's last two thirds", ev)
    if below(d3 - kappa * d2, -z * sd_d):
        return Verdict(INCONSISTENT, rule, f"{head}: the decay still slows at the window's end more than "
                       "any legal shape", ev)
    weak = {k: v for k, v in power.items() if v < POWER}
    if weak:
        return Verdict(INCONCLUSIVE, rule, f"no power: {head}; but it rejects "
                       + ", ".join(f"{k} in only {v:.0%}" for k, v in weak.items())
                       + f" of {REPS} repetitions", ev)
    return Verdict(CONSISTENT, rule,
                   f"{head}; power " + ", ".join(f"{k} {v:.0%}" for k, v in power.items()), ev)


__all__ = ["LEVEL", "NOISE_FLOOR", "SHARE", "legal_shapes", "linear_rate", "tail_weights", "violation_shapes",
           "worst_mixture"]
