"""FedCanon's deterministic floor as measured: ∝ η_l², ∝ (K − 1)², 0 at K = 1, flat in η_g.

With exact gradients and ψ = λ‖·‖₁ with ∇F(w*) ≠ 0, the clients step on F alone, so each local step after
the first moves them by η_l times a multiple of λ away from what the server's single prox assumes.  Thm 1's
constants were lost in extraction; this is the structure its regulariser term must have, measured for a
recovered constant to be checked against (with ``fedcanon-floor-lambda``'s ∝ λ²).  The class: FedCanon's
quadratics with μ = 0.1, ζ = 1, λ = 0.05, exact gradients; the measure is ‖G(x_R)‖² at R = 600.  Three
laws, each on its own sweep: η_l ∈ 0.005 … 0.04 (K = 5, η_g = 0.2), K ∈ {2, 3, 5, 9} (η_l = 0.02; and
K = 1, where it must vanish) and η_g ∈ 0.2 … 0.8 (η_l = 0.02, K = 5; at R = 600 a smaller η_g has not
reached its floor).  The negative control: ZA1, whose clients carry the prox with weight (t+1)η, has no
floor: it must fail the η_l² law.
"""

from __future__ import annotations

import numpy as np

from fcocheck.rates.catalog import FEDCANON_1
from fcocheck.verify.claim import LAW, Claim
from fcocheck.verify.claim_group import ClaimGroup
from fcocheck.verify.classes import FEDCANON_QUADRATICS

#: the class, and what the three laws share
SHARED = {"method": "fedcanon", "sense": LAW, "problem": ("quadratics", {**FEDCANON_QUADRATICS, "mu": 0.1,
                                                                        "zeta": 1.0, "lam": 0.05}),
          "rounds": 600, "measure": "prox_grad_norm_sq", "worst": False, "theorem": FEDCANON_1.name,
          "source": "FedCanon Thm 1 (structure of its regulariser term)",
          "full": {"seeds": 5, "rounds": 1500}}
ETAS = (0.005, 0.01, 0.02, 0.04)

GROUP = ClaimGroup(
    "fedcanon-floor-structure",
    FEDCANON_1.name,
    "floor ∝ η_l²(K − 1)², 0 at K = 1, flat in η_g (control: ZA1)",
    (
        Claim("fedcanon-floor-structure-eta-l", bound="eta_l**2", label="η_l²", along=("eta_l", ETAS),
              hp={"local_steps": 5, "eta_g": 0.2},
              controls={"ZA1 (the prox on the clients) has no η_l² floor":
                        {"method": "za1", "along": ("eta", ETAS), "bound": "eta**2",
                         "hp": {"local_steps": 5, "eta_g": "0.2/(K*eta)"}}}, **SHARED),
        Claim("fedcanon-floor-structure-K", bound="(K - 1)**2", label="(K − 1)²",
              along=("local_steps", (2, 3, 5, 9)), hp={"eta_l": 0.02, "eta_g": 0.2}, vanishes=True, **SHARED),
        Claim("fedcanon-floor-structure-eta-g", bound="1", label="flat",
              along=("eta_g", tuple(float(g) for g in np.geomspace(0.2, 0.8, 4))),
              hp={"eta_l": 0.02, "local_steps": 5}, **SHARED),
    ),
)
