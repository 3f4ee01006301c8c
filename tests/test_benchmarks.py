"""The benchmarks' baselines do the same work as what they are compared with (issue 33).

A ratio against a baseline means something only if the baseline computes the same thing: the
blocked numpy FedDualAvg must give the per-client loop's iterate (any block size, a last partial
block included), and the scikit-learn solve must be held to the same certified gap as ``fcocheck
solve``.  Timings are not asserted (the machine may be loaded); only what is computed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import engine, solve_sklearn  # noqa: E402
from fcocheck.solvers.generators import generate  # noqa: E402
from fcocheck.solvers.instance_io import save_instance  # noqa: E402


@pytest.mark.parametrize("block", [1, 5, 12, 64])
def test_blocked_numpy_feddualavg_is_the_loop_s_algorithm(block):
    p = generate("lasso-paper", clients=12, samples=7, d=9, nnz=3)
    loop = engine.straightforward_feddualavg(p, 0.05, 3, 4)
    blocked = engine.blocked_feddualavg(p, 0.05, 3, 4, block)
    assert np.max(np.abs(loop - blocked)) <= 1e-12 * max(1.0, np.max(np.abs(loop)))
    assert np.count_nonzero(loop[: p.d]) > 0  # the soft threshold left something to compare


def test_a_wrong_blocked_step_is_told_apart():
    """The comparison above can fail: the loop's iterate moves when the threshold is dropped."""
    p = generate("lasso-paper", clients=12, samples=7, d=9, nnz=3)
    p_free = generate("lasso-paper", clients=12, samples=7, d=9, nnz=3, lam=0.0)
    a = engine.straightforward_feddualavg(p, 0.05, 3, 4)
    b = engine.blocked_feddualavg(p_free, 0.05, 3, 4, 5)
    assert np.max(np.abs(a - b)) > 1e-6


def test_the_scikit_learn_baseline_is_held_to_fcocheck_s_certified_gap(tmp_path):
    p = generate("lasso-paper", clients=4, samples=30, d=20, nnz=5)
    path = tmp_path / "p.npz"
    save_instance(p, path)
    tol, reached = solve_sklearn.loosest_tol(path, p.regularizer.lam)
    assert reached <= solve_sklearn.TARGET and 1e-15 <= tol <= 1e-6
