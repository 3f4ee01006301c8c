"""The function class of a ``PepSpec`` declared in a PEPit problem (see ``spec`` for the classes).

``declare(spec)`` returns a ``Setting``: the PEP, ψ (None when ψ = 0), Φ, the optimum w*, the
start w0 with ½‖w0 − w*‖² ≤ B, and ``grad(m, w)``: client m's gradient at w.  PEPit is imported
here, lazily, so importing ``rates`` stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fcocheck.rates.worstcase.spec import PepSpec


@dataclass
class Setting:
    """A declared PEP with its function class (all members are PEPit objects)."""

    pep: Any
    F: Any
    psi: Any | None
    Phi: Any
    w_star: Any
    w0: Any
    grad: Callable[[int, Any], Any]
    proxes: dict[Any, Any] = field(default_factory=dict)  # (z as an expression, t) → prox_{tψ}(z)


def average(points: list[Any]) -> Any:
    """(1/n) Σ points (PEPit points or expressions)."""
    total = points[0]
    for p in points[1:]:
        total = total + p
    return total / len(points)


def prox(setting: Setting, z: Any, t: float) -> Any:
    """∇(h + tψ)*(z) = prox_{tψ}(z) for Euclidean h; z itself when t = 0 or ψ = 0.

    Computed once per point and step: a method that maps one point several times (FedDualAvg's
    round start, mapped by every client's first step and by the round's output) gets one PEPit
    point.  Each ``proximal_step`` call adds a point to the Gram matrix and ψ's interpolation
    constraints grow with the square of ψ's points; the copies, forced equal by ψ's convexity, also
    leave no strictly feasible Gram matrix (Lemma 4.5's worst case came out 0.250095 for its exact
    0.25, with the copies; 0.2500000002 without).  The key is ``z`` as a linear expression of the
    PEP's leaf points, so equal expressions built separately share too.
    """
    if setting.psi is None or t == 0:
        return z
    key = (frozenset((id(leaf), c) for leaf, c in z.decomposition_dict.items()), t)
    if key not in setting.proxes:
        from PEPit.primitive_steps import proximal_step

        setting.proxes[key] = proximal_step(z, setting.psi, t)[0]
    return setting.proxes[key]


def declare(spec: PepSpec) -> Setting:
    """Declare F (or F_1..F_M), ψ, w*, w0 and the clients' gradient oracle of ``spec``."""
    from fcocheck.solvers.reference.cvx_import import import_cvxpy

    import_cvxpy()  # before PEPit imports it: scipy.stats deferred (``cvx_import``)
    from PEPit import PEP

    pep = PEP()
    if spec.norm == "q":
        return _q_norm(pep, spec)
    F, grad = _clients(pep, spec)
    psi = None
    Phi = F
    if spec.psi == "convex":
        from PEPit.functions import ConvexFunction

        psi = pep.declare_function(ConvexFunction)
        Phi = F + psi
    w_star = Phi.stationary_point()
    w0 = pep.set_initial_point()
    pep.set_initial_condition(0.5 * (w0 - w_star) ** 2 <= spec.B)
    return Setting(pep, F, psi, Phi, w_star, w0, grad)


def _q_norm(pep: Any, spec: PepSpec) -> Setting:
    """FCO Assumption 2 in its own norm (``PepSpec.norm = 'q'``).

    With a common Hessian Q and h = ½wᵀQw/‖Q‖₂, the coordinates v = (Q/‖Q‖₂)^{1/2} w make h = ½‖v‖² and
    every F_m = (L/2)‖v‖² + ⟨c_m, v⟩ (L = ‖Q‖₂) on range Q; ζ bounds ‖c_m − c̄‖ there (the dual norm of
    Assumption 2(c)).  The gradients are then explicit: ∇F_m(v) = L v + c_m.  Only the discrepancy
    metric is asked of this class (no Φ is declared).
    """
    psi = None
    if spec.psi == "convex":
        from PEPit.functions import ConvexFunction

        psi = pep.declare_function(ConvexFunction)
    shifts = _shifts(pep, spec)
    w0 = pep.set_initial_point()
    w_star = pep.set_initial_point()
    pep.set_initial_condition(0.5 * (w0 - w_star) ** 2 <= spec.B)

    def grad(m: int, w: Any) -> Any:
        return spec.L * w if shifts is None else spec.L * w + shifts[m]

    return Setting(pep, None, psi, None, w_star, w0, grad)


def _smooth(pep: Any, spec: PepSpec) -> Any:
    from PEPit.functions import (
        SmoothConvexFunction,
        SmoothStronglyConvexFunction,
        SmoothStronglyConvexQuadraticFunction,
    )

    if spec.quadratic:
        return pep.declare_function(SmoothStronglyConvexQuadraticFunction, mu=spec.mu, L=spec.L)
    if spec.mu > 0:
        return pep.declare_function(SmoothStronglyConvexFunction, mu=spec.mu, L=spec.L)
    return pep.declare_function(SmoothConvexFunction, L=spec.L)


def _clients(pep: Any, spec: PepSpec) -> tuple[Any, Callable[[int, Any], Any]]:
    """F and client m's gradient under the heterogeneity class ``spec.clients``."""
    if spec.clients == "shift" or spec.M == 1:
        F = _smooth(pep, spec)
        shifts = _shifts(pep, spec)
        if shifts is None:
            return F, lambda m, w: F.gradient(w)
        return F, lambda m, w: F.gradient(w) + shifts[m]
    if spec.clients == "bounded-gradient":
        from PEPit.functions import SmoothConvexLipschitzFunction

        fs = [pep.declare_function(SmoothConvexLipschitzFunction, L=spec.L, M=spec.G) for _ in range(spec.M)]
    else:
        fs = [_smooth(pep, spec) for _ in range(spec.M)]
    return average(fs), lambda m, w: fs[m].gradient(w)


def _shifts(pep: Any, spec: PepSpec) -> list[Any] | None:
    """c_1..c_M with Σ c_m = 0 and ‖c_m‖² ≤ ζ² (None when ζ = 0 or M = 1: every c_m = 0)."""
    if spec.zeta == 0 or spec.M == 1:
        return None
    free = [pep.set_initial_point() for _ in range(spec.M - 1)]
    last = -1 * free[0]
    for c in free[1:]:
        last = last - c
    shifts = [*free, last]
    for c in shifts:
        pep.add_constraint(c**2 <= spec.zeta**2)
    return shifts
