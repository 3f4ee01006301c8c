"""FCO Thm 4.3's drift term η_c²LK²ζ² where K can falsify it: the floor stays bounded as K → ∞ at fixed η_cK.

≲ bounds the ratio floor/(η_c²LK²ζ²) by an absolute constant; at fixed η_cK the term is constant in K,
so the claim is that FedDualAvg's floor lim_R Φ(ŵ_R) − Φ* (the bound at R → ∞, where only this term
is left; ``statistic="limit"``) does not keep growing with K.  The class: quadratics with heterogeneous
Hessians (spread 0.5) on the ℓ1-ball of radius 3, ζ = 4 exact on the domain, exact gradients; L the
largest client smoothness max_m L_m of each instance (measured), η_c = 1/(2LK).  The negative control:
the same method at a fixed η_c (the K = 16 value), whose floor grows with K, must be rejected.
"""

from __future__ import annotations

from fcocheck.rates.catalog import THM_4_3
from fcocheck.verify.claim import Claim
from fcocheck.verify.classes import DRIFT, DRIFT_TOL


def drift_term():  # noqa: ANN201 - a sympy expression
    """Thm 4.3's η_c²LK²ζ², with L the instance's largest client smoothness."""
    import sympy as sp

    from fcocheck.rates.symbols import BY_NAME

    return THM_4_3.term("heterogeneity").subs(BY_NAME["L"], sp.Symbol("L_clients"))


CLAIM = Claim(
    "fco-4.3-floor-K",
    method="feddualavg",
    bound=drift_term,
    label="η_c²LK²ζ² (constant in K at fixed η_cK)",
    along=("local_steps", (4, 8, 16, 32, 64)),
    problem=("quadratics", {**DRIFT, "zeta": 4.0}),
    reference_tol=DRIFT_TOL,
    hp={"eta_c": "1/(2*L_clients*K)"},
    constants={"zeta": 4.0},
    rounds=160,
    statistic="limit",
    controls={"FedDualAvg at a fixed η_c (the K = 16 one), not a fixed η_cK: its floor grows with K":
              {"hp": {"eta_c": "1/(32*L_clients)"}}},
    worst=False,  # its worst case is the tightness study of Thm 4.3 (verify.worstcase)
    theorem=THM_4_3.name,
    source="FCO Thm 4.3",
    full={"seeds": 5, "rounds": 400, "along": ("local_steps", (2, 4, 8, 16, 32, 64, 128))},
)
