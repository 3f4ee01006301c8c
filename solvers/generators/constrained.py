"""Constrained instances (FCO §5.5) and the non-convex instance for FedCanon."""

from __future__ import annotations

import numpy as np

from fcocheck.solvers.errors import InvalidProblemError
from fcocheck.solvers.generators.classification import sparse_logistic
from fcocheck.solvers.generators.common import heterogeneous_features, sparse_truth
from fcocheck.solvers.mirror_maps import Entropy, Euclidean
from fcocheck.solvers.problem import Problem, uniform_weights
from fcocheck.solvers.regularizers import MCP, SCAD, L1Ball, L2Ball, Simplex


def constrained_logistic(
    seed: int = 0, clients: int = 16, samples: int = 64, d: int = 100, ball: str = "l1",
    radius: float = 2.0, scale: float = 1.0,
) -> Problem:
    """Logistic regression with w in an ℓ1 or ℓ2 ball (ψ = χ_C, free intercept).

    ``scale`` multiplies every feature: the curvature bound L grows as scale² while the gradient
    bound G grows as scale, so L²B/G² (the crossover R* of the remark after FCO Thm 4.2) grows
    as scale² (times the change in B).
    """
    if ball not in ("l1", "l2"):
        raise InvalidProblemError(f"constrained-logistic: ball {ball!r}; the rule is l1 or l2")
    if not (np.isfinite(scale) and scale > 0):
        raise InvalidProblemError(f"constrained-logistic: scale {scale!r}; the rule is a finite scale > 0")
    base = sparse_logistic(seed=seed, clients=clients, samples=samples, d=d, nnz=min(10, d))
    psi = L1Ball(radius) if ball == "l1" else L2Ball(radius)
    return Problem(
        name="constrained-logistic", loss="logistic", X=tuple(scale * x for x in base.X), y=base.y,
        regularizer=psi,
        mirror=Euclidean(), weights=base.weights, intercept=True, truth=base.truth,
        meta={"generator": "constrained-logistic", "seed": seed, "clients": clients,
              "samples": samples, "d": d, "ball": ball, "radius": radius, "scale": scale},
    )


def simplex_least_squares(
    seed: int = 0, clients: int = 8, samples: int = 50, d: int = 30, heterogeneity: float = 1.0,
    mirror: str = "euclidean",
) -> Problem:
    """½(xᵀw − y)² over the probability simplex (mixture-weight estimation).

    ``mirror="entropy"`` pairs it with the negative-entropy map (exponentiated gradient).
    """
    rng = np.random.default_rng(seed)
    w_true = rng.dirichlet(np.full(d, 0.3))
    X = heterogeneous_features(clients, samples, d, heterogeneity, rng)
    y = X @ w_true + 0.1 * rng.standard_normal((clients, samples))
    h = Entropy() if mirror == "entropy" else Euclidean()
    return Problem(
        name="simplex-ls", loss="squares", X=tuple(X), y=tuple(y), regularizer=Simplex(1.0),
        mirror=h, weights=uniform_weights(clients), truth={"w": w_true},
        meta={"generator": "simplex-ls", "seed": seed, "clients": clients, "samples": samples,
              "d": d, "heterogeneity": heterogeneity, "mirror": mirror},
    )


def robust_penalized(
    seed: int = 0, clients: int = 16, samples: int = 64, d: int = 50, nnz: int = 5,
    penalty: str = "mcp", lam: float = 0.05, gamma: float = 3.0, a: float = 3.7,
    heterogeneity: float = 1.0,
) -> Problem:
    """Non-convex: sparse robust regression, the Cauchy loss with an MCP or SCAD penalty.

    y = xᵀw_true + b + ε with Student-t(2) noise (heavy tails, where the robust loss pays
    off); a smooth non-convex loss with a weakly convex penalty, FedCanon's setting.
    """
    if penalty not in ("mcp", "scad"):
        raise InvalidProblemError(f"robust-penalized: penalty {penalty!r}; the rule is mcp or scad")
    rng = np.random.default_rng(seed)
    w_true = sparse_truth(d, nnz, rng)
    X = heterogeneous_features(clients, samples, d, heterogeneity, rng)
    y = X @ w_true + 0.5 + 0.3 * rng.standard_t(2.0, size=(clients, samples))
    psi = MCP(lam, gamma) if penalty == "mcp" else SCAD(lam, a)
    return Problem(
        name="robust-penalized", loss="cauchy", X=tuple(X), y=tuple(y), regularizer=psi,
        mirror=Euclidean(), weights=uniform_weights(clients), intercept=True,
        truth={"w": w_true, "b": np.array([0.5])},
        meta={"generator": "robust-penalized", "seed": seed, "clients": clients,
              "samples": samples, "d": d, "nnz": nnz, "penalty": penalty, "lam": lam,
              "gamma": gamma, "a": a, "heterogeneity": heterogeneity},
    )
