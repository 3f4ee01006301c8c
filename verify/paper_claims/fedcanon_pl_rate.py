"""FedCanon Thm 2's linear factor: the rate −log q per round is at least of order μη_g (one-sided).

Under the proximal PL condition Thm 2 contracts Φ(x^T) − Φ* to its neighbourhood by (1 − cμη_g)^T, so
−log q ≳ μη_g: a lower bound on the rate, i.e. an upper bound on the time constant 1/(−log q) ≲ 1/(μη_g)
as μη_g → 0 — any faster contraction is legal (the gap is quadratic in the distance, so the measured c is
about 2).  The class: FedCanon's quadratics (L = 1, ζ = 1, λ = 0.01; strongly convex, hence proximal
PL), exact gradients, K = 3, η_l = η_g/K; the measure is −log q on the slow half of the gap's linear phase
(``rates.fit.phase_rate``), μ each instance's own.  Two sweeps of μη_g from 0.01 to 0.08: η_g at μ = 0.1,
and μ at η_g = 0.4.  Thm 2 speaks of no worst case here (a supremum bounds from above only).
"""

from __future__ import annotations

from fcocheck.rates.catalog import FEDCANON_2
from fcocheck.verify.claim import LOWER, Claim
from fcocheck.verify.claim_group import ClaimGroup
from fcocheck.verify.classes import FEDCANON_QUADRATICS

#: the class (μ is each claim's), and what the two sweeps share
SHARED = {"method": "fedcanon", "sense": LOWER, "bound": "mu*eta_g", "label": "μη_g", "direction": "shrinks",
          "measure": "gap", "statistic": "rate", "rounds": 400, "worst": False, "theorem": FEDCANON_2.name,
          "source": "FedCanon Thm 2, eq. (13): the factor (1 − cμη_g)^T",
          "full": {"seeds": 5, "rounds": 1200}}
CLASS = {**FEDCANON_QUADRATICS, "zeta": 1.0, "lam": 0.01}
K = 3

GROUP = ClaimGroup(
    "fedcanon-pl-rate",
    FEDCANON_2.name,
    "−log q ≳ μη_g along η_g and along μ (one-sided: faster is legal)",
    (
        Claim("fedcanon-pl-rate-eta-g", along=("eta_g", (0.1, 0.2, 0.4, 0.8)),
              problem=("quadratics", {**CLASS, "mu": 0.1}), hp={"eta_l": f"eta_g/{K}", "local_steps": K},
              **SHARED),
        Claim("fedcanon-pl-rate-mu", along=("problem.mu", (0.025, 0.05, 0.1, 0.2)),
              problem=("quadratics", CLASS), hp={"eta_g": 0.4, "eta_l": 0.4 / K, "local_steps": K}, **SHARED),
    ),
)
