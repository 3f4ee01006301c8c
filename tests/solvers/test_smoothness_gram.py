"""λ_max of a client's second moment from the n × n Gram matrix equals the dim × dim operator's."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from solvers.smoothness import second_moment, top_eigenvalue, top_second_moment


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
