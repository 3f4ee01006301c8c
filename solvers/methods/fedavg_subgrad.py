"""FedAvg(∂) (FCO Fig. 1): local steps along g + ∂ψ(w), plain averaging.

Algorithm:
    As FCO Alg. 1 with the client step w^m_{r,k+1} = w^m_{r,k} − η_c (g^m_{r,k} + s^m_{r,k}),
    s^m_{r,k} ∈ ∂ψ(w^m_{r,k}) (one subgradient, ``psi.subgradient``).

Guarantee:
    Subgradient-method rate O(1/√(KR)) at best for convex Φ with bounded subgradients; no iterate is
    ever exactly sparse (FCO Fig. 1, "FEDAVG (∂)").

References:
    FCO §1 and Fig. 1 (baseline "FedAvg (∂)").

"""

from fcocheck.solvers.card import Add, Card, Reduction, Scale, Subgradient, eta_c, eta_s, local_steps

CARD = Card(
    "fedavg-subgrad", "FedAvg(∂) (FCO Fig. 1): local subgradient steps on F + ψ", "FCO Fig. 1",
    params=(eta_c(), eta_s(), local_steps()),
    client=Subgradient(), server=(Scale("eta_s"),), apply=Add(),
    reduces_to=(Reduction("fedavg", psi="zero", where="ψ = 0 (∂ψ = 0): FedAvg"),),
    doc=__doc__,
)
