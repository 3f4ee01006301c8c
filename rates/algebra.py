"""Symbolic checks of the papers' own algebra: exponents, dominance, tuning, the crossover.

Every bound here is a sum of monomials c_j·η^{a_j} in the step η, so

* the exponent of a term in a variable x is its elasticity x·∂_x t / t (a constant for monomials);
* the tuned step balances the one decreasing term t₀ (a₀ < 0) against each increasing term t_j,
  η_j solves t₀(η) = t_j(η), and η* = min(η_max, η_j …) (FCO App. D/E "deciding η_c");
* at η* the bound is within an absolute constant of the published tuned rate: t₀(η*) equals
  the largest balanced value, each t_j(η*) ≤ t_j(η_j).  ``tuning_constants`` finds those constants
  symbolically and ``tuning_grid`` confirms them numerically over 12 orders of magnitude.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp
from scipy.optimize import minimize_scalar

from fcocheck.rates.symbols import B, G, K, L, M, R, eta_c, sigma, zeta
from fcocheck.rates.theorem import Theorem

GRID_SYMBOLS = (L, B, sigma, G, zeta, M, K, R)


def exponent(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """The exponent of ``var`` in ``expr``: its elasticity ``var·∂expr/∂var / expr``."""
    return sp.simplify(var * sp.diff(expr, var) / expr)


def term_exponents(
    thm: Theorem, variables: tuple[sp.Symbol, ...] = (R, K, M, eta_c, sigma, zeta), tuned: bool = False
) -> dict[str, dict[str, sp.Expr]]:
    """For each term, its exponent in each variable (``tuned``: of the published rate)."""
    pairs = thm.tuned_terms if tuned else thm.terms
    return {name: {str(v): exponent(t, v) for v in variables} for name, t in pairs}


def dominant_term(
    thm: Theorem, values: dict[str, float], tuned: bool = False
) -> tuple[str, dict[str, float]]:
    """The term that is largest at ``values`` and every term's share of the sum."""
    vals = thm.values("tuned" if tuned else "terms", **values)
    total = sum(vals.values())
    shares = {k: v / total for k, v in vals.items()} if total > 0 else dict.fromkeys(vals, 0.0)
    return max(shares, key=shares.get), shares


def dominance_ratios(thm: Theorem, tuned: bool = False) -> dict[str, dict[str, sp.Expr]]:
    """``t_j / t_i`` simplified for every pair: term j dominates term i where the ratio ≥ 1."""
    pairs = thm.tuned_terms if tuned else thm.terms
    return {
        a: {b_: sp.powsimp(sp.simplify(ta / tb), force=True) for b_, tb in pairs if b_ != a}
        for a, ta in pairs
    }


@dataclass(frozen=True)
class Tuning:
    """The tuned step and the constants between the tuned bound and the published rate.

    Attributes:
        decreasing: name of the term that decreases in η.
        balance: increasing term → η_j solving t₀(η_j) = t_j(η_j).
        step: η* = min(η_max, η_j …).
        constants: published tuned term → t₀ at the η that produces it, divided by the published
            term (a pure number when the paper's algebra is right).
        balanced_equal: increasing term → whether t₀(η_j) − t_j(η_j) simplifies to 0.

    """

    decreasing: str
    balance: dict[str, sp.Expr]
    step: sp.Expr
    constants: dict[str, sp.Expr]
    balanced_equal: dict[str, bool]


def tuning_constants(thm: Theorem) -> Tuning:
    """Balance the decreasing term against each increasing one and compare with ``thm.tuned_terms``.

    Raises:
        ValueError: the theorem has no step, no published tuned rate, or not exactly one
            decreasing term.

    """
    if thm.step is None or not thm.tuned_terms:
        raise ValueError(f"theorem {thm.name}: tuning needs a step and a published tuned rate")
    eta = thm.step
    expo = {k: exponent(t, eta) for k, t in thm.terms}
    dec = [k for k, a in expo.items() if a.is_negative]
    if len(dec) != 1:
        raise ValueError(f"theorem {thm.name}: {len(dec)} terms decrease in {eta}; the rule is exactly one")
    t0 = thm.term(dec[0])
    balance, equal, constants = {}, {}, {}
    for name, t in thm.terms:
        if name == dec[0]:
            continue
        sol = [s for s in sp.solve(sp.Eq(t0, t), eta) if s.is_positive is not False]
        balance[name] = sp.simplify(sol[0])
        equal[name] = sp.simplify((t0 - t).subs(eta, balance[name])) == 0
        constants[name] = sp.simplify(t0.subs(eta, balance[name]) / dict(thm.tuned_terms)[name])
    if thm.step_max is not None:
        constants[dec[0]] = sp.simplify(t0.subs(eta, thm.step_max) / dict(thm.tuned_terms)[dec[0]])
    step = sp.Min(*([thm.step_max] if thm.step_max is not None else []), *balance.values())
    return Tuning(dec[0], balance, step, constants, equal)


def _numeric(expr: sp.Expr, symbols: tuple[sp.Symbol, ...]):
    return sp.lambdify(symbols, expr, "numpy")


def tuning_grid(thm: Theorem, samples: int = 2000, decades: float = 12.0, seed: int = 0) -> dict[str, float]:
    """Over log-uniform draws spanning ``decades`` orders of magnitude, compare min_η bound with the rate.

    L, B, σ, G, ζ range over 10^(±decades/2); M, K, R over [1, 10^decades].  For each draw the bound is
    minimised over η ∈ (0, η_max] (it is convex in log η), and evaluated at the closed-form η*.

    Returns:
        ratio ranges ``min_over_tuned`` = min_η bound / published rate and ``closed_over_tuned`` =
        bound(η*) / published rate (min and max over the draws), and ``step_violations`` = draws
        where η* > η_max (must be 0).

    """
    tun = tuning_constants(thm)
    syms = tuple(s for s in GRID_SYMBOLS if s in thm.symbols())
    rng = np.random.default_rng(seed)
    draws = {}
    for s in syms:
        lo, hi = (0.0, decades) if s in (M, K, R) else (-decades / 2, decades / 2)
        draws[s] = 10.0 ** rng.uniform(lo, hi, samples)
    bound = _numeric(thm.bound, (thm.step, *syms))
    tuned = _numeric(thm.tuned, syms)
    star = _numeric(tun.step, syms)
    cap = _numeric(thm.step_max, syms) if thm.step_max is not None else None
    mins, closed, viol = [], [], 0
    for i in range(samples):
        args = [float(draws[s][i]) for s in syms]
        top = np.log(cap(*args)) if cap is not None else 50.0
        res = minimize_scalar(
            lambda u, a=args: np.log(bound(np.exp(u), *a)),
            bounds=(top - 200.0, top),
            method="bounded",
            options={"xatol": 1e-10},
        )
        best = min(np.exp(res.fun), bound(np.exp(top), *args))
        rate = tuned(*args)
        eta_star = star(*args)
        viol += int(cap is not None and eta_star > cap(*args) * (1 + 1e-12))
        mins.append(best / rate)
        closed.append(bound(eta_star, *args) / rate)
    return {
        "samples": samples,
        "decades": decades,
        "min_over_tuned_lo": float(np.min(mins)),
        "min_over_tuned_hi": float(np.max(mins)),
        "closed_over_tuned_lo": float(np.min(closed)),
        "closed_over_tuned_hi": float(np.max(closed)),
        "step_violations": viol,
    }


def crossover(first: Theorem, second: Theorem, var: sp.Symbol = R) -> dict[str, sp.Expr]:
    """Where the tuned rate of ``second`` stops beating ``first``'s, in ``var``.

    Shared terms cancel.  ``leading``: the boundary from the dominant non-shared terms only (the
    paper's claim for Thm 4.2 vs 4.1 is R ≲ L²B/G²); ``exact``: with every non-shared term.
    """
    a = dict(first.tuned_terms or first.terms)
    c = dict(second.tuned_terms or second.terms)
    shared = {k for k in a if k in c and sp.simplify(a[k] - c[k]) == 0}
    lhs = sp.Add(*(c[k] for k in c if k not in shared))
    rhs = sp.Add(*(a[k] for k in a if k not in shared))
    # leading: drop second's terms that are smaller than first's counterpart by a factor of the var-free K
    lead_lhs = sp.Add(*(c[k] for k in c if k not in shared and k not in a))
    lead = sp.solve(sp.Eq(lead_lhs, rhs), var)
    exact = sp.solve(sp.Eq(lhs, rhs), var)
    return {
        "second_minus_shared": lhs,
        "first_minus_shared": rhs,
        "leading": sp.simplify(lead[0]) if lead else None,
        "exact": sp.factor(sp.simplify(exact[0])) if exact else None,
    }
