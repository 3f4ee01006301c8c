"""SCAFFOLD, option II (Karimireddy et al. 2020, Alg. 1): control variates correct the client drift.

Algorithm:
    y_i = x; K steps y_i ← y_i − η_l (g_i(y_i) − c_i + c); c_i⁺ = c_i − c + (x − y_i)/(K η_l);
    x ← x + η_g avg_{i∈S}(y_i − x); c ← c + Σ_{i∈S} p_i (c_i⁺ − c_i) (p_i = 1/N: the paper's
    (1/N) Σ_{i∈S}).  ψ is not used (a smooth method, as published); the identity c = Σ_i p_i c_i is
    logged as ``control_gap``.

Guarantee:
    Karimireddy et al. 2020 Thm III (convex / non-convex smooth F): rates independent of the
    heterogeneity ζ.  With ψ = 0 and every client, FedCanon with c_i = c − c_i(SCAFFOLD) and
    η_g(FedCanon) = η_g η_l K produces the same iterates; at K = 1 it is gradient descent with step η_g η_l.

References:
    Karimireddy et al., SCAFFOLD, ICML 2020, Alg. 1 (option II); FedCanon §I.

"""

from fcocheck.solvers.algorithms.base import positive_int, positive_step
from fcocheck.solvers.card import Add, Card, Controls, Corrected, Param, Reduction, Scale, local_steps

CARD = Card(
    "scaffold", "SCAFFOLD Option II (Karimireddy et al. 2020): control variates; ignores ψ",
    "Karimireddy et al. 2020, Alg. 1 (option II)",
    params=(Param("eta_l", help="local step size η_l > 0", rule=positive_step, grid=(0.25, 0.1, 0.5),
                  per="L"),
            Param("eta_g", 1.0, "global step size η_g > 0", positive_step, neutral=1.0, grid=(1.0, 0.7)),
            local_steps(),
            # b is drawn at 1 only: a user's SCAFFOLD checked against this card need not take a batch
            Param("b", 1, "oracle queries averaged per local step (batch b with minibatch:1)", positive_int,
                  grid=(1,))),
    client=Corrected("eta_l", "b"), server=(Scale("eta_g"),), apply=Add(), memory=Controls("eta_l"),
    reduces_to=(Reduction("fedcanon", psi="zero", hp_map={"eta_g": "eta_g*eta_l*local_steps"},
                          run={"participation": None},
                          where="ψ = 0, every client: FedCanon with η_g η_l K (FedCanon §I; c_i ↔ c − c_i)"),
                Reduction("gd", when={"local_steps": 1}, hp_map={"h": "eta_g*eta_l"}, psi="zero",
                          run={"participation": None, "oracle": "exact"},
                          where="K = 1, every client, exact gradients: gradient descent, step η_gη_l")),
    claims={"A": ("holds", "FedCanon §I (control variates); docs/baselines.md")},
    doc=__doc__,
)
