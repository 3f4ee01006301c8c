"""Helpers that replaced numpy calls for their overhead give the same answers, bit for bit (issue 33).

``metrics.nonzero_fraction`` is ``np.mean(x != 0.0, axis)``; ``engine.run.diverged`` compares
``np.linalg.norm``'s own √(x·x) with the explosion threshold.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from fcocheck.solvers.algorithms.base import Counts, RoundLog
from fcocheck.solvers.engine.run import EXPLOSION_FACTOR, diverged
from fcocheck.solvers.metrics import nonzero_fraction

_values = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0.0, -0.0, 5e-324]))
_sparse = st.one_of(_values, st.just(0.0), st.just(0.0))


@settings(max_examples=300)
@given(x=hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=2, min_side=0, max_side=40),
                    elements=_sparse))
def test_the_bits_of_the_mean_of_the_nonzero_mask(x):
    want = np.mean(x != 0.0) if x.size else None
    if want is not None:
        assert np.float64(nonzero_fraction(x)).tobytes() == np.float64(want).tobytes()
    if x.ndim == 2 and x.size:
        got, want = nonzero_fraction(x, axis=0), np.mean(x != 0.0, axis=0)
        assert got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()


def test_counts_that_do_not_divide_evenly_and_empty_arrays():
    x = np.zeros((7, 3))
    x[[0, 2, 5], 0] = 1.0
    x[1, 1] = -0.0
    x[3, 2] = np.nan
    assert nonzero_fraction(x) == np.mean(x != 0.0) == 4 / 21
    assert nonzero_fraction(x, axis=0).tolist() == [3 / 7, 0.0, 1 / 7]
    with pytest.warns(RuntimeWarning):  # np.mean's own answer (NaN) and warning for an empty column
        assert np.isnan(nonzero_fraction(np.zeros((0, 3)), axis=0)).all()


def _reference_diverged(w: np.ndarray, z: np.ndarray | None, scale: float) -> bool:
    if not np.all(np.isfinite(w)) or (z is not None and not np.all(np.isfinite(z))):
        return True
    return float(np.linalg.norm(w)) > EXPLOSION_FACTOR * scale


@settings(max_examples=300)
@given(w=hnp.arrays(np.float64, st.integers(1, 12), elements=_values),
       z=st.none() | hnp.arrays(np.float64, 3, elements=_values),
       scale=st.floats(1e-300, 1e300) | st.sampled_from([1.0, 1e-8]))
def test_diverged_as_with_the_norm(w, z, scale):
    log = RoundLog(w=w, z=z, avg_terms=None, avg_count=0, discrepancy=np.zeros(0), counts=Counts())
    with np.errstate(over="ignore"):  # as the engine calls it; x·x overflows to inf for both
        assert diverged(log, scale) == _reference_diverged(w, z, scale)


def test_diverged_at_the_threshold():
    for scale in (1.0, 3.0, 0.1):
        edge = EXPLOSION_FACTOR * scale
        for w in (np.array([edge]), np.array([np.nextafter(edge, np.inf)]), np.array([0.6, 0.8]) * edge):
            log = RoundLog(w=w, z=None, avg_terms=None, avg_count=0, discrepancy=np.zeros(0), counts=Counts())
            assert diverged(log, scale) == _reference_diverged(w, None, scale)
