"""The symbolic checks of the papers' algebra, gathered for ``fcocheck theorems``.

* tuning: Thms 4.2/4.3 — balance points, the constants between the tuned bound and the published rate
  (symbolic), and the numeric ratio min_η bound / rate over 12 orders of magnitude;
* the crossover after Thm 4.2: (4.3) beats (4.1) iff R ≲ L²B/G² — the leading and exact boundaries;
* the remark that Thm 4.2 improves LB/R to LB/(KR): the ratio of the two terms;
* every term's exponents in R, K, M, η_c, σ, ζ.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from fcocheck.rates import algebra
from fcocheck.rates.catalog import THEOREMS, THM_4_1, THM_4_2, THM_4_3
from fcocheck.rates.symbols import B, G, K, L, M, R, T, b, eta_c, eta_g, h, lam, m, sigma, zeta

SWEEP_VARIABLES = (R, K, M, eta_c, sigma, zeta, T, b, lam, eta_g, m, h)


def tuning(samples: int = 2000) -> dict[str, Any]:
    """Symbolic tuning constants and the 12-decade grid for every theorem with a published tuned rate."""
    out = {}
    for thm in (THM_4_2, THM_4_3):
        tun = algebra.tuning_constants(thm)
        out[thm.name] = {
            "step": str(tun.step),
            "balance": {k: str(v) for k, v in tun.balance.items()},
            "balanced_equal": tun.balanced_equal,
            "constants": {k: str(v) for k, v in tun.constants.items()},
            "constants_are_numbers": all(not v.free_symbols for v in tun.constants.values()),
            "grid": algebra.tuning_grid(thm, samples=samples),
        }
    return out


def crossover() -> dict[str, str]:
    """The R-boundary where (4.3) stops beating (4.1)."""
    c = algebra.crossover(THM_4_1, THM_4_2)
    claim = L**2 * B / G**2
    return {
        "claim": str(claim),
        "leading": str(c["leading"]),
        "exact": str(c["exact"]),
        "leading_matches_claim": bool(sp.simplify(c["leading"] - claim) == 0),
        "exact_over_claim": str(sp.simplify(c["exact"] / claim)),
    }


def improvement() -> str:
    """Thm 4.1's LB/R over (4.3)'s LB/(KR)."""
    return str(sp.simplify(THM_4_1.term("optimisation") / dict(THM_4_2.tuned_terms)["optimisation"]))


def exponents() -> dict[str, dict[str, dict[str, str]]]:
    """Exponents of every term of every theorem (bound and tuned rate)."""
    out = {}
    for name, thm in THEOREMS.items():
        if thm.relation == "eq":
            continue
        var = tuple(s for s in SWEEP_VARIABLES if s in thm.symbols())
        rows = {k: {v: str(e) for v, e in d.items()} for k, d in algebra.term_exponents(thm, var).items()}
        if thm.tuned_terms:
            rows.update(
                {
                    f"tuned:{k}": {v: str(e) for v, e in d.items()}
                    for k, d in algebra.term_exponents(thm, var, tuned=True).items()
                }
            )
        out[name] = rows
    return out


def all_checks(samples: int = 2000) -> dict[str, Any]:
    """Everything above in one JSON-ready mapping."""
    return {
        "tuning": tuning(samples),
        "crossover": crossover(),
        "improvement_LB_over_R": improvement(),
        "exponents": exponents(),
    }
