"""FedAvg with server momentum (FedAvgM; Hsu, Qi & Brown 2019, Alg. 1).

Algorithm:
    Clients as FCO Alg. 1; Δ_r = avg_{m∈S_r}(w^m_{r,K} − w_r); v_{r+1} = β v_r + Δ_r (v_0 = 0);
    w_{r+1} = w_r + η_s v_{r+1}.

Guarantee:
    None claimed.  β = 0 is FedAvg; with K = 1, every client and exact gradients it is Polyak's heavy
    ball with step η_s η_c and momentum β (the reduction that runs β where it acts).
"""

from fcocheck.solvers.card import (
    Add,
    Card,
    Gradient,
    Param,
    Reduction,
    Scale,
    Trace,
    eta_c,
    eta_s,
    local_steps,
    unit_interval,
)

CARD = Card(
    "fedavgm", "FedAvg with server momentum (Hsu et al. 2019): v ← βv + Δ, w ← w + η_s v; ignores ψ",
    "Hsu, Qi & Brown 2019, Alg. 1",
    params=(eta_c(), eta_s(), local_steps(),
            Param("beta", 0.0, "server momentum β, 0 <= β < 1", unit_interval, neutral=0.0,
                  grid=(0.5, 0.9, 0.0))),
    client=Gradient(), server=(Trace("beta"), Scale("eta_s")), apply=Add(),
    reduces_to=(Reduction("fedavg", when={"beta": 0.0}, where="β = 0: FedAvg"),
                Reduction("heavy-ball", when={"local_steps": 1}, hp_map={"eta": "eta_s*eta_c"},
                          run={"participation": None, "oracle": "exact"},
                          where="β acts: K = 1, all clients, exact gradients: heavy ball, step η_sη_c")),
    claims={"A": ("fails", "client drift, as FedAvg (FedCanon §I)")},
    doc=__doc__,
)
