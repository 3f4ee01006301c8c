"""An inequality claim with every constant 1 (``sense="≤"``, FCO Lemma 4.4's form).

The claim layer over ``rates.inequality`` is fuzzed on synthetic measurements: legal data — every
instance and point at or below its bound, exact or noisy around it — is never rejected; one run raised
above its bound always is, named; a tested term that is needed gives power, one never needed gives
``inconclusive (no power)``, never consistent.  The checks refuse what the rule cannot judge, and a run
term the method does not record is an error naming it.  (Real runs: ``test_experiments``.)
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcocheck.verify import claim_expr
from fcocheck.verify.claim import InvalidClaimError
from fcocheck.verify.claim_check import check
from fcocheck.verify.claim_expr import bound_terms
from fcocheck.verify.claim_judge import judge_data
from fcocheck.verify.claim_text import design_line, statement_latex
from fcocheck.verify.paper_claims.fco_lemma_4_4 import GROUP, OVERHEAD

DRIFT = GROUP.claims[0]  # exact, tested: the overhead
NOISY = GROUP.claims[1]  # 6 noise seeds per point
S, P = 3, 4


def _terms(rate: np.ndarray, overhead: np.ndarray) -> dict[str, np.ndarray]:
    """The drift claim's three terms (noise term 0: exact gradients), each S × P."""
    labels = list(bound_terms(DRIFT))
    over = next(k for k in labels if k == OVERHEAD)
    rate_label = next(k for k in labels if "B" in k)
    noise = next(k for k in labels if "sigma" in k)
    return {rate_label: rate, noise: np.zeros((S, P)), over: overhead}


def _judge(c, G3: np.ndarray, terms: dict[str, np.ndarray]):  # noqa: ANN001, ANN202
    b = np.sum([v.mean(axis=1) if v.ndim == 3 else v for v in terms.values()], axis=0)
    return judge_data(c, G3, np.zeros((S, P)), b, 0, [10, 11, 12], c.oracle != "exact", terms)[0]


POSITIVE = st.floats(1e-3, 1e3)
GRID = st.lists(POSITIVE, min_size=S * P, max_size=S * P).map(lambda v: np.array(v).reshape(S, P))
SHARE = st.lists(st.floats(0.0, 1.0), min_size=S * P, max_size=S * P).map(lambda v: np.array(v).reshape(S, P))


@settings(max_examples=200, deadline=None, derandomize=True)
@given(GRID, GRID, SHARE)
def test_exact_runs_at_or_below_their_bound_never_fail_and_one_raised_always_does(rate, over, share):
    terms = _terms(rate, over)
    b = rate + over
    G3 = (share * b)[:, None, :]  # anywhere from 0 to the bound itself
    v = _judge(DRIFT, G3, terms)
    assert v.status != "inconsistent", v.reason
    i, j = np.unravel_index(int(np.argmax(share)), share.shape)
    raised = G3.copy()
    raised[i, 0, j] = 1.01 * b[i, j]
    w = _judge(DRIFT, raised, terms)
    named = f"instance {10 + i}: ζ = {DRIFT.along[1][j]:g}"
    assert w.status == "inconsistent" and named in w.reason, w.reason


def test_power_is_the_tested_term_shown_needed_or_no_power_is_said():
    rate = np.full((S, P), 0.01)
    over = np.full((S, P), 1.0)
    needed = _judge(DRIFT, np.full((S, 1, P), 0.5), _terms(rate, over))  # above the rate term alone
    assert needed.status == "consistent" and "power without overhead 100%" in needed.reason, needed.reason
    idle = _judge(DRIFT, np.full((S, 1, P), 0.005), _terms(rate, over))  # the rate term alone covers it
    assert idle.status == "inconclusive" and idle.reason.startswith("no power"), idle.reason


def test_noisy_means_on_their_bound_are_judged_with_their_standard_error():
    """Six noise seeds per point whose expectation is exactly the bound: each of a design's 12 means is
    above its bound half the time, so comparing means as if exact rejects nearly every design; the rule
    (Bonferroni t on each standard error, size ≤ ALPHA = 0.5%) rejects at most 4 of 200 designs (the
    binomial(200, 0.005) tail beyond 4 is 0.4%); a mean 40 standard errors above is always rejected."""
    rate, over = np.full((S, P), 0.05), np.full((S, P), 1.0)
    b = rate + over
    rejected, naive = 0, 0
    for seed in range(200):
        draws = b[:, None, :] + 0.02 * np.random.default_rng(seed).standard_normal((S, 6, P))
        rejected += _judge(NOISY, draws, _terms(rate, over)).status == "inconsistent"
        naive += bool(np.any(draws.mean(axis=1) > b))
    assert rejected <= 4 and naive >= 190, (rejected, naive)
    far = draws.copy()
    far[0, :, 0] += 40 * draws[0, :, 0].std(ddof=1) / np.sqrt(6)  # beyond the t quantile (5 d.o.f.: ≈ 9.4)
    assert _judge(NOISY, far, _terms(rate, over)).status == "inconsistent"


@pytest.mark.parametrize(("changes", "says"), [
    ({"sense": "≲", "tested": ()}, "the rule is sense ≤"),
    ({"tested": ()}, "at least one of the bound's names"),
    ({"tested": ("zeta",)}, "at least one of the bound's names"),
    ({"run_terms": {"L": "discrepancy_overhead"}}, "run_terms name ['L']"),
    ({"statistic": "rate"}, "a statistic of one run"),
    ({"oracle": "gaussian:1.0", "repeats": 1}, "repeats ≥ 2 for a noisy oracle"),
])
def test_checks_refuse_what_the_rule_cannot_judge(changes, says):
    with pytest.raises(InvalidClaimError, match=None) as err:
        check(dataclasses.replace(DRIFT, **changes))
    assert says in str(err.value), str(err.value)


def test_a_run_term_the_method_does_not_record_is_an_error_naming_it():
    from fcocheck.verify.claim_measure import measure

    bad = dataclasses.replace(DRIFT, run_terms={OVERHEAD: "no_such_metric"}, rounds=3)
    with pytest.raises(InvalidClaimError, match="no_such_metric"):
        measure(bad, 0)


def test_the_tested_terms_and_the_texts():
    assert claim_expr.tested_terms(DRIFT) == [OVERHEAD]
    assert claim_expr.tested_terms(GROUP.claims[2]) == [k for k in bound_terms(DRIFT) if "B" in k]
    assert r"\le" in statement_latex(DRIFT) and "along" in statement_latex(DRIFT)
    line = design_line(DRIFT, {"seeds": [0, 1, 2]})
    assert "every constant 1" in line and "overhead = discrepancy_overhead of the same runs" in line


class _Trace:
    """A run's trace as ``terms_at`` reads it: named arrays by round."""

    def __init__(self, overhead: list[float]) -> None:
        self.arrays = {"discrepancy_overhead": np.asarray(overhead)}

    def __getitem__(self, key: str) -> np.ndarray:
        return self.arrays[key]


def test_a_run_term_is_its_metrics_value_at_the_points_round_on_each_run():
    """Each run's metric at its last round, or at the point's R when a sweep of R is read off one longer
    run (a running average differs at every R); a term without a run term is the same on every run."""
    from fcocheck.verify.claim_measure import terms_at

    traces = [_Trace([9.0, 1.0, 2.0, 3.0]), _Trace([9.0, 3.0, 4.0, 7.0])]
    ctx = {"B": 1.0, "eta_c": 0.5, "K": 2, "R": 4, "sigma": 0.0, "M": 8}
    assert terms_at(DRIFT, traces, ctx, "here")[OVERHEAD].tolist() == [3.0, 7.0]  # the last round
    assert terms_at(DRIFT, traces, ctx, "here", rounds=2)[OVERHEAD].tolist() == [2.0, 4.0]  # round 2
    rate = next(k for k in bound_terms(DRIFT) if "B" in k)
    assert terms_at(DRIFT, traces, ctx, "here")[rate].tolist() == [1.0 / (0.5 * 2 * 4)] * 2


def test_a_noisy_run_term_is_paired_with_its_runs_left_side():
    """The lemma's boundary with the overhead itself noisy (read off each of six noisy runs, sd 0.02)
    and the left side a little noisy (sd 0.005), their expectations equal: judged on the runs'
    differences lhs − rhs the rule rejects at most 4 of 200 designs (size ≤ 0.5%: the binomial tail
    beyond 4 is 0.4%; measured: 0); the right side taken exact at its mean (the rule before the pairing:
    the same terms given S × P) counts only the left side's noise, four times smaller than the overhead's,
    and rejects 119 of 200 (asserted: ≥ 80, five binomial standard deviations below).  Paired, a left
    side that is each run's own right side exactly (the overhead's noise shared) has no spread and sits
    on its bound: never rejected; the same raised twice the rule's critical value (the Bonferroni t
    quantile at 5 d.o.f. over 12 runs, ≈ 7.1) in standard errors of the differences is."""
    rate = np.full((S, P), 0.05)
    rejected, exact_rhs = 0, 0
    for seed in range(200):
        rng = np.random.default_rng(seed)
        over = 1.0 + 0.02 * rng.standard_normal((S, 6, P))
        lhs = 1.05 + 0.005 * rng.standard_normal((S, 6, P))
        runs = {**_terms(rate, over.mean(axis=1)), OVERHEAD: over}
        rate_label = next(k for k in runs if "B" in k)
        runs[rate_label] = rate
        rejected += _judge(NOISY, lhs, runs).status == "inconsistent"
        exact_rhs += _judge(NOISY, lhs, _terms(rate, over.mean(axis=1))).status == "inconsistent"
    assert rejected <= 4 and exact_rhs >= 80, (rejected, exact_rhs)
    shared = rate[:, None, :] + over
    assert _judge(NOISY, shared, runs).status != "inconsistent"
    from fcocheck.rates.inequality import critical

    d = lhs - shared
    far = lhs.copy()
    far[0, :, 0] += 2 * critical(np.full(S * P, 6))[0] * d[0, :, 0].std(ddof=1) / np.sqrt(6)
    assert _judge(NOISY, far, runs).status == "inconsistent"


def test_a_sweep_of_rounds_reads_each_points_overhead_at_its_own_R():
    """Along R one run per instance is read at every R (``prefixes``); the overhead at each point must be
    the one a run of exactly that R records (measured: 0.2412, 0.2420, 0.2433 at R = 5, 10, 40 — one
    value for all three before the fix)."""
    from fcocheck.verify.claim_measure import measure, prefixes

    along_r = dataclasses.replace(DRIFT, along=("rounds", (5, 10, 20, 40)), problem=("quadratics",
                                  {**DRIFT.problem[1], "zeta": 8.0}), hp={"eta_c": 0.01, "local_steps": 8},
                                  seeds=3)
    assert prefixes(along_r)
    # a step naming R (equal to 0.01 at every R here): one run per point
    alone = dataclasses.replace(along_r, hp={"eta_c": "Min(0.01, R + 1)", "local_steps": 8})
    assert not prefixes(alone) and prefixes(dataclasses.replace(along_r, hp={"eta_c": "0.01 + 0*L",
                                                                            "local_steps": 8}))
    a, b = measure(along_r, 0), measure(alone, 0)
    assert np.array_equal(a.terms[OVERHEAD], b.terms[OVERHEAD]) and np.array_equal(a.G, b.G)
    assert a.terms[OVERHEAD].shape == (3, 1, 4) and len(set(a.terms[OVERHEAD][0, 0].tolist())) == 4


@pytest.mark.parametrize(("changes", "says"), [
    ({"controls": {"other": {"method": "fedmid"}}}, "the rule is none"),
    ({"redraw": 2}, "the rule is none"),
    ({"twin": {"oracle": "exact"}, "measure": "w_hat_distance_sq"}, "no twin"),
    ({"vanishes": True}, "no vanishes"),
])
def test_checks_refuse_controls_redraw_twins_and_vanishing(changes, says):
    with pytest.raises(InvalidClaimError) as err:
        check(dataclasses.replace(DRIFT, **changes))
    assert says in str(err.value), str(err.value)
