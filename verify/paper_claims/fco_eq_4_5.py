"""FCO eq. (4.5) as an identity: FedDualAvg's dual shadow moves by exactly −η_c times the average gradient.

With η_s = 1 the clients' dual states are averaged linearly, so their average z̄ obeys
z̄_{r,k+1} = z̄_{r,k} − η_c ḡ_{r,k} at every local step, whatever ψ and the noise: the residual
(``verify.residuals.shadow_residual``, relative to the run's largest |z̄|) must sit at rounding, at most
``IDENTITY_TOL``, in every round of every run.  The class: FCO Assumption 2's quadratics with ζ = 1,
λ = 0.1, Gaussian gradient noise σ = 0.5, η_c = 1/(4L) of each instance, along K = 2 … 8.  The negative
control: printed FedMiD, whose shadow does not follow it once ψ acts (prox and averaging do not commute,
FCO §4 after Lemma 4.4).  It runs on a user's convex instance as well (``validate --problem``): the same
claim and control on that one instance.  The Hypothesis invariant ``eq-4.5`` searches the same identity
over random instances and steps.
"""

from __future__ import annotations

from fcocheck.rates.catalog import EQ_4_5
from fcocheck.verify.claim import IDENTITY, Claim
from fcocheck.verify.classes import ASSUMPTION_2
from fcocheck.verify.evidence import IDENTITY_TOL

CLAIM = Claim(
    "fco-eq-4.5",
    method="feddualavg",
    bound=IDENTITY_TOL,
    label=f"rounding ({IDENTITY_TOL:g})",
    sense=IDENTITY,
    along=("local_steps", (2, 3, 5, 8)),
    problem=("quadratics", {**ASSUMPTION_2, "zeta": 1.0, "lam": 0.1}),
    hp={"eta_c": "1/(4*L)"},
    oracle="gaussian:0.5",
    rounds=10,
    measure="shadow_residual",
    statistic="max",
    controls={"printed FedMiD (prox and averaging do not commute)": {"method": "fedmid"}},
    worst=False,
    theorem=EQ_4_5.name,
    source="FCO eq. (4.5)",
    full={"seeds": 5, "rounds": 40},
)
