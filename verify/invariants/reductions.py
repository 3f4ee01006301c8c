"""Reductions between algorithms: two methods, one sequence of iterates.

* FedADMM is FedDR with α = 1 (y_i = x̄ − ηz_i; docs/baselines.md);
* FedCanon II produces FedCanon's iterates (FedCanon Alg. 2);
* (the reductions of methods written as cards — FedAvg, FedMiD and its variants, FedAvgM, FedDualAvg and
  its OSP variant, SCAFFOLD (= FedCanon at ψ = 0) — are stated on their cards and checked by
  ``verify.invariants.cards``);
* CoCoA+ with its local SDCA run to convergence is the Dual Method (FO16 App. A.3: CoCoA+ is
  Alg. 6 with step 5 solved inexactly): the passes are doubled until CoCoA+'s iterates settle
  (relative change ≤ ``SETTLED``), which must then equal the Dual Method's to ``LIMIT_TOL``.
"""

from __future__ import annotations

from hypothesis import strategies as st

from fcocheck.verify.evidence import Evidence
from fcocheck.verify.invariants.base import Invariant, guarded, same_iterates, trace_of
from fcocheck.verify.optimum import optimum
from fcocheck.verify.strategies import Case, instance_specs, run_options

ROUNDS = 5
SETTLED, LIMIT_TOL = 1e-12, 1e-9
PASSES = (32, 64, 128, 256, 512, 1024, 2048)


@st.composite
def _stochastic(draw, psi: tuple[str, ...], K: tuple[int, int] = (1, 4), sampling: bool = False) -> Case:
    spec = draw(instance_specs("general", psi))
    L = optimum(spec).L_max
    hp = {
        "eta": draw(st.sampled_from([0.25, 0.1])) / L,
        "K": draw(st.integers(*K)),
        "eta_g": draw(st.sampled_from([1.0, 0.7])),
    }
    return Case(spec, hp, **draw(run_options(spec.M, sampling, ("gaussian:0.3", "exact", "minibatch:1"))))


def canon_two(case: Case) -> Evidence:
    """FedCanon vs FedCanon II (same hyper-parameters, same samples)."""
    hp = {"eta_l": case.hp["eta"], "local_steps": case.hp["K"]}
    a, b = trace_of("fedcanon", case, ROUNDS, hp=hp), trace_of("fedcanon2", case, ROUNDS, hp=hp)
    return same_iterates("fedcanon=fedcanon2", a, b, f"FedCanon vs FedCanon II; {case.describe()}")


def admm_dr(case: Case) -> Evidence:
    """FedADMM vs FedDR(α = 1), exact local proxes."""
    hp = {"eta": case.hp["eta"] * 4, "local_solver": "exact"}
    a = trace_of("fedadmm", case, ROUNDS, hp=hp)
    b = trace_of("feddr", case, ROUNDS, hp={**hp, "alpha": 1.0})
    return same_iterates("fedadmm=feddr", a, b, f"FedADMM vs FedDR(α=1); {case.describe()}", 1e-10)


@st.composite
def _ridge(draw) -> Case:
    """Ridge problems (ψ = l2sq: the class of FO16 eq. 11), σ = K (always valid)."""
    return Case(draw(instance_specs("general", ("l2sq",))), {"sigma": 0.0})


def cocoa_limit(case: Case) -> Evidence:
    """CoCoA+ with settled local passes vs the Dual Method (module docstring)."""
    from fcocheck.verify.evidence import bounded, not_applicable
    from fcocheck.verify.invariants.base import relative

    prev = None
    for passes in PASSES:
        w = trace_of("cocoa+", case, 3, hp={**case.hp, "local_steps": passes})["server_w"]
        if prev is not None and relative(w - prev, prev) <= SETTLED:
            ref = trace_of("dual-method", case, 3)["server_w"]
            resid = relative(w - ref, ref)
            return bounded("cocoa+→dual-method", resid, LIMIT_TOL,
                           f"CoCoA+ settled at {passes} local passes vs the Dual Method: {resid:.2e} "
                           f"(rule ≤ {LIMIT_TOL:g}); {case.describe()}")
        prev = w
    return not_applicable("cocoa+→dual-method", f"CoCoA+ did not settle by {PASSES[-1]} passes")


_ALL = ("zero", "l2sq", "l1")
INVARIANTS = (
    Invariant(
        "fedcanon=fedcanon2",
        "FedCanon Alg. 2",
        "FedCanon II produces FedCanon's iterates",
        ("fedcanon", "fedcanon2"),
        "holds",
        lambda: _stochastic(_ALL, sampling=True),
        guarded("fedcanon=fedcanon2", canon_two),
    ),
    Invariant(
        "fedadmm=feddr",
        "docs/baselines.md",
        "FedADMM is FedDR with α = 1",
        ("fedadmm", "feddr"),
        "holds",
        lambda: _stochastic(_ALL, sampling=True),
        guarded("fedadmm=feddr", admm_dr),
    ),
    Invariant(
        "cocoa+→dual-method",
        "FO16 App. A.3 (CoCoA+ = Alg. 6 solved inexactly)",
        "CoCoA+ whose local SDCA has converged produces the Dual Method's iterates",
        ("cocoa+", "dual-method"),
        "holds",
        _ridge,
        guarded("cocoa+→dual-method", cocoa_limit),
    ),
)
