"""Worst cases by performance estimation: closed forms, the verdict rules and their power."""

from __future__ import annotations

import math

import pytest

from fcocheck.rates.catalog import get
from fcocheck.rates.verdict import CONSISTENT, INCONCLUSIVE, INCONSISTENT
from fcocheck.rates.worstcase.methods import METHODS
from fcocheck.rates.worstcase.solve import worst_case
from fcocheck.rates.worstcase.spec import InvalidWorstCaseError, PepSpec, check_spec
from fcocheck.rates.worstcase.tightness import growth, soundness_verdict, tightness_rows, tightness_verdict


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


def test_a_saturating_ratio_is_consistent():
    # ratio 4R/(R + 1): the worst case 2B/(s(R+1)) against LB/R — bounded by 4, slopes halve
    rows = _rows({(k, r): 4 * r / (r + 1) for k in (1, 2, 3) for r in (1, 2, 4, 8)})
    assert tightness_verdict("lesssim", rows).status == CONSISTENT


def test_a_logarithmic_growth_is_caught_once_the_grid_shows_it_does_not_decelerate():
    rows = _rows({(k, r): 1 + math.log(r) for k in (1, 2, 3) for r in (2, 4, 8, 16)})
    g = growth(rows, "R")
    assert g["judged"] == 3
    # 1 + log R grows without bound but decelerates: it is not a power; the rule says so honestly
    assert tightness_verdict("lesssim", rows).status == CONSISTENT


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
    # FedDualAvg's true worst cases (K = 1..3, R = 1) against Thm 4.3's optimisation term made K
    # times too optimistic, B/(η_c K² R): the smallest constant then grows like K — caught
    import sympy as sp

    from fcocheck.rates.symbols import B, K, R, eta_c
    from fcocheck.rates.theorem import Theorem

    wrong = Theorem("wrong", "", "", "", "lesssim", (("optimisation", B / (eta_c * K**2 * R)),))
    right = get("fco-4.3")
    points = []
    for k in (1, 2, 3):
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
