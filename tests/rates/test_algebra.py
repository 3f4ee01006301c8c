import numpy as np
import pytest
import sympy as sp

from fcocheck.rates import algebra, checks
from fcocheck.rates.catalog import THEOREMS, THM_4_1, THM_4_2, THM_4_3, get
from fcocheck.rates.symbols import B, G, K, L, M, R, eta_c, sigma, zeta


def test_every_theorem_has_latex_citation_and_experiments():
    for thm in THEOREMS.values():
        assert thm.citation and thm.latex()["bound"]
        assert thm.experiments, thm.name
    with pytest.raises(KeyError, match="the rule is one of"):
        get("nope")


@pytest.mark.parametrize("thm", [THM_4_2, THM_4_3], ids=lambda t: t.name)
def test_tuned_step_balances_terms_and_matches_published_rate_up_to_numbers(thm):
    tun = algebra.tuning_constants(thm)
    assert all(tun.balanced_equal.values())
    for name, const in tun.constants.items():
        assert not const.free_symbols, (name, const)
    assert tun.constants["optimisation"] == 4  # B/(η K R) at η = 1/(4L) is 4·LB/(KR)
    # the tuned step substituted back satisfies the constraint η* ≤ 1/(4L) at random points
    f = sp.lambdify(sorted(tun.step.free_symbols, key=str), tun.step - thm.step_max)
    rng = np.random.default_rng(0)
    for _ in range(200):
        assert f(*(10.0 ** rng.uniform(-6, 6, len(tun.step.free_symbols)))) <= 1e-15


def test_tuning_grid_constant_is_absolute_over_12_decades():
    g = algebra.tuning_grid(THM_4_3, samples=300)
    assert g["step_violations"] == 0
    # min over η of a sum of n terms is at least the largest balanced term and at most n × it
    assert 1.0 - 1e-9 <= g["min_over_tuned_lo"] and g["min_over_tuned_hi"] <= 4.0 + 1e-6
    assert g["min_over_tuned_hi"] <= g["closed_over_tuned_hi"] + 1e-12


def test_crossover_is_the_papers_claim_and_exact_boundary_has_k_factor():
    c = algebra.crossover(THM_4_1, THM_4_2)
    assert sp.simplify(c["leading"] - L**2 * B / G**2) == 0
    assert sp.simplify(c["exact"] - L**2 * B * (K - 1) ** 3 / (G**2 * K**3)) == 0
    # the sign flips at the exact boundary
    vals = {L: 2.0, B: 3.0, G: 0.5, K: 10.0, M: 4.0, sigma: 1.0}
    rstar = float(c["exact"].subs(vals))
    diff = (c["second_minus_shared"] - c["first_minus_shared"]).subs(vals)
    assert float(diff.subs(R, 0.5 * rstar)) < 0 < float(diff.subs(R, 2 * rstar))


def test_improvement_remark_and_exponents():
    assert checks.improvement() == "K"
    e = algebra.term_exponents(THM_4_3)
    assert e["heterogeneity"] == {"R": 0, "K": 2, "M": 0, "eta_c": 2, "sigma": 0, "zeta": 2}
    assert e["optimisation"]["R"] == -1 and e["variance"]["M"] == -1
    t = algebra.term_exponents(THM_4_3, (R, K, eta_c, zeta), tuned=True)
    assert t["heterogeneity"]["R"] == sp.Rational(-2, 3) and t["local-variance"]["K"] == sp.Rational(-1, 3)


def test_dominant_term_switches_where_the_ratio_crosses_one():
    vals = {"L": 1.0, "B": 1.0, "sigma": 1.0, "zeta": 0.0, "M": 1.0, "K": 1.0, "R": 1.0}
    name, shares = algebra.dominant_term(THM_4_3, {**vals, "eta_c": 1e-3})
    assert name == "optimisation" and abs(sum(shares.values()) - 1) < 1e-12
    name, _ = algebra.dominant_term(THM_4_3, {**vals, "eta_c": 1e-3, "R": 1e9})
    assert name == "variance"
