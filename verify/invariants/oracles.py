"""Oracle identities over the full regulariser × mirror-map grid .

For a drawn (h, ψ, t, v, u, z):
* Fenchel–Young equality at the prox (Moreau): p = prox_{tψ}(v) satisfies
  tψ(p) + tψ*((v − p)/t) = ⟨p, v − p⟩ — the prox checked against the independently coded ψ*
  (for norms (v − p)/t lies on the boundary of the dual ball, where the indicator ψ* jumps:
  ψ* is evaluated at its projection onto dom ψ*, and the distance moved counts as residual);
* firm non-expansiveness: ‖P(v) − P(u)‖² ≤ ⟨P(v) − P(u), v − u⟩;
* the composite map w = ∇(h + tψ)*(z) minimises J(x) = −⟨z, x⟩ + tψ(x) + h(x): J(w) ≤ J(x) at the
  composite images of nearby duals (feasible competitors);
* ∇h*(∇h(w)) = w.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import strategies as st

from fcocheck.solvers import mirror_maps as mm
from fcocheck.solvers import regularizers as reg
from fcocheck.solvers.composite import composite_map
from fcocheck.solvers.errors import NoClosedFormError
from fcocheck.verify.evidence import Evidence, bounded, not_applicable
from fcocheck.verify.invariants.base import Invariant
from fcocheck.verify.strategies import convex_regularizers, mirror_maps, steps, vectors

D = 4
TOL = 1e-9


@dataclass(frozen=True)
class OracleCase:
    """One point of the grid."""

    h: Any
    psi: Any
    t: float
    v: np.ndarray
    u: np.ndarray

    def describe(self) -> str:
        """ψ, h and t."""
        return f"ψ={self.psi.spec()}, h={self.h.spec()}, t={self.t:.3g}"

    def record(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "psi": self.psi.spec(),
            "h": self.h.spec(),
            "t": self.t,
            "v": self.v.tolist(),
            "u": self.u.tolist(),
        }


@st.composite
def oracle_cases(draw) -> OracleCase:
    """(h, ψ) over the grid (entropy only with the unit simplex), a step and two points."""
    if draw(st.integers(0, 9)) == 9:
        h, psi = mm.Entropy(), reg.Simplex(1.0)
    else:
        h, psi = draw(mirror_maps(D)), draw(convex_regularizers(D))
    return OracleCase(h, psi, draw(steps), draw(vectors(D)), draw(vectors(D)))


def _scale(*xs: np.ndarray) -> float:
    return max(1.0, *(float(np.abs(x).max()) for x in xs))


def oracle_identities(c: OracleCase) -> Evidence:
    """The worst relative residual of the four identities on the case."""
    with np.errstate(over="ignore", invalid="ignore"):
        return _identities(c)


def _identities(c: OracleCase) -> Evidence:
    psi, t = c.psi, c.t
    p, q = psi.prox(c.v, t), psi.prox(c.u, t)
    y = (c.v - p) / t
    y_in = psi.dual_project(y)  # the boundary point, rounding put back inside dom ψ*
    moved = float(np.abs(y - y_in).max(initial=0.0)) * t
    fy = abs(t * float(psi.value(p)) + t * float(psi.conjugate(y_in)) - float(p @ (c.v - p)))
    fy = max(fy / _scale(c.v, p) ** 2, moved / _scale(c.v, p))
    firm = max(0.0, float((p - q) @ (p - q) - (p - q) @ (c.v - c.u))) / _scale(c.v, c.u) ** 2
    try:
        w = composite_map(c.h, psi, c.v, t)
    except NoClosedFormError as exc:
        return not_applicable("oracles", str(exc))

    def J(x: np.ndarray) -> float:
        return float(-c.v @ x + t * psi.value(x) + c.h.h(x))

    rivals = [composite_map(c.h, psi, c.v + e, t) for e in (1e-3 * (c.u - c.v), 0.1 * (c.u - c.v), c.u - c.v)]
    opt = max(0.0, max(J(w) - J(x) for x in rivals)) / _scale(np.array([J(w)]))
    x0 = c.h.grad_conj(c.v)
    inv = float(np.abs(c.h.grad_conj(c.h.grad(x0)) - x0).max()) / _scale(x0)
    worst = max(fy, firm, opt, inv)
    return bounded(
        "oracles",
        worst,
        TOL,
        f"Fenchel–Young {fy:.1e}, firm non-exp. {firm:.1e}, composite "
        f"optimality {opt:.1e}, ∇h*∇h {inv:.1e} (rule ≤ {TOL:g}); {c.describe()}",
    )


def grid_examples() -> list[OracleCase]:
    """Every convex regulariser with every mirror map (and entropy with the unit simplex), fixed points."""
    v = np.array([1.3, -0.4, 0.05, -2.2])
    u = np.array([-0.7, 0.9, 1.6, 0.2])
    psis = [
        reg.Zero(),
        reg.L1(0.3),
        reg.L2Squared(0.7),
        reg.ElasticNet(0.3, 0.5),
        reg.GroupLasso(0.3, (0, 0, 1, 1)),
        reg.Nuclear(0.3, (2, 2)),
        reg.L1Ball(1.0),
        reg.L2Ball(1.0),
        reg.Box(-0.5, 0.5),
        reg.Simplex(1.0),
        reg.NonNegative(),
        reg.Monotone(),
    ]
    maps = [mm.Euclidean(), mm.DiagonalQuadratic((0.5, 1.0, 2.0, 4.0)), mm.PNorm(1.5)]
    out = []
    for h in maps:
        for psi in psis:
            for t in (0.1, 1.3):
                out.append(OracleCase(h, psi, t, v, u))
    out.append(OracleCase(mm.Entropy(), reg.Simplex(1.0), 0.5, v, u))
    return out


INVARIANTS = (
    Invariant(
        "oracles",
        "the oracle contracts of solvers/regularizers and solvers/mirror_maps",
        "prox/ψ* Fenchel–Young, firm non-expansiveness, ∇(h+tψ)* optimality, ∇h*∘∇h = id",
        (),
        "holds",
        oracle_cases,
        oracle_identities,
        grid_examples,
    ),
)
