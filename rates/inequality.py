"""An inequality with constant 1, run by run, on means over seeds: calibrated size, measured power.

A lemma such as FCO Lemma 4.4 bounds an expectation, E Φ(ŵ) − Φ* ≤ Σ terms, with every constant 1.
A run measures the left side as the mean of its S seeds; judging that mean against the right side
as if it were exact rejects a run sitting on its bound in half of all repetitions.  The rule:

* **per run**: m_i (mean over the run's seeds), rhs_i (the mean of its terms) and se_i = sd_i/√S_i, sd_i
  the spread over seeds of the differences lhs − rhs, seed by seed: a term measured on the same runs
  (Lemma 4.4's L·D_disc, read off each run) is itself a mean over noisy runs, and paired with the left
  side its noise is counted (and what the two share cancels); a term known exactly is the same for every
  seed.  A run with one seed or no spread is compared exactly (slack rhs/m ≥ 1, within
  ``rates.threshold``'s tolerance) — meant for exact gradients: a noisy run given with one seed has no
  standard error, and sitting on its bound it would be rejected about half the time (give such runs
  several seeds);
* **decision**: a run is violated when m_i − rhs_i > q_i·se_i, q_i the Student-t quantile with S_i − 1
  degrees of freedom at 1 − ``ALPHA``/n (n runs: Bonferroni), so the size is ≤ ``ALPHA`` when every
  run sits exactly on its bound; *inconsistent* if any run is violated (named);
* **size**, re-measured: that boundary simulated (each seed's difference normal around 0 with the run's
  measured sd) over ``REPS`` repetitions;
* **power** per tested term: the same rule with the term deleted from the right side (the differences'
  spread without it), on ``REPS`` repetitions simulated around the measured means — *consistent* only if
  each deletion is rejected in ≥ ``POWER`` of them, else *inconclusive (no power)* naming the term (a term
  that never binds at this design is not tested by it).

All simulations are seeded from ``seed``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from scipy import stats

from fcocheck.rates.oc import POWER, REPS, SIZE, power_summary
from fcocheck.rates.threshold import above_each, below_each
from fcocheck.rates.verdict import CONSISTENT, INCONCLUSIVE, INCONSISTENT, Verdict

ALPHA = SIZE  # the rule's size at the boundary (every run exactly on its bound): ≤ 1% as re-measured
RULE = "inequality (constant 1, means over seeds: size ≤ 0.5%)"


def _rows(values: Sequence[float | Sequence[float]]) -> list[np.ndarray]:
    """Per run, its values over seeds (one value: one seed)."""
    return [np.atleast_1d(np.asarray(v, dtype=float)) for v in values]


def _per_seed(term: Sequence[float | Sequence[float]], rows: list[np.ndarray], name: str) -> list[np.ndarray]:
    """A term per run, seed by seed: one value (known exactly) repeated, or one per seed of the run."""
    out = []
    for i, (v, r) in enumerate(zip(_rows(term), rows, strict=True)):
        if v.size not in (1, r.size):
            raise ValueError(f"term {name!r} at run {i}: {v.size} values for {r.size} seeds; the rule is one "
                             "value, or one per seed")
        out.append(np.broadcast_to(v, r.shape))
    return out


def _less(whole: list[np.ndarray], term: list[np.ndarray]) -> list[np.ndarray]:
    """The right side seed by seed with one term deleted."""
    return [w - x for w, x in zip(whole, term, strict=True)]


def _spread(rows: list[np.ndarray], rhs: list[np.ndarray]) -> np.ndarray:
    """Per run: the standard deviation over seeds of lhs − rhs (0 for one seed)."""
    return np.array([(r - x).std(ddof=1) if r.size > 1 else 0.0 for r, x in zip(rows, rhs, strict=True)])


def critical(n_seeds: np.ndarray) -> np.ndarray:
    """q_i: the t quantile at 1 − ALPHA/n with S_i − 1 degrees of freedom (inf where S_i = 1)."""
    level = 1 - ALPHA / len(n_seeds)
    return np.array([stats.t.ppf(level, s - 1) if s > 1 else np.inf for s in n_seeds])


def violated(mean: np.ndarray, se: np.ndarray, rhs: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Which runs the rule finds above their bound (exact where se = 0); any leading axes are repetitions."""
    exact = below_each(rhs / np.maximum(mean, 1e-300), 1.0)
    noisy = above_each(mean - rhs, np.where(se == 0, 0.0, np.where(np.isinf(q), 0.0, q) * se))
    return np.where(se == 0, exact, noisy)


def _simulate(centre: np.ndarray, sd: np.ndarray, n: np.ndarray, rhs: np.ndarray, q: np.ndarray,
              rng: np.random.Generator) -> float:
    """Share of ``REPS`` simulated measurements (seeds normal around ``centre``) with a violated run."""
    means = np.broadcast_to(centre, (REPS, centre.size)).copy()
    ses = np.zeros((REPS, centre.size))
    for i in np.nonzero(sd > 0)[0]:  # one draw of REPS × S_i per noisy run
        draw = centre[i] + sd[i] * rng.standard_normal((REPS, int(n[i])))
        means[:, i], ses[:, i] = draw.mean(axis=1), draw.std(axis=1, ddof=1) / np.sqrt(n[i])
    return float(np.mean(violated(means, ses, rhs, q).any(axis=1)))


def bounded_by(lhs: Sequence[float | Sequence[float]], terms: Mapping[str, Sequence[float]],
               tested: Sequence[str], labels: Sequence[str], seed: int = 0) -> Verdict:
    """LHS ≤ Σ terms run by run (module docstring), with size and power measured.

    Args:
        lhs: per run, the left side: one value, or one per seed.
        terms: the right side's terms, each per run one value (known exactly) or one per seed (measured on
            that seed's run: paired with its left side).
        tested: the terms whose deletion the rule must detect (its power).
        labels: one per run, for messages.
        seed: seeds the simulations.

    """
    rows = _rows(lhs)
    mean, n = np.array([r.mean() for r in rows]), np.array([r.size for r in rows])
    seeds = {k: _per_seed(v, rows, k) for k, v in terms.items()}
    whole = [np.sum([seeds[k][i] for k in seeds], axis=0) for i in range(len(rows))]  # rhs, seed by seed
    parts = {k: np.array([x.mean() for x in v]) for k, v in seeds.items()}
    rhs = np.array([x.mean() for x in whole])
    sd = _spread(rows, whole)
    se = sd / np.sqrt(n)
    q = critical(n)
    bad = [labels[i] for i in np.nonzero(violated(mean, se, rhs, q))[0]]
    rng = np.random.default_rng([seed, 0x1E0])
    size = _simulate(rhs, sd, n, rhs, q, rng)
    power = {f"without {k}": _simulate(mean, _spread(rows, _less(whole, seeds[k])), n, rhs - parts[k], q, rng)
             for k in tested}
    shares = {k: float(np.max(v / rhs)) for k, v in parts.items()}
    slack = rhs / np.maximum(mean, 1e-300)
    ev = {"slack_min": float(slack.min()), "slack_max": float(slack.max()),
          "slack": dict(zip(labels, slack.tolist(), strict=True)), "max_share": shares,
          "oc": {"size": size, "power": power, "reps": REPS, "alpha": ALPHA, "seeds": n.tolist()},
          "power": power_summary(power)}
    head = (f"slack RHS/LHS ∈ [{slack.min():.3g}, {slack.max():.3g}] over {len(labels)} runs "
            f"(means over {n.min()}–{n.max()} seeds); size {size:.1%}")
    if bad:
        return Verdict(INCONSISTENT, RULE,
                       f"{head}: LHS above RHS beyond its noise on {len(bad)} run(s): {bad}", ev)
    weak = {k: v for k, v in power.items() if v < POWER}
    if weak:
        said = [f"{k.removeprefix('without ')} deleted in {1 - v:.0%} of {REPS} repetitions (at most "
                f"{shares[k.removeprefix('without ')]:.1%} of the right side)" for k, v in weak.items()]
        return Verdict(INCONCLUSIVE, RULE, f"no power: {head}; but it still holds with " + ", ".join(said),
                       ev)
    said = [f"{k} {v:.0%} (up to {shares[k.removeprefix('without ')]:.0%} of the right side)"
            for k, v in power.items()]
    return Verdict(CONSISTENT, RULE, f"{head}; power " + ", ".join(said), ev)
