"""The constant-1 inequality rule on means over seeds: size measured at the boundary, power, legal data.

The rule it replaced compared each mean with its bound as if exact: a run sitting on its bound was
rejected in about half of all repetitions (shown below).  Violations must fail; legal data that look
unusual (exactly on the bound, far below, noisy just under it, one seed) must pass.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcocheck.rates.inequality import ALPHA, bounded_by, critical, violated
from fcocheck.rates.verdict import CONSISTENT, INCONCLUSIVE, INCONSISTENT


def _draw(means, sds, seeds, rng):
    return [m + s * rng.standard_normal(k) if s > 0 else np.array([m])
            for m, s, k in zip(means, sds, seeds, strict=True)]


def _rejection_rate(true_means, rhs, sds, seeds, reps, seed, exact_rule=False):
    rng = np.random.default_rng(seed)
    q = critical(np.array(seeds))
    hits = 0
    for _ in range(reps):
        rows = _draw(true_means, sds, seeds, rng)
        m = np.array([r.mean() for r in rows])
        se = np.array([r.std(ddof=1) / np.sqrt(r.size) if r.size > 1 else 0.0 for r in rows])
        hits += bool((m > rhs).any() if exact_rule else violated(m, se, np.asarray(rhs, float), q).any())
    return hits / reps


def test_size_at_the_boundary_is_at_most_alpha_and_the_old_comparison_was_not():
    rhs, sds, seeds = np.array([1.0, 2.0, 0.5, 3.0, 1.5]), [0.1, 0.3, 0.05, 0.2, 0.4], [3, 3, 8, 3, 5]
    reps = 2000
    rate = _rejection_rate(rhs, rhs, sds, seeds, reps, 0)
    assert rate <= ALPHA + 3 * np.sqrt(ALPHA * (1 - ALPHA) / reps), rate
    assert _rejection_rate(rhs, rhs, sds, seeds, 400, 1, exact_rule=True) > 0.9  # 1 − 2⁻⁵ ≈ 0.97


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 6), seeds=st.integers(2, 8), below=st.floats(0.0, 0.5), sd=st.floats(0.01, 1.0),
       seed=st.integers(0, 2**16))
def test_legal_runs_on_or_under_their_bound_are_rejected_at_most_alpha(n, seeds, below, sd, seed):
    rhs = np.linspace(1.0, 2.0, n)
    reps = 600  # 4 s.e.: the property is also run with random draws (the thorough profile)
    rate = _rejection_rate(rhs * (1 - below), rhs, [sd] * n, [seeds] * n, reps, seed)
    assert rate <= ALPHA + 4 * np.sqrt(ALPHA * (1 - ALPHA) / reps) + 1e-12, rate


def test_a_run_above_its_bound_beyond_the_noise_is_rejected_with_power():
    rhs, seeds = np.array([1.0, 1.0, 1.0]), [5, 5, 5]
    assert _rejection_rate(np.array([1.0, 1.6, 0.9]), rhs, [0.1, 0.1, 0.1], seeds, 400, 2) >= 0.95


def test_verdicts_on_unusual_legal_data_and_on_violations():
    terms = {"sync": [1.0, 1.0, 1.0], "discrepancy": [0.0, 0.5, 2.0]}
    labels = ["a", "b", "c"]
    rng = np.random.default_rng(4)
    # exactly on the bound (deterministic) and noisy just under it: consistent, with power on the term
    lhs = [1.0, [1.4, 1.5, 1.45], 2.9 + 0.05 * rng.standard_normal(4)]
    on = bounded_by(lhs, terms, ["discrepancy"], labels)
    assert on.status == CONSISTENT, on.reason
    assert on.evidence["oc"]["size"] <= 0.02 and on.evidence["oc"]["power"]["without discrepancy"] >= 0.95
    # a noisy run clearly above its bound: inconsistent (the standard error is the mean's, not one seed's)
    noisy_up = bounded_by([1.0, 1.5, [3.6, 3.65, 3.62]], terms, ["discrepancy"], labels)
    assert noisy_up.status == INCONSISTENT and "'c'" in noisy_up.reason, noisy_up.reason
    # a deterministic run above its bound by 1%: inconsistent, named
    up = bounded_by([1.0, 1.5, 3.03], terms, ["discrepancy"], labels)
    assert up.status == INCONSISTENT and "'c'" in up.reason
    # a term that never binds: no power
    idle = bounded_by([0.5, 0.6, 0.7], terms, ["discrepancy"], labels)
    assert idle.status == INCONCLUSIVE and idle.reason.startswith("no power")


@pytest.mark.parametrize("k", [2, 3, 8])
def test_critical_values_are_bonferroni_t_quantiles(k):
    from scipy import stats

    q = critical(np.array([k, k, 1]))
    assert q[0] == pytest.approx(stats.t.ppf(1 - ALPHA / 3, k - 1)) and np.isinf(q[2])
