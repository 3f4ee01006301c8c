"""The instance classes the papers' claims and studies draw from, as generator parameters.

Each is a class of instances of one generator (``solvers.generators``): a claim draws instance s of it
with ``generate(name, seed=s, **params)``; what varies between instances is the seed's draw.
"""

from __future__ import annotations

#: quadratics with heterogeneous Hessians (spread 0.5) on the ℓ1-ball of radius 3, ζ exact on the domain
#: (Thm 4.3's drift studies; ζ is each study's own)
DRIFT = {"clients": 8, "d": 20, "hessian_spread": 0.5, "ball": 3.0}
#: their certificate: 1e-13 relative (above the rounding floor, 3e-14), since Thm 4.3's floors go down
#: to 1e-8 and must sit far above it
DRIFT_TOL = 1e-13
#: FCO Assumption 2's quadratics: a common diagonal Hessian (spectrum 0.1…1, L = 1), h in the Q-norm
#: (h(w) = ½wᵀQw/‖Q‖), 8 clients, d = 20 (λ and ζ are each study's own)
ASSUMPTION_2 = {"clients": 8, "d": 20, "diagonal": True, "mirror": "diagonal"}
#: FedCanon's quadratics: random Hessians (L = 1), Euclidean h, 8 clients, d = 20 (ζ, λ and μ are each
#: claim's own)
FEDCANON_QUADRATICS = {"clients": 8, "d": 20, "diagonal": False, "mirror": "euclidean"}
