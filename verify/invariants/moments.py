"""The stochastic oracles' first two moments, by statistical tests with a stated false-alarm rate.

Every comparison of two runs with one seed cancels the oracle's noise, so a wrong variance would
pass every identity.  Here, at a drawn point W and N draws ξ = g − ∇F_m(W_m):

* ``gaussian:σ``: ξ ~ N(0, σ²/d·I), so (d/σ²) Σ‖ξ‖² over N·M draws is χ²_{NMd} — two-sided test;
  every coordinate's mean is N(0, σ²/(dN)) — z-test, Bonferroni over the M·d coordinates;
* ``minibatch:b`` (rows uniform with replacement): E ξ = 0 and E‖ξ‖² = (1/b)(1/n_m)Σ_i‖∇f_i − ∇F_m‖²,
  both computed exactly from the per-row gradients; tested by z-tests on the sample means with the
  exact per-coordinate variance (mean) and the sample variance of ‖ξ‖² (second moment, CLT).

Each test rejects a correct oracle with probability ≤ ``ALPHA`` (split evenly over its parts).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st
from scipy import stats

from fcocheck.rates.threshold import at_least
from fcocheck.solvers.oracles import parse_oracle
from fcocheck.verify.cases import InstanceSpec, build
from fcocheck.verify.evidence import Evidence, not_applicable
from fcocheck.verify.invariants.base import Invariant
from fcocheck.verify.strategies import instance_specs

ALPHA = 1e-6
DRAWS = 2000
ROUNDING = 1e-10  # a sample moment this close to the exact one passes without a test (zero spread)


@dataclass(frozen=True)
class MomentCase:
    """An instance, an oracle, a point seed and a noise seed."""

    spec: object
    oracle: str
    seed: int

    def describe(self) -> str:
        """The oracle and the instance."""
        return f"{self.oracle} on {self.spec}"


@st.composite
def moment_cases(draw) -> MomentCase:
    """Gaussian (σ drawn) or minibatch (b drawn) oracles on small instances."""
    spec = draw(instance_specs("general", ("zero",), min_clients=1, max_clients=3))
    oracle = draw(
        st.one_of(
            st.sampled_from([0.1, 1.0, 3.0]).map(lambda s: f"gaussian:{s}"),
            st.integers(1, 3).map(lambda b: f"minibatch:{b}"),
        )
    )
    return MomentCase(spec, oracle, draw(st.integers(0, 100)))


def draws(case: MomentCase, oracle=None) -> tuple[np.ndarray, np.ndarray, object]:
    """(ξ of shape (N, M, dim), ∇F_m(W), problem) at a seeded point W."""
    p = build(case.spec)
    rng = np.random.default_rng(case.seed)
    W = rng.standard_normal((p.M, p.dim))
    G = p.kernel.grads(W)
    orc = oracle or parse_oracle(case.oracle)
    xi = np.stack([orc.grads(p, W, rng) - G for _ in range(DRAWS)])
    return xi, W, p


def moment_test(case: MomentCase, oracle=None) -> Evidence:
    """The oracle's mean and second moment against their exact values (module docstring)."""
    xi, W, p = draws(case, oracle)
    kind, _, arg = case.oracle.partition(":")
    if kind == "gaussian":
        return _gaussian(case, xi, float(arg))
    return _minibatch(case, xi, W, p, int(arg))


def _gaussian(case: MomentCase, xi: np.ndarray, sigma: float) -> Evidence:
    N, M, d = xi.shape
    dof = N * M * d
    stat = float((xi**2).sum() * d / sigma**2)
    p_var = 2 * min(stats.chi2.cdf(stat, dof), stats.chi2.sf(stat, dof))
    z_mean = np.abs(xi.mean(axis=0)) * np.sqrt(N * d) / sigma
    p_mean = float(min(1.0, 2 * stats.norm.sf(z_mean.max()) * M * d))
    second = float((xi**2).sum(axis=2).mean())
    return _verdict(case, p_var, p_mean, f"E‖ξ‖² ≈ {second:.4g} vs σ² = {sigma**2:.4g}")


def _minibatch(case: MomentCase, xi: np.ndarray, W: np.ndarray, p, b: int) -> Evidence:
    N, M, d = xi.shape
    dev, var = _row_spread(p, W)  # per client: exact E‖ξ‖² with b = 1, and per-coordinate variance
    second, coord_var = dev / b, var / b
    if not np.all(np.isfinite(second)):
        return not_applicable("oracle-moments", f"no per-row gradients; {case.describe()}")
    sq = (xi**2).sum(axis=2)  # (N, M)
    gap2 = np.abs(sq.mean(axis=0) - second)
    z2 = np.where(gap2 <= ROUNDING * np.maximum(second, 1e-300), 0.0,  # equal to rounding: no test needed
                  gap2 / np.maximum(sq.std(axis=0, ddof=1), 1e-300) * np.sqrt(N))
    p_var = float(min(1.0, 2 * stats.norm.sf(z2.max()) * M))
    se = np.sqrt(coord_var / N)
    diff = np.abs(xi.mean(axis=0))
    scale = ROUNDING * np.maximum(np.sqrt(second)[:, None], 1e-300)
    zm = np.where(diff <= scale, 0.0, diff / np.maximum(se, 1e-300))
    p_mean = float(min(1.0, 2 * stats.norm.sf(zm.max()) * M * d))
    return _verdict(case, p_var, p_mean,
                    f"E‖ξ‖² ≈ {sq.mean():.4g} vs exact {float(np.mean(second)):.4g} (mean over clients)")


def _row_spread(p, W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per client: (1/n)Σ_i‖∇f_i − ∇F_m‖² and (1/n)Σ_i(∇f_i − ∇F_m)² per coordinate, from single rows."""
    n = np.asarray(p.n)
    G = p.kernel.grads(W)
    dev, var = np.zeros(p.M), np.zeros((p.M, p.dim))
    for i in range(int(n.max())):
        rows = np.minimum(i, n - 1)[:, None]
        D = p.kernel.grads_rows(W, rows) - G
        live = (i < n)[:, None]
        var += np.where(live, D**2, 0.0)
    var /= n[:, None]
    dev = var.sum(axis=1)
    return dev, var


def _verdict(case: MomentCase, p_var: float, p_mean: float, what: str) -> Evidence:
    ok = at_least(p_var, ALPHA / 2) and at_least(p_mean, ALPHA / 2)
    return Evidence(
        "oracle-moments",
        "holds" if ok else "fails",
        residual=float(-np.log10(max(min(p_var, p_mean), 1e-300))),  # ≤ tol ⟺ both p-values ≥ α/2
        tol=float(-np.log10(ALPHA / 2)),
        detail=f"{what}; p-values: second moment {p_var:.2e}, mean {p_mean:.2e} (reject below {ALPHA / 2:g}, "
        f"false-alarm rate ≤ {ALPHA:g}); {DRAWS} draws; {case.describe()}",
    )


INVARIANTS = (
    Invariant(
        "oracle-moments",
        "FCO Assumption 1(d)",
        "stochastic oracles are unbiased with the stated second moment: gaussian:σ has E‖ξ‖² = σ², "
        "minibatch:b has (1/b) × the per-row spread",
        (),
        "holds",
        moment_cases,
        moment_test,
        examples=lambda: [MomentCase(InstanceSpec("general", 2, 3, 4, 1.0, "zero", 0.0, 7), o, 5)
                          for o in ("gaussian:0.1", "gaussian:3.0", "minibatch:1", "minibatch:3")],
    ),
)
