"""FedDualAvg (FCO Alg. 3): local dual averaging, dual aggregation.

Algorithm:
    z^m_{r,0} = z_r; for k < K: η̃_{r,k} = η_s η_c r K + η_c k, w^m_{r,k} = ∇(h + η̃_{r,k} ψ)*(z^m_{r,k}),
    z^m_{r,k+1} = z^m_{r,k} − η_c g^m_{r,k};  Δ_r = avg_{m∈S_r}(z^m_{r,K} − z_r); z_{r+1} = z_r + η_s Δ_r;
    w_{r+1} = ∇(h + η_s η_c (r+1) K ψ)*(z_{r+1}).  Logged: the dual shadow z̄_{r,k} = avg_m z^m_{r,k}, its
    primal images ∇(h + η̃_{r,k}ψ)*(z̄_{r,k}) (k = 1..K) whose average is ŵ (eq. 4.2), the discrepancy.

Guarantee:
    Thm 4.1 (small η_c): LB/R + σB^{1/2}/(MKR)^{1/2}.  Thm 4.2 (η_s = 1, η_c ≤ 1/(4L), ‖∇f‖_* ≤ G):
    E Φ(ŵ) − Φ* ≲ B/(η_c K R) + η_c σ²/M + η_c² L K² G².  Thm 4.3 (quadratic F, heterogeneity ζ):
    B/(η_c K R) + η_c σ²/M + η_c² L K σ² + η_c² L K² ζ².  With η_s = 1 the shadow obeys
    z̄_{r,k+1} = z̄_{r,k} − η_c avg_m g^m_{r,k} exactly (eq. 4.5).

References:
    FCO Alg. 3, §3.3, eq. 4.2, eq. 4.5, Thms 4.1–4.3, Lemmas 4.4–4.5.

"""

from fcocheck.solvers.card import Card, DualAdd, DualStep, Reduction, Scale, eta_c, eta_s, local_steps

CARD = Card(
    "feddualavg", "FedDualAvg (FCO Alg. 3): local dual averaging, dual aggregation", "FCO Alg. 3",
    params=(eta_c(), eta_s((1.0, 0.5, 2.0)), local_steps()),
    client=DualStep(prox=True), server=(Scale("eta_s"),), apply=DualAdd(),
    reduces_to=(Reduction("fedavg", psi="zero", where="ψ = 0, Euclidean h: FedAvg (FCO §3)"),
                Reduction("dual-averaging", when={"local_steps": 1}, hp_map={"eta": "eta_s*eta_c"},
                          run={"participation": None},
                          where="K = 1, every client: dual averaging (eq. 2.4) with step η_sη_c (FCO §3.1)")),
    claims={"A": ("fails", "FedCanon §I (client drift); FCO Thm 4.3 ζ-term")},
    doc=__doc__,
)
