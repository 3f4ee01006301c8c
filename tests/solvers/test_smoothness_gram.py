"""λ_max of a client's second moment from the n × n Gram matrix equals the dim × dim operator's."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from fcocheck.solvers.smoothness import second_moment, top_eigenvalue, top_second_moment


def test_small_gram_equals_the_operator_dense_and_sparse_with_and_without_intercept():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((30, 500))
    omega = rng.random(30)
    omega /= omega.sum()
    for data in (X, sp.csr_matrix(X * (rng.random(X.shape) < 0.1))):
        for intercept in (False, True):
            want = top_eigenvalue(second_moment(data, omega, intercept))
            got = top_second_moment(data, omega, intercept)
            assert abs(got - want) <= 1e-9 * want
    # the check can fail: the same Gram without the intercept's column is another number
    shifted = np.sqrt(omega)[:, None] * (X + 3.0)
    with_intercept = top_second_moment(X + 3.0, omega, True)
    without = float(np.linalg.eigvalsh(shifted @ shifted.T)[-1])
    assert abs(with_intercept - without) > 1e-9 * without  # the tolerance the equality above uses


def test_the_lanczos_top_eigenvalue_is_the_same_bits_whatever_ran_before():
    """ARPACK's own start moves with every call: a fixed start makes L reproducible in any worker."""
    from scipy.sparse.linalg import aslinearoperator, eigsh

    rng = np.random.default_rng(1)
    A = rng.standard_normal((600, 500))
    op = aslinearoperator(A.T @ A / 600)  # 500 > the dense cut: Lanczos
    first = top_eigenvalue(op)
    moved = [float(eigsh(op, k=1, which="LA", tol=1e-10, return_eigenvectors=False)[0]) for _ in range(4)]
    assert len({v.hex() for v in moved}) > 1  # the check can fail: without a start the bits move
    assert top_eigenvalue(op) == first
    assert abs(first - np.linalg.eigvalsh(A.T @ A / 600)[-1]) <= 1e-9 * first


def test_global_smoothness_is_computed_once_per_problem(monkeypatch):
    """The memo returns the uncached value, once per problem object, and never another problem's."""
    from fcocheck.solvers import smoothness
    from fcocheck.solvers.generators import generate

    calls = []
    real = smoothness._global_smoothness
    monkeypatch.setattr(smoothness, "_global_smoothness", lambda p: calls.append(p) or real(p))
    a, b = generate("quadratics", clients=3, d=4, seed=1), generate("quadratics", clients=3, d=4, seed=2)
    assert smoothness.global_smoothness(a) == real(a) and smoothness.global_smoothness(a) == real(a)
    assert smoothness.global_smoothness(b) == real(b) != real(a)
    assert calls == [a, b]


@pytest.mark.parametrize("shape", [(1000, 37), (3, 5000), (777, 1025), (0, 4), (5, 1)])
def test_blocked_row_helpers_match_the_whole_array_forms(shape):
    from fcocheck.solvers.reference.certificate import _abs_product
    from fcocheck.solvers.smoothness import _row_squares

    A = np.random.default_rng(5).standard_normal(shape)
    v = np.abs(np.random.default_rng(6).standard_normal(shape[1]))
    np.testing.assert_array_equal(_row_squares(A), np.sum(A * A, 1))
    np.testing.assert_allclose(_abs_product(A, v), np.abs(A) @ v, rtol=1e-14)
    np.testing.assert_array_equal(_row_squares(A.astype(np.float32)), np.sum(A.astype(np.float32) ** 2, 1))
