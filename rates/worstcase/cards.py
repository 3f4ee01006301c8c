"""A method card's PEP program: the card's own steps run on PEPit points (Euclidean h, exact gradients).

Nothing of the method is written here: the client step, the server transforms and the apply are the
card's (``fcocheck.solvers.card``), called with ``PepOps`` — ∇h and ∇h* the identity, ∇(h + tψ)* the
proximal step of the declared ψ, ∂ψ a subgradient of it.  The output is the average
(1/R) Σ_{r=1..R} w_r of the server iterates (the primal family's ŵ); for a card with a dual step
(FedDualAvg and its OSP variant) it is ŵ of eq. (4.2) when η_s = 1 — the primal images
∇(h + η̃_{r,k}ψ)*(z̄_{r,k}) of the dual shadow, k = 1..K — and the average of the server points
otherwise (the shadow is then not the server's state: Thm 4.1's regime), and the program also
leaves the per-step discrepancies (1/M) Σ_m ‖z̄ − z^m‖² that Lemmas 4.4–4.5 bound.
Hyper-parameters come from the ``PepSpec``: η_c = ``eta``, η_s = ``eta_s``, K = ``K``, and any other
parameter of the card from ``spec.extra`` (else its default).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fcocheck.rates.worstcase.setting import Setting, average, prox
from fcocheck.rates.worstcase.spec import InvalidWorstCaseError, PepSpec
from fcocheck.solvers.card.params import REQUIRED

#: the PepSpec field that carries each shared hyper-parameter (a client step η_c or η_l, a server step
#: η_s or η_g, K)
SHARED = {"eta_c": "eta", "eta_l": "eta", "eta_s": "eta_s", "eta_g": "eta_s", "local_steps": "K"}


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

    if card.dual:
        return _dual_program(card, make_ops)
    if card.memory is not None:
        return _memory_program(card, make_ops)

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


def _dual_program(card: Any, make_ops: Callable[[Any], Any]) -> Callable[[Setting, PepSpec], Any]:
    """``run(setting, spec) -> Program`` for a card with a dual step (module docstring)."""
    from fcocheck.rates.worstcase.methods import Program

    step = card.client

    def run(s: Setting, spec: PepSpec) -> Any:
        hp, ops = card_hyper(card, spec), make_ops(s)
        shadow = spec.eta_s == 1
        z, states, images, disc, last = ops.mirror(s.w0), tuple(None for _ in card.server), [], [], None
        for r in range(spec.R):
            zm = [z] * spec.M
            for k in range(spec.K):
                t = step.tilde(hp, r, k)
                zbar = average(zm)
                if k > 0 and shadow:
                    images.append(ops.prox(zbar, t))
                disc.append(average([(zbar - zj) ** 2 for zj in zm]))
                zm = [step(zj, s.grad(j, step.query(zj, t, ops)), hp, ops) for j, zj in enumerate(zm)]
            zbar = average(zm)
            last = average([(zbar - zj) ** 2 for zj in zm])
            z, w, states = card.dual_server_step(z, zbar - z, states, hp, ops, r)
            images.append(w)
        return Program(average(images), disc, last)

    run.__doc__ = f"{card.name} ({card.citation}), derived from its card (dual step)."
    return run


def _memory_program(card: Any, make_ops: Callable[[Any], Any]) -> Callable[[Setting, PepSpec], Any]:
    """``run(setting, spec) -> Program`` for a card with a client memory (SCAFFOLD's control variates).

    Every client takes part (weights 1/M); each memory starts as ``None`` (zero) and the correction is
    skipped while it is.  The output is the average of the server iterates.
    """
    from fcocheck.rates.worstcase.methods import Program

    step, memory = card.client, card.memory

    def run(s: Setting, spec: PepSpec) -> Any:
        hp, ops = card_hyper(card, spec), make_ops(s)
        w, states, iterates = s.w0, tuple(None for _ in card.server), []
        C, c = [None] * spec.M, None
        for _ in range(spec.R):
            ends, new = [], []
            for m in range(spec.M):
                y, e = w, memory.correction(C[m], c)
                for _ in range(spec.K):
                    y = step(y, s.grad(m, y), hp, ops, e)
                ends.append(y)
                new.append(memory.update(C[m], c, w, y, hp))
            change = average([cn if co is None else cn - co for cn, co in zip(new, C, strict=True)])
            c, C = memory.server(c, change), new
            w, states = card.server_step(w, average(ends) - w, states, hp, ops)
            iterates.append(w)
        return Program(average(iterates))

    run.__doc__ = f"{card.name} ({card.citation}), derived from its card (client memory)."
    return run
