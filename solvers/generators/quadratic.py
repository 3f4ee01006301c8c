"""Per-client quadratics with exactly known L, μ and ζ (FCO Assumption 2)."""

from __future__ import annotations

import numpy as np

from solvers.errors import InvalidProblemError
from solvers.mirror_maps import DiagonalQuadratic, Euclidean
from solvers.problem import Problem, uniform_weights
from solvers.regularizers import L1


def quadratics(
    seed: int = 0,
    clients: int = 8,
    d: int = 20,
    L: float = 1.0,
    mu: float = 0.1,
    zeta: float = 1.0,
    lam: float = 0.01,
    diagonal: bool = False,
    mirror: str = "euclidean",
) -> Problem:
    """F_m(w) = ½wᵀQw + c_mᵀw with a common Q (spectrum from μ to L) and Σ_m (c_m − c̄) = 0.

    With a common Hessian, ∇F_m(w) − ∇F(w) = c_m − c̄ for every w, so the heterogeneity
    ζ = max_m ‖c_m − c̄‖_* is exact; the deviations are scaled so that the maximum equals
    ``zeta`` in the norm of Assumption 2(c), ‖v‖_* = √(‖Q‖₂ vᵀQ⁻¹v).  ``diagonal`` makes Q
    diagonal, so that ``mirror="diagonal"`` (A = Q/‖Q‖₂) is the exact Assumption 2(c) map.
    """
    if not (0 < mu <= L):
        raise InvalidProblemError(f"quadratics: mu = {mu!r}, L = {L!r}; the rule is 0 < mu <= L")
    if zeta < 0:
        raise InvalidProblemError(f"quadratics: zeta = {zeta!r}; the rule is zeta >= 0")
    rng = np.random.default_rng(seed)
    eig = np.geomspace(mu, L, d) if d > 1 else np.array([L])
    V = np.eye(d) if diagonal else np.linalg.qr(rng.standard_normal((d, d)))[0]
    Q = (V * eig) @ V.T
    Q = 0.5 * (Q + Q.T)
    dev = rng.standard_normal((clients, d))
    dev -= dev.mean(axis=0) if clients > 1 else dev
    qnorm = np.sqrt(L * np.einsum("md,de,me->m", dev, np.linalg.inv(Q), dev))
    if zeta > 0 and qnorm.max() > 0:
        dev *= zeta / qnorm.max()
    else:
        dev[:] = 0.0
    c = rng.standard_normal(d) + dev
    h = DiagonalQuadratic(tuple(np.diag(Q) / L)) if mirror == "diagonal" else Euclidean()
    return Problem(
        name="quadratics", loss="quadratic", X=(), y=(), Q=np.broadcast_to(Q, (clients, d, d)).copy(),
        c=c, regularizer=L1(lam), mirror=h, weights=uniform_weights(clients),
        meta={"generator": "quadratics", "seed": seed, "clients": clients, "d": d, "L": L,
              "mu": mu, "zeta": zeta, "lam": lam, "diagonal": diagonal, "mirror": mirror},
    )
