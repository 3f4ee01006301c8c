"""The instances the theorem experiments run on, with their certified optima (cached per process)."""

from __future__ import annotations

from functools import lru_cache

from fcocheck.solvers.generators import generate
from fcocheck.solvers.problem import Problem
from fcocheck.solvers.reference import reference_solve
from fcocheck.solvers.reference.solve import ReferenceSolution
from fcocheck.verify.classes import ASSUMPTION_2, DRIFT, DRIFT_TOL, FEDCANON_QUADRATICS


@lru_cache(maxsize=64)
def quadratics(
    zeta: float, lam: float = 0.01, clients: int = 8, assumption2: bool = True, seed: int = 0
) -> tuple[Problem, ReferenceSolution]:
    """FCO Assumption 2 instance: common diagonal Q (spectrum 0.1…1, so L = 1), ζ exact, ψ = λ‖·‖₁.

    ``assumption2`` uses h(w) = ½wᵀ(Q/‖Q‖₂)w, the norm of Assumption 2(c); otherwise FedCanon's class
    (``verify.classes.FEDCANON_QUADRATICS``: random Hessians, Euclidean h).
    """
    p = generate("quadratics", seed=seed, **{**(ASSUMPTION_2 if assumption2 else FEDCANON_QUADRATICS),
                                             "clients": clients, "zeta": zeta, "lam": lam})
    return p, reference_solve(p)




def drift_quadratics(zeta: float, seed: int = 0) -> tuple[Problem, ReferenceSolution]:
    """Heterogeneous Hessians (spread 0.5) on the ℓ1-ball of radius 3, ζ exact on the domain."""
    return drawn("quadratics", seed, DRIFT_TOL, **DRIFT, zeta=zeta)


def drawn(name: str, seed: int, tol: float | None = None, **params) -> tuple[Problem, ReferenceSolution]:
    """Generator ``name``'s instance ``seed`` and its reference optimum, cached per process.

    The optimum is certified to ``tol`` (the solver's default when None); studies and claims drawing one
    instance share it, whatever the order of the parameters (list values are keyed as tuples).
    """
    key = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in params.items()))
    return _drawn(name, seed, tol, key)


@lru_cache(maxsize=128)
def _drawn(name: str, seed: int, tol: float | None, key: tuple) -> tuple[Problem, ReferenceSolution]:
    p = generate(name, seed=seed, **dict(key))
    return p, (reference_solve(p) if tol is None else reference_solve(p, tol=tol))
