"""The remark after FCO Thm 4.2, as a crossover: rate (4.3)'s regime beats (4.1)'s iff R ≲ R* = L²B/G².

The remark's practical sentence — on a bounded-gradient instance, FedDualAvg with η_s = 1 and Thm 4.2's
tuned η_c (the (4.3) regime) is better for few rounds, FedDualAvg at a small η_c with Thm 4.1's
η_s = 1/(η_cKL) (the (4.1) regime: with exact gradients, minibatch gradient descent with step 1/L) for
many — measured as which run ends nearer the optimum: Φ(ŵ) − Φ* of the (4.3) run over its twin's, the
(4.1) run on the same instance.  R* is the leading crossover of the two tuned rates
(``rates.algebra.crossover``: the terms they share cancel), known up to its constants, so only the R at
least 4× away from each instance's own R* are judged (``rates.sides``); the ratios inverted (the two
runs swapped) must be rejected.  No control: the regimes swapped would be the same runs recalled, their
ratios exactly the inverses — the same check again, not new evidence.  It is the remark's sentence,
not a theorem: the rates are upper bounds, and which run wins is what the remark infers from them.

The class makes both sides measurable: ℓ2-ball (radius 2) logistic regression with its features scaled
×40, so the curvature (L ∝ scale²) outgrows the gradient bound (G ∝ scale) and R* = L²B/G² is of order
10–200 (on the unscaled data R* < 1 and only the R ≳ R* side exists); 8 clients of 32 samples, d = 20,
exact gradients (σ stated as 1e-300: Thm 4.2's deterministic step), K = 10.  The references are
certified to 1e-9 relative: the scaled features make some draws too ill-conditioned for 1e-10, and the
gaps compared are far above it.
"""

from __future__ import annotations

from functools import cache, partial
from typing import TYPE_CHECKING

from fcocheck.rates.catalog import THM_4_2
from fcocheck.verify.claim import CROSSOVER, Claim
from fcocheck.verify.paper_claims import tuned

if TYPE_CHECKING:
    import sympy as sp

K = 10
#: the (4.3) regime: η_s = 1 (the default) and Thm 4.2's tuned η_c
RATE_4_3 = {"eta_c": partial(tuned.step, THM_4_2.name), "local_steps": K}
#: the (4.1) regime: η_cKL = 10⁻³ and Thm 4.1's η_s = 1/(η_cKL)
RATE_4_1 = {"eta_c": f"1e-3/({K}*L)", "eta_s": "1/(eta_c*K*L)", "local_steps": K}


@cache
def crossover_round() -> sp.Expr:
    """R* = L²B/G², where Thm 4.2's tuned rate stops beating Thm 4.1's (the leading terms)."""
    from fcocheck.rates.algebra import crossover
    from fcocheck.rates.catalog import THM_4_1

    return crossover(THM_4_1, THM_4_2)["leading"]


CLAIM = Claim(
    "fco-4.2-vs-4.1",
    method="feddualavg",
    sense=CROSSOVER,
    bound=crossover_round,
    label="R* = L²B/G²",
    along=("rounds", (1, 2, 4, 32, 128, 512)),
    problem=("constrained-logistic", {"ball": "l2", "radius": 2.0, "clients": 8, "samples": 32, "d": 20,
                                      "scale": 40.0}),
    hp=RATE_4_3,
    twin={"hp": RATE_4_1},
    measure="gap_avg_ratio",
    constants={"sigma": 1e-300},
    reference_tol=1e-9,
    worst=False,
    theorem=THM_4_2.name,
    source="FCO, the remark after Thm 4.2 (its practical sentence)",
    full={"seeds": 5, "along": ("rounds", (1, 2, 4, 8, 16, 32, 64, 128, 256, 512))},
)
