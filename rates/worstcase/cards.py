"""A method card's PEP program: the card's own steps run on PEPit points (Euclidean h, exact gradients).

Nothing of the method is written here: the client step, the server transforms and the apply are the
card's (``fcocheck.solvers.card``), called with ``PepOps`` — ∇h and ∇h* the identity, ∇(h + tψ)* the
proximal step of the declared ψ, ∂ψ a subgradient of it.  The output is the average
(1/R) Σ_{r=1..R} w_r of the server iterates (the primal family's ŵ), as for the hand-written
programs it replaces.  Hyper-parameters come from the ``PepSpec``: η_c = ``eta``, η_s = ``eta_s``,
K = ``K``, and any other parameter of the card from ``spec.extra`` (else its default).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fcocheck.rates.worstcase.setting import Setting, average, prox
from fcocheck.rates.worstcase.spec import InvalidWorstCaseError, PepSpec
from fcocheck.solvers.card.params import REQUIRED

#: the PepSpec field that carries each shared hyper-parameter
SHARED = {"eta_c": "eta", "eta_s": "eta_s", "local_steps": "K"}


class PepOps:
    """``Ops`` on PEPit points for a Euclidean h."""

    def __init__(self, setting: Setting) -> None:
        self.s = setting

    def mirror(self, x: Any) -> Any:
        """∇h = identity."""
        return x

    def conj(self, v: Any) -> Any:
        """∇h* = identity."""
        return v

    def prox(self, v: Any, t: float) -> Any:
        """prox_{tψ}(v) (v itself when ψ = 0 or t = 0)."""
        return prox(self.s, v, t)

    def subgrad(self, x: Any) -> Any:
        """A subgradient of ψ at x (the zero vector when ψ = 0)."""
        return 0 * x if self.s.psi is None else self.s.psi.subgradient(x)


def card_hyper(card: Any, spec: PepSpec) -> Any:
    """The card's hyper-parameters at ``spec`` (shared ones from its fields, the rest from ``extra``)."""
    extra = dict(spec.extra)
    names = {p.name for p in card.params}
    unknown = sorted(set(extra) - names)
    if unknown:
        raise InvalidWorstCaseError(f"{card.name} has no hyper-parameter {unknown[0]!r}; its parameters are "
                                    f"{sorted(names)}")
    values = {}
    for p in card.params:
        if p.name in SHARED:
            values[p.name] = getattr(spec, SHARED[p.name])
        elif p.name in extra:
            values[p.name] = extra[p.name]
        elif p.default is REQUIRED:
            raise InvalidWorstCaseError(f"{card.name}: hyper-parameter {p.name!r} has no default; the rule "
                                        f"is --param {p.name}=VALUE")
    hp = card.hyper()(**values)
    hp.check()
    return hp


def program(card: Any, make_ops: Callable[[Any], Any] = PepOps) -> Callable[[Setting, PepSpec], Any]:
    """``run(setting, spec) -> Program`` for ``card`` (module docstring).

    ``make_ops``: the vector operations (PEPit's by default; a test runs the same program on numbers
    to compare it with the engine).
    """
    from fcocheck.rates.worstcase.methods import Program

    def run(s: Setting, spec: PepSpec) -> Any:
        hp, ops = card_hyper(card, spec), make_ops(s)
        w, states, iterates = s.w0, tuple(None for _ in card.server), []
        for _ in range(spec.R):
            ends = []
            for m in range(spec.M):
                x = w
                for _ in range(spec.K):
                    x = card.client(x, s.grad(m, x), hp, ops)
                ends.append(x)
            w, states = card.server_step(w, average(ends) - w, states, hp, ops)
            iterates.append(w)
        return Program(average(iterates))

    run.__doc__ = f"{card.name} ({card.citation}), derived from its card."
    return run
