"""Hypothesis strategies: instances, (instance, hyper-parameter) cases, oracles.

Dependent values are drawn together: the data shape guarantees a unique minimiser (at least
``dim`` informative rows), the step sizes are drawn as factors of the drawn instance's L, and
the simplest alternative comes first everywhere (M = 1 or 2, d = 1, n small, ψ = 0, het = 0),
so a failing case shrinks to a small instance a person can read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from fcocheck.solvers import mirror_maps as mm
from fcocheck.solvers import regularizers as reg
from fcocheck.solvers.smoothness import sample_smoothness
from fcocheck.verify.cases import InstanceSpec, build
from fcocheck.verify.hyper import hyper_strategy
from fcocheck.verify.optimum import DegenerateInstanceError, optimum

LAMBDAS = st.sampled_from([0.1, 0.5, 0.02, 1.0])


@st.composite
def instance_specs(
    draw,
    layout: str = "general",
    psi: tuple[str, ...] = ("zero", "l2sq", "l1"),
    min_clients: int = 1,
    max_clients: int = 4,
    max_d: int = 4,
) -> InstanceSpec:
    """An ``InstanceSpec`` with a unique, certifiable minimiser.

    Args:
        draw: Hypothesis' draw function.
        layout: the data layout (``verify.cases.LAYOUTS``).
        psi: the ψ kinds to draw from (first = simplest).
        min_clients: smallest M (properties B–D need M ≥ 2 to say anything).
        max_clients: largest M.
        max_d: largest d (features per block for ``disjoint``).

    """
    M = draw(st.integers(min_clients, max_clients))
    d = draw(st.integers(1, max_d))
    rows_needed = d if layout in ("identical", "disjoint") else -(-d // M)
    n = draw(st.integers(rows_needed, rows_needed + 4))
    het = draw(st.sampled_from([0.0, 1.0, 0.3, 3.0])) if layout == "general" else 0.0
    kind = draw(st.sampled_from(psi))
    lam = draw(LAMBDAS) if kind != "zero" else 0.0
    spec = InstanceSpec(layout, M, d, n, het, kind, lam, draw(st.integers(0, 2**16)))
    try:
        opt = optimum(spec)
    except DegenerateInstanceError:
        assume(False)
    assume(opt.certificate <= 1e-10 * max(1.0, float(np.linalg.norm(opt.w))))
    return spec


@dataclass(frozen=True)
class Case:
    """One drawn (instance, hyper-parameters) pair."""

    spec: InstanceSpec
    hp: dict[str, Any]
    oracle: str = "exact"
    seed: int = 0
    participation: int | None = None

    def describe(self) -> str:
        """``M=2 d=1 n=1 zero general het=1; eta_c=0.1, local_steps=2``."""
        hp = ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in self.hp.items())
        extra = "" if self.oracle == "exact" else f"; oracle {self.oracle}, seed {self.seed}"
        if self.participation is not None:
            extra += f"; {self.participation} clients per round"
        return f"{self.spec.size()}; {hp or 'defaults'}{extra}"

    def record(self) -> dict[str, Any]:
        """JSON-ready form (for counterexample files)."""
        return {"hp": self.hp, "oracle": self.oracle, "seed": self.seed, "participation": self.participation}


@st.composite
def run_options(
    draw, M: int, sampling: bool = True, oracles: tuple[str, ...] = ("gaussian:0.5", "exact")
) -> dict[str, Any]:
    """Oracle, seed and clients per round (None = all M) of an identity's runs."""
    P = draw(st.integers(1, M)) if sampling else M
    return {
        "oracle": draw(st.sampled_from(oracles)),
        "seed": draw(st.integers(0, 100)),
        "participation": None if P == M else P,
    }


#: one oracle of each kind: every ``check`` run exercises all of them (``coverage``)
ORACLE_KINDS = ("exact", "gaussian:0.5", "minibatch:1")


def coverage(spec: InstanceSpec, hp: dict[str, Any]) -> list[Case]:
    """``spec`` and ``hp`` under every oracle kind × {full participation, one client per round}.

    Explicit examples run before the search (``Invariant.examples``), so each oracle and
    participation mode appears in every ``check`` whatever the seed.
    """
    modes = (None, 1) if spec.M > 1 else (None,)
    return [Case(spec, hp, oracle=o, seed=3, participation=P) for o in ORACLE_KINDS for P in modes]


@st.composite
def cases(
    draw,
    alg: Any,
    layout: str = "general",
    psi: tuple[str, ...] = ("zero", "l2sq", "l1"),
    min_clients: int = 1,
) -> Case:
    """An instance of ``layout`` and hyper-parameters of ``alg`` scaled to its L."""
    spec = draw(instance_specs(layout, psi, min_clients))
    opt = optimum(spec)
    hp = draw(hyper_strategy(alg, opt.L_max, sample_smoothness(build(spec))))
    return Case(spec, hp)


# --- the oracle grid (regulariser × mirror map) -------------------------------------------
finite = st.floats(-10, 10, allow_nan=False, allow_infinity=False)
lams = st.floats(0.0, 5.0)
radii = st.floats(0.1, 5.0)
steps = st.floats(0.01, 3.0)


def vectors(d: int) -> st.SearchStrategy:
    """Finite float64 vectors of length d."""
    return arrays(np.float64, (d,), elements=finite)


@st.composite
def convex_regularizers(draw, d: int) -> reg.Regularizer:
    """Every convex regulariser of ``solvers.regularizers`` on vectors of length d (d even for nuclear)."""
    kind = draw(
        st.sampled_from(
            [
                "zero",
                "l1",
                "l2sq",
                "elastic_net",
                "group_lasso",
                "nuclear",
                "l1_ball",
                "l2_ball",
                "box",
                "simplex",
                "nonneg",
                "monotone",
            ]
        )
    )
    if kind == "zero":
        return reg.Zero()
    if kind == "l1":
        return reg.L1(draw(lams))
    if kind == "l2sq":
        return reg.L2Squared(draw(st.floats(0.01, 5.0)))
    if kind == "elastic_net":
        return reg.ElasticNet(draw(lams), draw(st.floats(0.01, 5.0)))
    if kind == "group_lasso":
        return reg.GroupLasso(draw(lams), tuple(draw(st.lists(st.integers(0, 2), min_size=d, max_size=d))))
    if kind == "nuclear":
        return reg.Nuclear(draw(lams), (2, d // 2))
    if kind == "l1_ball":
        return reg.L1Ball(draw(radii))
    if kind == "l2_ball":
        return reg.L2Ball(draw(radii))
    if kind == "box":
        lo = draw(st.floats(-3, 0))
        return reg.Box(lo, lo + draw(st.floats(0.0, 3)))
    if kind == "simplex":
        return reg.Simplex(draw(radii))
    if kind == "nonneg":
        return reg.NonNegative()
    return reg.Monotone()


@st.composite
def weakly_convex(draw) -> tuple[reg.Regularizer, float]:
    """MCP or SCAD with a step t satisfying tρ < 1."""
    if draw(st.booleans()):
        psi = reg.MCP(draw(st.floats(0.05, 3.0)), draw(st.floats(1.5, 6.0)))
    else:
        psi = reg.SCAD(draw(st.floats(0.05, 3.0)), draw(st.floats(2.2, 6.0)))
    return psi, draw(st.floats(0.01, 0.95)) / psi.rho


@st.composite
def mirror_maps(draw, d: int) -> mm.MirrorMap:
    """Euclidean, diagonal, p-norm (and entropy, which the caller pairs with the unit simplex)."""
    kind = draw(st.sampled_from(["euclidean", "diagonal", "pnorm"]))
    if kind == "euclidean":
        return mm.Euclidean()
    if kind == "diagonal":
        return mm.DiagonalQuadratic(tuple(draw(st.lists(st.floats(0.1, 10.0), min_size=d, max_size=d))))
    return mm.PNorm(draw(st.floats(1.1, 2.0)))
