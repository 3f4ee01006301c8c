"""Worst cases by performance estimation: closed forms, the verdict rules and their power."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcocheck.rates.catalog import get
from fcocheck.rates.verdict import CONSISTENT, INCONCLUSIVE, INCONSISTENT
from fcocheck.rates.worstcase.methods import METHODS
from fcocheck.rates.worstcase.solve import worst_case
from fcocheck.rates.worstcase.spec import InvalidWorstCaseError, PepSpec, check_spec
from fcocheck.rates.worstcase.tightness import (
    GROWS,
    MAX_SLOPE,
    RISING,
    growth,
    slope_oc,
    slope_state,
    slopes_of,
    soundness_verdict,
    tightness_rows,
    tightness_verdict,
)


# ---- closed forms (Taylor, Hendrickx & Glineur 2017) ------------------------------------------
@pytest.mark.parametrize(("L", "N"), [(1.0, 1), (1.0, 3), (2.0, 2)])
def test_pgm_worst_case_is_L_dist2_over_4N(L, N):
    # ½‖x0 − x*‖² ≤ B = 0.5, i.e. ‖x0 − x*‖² ≤ 1: the worst Φ(x_N) − Φ* of PGM with step 1/L is L/(4N)
    w = worst_case(PepSpec("pgm", M=1, K=1, R=N, eta=1 / L, L=L, B=0.5))
    assert w.status == "optimal"
    assert w.value == pytest.approx(L / (4 * N), rel=1e-6)


@pytest.mark.parametrize("N", [1, 2, 3])
def test_pgm_strongly_convex_distance_contracts_as_1_minus_kappa_2N(N):
    L, mu = 1.0, 0.1
    w = worst_case(PepSpec("pgm", M=1, K=1, R=N, eta=1 / L, L=L, mu=mu, B=0.5, metric="distance"))
    assert w.value == pytest.approx((1 - mu / L) ** (2 * N), rel=1e-6)


def test_pgm_worst_case_would_reject_a_wrong_closed_form():
    # the closed-form test has power: L/(2N) (a factor-2 error) is far outside its tolerance
    w = worst_case(PepSpec("pgm", M=1, K=1, R=2, eta=1.0, L=1.0, B=0.5))
    assert not math.isclose(w.value, 1 / (2 * 2), rel_tol=1e-6)


def test_feddualavg_with_one_client_and_one_step_is_dual_averaging():
    a = worst_case(PepSpec("feddualavg", M=1, K=1, R=2, eta=0.25, zeta=0.0))
    b = worst_case(PepSpec("dual-averaging", M=1, K=1, R=2, eta=0.25))
    assert a.value == pytest.approx(b.value, rel=1e-6)


def test_printed_fedmid_is_unbounded_and_the_averaging_server_is_not():
    printed = worst_case(PepSpec("fedmid", M=2, K=1, R=1, eta=0.25, zeta=1.0))
    averaged = worst_case(PepSpec("fedmid-avg", M=2, K=1, R=1, eta=0.25, zeta=1.0))
    assert printed.status == "unbounded"
    assert averaged.status == "optimal" and averaged.value < 10


# ---- bad input ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        (PepSpec("nope"), "method 'nope' is unknown"),
        (PepSpec("feddualavg", K=0), "K = 0; the rule is an integer ≥ 1"),
        (PepSpec("feddualavg", M=2, K=4, R=8), "M·K·R = 2·4·8 = 64 client steps; the rule is ≤ 24"),
        (PepSpec("fedavg"), "psi = 'convex'; the rule is psi = 'zero'"),
        (PepSpec("fedmid", metric="lemma-4.4"), "needs dual states"),
        (PepSpec("pgm", M=2), "pgm is sequential"),
        (PepSpec("feddualavg", eta=-1.0), "eta = -1.0; the rule is a finite number > 0"),
        (PepSpec("feddualavg", clients="iid"), "clients = 'iid'"),
        (PepSpec("pgm", M=1, mu=2.0), "mu = 2.0 ≥ L = 1.0"),
    ],
)
def test_bad_specs_are_refused_with_the_rule(spec, needle):
    with pytest.raises(InvalidWorstCaseError, match=None) as err:
        check_spec(spec, METHODS)
    assert needle in str(err.value)


# ---- verdict rules, fed violations -------------------------------------------------------------
def _rows(ratios: dict[tuple[int, int], float]) -> list[dict]:
    return [{"K": k, "R": r, "eta_c": 0.25, "zeta": 1.0, "M": 2, "status": "optimal", "ratio": v,
             "worst": v, "bound": 1.0} for (k, r), v in ratios.items()]


def test_a_ratio_growing_as_a_power_of_R_is_inconsistent():
    rows = _rows({(k, r): r**0.3 for k in (1, 2, 3) for r in (1, 2, 4, 8)})
    v = tightness_verdict("lesssim", rows)
    assert v.status == INCONSISTENT and "along R" in v.reason


def test_a_ratio_growing_as_a_power_of_K_is_inconsistent():
    rows = _rows({(k, r): k**0.5 for k in (1, 2, 4) for r in (1, 2, 4)})
    v = tightness_verdict("lesssim", rows)
    assert v.status == INCONSISTENT and "along K" in v.reason


def test_a_saturating_ratio_is_consistent_once_it_has_levelled_off():
    # ratio 4R/(R + 1): the worst case 2B/(s(R+1)) against LB/R — bounded by 4, slopes halve
    rows = _rows({(k, r): 4 * r / (r + 1) for k in (1, 2, 3) for r in (1, 2, 4, 8, 16)})
    assert tightness_verdict("lesssim", rows).status == CONSISTENT
    # on R ≤ 8 its last slope is still 0.152, but its decrements (0.152, 0.111) extrapolate to a
    # slope of −0.15: levelling off
    rows = _rows({(k, r): 4 * r / (r + 1) for k in (1, 2, 3) for r in (1, 2, 4, 8)})
    assert tightness_verdict("lesssim", rows).status == CONSISTENT
    # on R ≤ 4 (slopes 0.415, 0.263) nothing can be extrapolated: not judged, not a violation; K ∈ {1, 2, 3}
    # flat, but three values reject x^0.3 in only 25% of the rule's violations: no power there either
    rows = _rows({(k, r): 4 * r / (r + 1) for k in (1, 2, 3) for r in (1, 2, 4)})
    v = tightness_verdict("lesssim", rows)
    assert v.status == INCONCLUSIVE and "no power along R" in v.reason and "K: it rejects x^0.3 in only" in \
        v.reason, v.reason
    assert len(growth(rows, "R")["short"]) == 3
    # K ∈ {1, 2, 3, 4}: power 100% along K, so judged there only, and said so
    rows = _rows({(k, r): 4 * r / (r + 1) for k in (1, 2, 3, 4) for r in (1, 2, 4)})
    v = tightness_verdict("lesssim", rows)
    assert v.status == CONSISTENT and "judged along ['K'] only" in v.reason, v.reason
    assert v.evidence["departure"]["eps_min"] <= 0.2 and v.evidence["departure"]["scale"] == "x"
    v = tightness_verdict("lesssim", _rows({(1, r): 4 * r / (r + 1) for r in (1, 2, 4)}))
    assert v.status == INCONCLUSIVE and "no power" in v.reason


def test_a_logarithmic_growth_is_caught():
    """1 + log R is unbounded: its slopes decelerate towards 0.19 > MAX_SLOPE (extrapolated).  The
    old rule (decelerating ×0.8 passes) called it consistent."""
    rows = _rows({(k, r): 1 + math.log(r) for k in (1, 2, 3) for r in (2, 4, 8, 16)})
    g = growth(rows, "R")
    assert g["judged"] == 3 and g["grows"][0]["extrapolated"] > MAX_SLOPE
    assert tightness_verdict("lesssim", rows).status == INCONSISTENT


def test_a_power_approached_from_above_is_caught():
    """R^0.3·(1 − 0.5/R): slopes 0.885, 0.522, 0.400 shrink ×0.77 — the old rule passed it — and
    converge to 0.3; the extrapolation sees the limit."""
    rows = _rows({(k, r): r**0.3 * (1 - 0.5 / r) for k in (1, 2) for r in (1, 2, 4, 8)})
    assert tightness_verdict("lesssim", rows).status == INCONSISTENT


def test_a_geometric_ratio_before_its_peak_is_not_called_a_violation():
    """Legal and unusual (found by a fresh reader): a strongly convex worst case ρ^{KR} against a
    bound 1/R² has a ratio like R²ρ^{2R}, rising until R = 2/ln(1/ρ²) ≈ 9.5 (ρ = 0.9).  On R = 1…6
    the slopes fall by equal steps (1.70 … 0.84), heading below zero: consistent; on R = 1…12 it has
    turned.  The reader's own worst-case slopes 1.46 … 0.62 (steps shrinking ×0.78, extrapolated
    limit 0.13) were called inconsistent by the old rule (×0.8 per step needed); now: still rising,
    inconclusive, and the verdict says to extend the grid."""
    for top in (7, 13):
        rows = _rows({(1, r): r**2 * 0.81**r for r in range(1, top)})
        assert tightness_verdict("lesssim", rows).status == CONSISTENT
    assert slope_state(np.array([1.46, 1.17, 0.94, 0.76, 0.62])) == RISING
    slopes = [1.46, 1.17, 0.94, 0.76, 0.62]
    ratios = np.exp(np.concatenate([[0.0], np.cumsum(np.array(slopes) * np.diff(np.log(np.arange(1, 7))))]))
    rows = _rows({(1, r): float(y) for r, y in zip(range(1, 7), ratios, strict=True)})
    v = tightness_verdict("lesssim", rows)
    assert v.status == INCONCLUSIVE and "extend the grid" in v.reason


@pytest.mark.parametrize("grid", [[1, 2, 3, 4, 5, 6], [1, 2, 4, 8], [1, 2, 4, 8, 16], [4, 8, 16, 32, 64]])
def test_the_slope_rule_s_size_and_power_on_its_stated_shapes(grid):
    oc = slope_oc(grid)
    assert oc["size"] == 0.0 and oc["inconclusive"] == 0.0
    assert all(p == 1.0 for p in oc["power"].values()), oc


def test_three_grid_values_have_little_power_and_say_so():
    oc = slope_oc([1, 2, 3])
    assert oc["size"] == 0.0 and max(oc["power"].values()) < 0.95


@settings(max_examples=60, deadline=None)
@given(grid=st.sampled_from([[1, 2, 3, 4, 5, 6], [1, 2, 4, 8], [1, 2, 4, 8, 16], [2, 4, 8, 16, 32]]),
       c=st.floats(0.0, 1.0), p=st.floats(0.25, 3.0), peak=st.floats(0.0, 1.0), alpha=st.floats(0.3, 2.0))
def test_stated_legal_shapes_are_never_rejected_and_powers_always_are(grid, c, p, peak, alpha):
    x = np.asarray(grid, dtype=float)
    mid = float(np.sqrt(x[0] * x[-1]))
    saturating = x / (x + 0.01 + c * mid / 4)
    geometric = x**p * np.exp(-p * x / (x[0] / 2 + peak * (mid - x[0] / 2)))
    for y in (saturating, geometric, 1 / x**p):
        assert slope_state(slopes_of(x, y)) != GROWS
    assert slope_state(slopes_of(x, x**alpha)) == GROWS


def test_two_grid_values_per_axis_have_no_power():
    rows = _rows({(k, r): r**0.5 for k in (1, 2) for r in (1, 2)})
    v = tightness_verdict("lesssim", rows)
    assert v.status == INCONCLUSIVE and "no power" in v.reason


def test_constant_one_inequality_rejects_a_ratio_above_one():
    assert tightness_verdict("leq", _rows({(1, 1): 0.9, (1, 2): 1.01})).status == INCONSISTENT
    assert tightness_verdict("leq", _rows({(1, 1): 0.9, (1, 2): 0.99})).status == CONSISTENT


def test_an_unbounded_worst_case_is_inconsistent():
    rows = _rows({(1, 1): 0.5, (1, 2): 0.5, (1, 4): 0.5})
    rows[0]["status"] = "unbounded"
    assert tightness_verdict("lesssim", rows).status == INCONSISTENT


def test_soundness_rejects_a_run_above_its_worst_case():
    rows = _rows({(1, 1): 0.5, (1, 2): 0.5})
    for r in rows:
        r["measured"] = 0.3
    assert soundness_verdict(rows).status == CONSISTENT
    rows[1]["measured"] = 0.5 * (1 + 1e-3)
    assert soundness_verdict(rows).status == INCONSISTENT


def test_the_real_worst_cases_reject_a_bound_of_the_wrong_shape():
    # FedDualAvg's true worst cases (K = 1..4, R = 1) against Thm 4.3's optimisation term made K
    # times too optimistic, B/(η_c K² R): the smallest constant grows like K²/(K + 1) — caught (its
    # slopes 1.42, 1.29, 1.22 converge to 1; three values of K alone only show a decelerating rise)
    import sympy as sp

    from fcocheck.rates.symbols import B, K, R, eta_c
    from fcocheck.rates.theorem import Theorem

    wrong = Theorem("wrong", "", "", "", "lesssim", (("optimisation", B / (eta_c * K**2 * R)),))
    right = get("fco-4.3")
    points = []
    for k in (1, 2, 3, 4):
        w = worst_case(PepSpec("feddualavg", M=2, K=k, R=1, eta=0.25, zeta=0.0))
        points.append({"L": 1.0, "B": 0.5, "zeta": 0.0, "M": 2, "K": k, "R": 1, "eta_c": 0.25, "eta_s": 1.0,
                       "status": w.status, "worst": w.value})
    bad = tightness_verdict("lesssim", tightness_rows(wrong, points, ("optimisation",)))
    assert bad.status == INCONSISTENT
    ok = tightness_verdict("lesssim", tightness_rows(right, points, ("optimisation", "heterogeneity")))
    assert ok.status != INCONSISTENT
    assert sp.simplify(right.term("optimisation") - B / (eta_c * K * R)) == 0


def test_the_worst_instance_is_shown_when_low_dimensional():
    w = worst_case(PepSpec("pgm", M=1, K=1, R=1, eta=1.0, L=1.0, B=0.5), instance=True)
    assert w.value == pytest.approx(0.25, rel=1e-6)
    assert w.dimension == 1 and len(w.instance["w0"]) == 1
    assert abs(w.instance["w0"][0]) == pytest.approx(1.0, rel=1e-4)  # the start sits on ½‖w0 − w*‖² = B


def test_a_grid_varying_one_axis_is_judged_along_it_and_says_so():
    flat_k = _rows({(k, 1): 1.0 for k in (1, 2, 3, 4)})
    v = tightness_verdict("lesssim", flat_k)
    assert v.status == CONSISTENT and "judged along ['K'] only" in v.reason
    growing_k = _rows({(k, 1): float(k) for k in (1, 2, 3, 4)})
    assert tightness_verdict("lesssim", growing_k).status == INCONSISTENT


def test_lemma_4_5_in_its_own_norm_has_constant_one_at_every_k():
    """Issue 30: in ℓ2 over every L-smooth F the smallest constant grew with K (1.03 … 1.17); in
    Assumption 2's own norm (common Hessian, h = ½‖·‖²_Q) it is 1 to solver accuracy."""
    from fcocheck.rates.worstcase.solve import worst_case
    from fcocheck.rates.worstcase.spec import PepSpec

    for K in (1, 2, 4):
        spec = PepSpec("feddualavg", M=2, K=K, R=1, eta=0.25, zeta=1.0, metric="discrepancy", norm="q")
        q = worst_case(spec)
        assert q.status == "optimal" and abs(q.value / (0.25**2 * K**2) - 1) < 1e-5, (K, q.value)
    l2 = worst_case(PepSpec("feddualavg", M=2, K=4, R=1, eta=0.25, zeta=1.0, metric="discrepancy"))
    assert l2.value / (0.25**2 * 16) > 1.05  # the ℓ2 class is larger: the constant is not 1 there


def test_the_q_norm_class_is_refused_outside_its_metric():
    from fcocheck.rates.worstcase.methods import METHODS
    from fcocheck.rates.worstcase.spec import InvalidWorstCaseError, PepSpec, check_spec

    with pytest.raises(InvalidWorstCaseError, match="the rule is the shift class and the discrepancy"):
        check_spec(PepSpec("feddualavg", norm="q"), METHODS)
    assert PepSpec("feddualavg").key == PepSpec("feddualavg", norm="euclidean").key  # stored keys unchanged


def test_a_point_mapped_twice_is_one_pep_point():
    """Regression (issue 33): FedDualAvg's round start was mapped by prox once per client and once for
    the output — extra Gram points and ψ constraints (2× the time of the same PEP written directly in
    PEPit) and copies that left no strictly feasible Gram matrix: Lemma 4.5 at K = 2, R = 4 came out
    0.250095 for its exact (Kη_cζ)² = 0.25.  One prox per (point, step): 0.25 to solver accuracy."""
    from fcocheck.verify.worstcase import TARGETS, target_specs

    (spec,) = target_specs(TARGETS["fco-lemma-4.5"], True, {"K": [2], "R": [4]})
    w = worst_case(spec)
    assert w.status == "optimal"
    assert w.value == pytest.approx((spec.K * spec.eta * spec.zeta) ** 2, rel=1e-6)
    assert w.gram_size == 19  # w0, w*, ψ's and the clients' points once each: the direct program's size


def _term_rows(K: int, c_by_R: dict[int, float], term: str = "heterogeneity") -> list[dict]:
    return [{"K": K, "eta_c": 0.25, "eta_s": 1.0, "R": R, "c_" + term: c} for R, c in c_by_R.items()]


def test_each_terms_constant_is_a_sup_over_R_and_says_when_the_grid_ends_rising():
    """Thm 4.3's heterogeneity constant is reported on its own, as sup over R per (K, η_c) and over them;
    a sup at a group's last R is flagged (the true sup may lie beyond the grid), an interior one is not,
    and the term's constant is a lower estimate while any group still rises."""
    from fcocheck.rates.worstcase.tightness import term_constants

    peak = _term_rows(2, {1: 0.1, 2: 0.3, 4: 0.2, 8: 0.15})  # attained inside the grid
    both = ["optimisation", "heterogeneity"]
    settled = term_constants(peak + _term_rows(3, {1: 0.05, 2: 0.2, 4: 0.1}), both)
    assert set(settled) == {"heterogeneity"}  # no optimisation share measured: no entry
    c = settled["heterogeneity"]
    assert c["sup"] == 0.3 and c["at"] == {"K": 2, "eta_c": 0.25, "eta_s": 1.0, "R": 2} and not c["rising"]
    rising = term_constants(peak + _term_rows(3, {1: 0.05, 2: 0.2}), ["heterogeneity"])["heterogeneity"]
    assert [(g["K"], g["sup"], g["rising"]) for g in rising["groups"]] == [(2, 0.3, False), (3, 0.2, True)]
    assert rising["sup"] == 0.3 and rising["rising"]  # K = 3 may pass 0.3 beyond R = 2: a lower estimate
    one_R = term_constants(_term_rows(3, {4: 0.01}) + peak, ["heterogeneity"])  # one R shows no sup
    assert one_R["heterogeneity"]["rising"]
    gaps = term_constants(peak + _term_rows(3, {1: float("nan"), 2: float("inf")}), ["heterogeneity"])
    assert gaps["heterogeneity"]["skipped"] == 2 and not gaps["heterogeneity"]["rising"]
    assert term_constants(_term_rows(2, {1: float("nan")}), ["heterogeneity"]) == {}
