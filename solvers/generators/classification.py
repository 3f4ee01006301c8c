"""Logistic-regression instances: synthetic sparse, and a real data set split by label skew."""

from __future__ import annotations

import numpy as np

from fcocheck.solvers.generators.common import heterogeneous_features, sparse_truth
from fcocheck.solvers.generators.partition import dirichlet_label_skew
from fcocheck.solvers.mirror_maps import Euclidean
from fcocheck.solvers.problem import Problem, sample_weights, uniform_weights
from fcocheck.solvers.regularizers import L1


def sparse_logistic(
    seed: int = 0,
    clients: int = 16,
    samples: int = 64,
    d: int = 100,
    nnz: int = 10,
    heterogeneity: float = 1.0,
    lam: float = 0.01,
) -> Problem:
    """ℓ1-regularised logistic regression on synthetic data (FCO §5.3's model, synthetic).

    Labels y = sign(xᵀw_true + b + ε) with ε ~ N(0, 0.25), features as in the LASSO
    generator; ψ = λ‖w‖₁ and a free intercept.
    """
    rng = np.random.default_rng(seed)
    w_true = sparse_truth(d, nnz, rng)
    X = heterogeneous_features(clients, samples, d, heterogeneity, rng)
    y = np.sign(X @ w_true + 0.5 * rng.standard_normal((clients, samples)))
    y[y == 0] = 1.0
    return Problem(
        name="sparse-logistic", loss="logistic", X=tuple(X), y=tuple(y), regularizer=L1(lam),
        mirror=Euclidean(), weights=uniform_weights(clients), intercept=True,
        truth={"w": w_true},
        meta={"generator": "sparse-logistic", "seed": seed, "clients": clients,
              "samples": samples, "d": d, "nnz": nnz, "heterogeneity": heterogeneity, "lam": lam},
    )


def breast_cancer_dirichlet(
    seed: int = 0, clients: int = 8, alpha: float = 0.5, lam: float = 0.01
) -> Problem:
    """scikit-learn's bundled breast-cancer set (569 × 30) split by Dirichlet(α) label skew.

    Features are standardised; clients are formed as in FedCanon §IV-A3; ψ = λ‖w‖₁.
    Client weights are n_m/n, so F is the pooled empirical risk.
    """
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    Xall = (data.data - data.data.mean(0)) / data.data.std(0)
    yall = np.where(data.target == 1, 1.0, -1.0)
    rng = np.random.default_rng(seed)
    parts = dirichlet_label_skew(yall, clients, alpha, rng)
    n = np.array([len(p) for p in parts])
    return Problem(
        name="breast-cancer", loss="logistic", X=tuple(Xall[p] for p in parts),
        y=tuple(yall[p] for p in parts), regularizer=L1(lam), mirror=Euclidean(),
        weights=sample_weights(n), weighting="samples", intercept=True,
        meta={"generator": "breast-cancer", "seed": seed, "clients": clients, "alpha": alpha,
              "lam": lam, "source": "sklearn.datasets.load_breast_cancer"},
    )
