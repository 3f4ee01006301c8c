"""FedCanon Thm 2's linear convergence: the rate measured by horizon R does not vanish as R grows.

Under the proximal PL condition Thm 2 contracts Φ(x^T) − Φ* by (1 − cμη_g)^T to a neighbourhood, c lost:
so −log q, the rate of the gap's linear phase seen in its first R rounds (``statistic="rate"``, read
off one run per instance to the largest R), is bounded below as R grows — a lower bound ≳ 1 along R.  A
sublinear curve fails it: 1/t has no linear phase of 3 points in its first few hundred rounds and a rate
∝ 1/R after (the running average Φ(x̄_t) − Φ* is one: the negative control); so do 1/t^6 and exp(−√t),
whose rates fall over the horizons before they reach their floor.

What no horizon can show: once a curve is at its floor (or 10⁻¹⁴ of its start) the rate of its first R
rounds is the same bits at every larger R, so the claim is judged on the horizons before that
(``claim_judge._informative_horizons``).  FedCanon's curves get there by R = 200: 3 informative horizons
of the 9, fewer than the rule needs, so the verdict is ``inconclusive (no power)`` and says why — within
one run a linear curve is not told from another that reaches its floor as fast, and a stretched
exponential too slow to reach it shows a linear phase at a few horizons at most (not measured).  A
linear phase spans about 6× in R (from about 5/rate to 32/rate rounds), whatever the step: no design
of this claim has the 4 informative horizons 2× apart that power needs at this spacing, and a finer one
has too small a span.  The theorem's falsifiable content is how the rate scales with μη_g across runs
(``fedcanon_pl_rate``).  The class: FedCanon's quadratics (L = 1, μ = 0.1, ζ = 1, λ = 0.01; strongly
convex, hence proximal PL), exact gradients, K = 3, η_l = 0.3/L (a rate of about 0.19).
"""

from __future__ import annotations

from fcocheck.rates.catalog import FEDCANON_2
from fcocheck.verify.claim import LOWER, Claim
from fcocheck.verify.classes import FEDCANON_QUADRATICS

#: horizons R = 50 · 2^k
HORIZONS = tuple(50 * 2**k for k in range(9))

CLAIM = Claim(
    "fedcanon-pl-linear",
    method="fedcanon",
    sense=LOWER,
    bound="1",
    label="1 (a rate that does not vanish with R)",
    along=("rounds", HORIZONS),
    problem=("quadratics", {**FEDCANON_QUADRATICS, "zeta": 1.0, "lam": 0.01, "mu": 0.1}),
    hp={"eta_l": "3/(10*L)", "local_steps": 3},
    measure="gap",
    statistic="rate",
    controls={"Φ of the running average (1/t): its rate vanishes with R": {"measure": "gap_avg"}},
    worst=False,
    theorem=FEDCANON_2.name,
    source="FedCanon Thm 2, eq. (13): linear convergence to a neighbourhood",
    full={"seeds": 5, "along": ("rounds", tuple(50 * 2**k for k in range(11)))},
)
