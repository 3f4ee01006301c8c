"""FedAvg (FCO Alg. 1): local SGD, averaged; ψ is ignored (it solves min F, not min F + ψ).

Algorithm:
    w^m_{r,0} = w_r; w^m_{r,k+1} = w^m_{r,k} − η_c g^m_{r,k} (k < K);
    Δ_r = avg_{m∈S_r}(w^m_{r,K} − w_r); w_{r+1} = w_r + η_s Δ_r.

Guarantee:
    For ψ = 0 and convex L-smooth F it is the Euclidean, ψ-free case of FedMiD and FedDualAvg, so
    FCO Thm 4.1 applies; with ψ ≠ 0 it has no guarantee for Φ (its iterates are never sparse — the
    point of FCO Fig. 1).

References:
    Yuan, Zaheer, Reddi, Federated Composite Optimization (ICML 2021), Alg. 1, §3.

"""

from fcocheck.solvers.card import Add, Card, Gradient, Reduction, Scale, eta_c, eta_s, local_steps

CARD = Card(
    "fedavg", "FedAvg (FCO Alg. 1): local SGD, averaged; ignores ψ", "FCO Alg. 1",
    params=(eta_c(), eta_s(), local_steps()),
    client=Gradient(), server=(Scale("eta_s"),), apply=Add(),
    reduces_to=(Reduction("gd", when={"local_steps": 1}, hp_map={"h": "eta_s*eta_c"}, psi="zero",
                          run={"participation": None, "oracle": "exact"},
                          where="K = 1, all clients, exact gradients: gradient descent, step η_sη_c"),),
    claims={"A": ("fails", "FedCanon §I (client drift); FCO Thm 4.3 ζ-term")},
    doc=__doc__,
)
