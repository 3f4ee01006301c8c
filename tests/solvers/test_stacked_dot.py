"""``stacked_dot`` makes each run's product bit for bit as the run alone makes it, and the check can fail.

A batched round's sums over clients (Σ_m p_m x^m), the metrics' objectives (Σ_m p_m F_m) and norms
(√(sᵀs), as ``np.linalg.norm`` takes it) are one stacked ``matmul`` over the runs; a run alone makes
``weights @ X`` on its own block.  The two must agree in every bit, for any shapes, scales and both
block layouts the engine uses (C-ordered rows; column-major blocks, where ``Kernel._batched`` writes a
run alone's gradients).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fcocheck.solvers.algorithms.batched_dual import per_run, stacked_dot

shapes = st.tuples(st.integers(1, 12), st.integers(1, 40), st.integers(1, 64))


def _draw(seed: int, B: int, M: int, n: int, column_major: bool) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.random((B, M))
    a /= a.sum(axis=1, keepdims=True)
    X3 = rng.standard_normal((B, M, n)) * 10.0 ** rng.uniform(-8, 8, (B, 1, 1))
    if column_major:
        out = np.empty((B, n, M)).transpose(0, 2, 1)
        out[...] = X3
        X3 = out
    return a, X3


@settings(max_examples=60, deadline=None)
@given(shapes, st.integers(0, 2**32 - 1), st.booleans())
def test_each_run_the_bits_of_its_own_product(shape, seed, column_major):
    B, M, n = shape
    a, X3 = _draw(seed, B, M, n, column_major)
    alone = np.array([a[i] @ X3[i] for i in range(B)])
    assert stacked_dot(a, X3).tobytes() == alone.tobytes()
    V = X3[:, :, 0].copy()  # a vector per run: Σ_m p_m v_m
    assert stacked_dot(a, V).tobytes() == np.array([float(a[i] @ V[i]) for i in range(B)]).tobytes()
    S = X3[:, 0, :].copy()  # a norm per run
    norms = np.sqrt(stacked_dot(S, S))
    assert norms.tobytes() == np.array([float(np.linalg.norm(S[i])) for i in range(B)]).tobytes()


def test_per_run_is_the_stacked_product():
    a, X3 = _draw(7, 5, 8, 20, False)
    assert per_run(a, X3.reshape(40, 20)).tobytes() == np.array([a[i] @ X3[i] for i in range(5)]).tobytes()


def test_another_summation_order_shows():
    """The comparison sees last bits: an einsum of the same numbers (another order) differs on some draws."""
    differs = 0
    for seed in range(50):
        a, X3 = _draw(seed, 4, 33, 17, False)
        alone = np.array([a[i] @ X3[i] for i in range(4)])
        differs += np.einsum("bm,bmn->bn", a, X3).tobytes() != alone.tobytes()
    assert differs > 0
