"""The synthetic instances of FCO §5.1–5.2 (and the slides' variants)."""

from __future__ import annotations

import numpy as np

from fcocheck.solvers.generators.common import heterogeneous_features, sparse_truth
from fcocheck.solvers.mirror_maps import Euclidean
from fcocheck.solvers.problem import Problem, uniform_weights
from fcocheck.solvers.regularizers import L1, Nuclear


def lasso_paper(
    seed: int = 0,
    clients: int = 64,
    samples: int = 128,
    d: int = 1024,
    nnz: int = 512,
    heterogeneity: float = 1.0,
    noise: float = 0.5,
    bias: float = 1.0,
    lam: float = 0.05,
) -> Problem:
    """Federated LASSO, FCO §5.1 / slides: y = xᵀw_real + b_real + ε, ψ = λ‖w‖₁, free bias.

    Defaults: 64 clients × 128 samples, d = 1024, ground-truth density 512/1024 (the slides'
    variants: ``nnz`` = 64 or 8; ``clients=256, samples=32``).  Client features follow
    ``heterogeneous_features`` (knob κ = ``heterogeneity``); ε ~ N(0, noise²).
    Loss normalisation: f = ½(xᵀw + b − y)², so Φ = Φ_paper/2 with λ = λ_paper/2
    (the paper's (xᵀw + b − y)² has twice our gradient: η_ours = 2η_paper).
    """
    rng = np.random.default_rng(seed)
    w_true = sparse_truth(d, nnz, rng)
    X = heterogeneous_features(clients, samples, d, heterogeneity, rng)
    y = X @ w_true + bias + noise * rng.standard_normal((clients, samples))
    return Problem(
        name="lasso-paper", loss="squares", X=tuple(X), y=tuple(y), regularizer=L1(lam),
        mirror=Euclidean(), weights=uniform_weights(clients), intercept=True,
        truth={"w": w_true, "b": np.array([bias])},
        meta={"generator": "lasso-paper", "seed": seed, "clients": clients, "samples": samples,
              "d": d, "nnz": nnz, "heterogeneity": heterogeneity, "noise": noise,
              "bias": bias, "lam": lam},
    )


def lowrank_paper(
    seed: int = 0,
    clients: int = 64,
    samples: int = 128,
    d1: int = 32,
    d2: int = 32,
    rank: int = 16,
    heterogeneity: float = 1.0,
    noise: float = 0.5,
    bias: float = 1.0,
    lam: float = 0.1,
) -> Problem:
    """Federated low-rank matrix estimation, FCO §5.2: y = ⟨X, W_real⟩ + b_real + ε, ψ = λ‖W‖_nuc.

    W_real = U Vᵀ/√rank with U, V standard Gaussian (d1×r, d2×r), so its entries have unit
    variance; the slides' variants use rank 16, 4, 1 out of 32.  Sensing matrices follow
    ``heterogeneous_features`` on the flattened d1·d2 entries.
    """
    rng = np.random.default_rng(seed)
    U = rng.standard_normal((d1, rank))
    V = rng.standard_normal((d2, rank))
    W_true = (U @ V.T / np.sqrt(rank)).ravel()
    X = heterogeneous_features(clients, samples, d1 * d2, heterogeneity, rng)
    y = X @ W_true + bias + noise * rng.standard_normal((clients, samples))
    return Problem(
        name="lowrank-paper", loss="matrix", X=tuple(X), y=tuple(y),
        regularizer=Nuclear(lam, (d1, d2)), mirror=Euclidean(),
        weights=uniform_weights(clients), intercept=True, shape=(d1, d2),
        truth={"w": W_true, "b": np.array([bias])},
        meta={"generator": "lowrank-paper", "seed": seed, "clients": clients,
              "samples": samples, "d1": d1, "d2": d2, "rank": rank,
              "heterogeneity": heterogeneity, "noise": noise, "bias": bias, "lam": lam},
    )
