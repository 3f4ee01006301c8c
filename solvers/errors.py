"""Exception types: one per kind of bad input.

Every message names the offending value and the rule it breaks.  The CLI prints the
message (never a traceback) and exits with status 2.
"""

from __future__ import annotations


class FcocheckError(ValueError):
    """Base class for every input error raised by fcocheck."""


class InvalidProblemError(FcocheckError):
    """Problem data breaks a rule (shapes, NaN/inf, empty clients, unknown loss)."""


class InvalidRegularizerError(FcocheckError):
    """A regulariser parameter breaks its rule (negative λ or radius, a > 2 for SCAD, ...)."""


class InvalidMirrorMapError(FcocheckError):
    """A mirror-map parameter breaks its rule (p outside (1, 2], non-positive diagonal)."""


class InvalidStepSizeError(FcocheckError):
    """A step size breaks its rule (t < 0, or tρ ≥ 1 for a weakly convex prox)."""


class NoClosedFormError(FcocheckError):
    """The composite map ∇(h + tψ)* has no closed form for this (h, ψ) pair."""


class InvalidInstanceFileError(FcocheckError):
    """An instance file is unreadable, misses keys or names unknown components."""


class InvalidOracleError(FcocheckError):
    """A stochastic-oracle specification is malformed or incompatible with the problem."""


class InvalidAlgorithmError(FcocheckError):
    """An unknown algorithm name, or an algorithm that cannot run on this problem."""


class InvalidHyperparameterError(FcocheckError):
    """A hyper-parameter or run setting breaks its rule (unknown name, K < 1, R < 0, P > M)."""


class CertificationError(RuntimeError):
    """The reference solvers disagree, or the certified accuracy target was not met."""


class InterruptedRunError(RuntimeError):
    """A run stopped by Ctrl-C; what it completed was kept (the CLI then ends by SIGINT)."""
