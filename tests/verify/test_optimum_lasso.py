"""The LASSO optimum of the invariant instances stops FISTA early only with a KKT certificate."""

from __future__ import annotations

import numpy as np

from fcocheck.verify import optimum as opt


def _instance(seed: int, d: int = 8) -> tuple[np.ndarray, np.ndarray, float, float]:
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((3 * d, d))
    H = A.T @ A / A.shape[0]
    b = A.T @ rng.standard_normal(3 * d) / A.shape[0]
    lam = float(rng.uniform(0.05, 0.5) * np.abs(b).max())
    return H, b, lam, float(np.linalg.eigvalsh(H)[-1])


def test_early_exit_gives_the_bits_of_all_3000_iterations(monkeypatch):
    got = [opt._lasso(*_instance(s)) for s in range(40)]
    monkeypatch.setattr(opt, "_LASSO_CHECK", 10**9)  # never tried: the full 3,000 iterations
    want = [opt._lasso(*_instance(s)) for s in range(40)]
    assert all(np.array_equal(g, w) for g, w in zip(got, want, strict=True))
    assert any(np.count_nonzero(w) not in (0, len(w)) for w in want)  # sparse optima were tested


def _kkt(H, b, lam, w) -> bool:
    return opt._lasso_kkt(H, b, lam, w, *opt._lasso_exact(H, b, lam, w))


def test_the_kkt_check_refuses_a_wrong_support_or_sign():
    H, b, lam, L = _instance(3)
    w = opt._lasso(H, b, lam, L)
    assert _kkt(H, b, lam, w)
    S = np.flatnonzero(w)
    dropped = w.copy()
    dropped[S[0]] = 0.0  # a support coordinate missing: its gradient exceeds λ
    assert not _kkt(H, b, lam, dropped)
    flipped = w.copy()
    flipped[S[0]] = -flipped[S[0]]  # a wrong sign
    assert not _kkt(H, b, lam, flipped)
    off = np.flatnonzero(w == 0)
    extra = w.copy()
    extra[off[0]] = 1e-3  # an extra coordinate: the exact solve cannot keep its sign (it is 0 at w*)
    assert not _kkt(H, b, lam, extra)
