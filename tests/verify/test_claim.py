"""A user's rate claim (verify/claim*.py): judged across instances, on what was resolved, with its power.

Each direction of the rule is shown on real runs: a violated claim fails, legal curves that look unusual
(faster than the bound, reaching rounding) do not, and a claim that cannot be judged as stated is a clean
error naming the value and the rule.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from fcocheck.rates.oc import resolved_prefix
from fcocheck.verify.claim import Claim, InvalidClaimError
from fcocheck.verify.claim_judge import judge, judge_measured

ROUNDS = [10, 20, 40, 80, 160, 320, 640]
HOMOGENEOUS = ("quadratics", {"mu": 0.5, "zeta": 0.0, "d": 10})
HP = {"eta_c": 0.1, "local_steps": 2}


def test_a_violated_claim_fails_fedmid_has_a_floor_even_without_heterogeneity():
    """FedMiD as printed applies ψ on clients and again at the server, so on identical clients it
    converges to the minimiser of F + 2ψ (tests/solvers: its PGM reduction), not of Φ: Φ(w_R) − Φ*
    stalls and 'Φ(w_R) − Φ* ≲ 1/R' is false for it — the rule must say so."""
    c = Claim("fedmid-last", method="fedmid", bound="1/R", along=("rounds", ROUNDS), problem=HOMOGENEOUS,
              hp=HP, measure="gap")
    v, measured, _ = judge_measured(c)
    assert v.status == "inconsistent", v.reason
    last = np.array(measured["instances"])[:, -1]
    assert np.all(last > 1e3 * np.array(measured["resolution"])[:, -1])  # a resolved floor, not rounding


def test_a_method_faster_than_the_bound_is_never_rejected_and_rounding_is_not_judged():
    """FedDualAvg on identical clients converges linearly: its gap reaches rounding within 80 rounds.
    Judged on every point, the ratio to 1/R would rise at the end (rounding over a falling bound); the
    sweep is cut where an instance stops being resolved, and the claim is not rejected."""
    c = Claim("fda-last", method="feddualavg", bound="1/R", along=("rounds", [4, 6, 10, 16, 25, 40, 80, 160]),
              problem=HOMOGENEOUS, hp=HP, measure="gap", seeds=5)
    v, measured, _ = judge_measured(c)
    assert v.status != "inconsistent", v.reason
    G, floor = np.array(measured["instances"]), np.array(measured["resolution"])
    cut = measured["along"].index(measured["unresolved_from"])
    assert np.all(G[:, :cut] > floor[:, :cut]) and np.any(G[:, cut] <= floor[:, cut])
    # the averaged output converges like 1/R² there: the same claim on it is consistent, with full power
    v, _, _ = judge_measured(Claim("fda-avg", method="feddualavg", bound="1/R", along=("rounds", ROUNDS),
                                   problem=HOMOGENEOUS, hp=HP, seeds=5))
    assert v.status == "consistent", v.reason
    assert min(v.evidence["oc"]["power"].values()) >= 0.95 and v.evidence["oc"]["size"] <= 0.01


def test_a_sweep_resolved_at_fewer_than_four_points_is_inconclusive():
    c = Claim("fda-short", method="feddualavg", bound="1/R", along=("rounds", [20, 40, 160, 320, 640]),
              problem=HOMOGENEOUS, hp=HP, measure="gap")
    v, measured, _ = judge_measured(c)
    assert v.status == "inconclusive" and "end the sweep earlier" in v.reason
    assert measured["unresolved_from"] <= 160


@pytest.mark.parametrize("G,floor,kept", [
    ([[1.0, 0.5, 0.1, 0.01]], [[0, 0, 0, 0]], 4),
    ([[1.0, 0.5, 1e-9, 0.01]], [[0, 0, 1e-6, 0]], 2),  # a later resolved point does not extend the window
    ([[1.0, 0.5], [1.0, -1e-15]], [[0, 0], [0, 0]], 1),  # one instance below zero cuts every instance
    ([[np.nan, 1.0]], [[0, 0]], 0),
])
def test_the_resolved_prefix(G, floor, kept):
    assert resolved_prefix(np.array(G), np.array(floor)) == kept


@pytest.mark.parametrize("change,rule", [
    ({"seeds": 2}, "at least 3 instances"),
    ({"direction": "up"}, "grows | shrinks"),
    ({"along": ("rounds", [10, 20, 40])}, "≥ 4 positive values"),
    ({"along": ("rounds", [10, 20, 0, 40])}, "≥ 4 positive values"),
    ({"bound": "1/R + D"}, "free symbols ['D']"),
    ({"bound": "1 - R"}, "= -3.0 on the sweep; the rule is positive and finite"),
    ({"measure": "nonsense"}, "the rule is a metric feddualavg's runs record"),
    ({"hp": {"eta_c": "1/(4*L*Q)", "local_steps": 2}}, "hp 'eta_c' '1/(4*L*Q)' has free symbols ['Q']"),
    ({"bound": "zeta**2/R + S"}, "free symbols ['S', 'zeta']"),  # sympy's ζ function and S: plain names
    ({"bound": "1/R +"}, "does not parse"),
    ({"repeats": 0}, "repeats = 0; the rule is an integer from 1 to"),
    ({"reference_tol": 2.0}, "the rule is in (0, 1)"),
    ({"sense": "~"}, "the rule is ≲ | ≳ | Θ | = | ≶"),
    ({"sense": "≶"}, "sense ≶ with measure 'gap_avg'; the rule is a ratio of the run to its twin"),
    ({"known": "a cause"}, "known = 'a cause'; the rule is (cause, diagnostic)"),
    ({"known": ("a cause", 3)}, "the rule is (cause, diagnostic): a sentence and a function"),
    ({"full": {"seed": 5}}, "full changes ['seed']; the rule is fields of a claim"),
    # a noisy oracle, one run per point and a bound per instance: no noise to judge each instance with
    ({"oracle": "gaussian:0.5", "bound": "B/R"}, "the rule is repeats ≥ 2"),
    ({"statistic": "median"}, "the rule is one of ('last', 'mean', 'max', 'tail_mean', 'last_step_mean', "
                              "'limit', 'mean_above_floor', 'rate', 'factor')"),
    ({"statistic": "mean_above_floor", "along": ("local_steps", [1, 2, 3, 4])}, "the rule is along rounds"),
    ({"statistic": "last_step_mean"}, "the rule is a per-local-step metric"),
    ({"sense": "Θ", "bound": "exp(-R)"}, "the rule for sense Θ is a power of the swept name"),
    ({"statistic": "limit", "measure": "gap"}, "the rule is gap_avg, exact, 1"),
    ({"statistic": "limit", "method": "fedavg"}, "the rule is a dual-averaging method"),
    ({"tail": 0.0}, "tail = 0.0; the rule is in (0, 1]"),
    ({"tail": 0.25}, "tail = 0.25 with statistic 'last'; the rule is tail_mean or mean_above_floor"),
    ({"vanishes": True}, "vanishes with direction 'grows' and '1/R' → oo as R → 0; the rule is direction"),
    ({"vanishes": True, "direction": "shrinks", "bound": "1 + 1/R"}, "→ oo as R → 0; the rule is direction"),
    ({"vanishes": True, "sense": "Θ", "bound": "1"}, "has exponent 0; the rule is a law of positive"),
    ({"vanishes": True, "sense": "Θ", "bound": "1/R"}, "has exponent -1; the rule is a law of positive"),
    ({"vanishes": True, "sense": "Θ", "bound": "(2*R - 1)**2"},
     "vanishes at R = 0.5; the rule is a point outside the sweep, ≥ 0, and an integer"),
    ({"vanishes": True, "sense": "Θ", "bound": "(R - 10)**2"}, "the law's coordinate R - 10 is"),
    ({"vanishes": True, "sense": "Θ", "bound": "(R + 1)**2"}, "vanishes at R = -1; the rule is a point"),
    ({"sense": "Θ", "bound": "(R - 10)**2"}, "the law's coordinate R - 10 is [-6.0, -2.0, 6.0, 22.0]"),
    ({"controls": {"c": {"along": ("rounds", [4, 8, 16, 64])}}}, "control 'c' along [4, 8, 16, 64]; the rule "
                                                                  "is the claim's values"),
    ({"hp": {"eta_c": "0.1/(R - 8)", "local_steps": 2}}, "hp 'eta_c' '0.1/(R - 8)' is not a finite number at "
                                                          "R = 8; the rule is finite"),
])
def test_a_claim_that_cannot_be_judged_is_a_clean_error(change, rule):
    base = {"name": "bad", "method": "feddualavg", "bound": "1/R", "along": ("rounds", [4, 8, 16, 32]),
            "problem": HOMOGENEOUS, "hp": HP}
    with pytest.raises(InvalidClaimError, match=None) as info:
        judge(Claim(**{**base, **change}))
    assert rule in str(info.value) and "'bad'" in str(info.value)


# ---- the worst case over the class (verify/claim_worst.py) ----

STRONG = ("quadratics", {"mu": 0.5, "zeta": 1.0, "d": 10, "lam": 0.0})
MOMENTUM = {"eta_c": 0.2, "local_steps": 2, "beta": 0.5}


def test_a_federated_pep_on_the_shift_class_takes_strong_convexity():
    """FedAvg with K = 1 on shifts of one F: the shifts cancel in the average, so it is gradient descent on
    F.  With η = 1/L on a μ-strongly convex quadratic every eigen-component contracts by 1 − η·λ ∈ [0, 0.9],
    and the averaged output after R = 3 rounds is worst along λ = μ: ‖ŵ − w*‖² = ((0.9 + 0.9² + 0.9³)/3)²
    times ‖w₀ − w*‖² = 2B = 1."""
    from fcocheck.rates.worstcase.solve import worst_case
    from fcocheck.rates.worstcase.spec import PepSpec

    w = worst_case(PepSpec("fedavg", M=2, K=1, R=3, eta=1.0, L=1.0, mu=0.1, B=0.5, zeta=1.0, clients="shift",
                           psi="zero", quadratic=True, metric="distance"))
    assert w.status == "optimal" and w.value == pytest.approx(((0.9 + 0.81 + 0.729) / 3) ** 2, rel=1e-5)


@pytest.mark.parametrize("bound,status", [("1/R**2", "consistent"), ("1/R", "consistent"),
                                          ("exp(-R/2)", "inconsistent")])
def test_the_worst_case_over_the_class_judges_the_same_bound(bound, status):
    """FedAvgM's averaged output on the strongly convex shift class: 1/R² and the looser 1/R hold over the
    class (W(R)·R² saturates); exp(−R/2) is faster than the class allows (the smallest constant grows)."""
    c = Claim("m", method="fedavgm", bound=bound, along=("rounds", ROUNDS), problem=STRONG, hp=MOMENTUM)
    verdicts, measured = judge(c)
    w = verdicts[1]
    assert w.rule == "worst case over the class (PEP)" and w.status == status, w.reason
    rows = measured["worst_case"]
    assert [r["R"] for r in rows] == list(range(1, 7)) and all(r["status"] == "optimal" for r in rows)
    assert rows[0]["worst"] > 0 and w.evidence["c_max"] == pytest.approx(max(r["ratio"] for r in rows))


@pytest.mark.parametrize("change,reason", [
    ({"measure": "gap"}, "the rule is rounds and gap_avg"),
    ({"problem": ("lasso-paper", {})}, "no PEP counterpart"),
    ({"problem": ("quadratics", {"mu": 0.5, "hessian_spread": 0.5, "ball": 3.0, "lam": 0.0})},
     "heterogeneous Hessians"),
    ({"hp": {"eta_c": 0.05, "local_steps": 2, "beta": 0.5}}, "contraction time 1/(η_sη_cμK) = 20"),
    ({"problem": ("quadratics", {"mu": 0.5, "lam": 0.01})}, "no step for ψ"),
    ({"oracle": "minibatch:2"}, "exact gradients"),
    ({"hp": {"eta_c": 0.2, "local_steps": 5, "beta": 0.5}}, "at most 2 rounds"),
    ({"hp": {"eta_c": "1/(4*L*sqrt(R))", "local_steps": 2, "beta": 0.5}}, "expressions (set per instance)"),
    ({"bound": "B/R"}, "the instance's own constants"),
    ({"method": "one-shot"}, "no PEP form"),
])
def test_the_worst_case_does_not_apply_and_says_why(change, reason):
    from fcocheck.verify.claim_worst import pep_specs

    c = Claim(**{"name": "m", "method": "fedavgm", "bound": "1/R", "along": ("rounds", ROUNDS),
                 "problem": STRONG, "hp": MOMENTUM, **change})
    out = pep_specs(c, 1.0)
    assert isinstance(out, str) and reason in out, out


# ---- the papers' claims as data (verify/paper_claims): a tuned step, a bound per instance ----


def test_the_study_seed_reaches_the_instance_and_fixes_its_bits():
    """Seeds s, s + 1, … draw the instances: another study seed measures other instances, the same seed the
    same bits."""
    c = Claim("seeded", method="feddualavg", bound="1/R", along=("rounds", [10, 20, 40, 80]),
              problem=("quadratics", {"mu": 0.5, "zeta": 1.0, "d": 10}), hp=HP, worst=False)
    from fcocheck.verify.experiments import base

    _, a, _ = judge_measured(c, seed=0)
    base._MEMO.clear()  # the same bits from fresh runs, not the memo's
    _, b, _ = judge_measured(c, seed=0)
    _, other, _ = judge_measured(c, seed=3)
    assert a["seeds"] == [0, 1, 2] and other["seeds"] == [3, 4, 5]
    assert a["instances"] == b["instances"]
    assert not np.intersect1d(np.array(a["instances"]).ravel(), np.array(other["instances"]).ravel()).size


def _tuned_4_2(bound_factor: str, rounds: tuple = ()):
    """FCO Thm 4.2's claim with its bound multiplied by ``bound_factor`` (an expression in R) and, given
    ``rounds``, swept along them."""
    import dataclasses

    import sympy as sp

    from fcocheck.verify.paper_claims import fco_4_2_rounds

    base = fco_4_2_rounds.CLAIM
    along = ("rounds", list(rounds)) if rounds else base.along
    return dataclasses.replace(base, bound=lambda: base.bound() * sp.sympify(bound_factor), along=along)


#: the quick sweep of R continued three doublings (to 5120: the window the quick one's weak verdict names)
LONG_R = tuple(10 * 2**k for k in range(10))


@pytest.mark.parametrize("factor,rounds,status", [
    ("1", LONG_R, "consistent"),  # the theorem's own tuned rate (4.3), each instance its own step and bound
    ("1", (), "weak"),  # the same on the quick sweep: it excludes only bound^0.86
    ("R**(3/10)", LONG_R, "weak"),  # a looser bound: never rejected, and too loose to have power
    ("R**(-1/2)", (), "inconsistent"),  # a bound falling √R faster than the runs can: the ratio grows
])
def test_a_tuned_claim_judged_per_instance_on_its_own_bound(factor, rounds, status):
    """The paper claim's step is an expression in each instance's measured G, L, B and in R; so is its
    bound, so each instance is judged against its own (judge.bound_instances), with size, power and the
    smallest departure it detects (ε_min)."""
    v, measured, _ = judge_measured(_tuned_4_2(factor, rounds))
    assert (v.status if status != "weak" else "weak" * v.reason.startswith("weak")) == status, v.reason
    bound = np.array(measured["bound"])
    assert bound.shape == (3, len(rounds) or 7) and not np.allclose(bound[0], bound[1])  # its own constants
    if status == "consistent":
        assert v.evidence["oc"]["size"] <= 0.01 and min(v.evidence["oc"]["power"].values()) >= 0.95
        assert v.evidence["departure"]["eps_min"] <= 0.1
    if status == "weak":  # never rejected, never consistent: it names what it excludes and what would decide
        assert v.status == "inconclusive" and v.evidence["departure"]["eps_min"] > 0.1 and "it would" in \
            v.reason or "no window" in v.reason


def test_the_papers_claims_are_data_on_the_users_path():
    """Each file of verify/paper_claims declares one Claim of a catalog theorem; validate runs it through
    the same experiment wrapper as a user's claim; a user's claim cannot take a paper's theorem or name."""
    import dataclasses

    from fcocheck.rates.catalog import THEOREMS
    from fcocheck.verify.experiments import EXPERIMENTS, register_claim
    from fcocheck.verify.paper_claims import CLAIMS

    assert len(CLAIMS) >= 5
    for c in CLAIMS.values():
        assert c.theorem in THEOREMS and c.name in THEOREMS[c.theorem].experiments
        assert EXPERIMENTS[c.name].theorem == c.theorem and c.seeds >= 3 and c.full
        assert c.design(False).seeds > c.seeds and c.design(True) is c
    with pytest.raises(InvalidClaimError, match="built-in study's name"):
        register_claim(dataclasses.replace(CLAIMS["fco-4.2-rounds"], theorem=""))
    with pytest.raises(InvalidClaimError, match="the rule is empty for a user's claim"):
        register_claim(dataclasses.replace(CLAIMS["fco-4.2-rounds"], name="mine"))


@pytest.mark.parametrize("law,status", [
    ("heterogeneity_term", "consistent"),  # η_c²K²ζ²: exponent 2 in K
    ("K*eta_c**2*zeta**2", "inconsistent"),  # exponent 1: the noise term's law, on the σ = 0 design
    ("K**3*eta_c**2*zeta**2", "inconsistent"),  # exponent 3
])
def test_a_law_is_judged_by_its_exponent_in_the_swept_name(law, status):
    """Sense Θ: the log-log slope of the discrepancy in K must equal the bound's exponent in K (Lemma 4.5's
    heterogeneity term at σ = 0); a claimed exponent 1 or 3 is rejected on the same runs."""
    import dataclasses

    from fcocheck.verify.paper_claims import fco_lemma_4_5

    base = fco_lemma_4_5.K_HETERO
    c = base if law == "heterogeneity_term" else dataclasses.replace(base, bound=law)
    v, measured, _ = judge_measured(c)
    assert v.status == status, v.reason
    predicted = {"heterogeneity_term": 2.0, "K*eta_c**2*zeta**2": 1.0}.get(law, 3.0)
    assert measured["fit"]["predicted"] == predicted
    if status == "consistent":  # its power: the exponent ± 0.5 and a flat curve are rejected at this design
        assert "rejects K^+1.5, K^+2.5, flat" in v.reason


def test_hyper_parameters_options_pass_through_and_expressions_follow_their_names():
    """A one-word text or a boolean is an option (DANE's local solver, SVRG's sampling); an expression may
    use another hyper-parameter, K or R, in whatever order the claim lists them."""
    from fcocheck.verify.claim_expr import point

    c = Claim("hp", method="feddualavg", bound="K/R", along=("rounds", [10, 20, 40, 80]),
              hp={"eta_c": "0.1*local_steps", "local_steps": "R/5", "local_solver": "gd", "flag": True})
    hp, rounds, ctx = point(c, 10, {})
    assert hp == {"eta_c": 0.2, "local_steps": 2.0, "local_solver": "gd", "flag": True} and rounds == 10
    assert ctx["K"] == 2.0
    with pytest.raises(InvalidClaimError, match=r"hp 'eta_c' '0.1\*steps' has free symbols \['steps'\]"):
        point(dataclasses.replace(c, hp={"eta_c": "0.1*steps"}), 10, {})


def test_what_of_a_curve_a_claim_measures():
    """last, mean, tail_mean (the last half by default, or the claim's ``tail``: a steady state),
    last_step_mean (a per-step metric's last step over the rounds), and the squared proximal-gradient
    norm derived from its metric."""
    from fcocheck.verify.claim_measure import curve, statistic

    c = Claim("s", method="fedcanon", bound="1/b", along=("b", [1, 2, 4, 8]))
    g = np.arange(1.0, 11.0)
    got = {s: statistic(dataclasses.replace(c, statistic=s), g) for s in ("last", "mean", "tail_mean")}
    assert got == {"last": 10.0, "mean": 5.5, "tail_mean": 8.0}
    assert statistic(dataclasses.replace(c, statistic="tail_mean", tail=0.2), g) == 9.5  # the last 2 of 10
    steps = np.array([[1.0, 2.0], [3.0, 6.0]])
    assert statistic(dataclasses.replace(c, statistic="last_step_mean"), steps) == 4.0
    arrays = {"prox_grad_norm": np.array([3.0, 2.0])}
    trace = type("T", (), {"arrays": arrays, "__getitem__": lambda self, k: self.arrays[k]})()
    assert curve(dataclasses.replace(c, measure="prox_grad_norm_sq"), trace).tolist() == [9.0, 4.0]
    with pytest.raises(InvalidClaimError, match="the rule is a trace metric"):
        curve(dataclasses.replace(c, measure="nope"), trace)


def test_a_negative_control_must_be_rejected_by_the_claims_own_rule():
    """FedDualAvg's averaged gap ≲ 1/R² on identical clients (it converges linearly, so ŵ's gap falls like
    B/R²: the ratio saturates), with printed FedMiD as the control (ψ applied twice: a floor of 1e-3 under
    ŵ's transient, so its ratio to 1/R² keeps growing) — rejected, so the control check is consistent and
    shows its power.  A 'control' that is the claim's own method with a slightly smaller step is not
    rejected: the check says the rule could not tell it from the claim."""
    base = Claim("ctl", method="feddualavg", bound="1/R**2", along=("rounds", ROUNDS), problem=HOMOGENEOUS,
                 hp=HP, worst=False, controls={"printed FedMiD": {"method": "fedmid"}})
    verdicts, measured = judge(base)
    claim, ctl = verdicts
    assert claim.status == "consistent" and ctl.status == "consistent", (claim.reason, ctl.reason)
    assert ctl.rule == "negative control (printed FedMiD)"
    assert "it does not hold on the curve that satisfies the claim" in ctl.reason
    assert len(measured["controls"]["printed FedMiD"]) == 3  # measured on the same instances
    twin = dataclasses.replace(base, controls={"a smaller step": {"hp": {**HP, "eta_c": 0.09}}})
    _, ctl = judge(twin)[0]
    assert ctl.status == "inconsistent" and ctl.rule == "negative control (a smaller step)", ctl.reason
    with pytest.raises(InvalidClaimError, match="control 'x' changes \\['nope'\\]"):
        judge(dataclasses.replace(base, controls={"x": {"nope": 1}}))


def test_a_measure_that_vanishes_at_zero_is_checked_there_and_its_violations_fail():
    """``vanishes``: the rule passes values far below the smallest point's (legal, however small or
    uneven), and rejects the measure kept at 0 on every instance, on one, or just above the tolerance."""
    from fcocheck.verify.claim_judge import VANISH
    from fcocheck.verify.experiments.judge import vanishes

    small = np.array([2e-6, 7e-7, 5e-5])
    legal = [np.zeros(3), small * 1e-9, small * np.array([0.9, 0.01, 1e-6]) * VANISH]
    for z in legal:
        v = vanishes(z, small, [0, 1, 2], "floor", VANISH)
        assert v.status == "consistent", v.reason
        assert v.evidence["power"]["rejects"] == ["kept where it must vanish", "kept on one instance"]
    for z in (small.copy(), np.array([0.0, 0.0, small[2]]), small * 1.01 * VANISH):
        v = vanishes(z, small, [0, 1, 2], "floor", VANISH)
        assert v.status == "inconsistent", v.reason


def test_the_regulariser_floor_vanishes_at_lambda_zero_on_real_runs():
    """FedCanon's floor-λ claim: its λ = 0 runs are judged (≤ 10⁻³ of λ = 0.003's floor on each drawn
    instance), and the same rule rejects FedAvg with a prox at the server, whose floor at λ = 0 is its
    own drift floor (a method the claim is not about: the check has teeth on real runs)."""
    from fcocheck.verify.claim_judge import VANISH, vanishing
    from fcocheck.verify.paper_claims import CLAIMS

    c = CLAIMS["fedcanon-floor-lambda"]
    from fcocheck.verify.claim_measure import measure

    m = measure(c, 0)
    measured: dict = {}
    v = vanishing(c, m.G, 0, measured)
    assert v.status == "consistent", v.reason
    assert max(measured["at_zero"]) <= VANISH * m.G.mean(axis=1)[:, 0].min()
    bad = dataclasses.replace(c, method="fedmid-avg", hp={"eta_c": 0.1, "local_steps": 5})
    w = vanishing(bad, measure(bad, 0).G, 0, {})
    assert w.status == "inconsistent", w.reason


def test_an_unresolved_instance_is_redrawn_from_the_study_seeds_own_stream(monkeypatch):
    """``redraw``: an instance with a point within its resolution (a floor of exactly 0) is replaced by
    a draw from the study seed's own stream, the replaced seed reported; without ``redraw`` it stays
    (its sweep is cut instead); when the redraws run out, the claim is inconclusive, naming them."""
    from fcocheck.verify import claim_judge, claim_measure
    from fcocheck.verify.experiments.base import REPLACEMENT_BASE

    c = Claim("r", method="feddualavg", bound="1/R", along=("rounds", [4, 8, 16, 32]), problem=HOMOGENEOUS,
              hp=HP, worst=False)
    unresolved = {1, REPLACEMENT_BASE + 2 * 5}

    def fake(cl, s, plan=None):  # noqa: ANN001, ANN202
        g = np.zeros((1, 4)) if s in unresolved else np.array([[1.0, 0.5, 0.25, 0.125]]) * (1 + s % 7)
        bound = np.array([0.25, 0.125, 0.0625, 0.03125])
        return claim_measure._Row(g, np.full(4, 1e-12), bound, 1.0, np.zeros(4))

    monkeypatch.setattr(claim_measure, "measure_instance", fake)
    m = claim_measure.measure(dataclasses.replace(c, redraw=1), 0)  # one replacement allowed, one needed
    assert m.seeds == [0, REPLACEMENT_BASE, 2] and m.skipped == [1]
    assert claim_measure.measure(c, 0).seeds == [0, 1, 2]  # no redraw: kept
    unresolved.update(range(10**7))  # nothing resolves
    v = claim_judge.judge(dataclasses.replace(c, redraw=2), 0)[0][0]
    assert v.status == "inconclusive" and "3 draws rejected" in v.reason
    assert "2 replacements allowed" in v.reason
    with pytest.raises(InvalidClaimError, match="redraw = -1; the rule is an integer ≥ 0"):
        claim_judge.judge(dataclasses.replace(c, redraw=-1))


def test_a_laws_control_is_rejected_on_each_instance_not_by_one_pooled_interval():
    """A law's negative control is judged on each instance (``law_each``): slopes 2.4, 3.7 and 7.6 are
    each far from 0, though a t interval over three slopes (2 dof) is too wide to reject 0; the same
    rule accepts flat rows (legal), and rows flat on one instance (the control must not pass there)."""
    from fcocheck.verify.claim_judge import law_each

    c = Claim("law0", method="fedcanon", bound="1", sense="Θ", along=("problem.zeta", [0.5, 1, 2, 4, 8]))
    z = np.array([0.5, 1, 2, 4, 8])
    rng = np.random.default_rng(0)
    growing = np.array([z**2.4, z**3.7, z**7.6]) * np.exp(0.01 * rng.standard_normal((3, 5)))
    fl, b = np.zeros((3, 5)), np.ones((3, 5))
    assert law_each(c, growing[:, None, :], fl, b, 0, [0, 1, 2]).status == "inconsistent"
    from fcocheck.verify.claim_judge import judge_data

    pooled = judge_data(c, growing[:, None, :], fl, b, 0)[0]
    assert pooled.status != "inconsistent" and "wider" in pooled.reason, pooled.reason
    flat = np.exp(0.01 * rng.standard_normal((3, 5)))
    assert law_each(c, flat[:, None, :], fl, b, 0, [0, 1, 2]).status == "consistent"
    one_flat = growing.copy()
    one_flat[1] = flat[1]
    assert law_each(c, one_flat[:, None, :], fl, b, 0, [0, 1, 2]).status == "consistent"


def test_a_law_in_an_expression_of_the_swept_name_is_fitted_against_it():
    """A bound C·u^p with u an expression in the swept name ((K − 1)²) is a law along u: data ∝ (K − 1)²
    pass (also with instance constants and 1% noise); data ∝ K² — the same exponent in the wrong
    coordinate — and ∝ (K − 1)^1.5 fail; a bound that is no such power is a clean error."""
    from fcocheck.verify.claim_expr import law_coordinate, law_x
    from fcocheck.verify.claim_judge import judge_data

    c = Claim("k1", method="fedcanon", bound="C*(K - 1)**2", along=("local_steps", [2, 3, 5, 9]), sense="Θ")
    p, u = law_coordinate(c)
    assert p == 2.0 and str(u) == "K - 1"
    assert law_x(c, [2, 3, 5, 9])[0].tolist() == [1.0, 2.0, 4.0, 8.0] and law_x(c, [2])[1] == "K − 1"
    K = np.array([2.0, 3.0, 5.0, 9.0])
    rng = np.random.default_rng(1)
    consts = np.array([[1.0], [3.0], [0.2]])
    fl, b = np.zeros((3, 4)), np.ones((3, 4))

    def verdict(Y: np.ndarray) -> str:
        noisy = Y * np.exp(0.01 * rng.standard_normal(Y.shape))
        return judge_data(c, noisy[:, None, :], fl, b, 0)[0].status

    assert verdict(consts * (K - 1) ** 2) == "consistent"
    assert verdict(consts * K**2) == "inconsistent"
    assert verdict(consts * (K - 1) ** 1.5) == "inconsistent"
    with pytest.raises(InvalidClaimError, match="the rule for sense Θ is a power of the swept name"):
        law_coordinate(dataclasses.replace(c, bound="exp(K)"))
    with pytest.raises(InvalidClaimError, match="the law's coordinate K - 3 is .* the rule is positive"):
        law_x(dataclasses.replace(c, bound="(K - 3)**2"), [2, 3, 5, 9])


def test_where_a_measure_must_vanish_is_the_zero_of_its_bound():
    """λ² → λ = 0; (K − 1)² → K = 1 (an integer for an integer sweep); an upper bound along a shrinking
    direction → 0; a law whose coordinate has no zero is a clean error."""
    from fcocheck.verify.claim_expr import vanishing_point
    from fcocheck.verify.paper_claims import CLAIMS

    assert vanishing_point(CLAIMS["fedcanon-floor-lambda"]) == 0.0
    c = Claim("k1", method="fedcanon", bound="(K - 1)**2", along=("local_steps", [2, 3, 5, 9]), sense="Θ",
              vanishes=True)
    assert vanishing_point(c) == 1 and isinstance(vanishing_point(c), int)
    assert vanishing_point(dataclasses.replace(c, sense="≲", bound="K", direction="shrinks")) == 0.0
    with pytest.raises(InvalidClaimError, match="has zeros \\[\\]; the rule is exactly one real zero"):
        judge(dataclasses.replace(c, bound="K**2 + 1"))


def test_a_group_of_claims_is_one_study_whose_verdicts_name_their_law():
    """``fedcanon-floor-structure``: three laws (η_l², (K − 1)² with its zero at K = 1, flat in η_g)
    and ZA1's control, each verdict naming its law, one figure with every claim's series; consistent
    on its instances."""
    from fcocheck.verify.experiments import EXPERIMENTS

    res = EXPERIMENTS["fedcanon-floor-structure"](quick=True, seed=0)
    laws = [v.reason.split(":")[0] for v in res.checks]
    assert laws == ["η_l² along η_l", "η_l² along η_l", "(K − 1)² along K", "(K − 1)² along K",
                    "flat along η_g"]
    assert all(v.status == "consistent" for v in res.checks), [v.reason for v in res.checks]
    assert "ZA1" in res.checks[1].reason and "at K = 1 / at K = 2" in res.checks[3].reason
    labels = [s["label"] for s in res.measured["plot"]["series"]]
    assert len(labels) == 4 and any("control: ZA1" in x for x in labels)


@pytest.mark.parametrize("method,hp,oracle,problem", [
    ("fedcanon", {"eta_l": 0.05, "local_steps": 2}, "exact", ("robust-penalized", {"clients": 4, "samples": 8,
                                                                                    "d": 6})),
    ("fedavg", {"eta_c": 0.05, "local_steps": 2}, "gaussian:0.5", ("quadratics", {"zeta": 1.0})),
    ("scaffold", {"eta_l": 0.05, "local_steps": 3}, "minibatch:4", ("ridge", {"clients": 4, "samples": 16,
                                                                             "d": 8})),
    ("feddualavg", {"eta_c": 0.05, "local_steps": 2}, "gaussian:0.5", ("quadratics", {"zeta": 1.0})),
])
@pytest.mark.parametrize("stat", ["last", "mean", "tail_mean", "mean_above_floor"])
def test_a_sweep_of_rounds_read_off_one_run_has_the_bits_of_separate_runs(monkeypatch, method, hp, oracle,
                                                                         problem, stat):
    """``prefixes``: R's first rounds of one long run are the run of R rounds (noise, minibatches and
    control variates included), so the claim's numbers are the same bits either way; a step tuned to R
    (an expression) runs each R on its own."""
    from fcocheck.verify import claim_measure
    from fcocheck.verify.experiments import base

    c = Claim("p", method=method, bound="1/R", along=("rounds", (5, 9, 17, 30)), hp=hp, oracle=oracle,
              repeats=2 if oracle != "exact" else 1, measure="gap_avg", problem=problem, statistic=stat)
    assert claim_measure.prefixes(c)
    step = next(iter(hp))
    assert not claim_measure.prefixes(dataclasses.replace(c, hp={**hp, step: "0.05*sqrt(10/R)"}))
    assert not claim_measure.prefixes(dataclasses.replace(c, statistic="last_step_mean"))
    one = claim_measure.measure_instance(c, 3)
    base._MEMO.clear()  # each R's own run, not the memo's longest one
    monkeypatch.setattr(claim_measure, "prefixes", lambda _: False)
    assert np.array_equal(one.G, claim_measure.measure_instance(c, 3).G)


def test_vanishing_compares_with_the_nearest_resolved_point_and_reads_a_resolved_zero_as_zero(monkeypatch):
    """A point within its resolution is not compared with: the nearest resolved one is; a value at the
    bound's zero within its own resolution counts as 0 (legal); no resolved point: inconclusive."""
    from fcocheck.verify import claim_judge, claim_measure

    c = Claim("v", method="fedcanon", bound="lam**2", sense="Θ", direction="shrinks", vanishes=True,
              along=("problem.lam", (0.01, 0.02, 0.04, 0.08)))

    def at_zero(G0, F0):  # noqa: ANN001, ANN202
        return lambda cl, seed, seeds: claim_measure.Measurement(  # noqa: ARG005
            np.asarray(G0, dtype=float)[:, None, None], np.asarray(F0, dtype=float)[:, None],
            np.ones((3, 1)), 0.0, np.zeros((3, 1)), list(seeds), [])

    G = np.array([[1e-9, 4e-6, 1.6e-5, 6.4e-5]] * 3)[:, None, :]
    floor = np.array([[1e-8, 1e-8, 1e-8, 1e-8]] * 3)  # the smallest λ's value is within its resolution
    monkeypatch.setattr(claim_judge, "measure", at_zero([1e-9, 2e-9, 3e-9], [1e-8] * 3))
    v = claim_judge.vanishing(c, G, 0, {"seeds": [0, 1, 2]}, floor)
    assert v.status == "consistent" and "/ at λ = 0.02" in v.reason, v.reason  # nearest resolved: 0.02
    monkeypatch.setattr(claim_judge, "measure", at_zero([1e-9, 4e-6, 3e-9], [1e-12] * 3))
    assert claim_judge.vanishing(c, G, 0, {"seeds": [0, 1, 2]}, floor).status == "inconsistent"
    assert claim_judge.vanishing(c, G, 0, {"seeds": [0, 1, 2]}, np.ones((3, 4))).status == "inconclusive"


def test_equivalent_laws_read_the_same_and_a_group_that_cannot_be_judged_is_refused():
    """(1 − K)² is (K − 1)²; K·(K − 1) is a law of exponent 1 in its own product; a group needs two
    claims with distinct names of its theorem; a non-claim in ``fcocheck_claims`` is a clean error."""
    from fcocheck.verify.claim_expr import law_coordinate, law_x
    from fcocheck.verify.claim_group import ClaimGroup
    from fcocheck.verify.experiments import register_claim

    c = Claim("k", method="fedcanon", bound="(1 - K)**2", along=("local_steps", [2, 3, 5, 9]), sense="Θ")
    assert law_x(c, [2, 3, 5, 9])[0].tolist() == [1.0, 2.0, 4.0, 8.0] and law_coordinate(c)[0] == 2.0
    prod = dataclasses.replace(c, bound="K*(K - 1)")
    assert law_coordinate(prod)[0] == 1.0 and law_x(prod, [2, 3])[0].tolist() == [2.0, 6.0]
    with pytest.raises(InvalidClaimError, match="the rule is at least two, with distinct names"):
        ClaimGroup("g", "", "two of one", (c, c))
    with pytest.raises(InvalidClaimError, match="its claims' theorems \\['fedcanon-1'\\]; the rule is"):
        ClaimGroup("g", "", "mixed", (c, dataclasses.replace(c, name="k2", theorem="fedcanon-1")))
    g = ClaimGroup("g", "", "fine", (c, dataclasses.replace(c, name="k2")))
    with pytest.raises(InvalidClaimError, match="fcocheck_claims holds ClaimGroup 'g'; the rule is Claim"):
        register_claim(g)


def test_a_law_without_power_at_its_design_is_inconclusive_and_a_resolved_one_prints_its_size():
    """The exponent rule is consistent only with ≥ 95% exact power against p ± ½ and flat: three rows
    whose slopes spread 1.93…2.07 give a 98% interval (2 dof) of width ~0.6 that accepts 2 and 1.5
    alike — inconclusive (no power), naming the exponent it would miss; rows at 2 ± 0.01 are
    consistent and print their size."""
    from fcocheck.verify.experiments.judge import exponent

    x = np.array([0.05, 0.1, 0.2, 0.4])
    spread = np.array([x**1.93, x**2.0, x**2.07])
    v = exponent(x, spread, 2.0, "two-sided", 0, "λ")[1]
    assert v.status == "inconclusive" and "no power" in v.reason and "in only" in v.reason, v.reason
    tight = np.array([x**1.99, x**2.0, x**2.01])
    w = exponent(x, tight, 2.0, "two-sided", 0, "λ")[1]
    assert w.status == "consistent" and "; size 1.0%" in w.reason, w.reason
    assert "any exponent in [" in w.reason
    assert exponent(x, tight, 1.5, "two-sided", 0, "λ")[1].status == "inconsistent"


@pytest.mark.parametrize("change,rule", [
    ({"bound": "(local_steps - 1)**2"}, "names 'local_steps'; the rule is the swept name 'K'"),
    ({"along": ("local_step", [2, 3, 5, 9])}, "along local_step = 2: fedcanon has no hyper-parameter "
                                               "'local_step'"),
    ({"bound": "K**2", "vanishes": True}, "vanishes at local_steps = 0: local_steps = 0 is invalid"),
])
def test_a_sweep_the_method_cannot_run_is_refused_before_any_run(change, rule):
    base = {"name": "bad", "method": "fedcanon", "bound": "(K - 1)**2", "sense": "Θ",
            "along": ("local_steps", [2, 3, 5, 9]), "hp": {"eta_l": 0.02, "eta_g": 0.2}}
    with pytest.raises(InvalidClaimError) as info:
        judge(Claim(**{**base, **change}))
    assert rule in str(info.value), str(info.value)


def test_a_compound_coordinates_violations_read_as_powers():
    from fcocheck.rates.power import exponent_violations

    Y = np.array([[1.0, 4, 16, 64]])
    names = [v.name for v in exponent_violations([1, 2, 4, 8], Y, 2.0, label="K − 1")]
    assert "(K − 1)^+1.5" in names and "(K − 1)^+2.5" in names


def test_a_one_letter_swept_name_is_checked_as_that_name_only():
    """SVRG's ``m`` swept with ``h`` an expression: the method's complaint about the missing h names no
    ``m`` (the letter is in "parameter"), so it is not the sweep's error; a bad m is, naming the rule."""
    from fcocheck.verify.claim_check import check

    ok = Claim("s", method="svrg", bound="1/m", along=("m", (50, 100, 200, 400)), problem=("ridge", {}),
               hp={"h": "0.2/L"})
    check(ok)
    with pytest.raises(InvalidClaimError, match=r"along m = 0.5: m = 0.5 is invalid; the rule is an integer"):
        check(dataclasses.replace(ok, along=("m", (0.5, 100, 200, 400)), hp={"h": 0.01}))
