"""Scaffnew/ProxSkip communicate with probability p: local steps per round ~ Geometric(p).

The gradient queries are counted by the oracle itself (a counting wrapper), independently of the
algorithm's own log.  Over R rounds the mean number of local steps per round must agree with 1/p
(z-test with variance (1 − p)/(p²R), false-alarm rate ≤ ``ALPHA``; exactly 1 when p = 1), and the
logged gradient count must equal M × the counted queries.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st
from scipy import stats

from fcocheck.rates.threshold import at_least
from fcocheck.solvers.engine import run
from fcocheck.solvers.oracles import Oracle, as_kernel
from fcocheck.verify.cases import build
from fcocheck.verify.evidence import Evidence
from fcocheck.verify.invariants.base import Invariant, guarded
from fcocheck.verify.optimum import optimum
from fcocheck.verify.strategies import Case, instance_specs

ALPHA = 1e-6
ROUNDS = 300


@dataclass(frozen=True)
class CountingOracle(Oracle):
    """Exact gradients; every query is recorded in ``calls`` (one entry per call, any number of clients)."""

    calls: list = field(default_factory=list)
    kind: str = "exact"

    def grads(self, source, W, rng):
        """∇F_m(W_m), counted."""
        self.calls.append(W.shape[0])
        return as_kernel(source).grads(W)


@st.composite
def skip_cases(draw) -> Case:
    """ψ = 0 or ℓ1, γ ≤ 1/(2L), p ∈ {1, ½, ⅕, 1/10}."""
    spec = draw(instance_specs("general", ("zero", "l1")))
    L = optimum(spec).L_max
    hp = {
        "gamma": draw(st.sampled_from([0.25, 0.5, 0.1])) / L,
        "p": draw(st.sampled_from([0.5, 1.0, 0.2, 0.1])),
    }
    return Case(spec, hp, seed=draw(st.integers(0, 100)))


def communication_rate(name: str, case: Case) -> Evidence:
    """Mean local steps per round against 1/p, and the logged gradient count against the counted one."""
    p = build(case.spec)
    oracle = CountingOracle()
    t = run(name, p, case.hp, rounds=ROUNDS, oracle=oracle, seed=case.seed, reference=False)
    steps = len(oracle.calls) / ROUNDS
    logged = float(t["grad_calls"][-1])
    counted = float(sum(oracle.calls))
    q = case.hp["p"]
    if q >= 1:
        pval = 1.0 if steps == 1 else 0.0
    else:
        z = abs(steps - 1 / q) / np.sqrt((1 - q) / q**2 / ROUNDS)
        pval = float(2 * stats.norm.sf(z))
    ok = at_least(pval, ALPHA) and logged == counted
    return Evidence(
        f"communication-{name}",
        "holds" if ok else "fails",
        residual=float(-np.log10(max(pval, 1e-300))) + abs(logged - counted),
        tol=float(-np.log10(ALPHA)),
        detail=f"{name}: {steps:.3f} local steps per round over {ROUNDS} rounds vs 1/p = {1 / q:.3g} "
        f"(p-value {pval:.2e}, reject below {ALPHA:g}); gradient queries logged {logged:.0f}, counted "
        f"{counted:.0f}; {case.describe()}",
    )


INVARIANTS = tuple(
    Invariant(
        f"communication-{name}",
        "Mishchenko et al. 2022 (ProxSkip/Scaffnew), Alg. 1",
        f"{name}: communicates with probability p (steps per round ~ Geometric(p)); "
        "gradient counts as queried",
        (name,),
        "holds",
        skip_cases,
        guarded(f"communication-{name}", lambda c, n=name: communication_rate(n, c)),
    )
    for name in ("scaffnew", "scaffnew-composite")
)
