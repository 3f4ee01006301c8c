"""The oracle moment tests: correct oracles pass, planted wrong ones are rejected and shrunk."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from fcocheck.solvers.oracles import GaussianOracle, MinibatchOracle, as_kernel
from fcocheck.verify.evidence import FAILS, HOLDS
from fcocheck.verify.invariants.moments import moment_cases, moment_test
from fcocheck.verify.search import search


def test_the_registry_oracles_pass():
    found = search(moment_cases(), moment_test, 40)
    assert found.outcome == HOLDS, found.evidence


@dataclass(frozen=True)
class NoiseNotScaled(GaussianOracle):
    """ξ ~ N(0, σ² I): total variance dσ², not σ²."""

    def grads(self, source, W, rng):
        G = as_kernel(source).grads(W)
        return G + rng.standard_normal(G.shape) * self.sigma


@dataclass(frozen=True)
class LastRowNeverDrawn(MinibatchOracle):
    """Rows drawn from 0..n−2: a biased mean."""

    def grads(self, source, W, rng):
        k = as_kernel(source)
        n = np.maximum(k.problem.n[k.index] - 1, 1)
        rows = (rng.random((k.size, self.batch)) * n[:, None]).astype(np.int64)
        return k.grads_rows(W, rows)


@dataclass(frozen=True)
class FirstRowOnly(MinibatchOracle):
    """b rows drawn, one used: the variance is b times too large."""

    def grads(self, source, W, rng):
        k = as_kernel(source)
        n = k.problem.n[k.index]
        rows = (rng.random((k.size, self.batch)) * n[:, None]).astype(np.int64)
        return k.grads_rows(W, rows[:, :1])


@pytest.mark.parametrize(
    ("kind", "make"),
    [
        ("gaussian", lambda c: NoiseNotScaled(sigma=float(c.oracle.split(":")[1]))),
        ("minibatch", lambda c: LastRowNeverDrawn(batch=int(c.oracle.split(":")[1]))),
        ("minibatch", lambda c: FirstRowOnly(batch=int(c.oracle.split(":")[1]))),
    ],
)
def test_wrong_oracles_are_rejected(kind, make):
    strategy = moment_cases().filter(lambda c: c.oracle.startswith(kind))
    found = search(strategy, lambda c: moment_test(c, make(c)), 60)
    assert found.outcome == FAILS
    assert "p-values" in found.evidence.detail
