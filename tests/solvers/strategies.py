"""Hypothesis strategies for oracles (DESIGN 11: simplest alternatives first)."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from solvers import regularizers as reg

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
        return reg.Zero()
    if kind == "l1":
        return reg.L1(draw(lams))
    if kind == "l2sq":
        return reg.L2Squared(draw(st.floats(0.01, 5.0)))
    if kind == "elastic_net":
        return reg.ElasticNet(draw(lams), draw(st.floats(0.01, 5.0)))
    if kind == "group_lasso":
        groups = draw(st.lists(st.integers(0, 2), min_size=d, max_size=d))
        return reg.GroupLasso(draw(lams), tuple(groups))
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
def weakly_convex(draw):
    """MCP or SCAD with a step t satisfying tρ < 1."""
    if draw(st.booleans()):
        gamma = draw(st.floats(1.5, 6.0))
        psi = reg.MCP(draw(st.floats(0.05, 3.0)), gamma)
    else:
        a = draw(st.floats(2.2, 6.0))
        psi = reg.SCAD(draw(st.floats(0.05, 3.0)), a)
    t = draw(st.floats(0.01, 0.95)) / psi.rho
    return psi, t
