"""FedMiD-OSP (FCO slides Alg. 4): ψ-free client mirror steps, FedMiD's proximal server step.

Algorithm:
    w^m_{r,k+1} = ∇h*(∇h(w^m_{r,k}) − η_c g^m_{r,k}) (no ψ on clients; plain SGD for Euclidean h);
    server as FedMiD: w_{r+1} = ∇(h + η_s η_c K ψ)*(∇h(w_r) + η_s Δ_r).

Guarantee:
    None stated in FCO (an ablation); with M = K = 1 and Euclidean h it is sequential PGM.

References:
    FCO §5 (FedMiD-OSP ablation); slides Alg. 4.

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
    "fedmid-osp", "FedMiD-OSP (slides Alg. 4): ψ only in the server step", "FCO slides Alg. 4",
    params=(eta_c(), eta_s(), local_steps()),
    client=Mirror(prox=False), server=(Scale("eta_s"),), apply=MirrorAdd(FEDMID_SERVER),
    reduces_to=(Reduction("fedavg", psi="zero", where="ψ = 0, Euclidean h: FedAvg (FCO §3)"),
                Reduction("pgm", when={"local_steps": 1, "eta_s": 1.0}, hp_map={"eta": "eta_c"},
                          run={"participation": None}, where="K = 1, η_s = 1: PGM (FCO eq. 2.1)")),
    claims={"A": ("fails", "FedCanon §I (client drift); FCO Thm 4.3 ζ-term")},
    doc=__doc__,
)
