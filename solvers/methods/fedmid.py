"""FedMiD (FCO Alg. 2): local mirror/proximal steps, a proximal server step.

Algorithm:
    w^m_{r,0} = w_r; w^m_{r,k+1} = ∇(h + η_c ψ)*(∇h(w^m_{r,k}) − η_c g^m_{r,k});
    Δ_r = avg_{m∈S_r}(w^m_{r,K} − w^m_{r,0}); w_{r+1} = ∇(h + η_s η_c K ψ)*(∇h(w_r) + η_s Δ_r).
    Δ_r is a primal difference added to the dual point ∇h(w_r), as the paper writes it; for Euclidean
    h (Federated PGD) the server step is prox_{η_s η_c K ψ}(w_r + η_s Δ_r).

Guarantee:
    Thm 4.1: with small η_c and η_s = Θ(min{1/(η_c K L), B^{1/2}M^{1/2}/(η_c K^{1/2}R^{1/2}σ)}),
    E Φ(ŵ) − Φ* ≲ LB/R + σB^{1/2}/(MKR)^{1/2}, ŵ the average of the server iterates w_1..w_R.
    Averaging primal iterates destroys the sparsity the prox created on clients ("curse of primal
    averaging", FCO §3.2, Fig. 2); as printed, ψ is applied on clients and again at the server.

References:
    FCO Alg. 2, §3.1–3.2, Thm 4.1 (Thm F.1); slides Alg. 2 (Federated PGD).

"""

from fcocheck.solvers.card import (
    FEDMID_SERVER,
    Card,
    Mirror,
    MirrorAdd,
    Reduction,
    Scale,
    eta_c,
    eta_s,
    local_steps,
)

CARD = Card(
    "fedmid", "FedMiD (FCO Alg. 2): local mirror/proximal steps, proximal server step", "FCO Alg. 2",
    params=(eta_c(), eta_s(), local_steps()),
    client=Mirror(prox=True), server=(Scale("eta_s"),), apply=MirrorAdd(FEDMID_SERVER),
    reduces_to=(Reduction("fedavg", psi="zero", where="ψ = 0, Euclidean h: FedAvg (FCO §3)"),
                Reduction("pgm", when={"local_steps": 1, "eta_s": 1.0}, hp_map={"eta": "eta_c"}, psi="l1",
                          layout="identical", psi_scale=2.0, run={"participation": None, "oracle": "exact"},
                          where="K = 1, η_s = 1, identical clients: PGM on F + 2ψ — ψ applied twice, by the "
                                "client prox and again by the server's (S_a∘S_b = S_{a+b} for ℓ1)")),
    claims={"A": ("fails", "FedCanon §I (client drift); FCO Thm 4.3 ζ-term")},
    doc=__doc__,
)
