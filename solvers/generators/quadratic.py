"""Per-client quadratics with exactly known L, μ and ζ (FCO Assumption 2)."""

from __future__ import annotations

import numpy as np

from fcocheck.solvers.errors import InvalidProblemError
from fcocheck.solvers.mirror_maps import DiagonalQuadratic, Euclidean
from fcocheck.solvers.problem import Problem, uniform_weights
from fcocheck.solvers.regularizers import L1, L1Ball


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
    hessian_spread: float = 0.0,
    ball: float = 0.0,
) -> Problem:
    """F_m(w) = ½wᵀQ_m w + c_mᵀw around a mean Q (spectrum from μ to L) with Σ_m (c_m − c̄) = 0.

    With a common Hessian (``hessian_spread`` = 0), ∇F_m(w) − ∇F(w) = c_m − c̄ for every w, so
    the heterogeneity ζ = max_m ‖c_m − c̄‖_* is exact; the deviations are scaled so that the
    maximum equals ``zeta`` in the norm of Assumption 2(c), ‖v‖_* = √(‖Q‖₂ vᵀQ⁻¹v).
    ``diagonal`` makes Q diagonal, so that ``mirror="diagonal"`` (A = Q/‖Q‖₂) is the exact
    Assumption 2(c) map.

    ``hessian_spread`` s ∈ [0, 1) gives the clients their own Hessians Q_m = V diag(e ⊙ (1 + s·u_m)) Vᵀ
    (Σ_m u_m = 0, |u_m| ≤ 1, so F keeps the mean Q and its L, μ), and needs a bounded domain:
    ``ball`` r > 0 sets ψ = χ{‖w‖₁ ≤ r} instead of λ‖·‖₁.  Then ∇F_m − ∇F = (Q_m − Q)w + c_m − c̄
    depends on w, and ζ = max_m max_{w ∈ dom ψ} ‖(Q_m − Q)w + c_m − c̄‖_* (a convex function of w,
    maximal at a vertex ±r·e_j of the ℓ1-ball) is computed exactly and scaled to ``zeta`` by
    scaling the deviations (Q_m − Q, c_m − c̄) together.  This is the instance on which client drift,
    hence Thm 4.3's η_c²LK²ζ² term, is visible.
    """
    if not (0 < mu <= L):
        raise InvalidProblemError(f"quadratics: mu = {mu!r}, L = {L!r}; the rule is 0 < mu <= L")
    if zeta < 0:
        raise InvalidProblemError(f"quadratics: zeta = {zeta!r}; the rule is zeta >= 0")
    if not 0 <= hessian_spread < 1:
        raise InvalidProblemError(f"quadratics: hessian_spread = {hessian_spread!r}; the rule is 0 <= s < 1")
    if ball < 0 or (hessian_spread > 0 and ball == 0):
        raise InvalidProblemError(
            f"quadratics: ball = {ball!r} with hessian_spread = {hessian_spread!r}; the rule is ball >= 0, "
            "and ball > 0 (a bounded domain) when hessian_spread > 0")
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
    Qm = np.broadcast_to(Q, (clients, d, d)).copy()
    if hessian_spread > 0:
        Qm, c = _spread_hessians(Q, V, eig, c, hessian_spread, ball, zeta, L, rng)
    psi = L1Ball(ball) if ball > 0 else L1(lam)
    return Problem(
        name="quadratics", loss="quadratic", X=(), y=(), Q=Qm,
        c=c, regularizer=psi, mirror=h, weights=uniform_weights(clients),
        meta={"generator": "quadratics", "seed": seed, "clients": clients, "d": d, "L": L,
              "mu": mu, "zeta": zeta, "lam": lam, "diagonal": diagonal, "mirror": mirror,
              "hessian_spread": hessian_spread, "ball": ball},
    )


def heterogeneity_on_l1_ball(dQ: np.ndarray, dc: np.ndarray, Q: np.ndarray, L: float, r: float) -> float:
    """ζ = max_m max_{‖w‖₁ ≤ r} ‖dQ_m w + dc_m‖_* with ‖v‖_* = √(L vᵀQ⁻¹v): at the 2d vertices ±r·e_j."""
    Qinv = np.linalg.inv(Q)
    cols = r * np.swapaxes(dQ, 1, 2)  # (M, d, d): row j of client m is r·dQ_m e_j
    V = np.concatenate([dc[:, None, :] + cols, dc[:, None, :] - cols], axis=1)  # (M, 2d, d)
    return float(np.sqrt(L * np.einsum("mkd,de,mke->mk", V, Qinv, V)).max())


def _spread_hessians(Q, V, eig, c, s, r, zeta, L, rng):  # noqa: ANN001, ANN202 - private helper
    M, d = c.shape
    u = rng.uniform(-1.0, 1.0, (M, d))
    u -= u.mean(axis=0)
    u /= max(1.0, float(np.abs(u).max()))
    dQ = np.einsum("ij,mj,kj->mik", V, s * u * eig, V)  # V diag(s·u_m·e) Vᵀ: Q_m = Q + dQ_m ⪰ (1 − s)Q
    cbar = c.mean(axis=0)
    dc = c - cbar
    z = heterogeneity_on_l1_ball(dQ, dc, Q, L, r)
    scale = zeta / z if zeta > 0 and z > 0 else 0.0
    return Q[None] + scale * dQ, cbar[None] + scale * dc
