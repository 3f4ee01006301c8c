"""Certified reference optima: cvxpy cross-checked by a certified first-order method."""

from fcocheck.solvers.reference.certificate import Certificate, prox_grad_norm
from fcocheck.solvers.reference.gram import GramForm, gram_form
from fcocheck.solvers.reference.solve import GLOBAL, STATIONARY, ReferenceSolution, reference_solve

__all__ = ["Certificate", "GramForm", "gram_form", "prox_grad_norm", "reference_solve",
           "ReferenceSolution", "GLOBAL", "STATIONARY"]
