"""FCO Thm 4.2 at its tuned step, eq. (4.3): FedDualAvg's Φ(ŵ) − Φ* ≲ the tuned rate as R grows.

The class: ℓ2-ball (radius 2) constrained logistic regression, 8 clients of 32 samples in d = 20 —
bounded gradients on the domain — with exact gradients (σ stated as 1e-300, so the tuned step is the
deterministic one); G, L and B = D_h(w*, w₀) measured on each instance, hence each instance's own
tuned step η*(R) and its own bound, against which it is judged.
"""

from __future__ import annotations

from fcocheck.rates.catalog import THM_4_2
from fcocheck.verify.paper_claims import tuned

CLAIM = tuned.claim(
    "fco-4.2-rounds", THM_4_2, "rate (4.3)", 10,
    problem=("constrained-logistic", {"ball": "l2", "radius": 2.0, "clients": 8, "samples": 32, "d": 20}),
    constants={"sigma": 1e-300},
    source="FCO Thm 4.2, eq. (4.3)",
    full={"seeds": 5, "along": ("rounds", (*tuned.ROUNDS, 1280, 2560))},
)
