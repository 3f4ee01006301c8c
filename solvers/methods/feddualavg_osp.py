"""FedDualAvg-OSP (FCO §5): ψ-free clients (w^m_{r,k} = ∇h*(z^m_{r,k})), FedDualAvg's server.

Algorithm:
    As FCO Alg. 3 with line 9 replaced by w^m_{r,k} = ∇h*(z^m_{r,k}); the server keeps
    z_{r+1} = z_r + η_s Δ_r and w_{r+1} = ∇(h + η_s η_c (r+1) K ψ)*(z_{r+1}).

Guarantee:
    None: the paper calls it unprincipled — its clients optimise F without ψ, so the server's
    sparse/low-rank output is "far less accurate" (FCO Figs. 4–5).

References:
    FCO §5 (ablation "FedDualAvg-OSP"), Figs. 3–5.

"""

from fcocheck.solvers.card import Card, DualAdd, DualStep, Reduction, Scale, eta_c, eta_s, local_steps

CARD = Card(
    "feddualavg-osp", "FedDualAvg-OSP (FCO §5): ψ only in the server's primal output", "FCO §5",
    params=(eta_c(), eta_s((1.0, 0.5, 2.0)), local_steps()),
    client=DualStep(prox=False), server=(Scale("eta_s"),), apply=DualAdd(),
    reduces_to=(Reduction("fedavg", psi="zero", where="ψ = 0, Euclidean h: FedAvg (FCO §3)"),),
    claims={"A": ("fails", "FedCanon §I (client drift); FCO Thm 4.3 ζ-term")},
    doc=__doc__,
)
