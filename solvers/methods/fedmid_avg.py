"""FedMiD with a simply averaging server (FCO §3.1's reading): ψ once per client step only.

Algorithm:
    Clients as FedMiD (Alg. 2): w^m_{r,k+1} = ∇(h + η_c ψ)*(∇h(w^m_{r,k}) − η_c g^m_{r,k});
    server w_{r+1} = ∇h*(∇h(w_r) + η_s Δ_r) (Euclidean h, η_s = 1: the average of the clients' last
    iterates).  Alg. 2 line 10 applies ψ a second time, so the printed method converges to
    argmin F + 2ψ when the client proxes add up to the server's; this reading applies it once.

Guarantee:
    With K = 1, M = 1 and η_s = 1 it is sequential proximal gradient on F + ψ, so its fixed point is
    the certified optimum; FCO states no separate theorem for it.

References:
    FCO §3.1, Alg. 2 (lines 1–9; line 10 replaced by plain aggregation).

"""

from fcocheck.solvers.card import Card, Mirror, MirrorAdd, Reduction, Scale, eta_c, eta_s, local_steps

CARD = Card(
    "fedmid-avg", "FedMiD with a simply averaging server (FCO §3.1's reading): ψ once per client step",
    "FCO §3.1, Alg. 2 lines 1–9",
    params=(eta_c(), eta_s(), local_steps()),
    client=Mirror(prox=True), server=(Scale("eta_s"),), apply=MirrorAdd(None),
    reduces_to=(Reduction("fedavg", psi="zero", where="ψ = 0, Euclidean h: FedAvg (FCO §3)"),
                Reduction("pgm", when={"local_steps": 1, "eta_s": 1.0}, hp_map={"eta": "eta_c"},
                          layout="identical", run={"participation": None, "oracle": "exact"},
                          where="K = 1, η_s = 1, identical clients: PGM on F + ψ (ψ once)")),
    claims={"A": ("fails", "FedCanon §I (client drift); FCO Thm 4.3 ζ-term")},
    doc=__doc__,
)
