"""Seed 004 instances: ridge regression with arbitrary partitions, sparse bag-of-words data."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from fcocheck.solvers.errors import InvalidProblemError
from fcocheck.solvers.generators.partition import unbalanced_sizes
from fcocheck.solvers.mirror_maps import Euclidean
from fcocheck.solvers.problem import Problem, sample_weights
from fcocheck.solvers.regularizers import L2Squared, Zero

PARTITIONS = ("iid", "sorted", "unbalanced", "single", "features")


def ridge(
    seed: int = 0,
    clients: int = 8,
    samples: int = 400,
    d: int = 20,
    lam: float = 0.1,
    partition: str = "iid",
    noise: float = 0.1,
) -> Problem:
    """Ridge regression (FO16 eq. 16): f_i = ½(x_iᵀw − y_i)² + (λ/2)‖w‖², ψ = 0, p_m = n_m/n.

    ``partition`` ∈ iid (shuffled, equal sizes), sorted (rows sorted by y: heterogeneous),
    unbalanced (log-normal sizes), single (all data on client 0 and one row elsewhere),
    features (disjoint feature blocks per client: FO16 property (C)).
    """
    if partition not in PARTITIONS:
        raise InvalidProblemError(f"ridge: partition {partition!r}; the rule is one of {PARTITIONS}")
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((samples, d))
    if partition == "features":
        block = np.array_split(np.arange(d), clients)
        owner = np.repeat(np.arange(clients), samples // clients + 1)[:samples]
        mask = np.zeros((samples, d), dtype=bool)
        for m, cols in enumerate(block):
            mask[np.ix_(owner == m, cols)] = True
        X = X * mask
    w_true = rng.standard_normal(d)
    y = X @ w_true + noise * rng.standard_normal(samples)
    parts = _partition(partition, y, clients, rng, samples)
    n = np.array([len(p) for p in parts])
    return Problem(
        name="ridge", loss="ridge", X=tuple(X[p] for p in parts), y=tuple(y[p] for p in parts),
        regularizer=Zero(), mirror=Euclidean(), weights=sample_weights(n), weighting="samples",
        ridge_lam=lam, truth={"w": w_true},
        meta={"generator": "ridge", "seed": seed, "clients": clients, "samples": samples,
              "d": d, "lam": lam, "partition": partition, "noise": noise},
    )


def _partition(kind: str, y: np.ndarray, M: int, rng: np.random.Generator,
               N: int) -> list[np.ndarray]:
    if kind == "features":
        owner = np.repeat(np.arange(M), N // M + 1)[:N]
        return [np.flatnonzero(owner == m) for m in range(M)]
    if kind == "sorted":
        return np.array_split(np.argsort(y), M)
    if kind == "single":
        if N < M:
            raise InvalidProblemError(f"ridge: {N} samples for {M} clients; the rule is N >= M")
        order = rng.permutation(N)
        return [order[M - 1:]] + [order[m:m + 1] for m in range(M - 1)]
    order = rng.permutation(N)
    if kind == "unbalanced":
        sizes = unbalanced_sizes(M, N / M, 1, N, rng).astype(float)
        cuts = (np.cumsum(sizes / sizes.sum())[:-1] * N).astype(int)
        parts = np.split(order, cuts)
        if min(len(p) for p in parts) == 0:
            return np.array_split(order, M)
        return parts
    return np.array_split(order, M)


def bag_of_words(
    seed: int = 0,
    clients: int = 50,
    d: int = 2000,
    mean_size: float = 40.0,
    min_size: int = 5,
    max_size: int = 400,
    words: int = 20,
    skew: float = 0.5,
    lam: float = 1e-3,
) -> Problem:
    """Sparse bag-of-words logistic regression with feature-frequency skew (FO16 §3.6).

    Word frequencies are Zipfian; each client boosts its own random subset of words
    (weight ``skew``), so the fraction of clients holding feature j (ω_j/K) and its
    client-local frequency (φ_j^k) differ — what FSVRG's S_k and A correct for.  Each row
    draws ``words`` words with replacement (one vectorised draw per client) and holds their
    counts scaled by 1/√words; sizes are log-normal in [min_size, max_size];
    ψ = (λ/2)‖w‖², p_m = n_m/n, CSR data.
    """
    rng = np.random.default_rng(seed)
    sizes = unbalanced_sizes(clients, mean_size, min_size, max_size, rng)
    zipf = 1.0 / np.arange(1, d + 1)
    zipf /= zipf.sum()
    w_true = rng.standard_normal(d)
    if not 1 <= words <= d:
        raise InvalidProblemError(f"bag-of-words: words = {words!r} per document with d = {d!r}; "
                                  "the rule is 1 <= words <= d")
    X, Y = [], []
    k = max(d // 20, 1)
    for m in range(clients):
        favourite = rng.choice(d, size=k, replace=False)
        p = (1 - skew) * zipf
        p[favourite] += skew / k
        cols = rng.choice(d, size=(sizes[m], words), p=p / p.sum())  # one draw per client
        rows = np.repeat(np.arange(sizes[m]), words)
        Xm = sp.csr_matrix((np.full(rows.size, 1 / np.sqrt(words)), (rows, cols.ravel())),
                           shape=(sizes[m], d))  # repeated words add up: term counts
        Xm.sum_duplicates()
        ym = np.sign(Xm @ w_true + 0.1 * rng.standard_normal(sizes[m]))
        ym[ym == 0] = 1.0
        X.append(Xm)
        Y.append(ym)
    return Problem(
        name="bag-of-words", loss="logistic", X=tuple(X), y=tuple(Y), regularizer=L2Squared(lam),
        mirror=Euclidean(), weights=sample_weights(sizes), weighting="samples",
        meta={"generator": "bag-of-words", "seed": seed, "clients": clients, "d": d,
              "mean_size": mean_size, "min_size": min_size, "max_size": max_size,
              "words": words, "skew": skew, "lam": lam},
    )
