"""Hypothesis strategies for oracles (DESIGN 11: simplest alternatives first)."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from solvers.regularizers import (
    L1,
    MCP,
    SCAD,
    Box,
    ElasticNet,
    GroupLasso,
    L1Ball,
    L2Ball,
    L2Squared,
    Monotone,
    NonNegative,
    Nuclear,
    Simplex,
    Zero,
)

finite = st.floats(-10, 10, allow_nan=False, allow_infinity=False)
lams = st.floats(0.0, 5.0)
radii = st.floats(0.1, 5.0)
steps = st.floats(0.01, 3.0)


def vectors(d: int):
    return arrays(np.float64, (d,), elements=finite)


@st.composite
def convex_regularizers(draw, d: int):
    """(ψ, d) for every convex regulariser of SPEC 2.1 on vectors of length d."""
    kind = draw(st.sampled_from(["zero", "l1", "l2sq", "elastic_net", "group_lasso", "nuclear",
                                 "l1_ball", "l2_ball", "box", "simplex", "nonneg", "monotone"]))
    if kind == "zero":
        return Zero()
    if kind == "l1":
        return L1(draw(lams))
    if kind == "l2sq":
        return L2Squared(draw(st.floats(0.01, 5.0)))
    if kind == "elastic_net":
        return ElasticNet(draw(lams), draw(st.floats(0.01, 5.0)))
    if kind == "group_lasso":
        groups = draw(st.lists(st.integers(0, 2), min_size=d, max_size=d))
        return GroupLasso(draw(lams), tuple(groups))
    if kind == "nuclear":
        return Nuclear(draw(lams), (2, d // 2))
    if kind == "l1_ball":
        return L1Ball(draw(radii))
    if kind == "l2_ball":
        return L2Ball(draw(radii))
    if kind == "box":
        lo = draw(st.floats(-3, 0))
        return Box(lo, lo + draw(st.floats(0.0, 3)))
    if kind == "simplex":
        return Simplex(draw(radii))
    if kind == "nonneg":
        return NonNegative()
    return Monotone()


@st.composite
def weakly_convex(draw):
    """MCP or SCAD with a step t satisfying tρ < 1."""
    if draw(st.booleans()):
        gamma = draw(st.floats(1.5, 6.0))
        psi = MCP(draw(st.floats(0.05, 3.0)), gamma)
    else:
        a = draw(st.floats(2.2, 6.0))
        psi = SCAD(draw(st.floats(0.05, 3.0)), a)
    t = draw(st.floats(0.01, 0.95)) / psi.rho
    return psi, t
