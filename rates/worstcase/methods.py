"""The methods of the source papers written as PEPit programs (Euclidean h, exact gradients).

Each program runs on a declared ``Setting`` and returns a ``Program``: the point whose quality is
measured and, for the dual methods, the dual states needed by Lemma 4.4/4.5.  Notation:
round r < R, local step k < K, client m; ``prox(z, t)`` is ∇(h + tψ)*(z).

Outputs (what ``value`` measures):

* ``pgm``: the last iterate x_R (the closed form L‖x0 − x*‖²/(4R) of Taylor et al. 2017 is for it);
* ``dual-averaging``, ``feddualavg``, ``feddualavg-osp`` (η_s = 1): ŵ of FCO eq. (4.2), the average over
  r, k = 1..K of prox_{η̃_{r,k}ψ}(z̄_{r,k}) with the dual shadow z̄ — never a client's iterate;
* every primal federated method (SCAFFOLD, FedCanon, and every primal method card — FedAvg, FedMiD
  printed/averaging, FedMiD-OSP, FedAvgM, a user's card): the average (1/R) Σ_{r=1..R} w_r of the
  server iterates.

A method card's program is not written here: it is its card's own steps run on PEPit points
(``rates.worstcase.cards``), registered below for every card, a user's included — FedDualAvg's card
also gives dual averaging (M = K = 1).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fcocheck.rates.worstcase.setting import Setting, average, prox
from fcocheck.rates.worstcase.spec import InvalidWorstCaseError, PepSpec


@dataclass
class Program:
    """What a method leaves for the metric: its output and its per-step dual discrepancies."""

    out: Any
    discrepancies: list[Any] = field(default_factory=list)
    last_discrepancy: Any | None = None


@dataclass(frozen=True)
class PepMethod:
    """A method as a PEPit program, with what it can be asked.

    Attributes:
        name: registry key (the solvers' algorithm name where one exists).
        citation: where the method is defined.
        run: ``run(setting, spec) -> Program``.
        federated: False for sequential methods (M = K = 1 enforced).
        smooth_only: the method has no ψ-step (FedAvg, SCAFFOLD): ψ must be zero.
        dual: has dual states (Lemma 4.4/4.5 metrics).

    """

    name: str
    citation: str
    run: Callable[[Setting, PepSpec], Program]
    federated: bool = True
    smooth_only: bool = False
    dual: bool = False

    def check(self, spec: PepSpec) -> None:
        """Raise ``InvalidWorstCaseError`` when ``spec`` asks this method something it cannot do."""
        if not self.federated and (spec.M, spec.K) != (1, 1):
            raise InvalidWorstCaseError(
                f"{self.name} is sequential: M = {spec.M}, K = {spec.K}; the rule is M = K = 1 (R steps)"
            )
        if not self.federated and spec.eta_s != 1:
            raise InvalidWorstCaseError(
                f"{self.name} is sequential: eta_s = {spec.eta_s}; the rule is eta_s = 1"
            )
        if self.smooth_only and spec.psi != "zero":
            raise InvalidWorstCaseError(
                f"{self.name} has no step for ψ: psi = {spec.psi!r}; the rule is psi = 'zero'"
            )
        if spec.metric in ("lemma-4.4", "discrepancy") and not self.dual:
            raise InvalidWorstCaseError(
                f"metric {spec.metric!r} needs dual states; {self.name} has none (the rule: a dual method)"
            )
        if spec.mu > 0 and self.federated and spec.clients != "shift":
            raise InvalidWorstCaseError(
                f"mu = {spec.mu} with {self.name} and clients {spec.clients!r}; the rule is μ = 0 for a "
                "federated method unless the clients are shifts of one μ-strongly convex F (clients 'shift')"
            )


def pgm(s: Setting, spec: PepSpec) -> Program:
    """Proximal gradient (FCO eq. 2.1): x_{t+1} = prox_{ηψ}(x_t − η∇F(x_t)), R steps."""
    x = s.w0
    for _ in range(spec.R):
        x = prox(s, x - spec.eta * s.grad(0, x), spec.eta)
    return Program(x)


def fedcanon(s: Setting, spec: PepSpec) -> Program:
    """FedCanon (eqs. 7a–7f): corrected local steps, one server prox with η_g = ``eta_s``."""
    eta, M, K = spec.eta, spec.M, spec.K
    x, ci, iterates = s.w0, [None] * M, []
    for _ in range(spec.R):
        ends, means = [], []
        for m in range(M):
            y, grads = x, []
            for _ in range(K):
                g = s.grad(m, y)
                grads.append(g)
                y = y - eta * (g if ci[m] is None else g + ci[m])
            ends.append(y)
            means.append(average(grads))
        g_t = average([(x - y) / (eta * K) for y in ends])
        x = prox(s, x - spec.eta_s * g_t, spec.eta_s)
        ci = [g_t - mean for mean in means]
        iterates.append(x)
    return Program(average(iterates))


METHODS: dict[str, PepMethod] = {
    m.name: m
    for m in (
        PepMethod("pgm", "FCO eq. (2.1); Taylor, Hendrickx & Glineur 2017", pgm, federated=False),
        PepMethod("fedcanon", "FedCanon eqs. (7a)–(7f)", fedcanon),
    )
}


def card_method(card: Any) -> PepMethod:
    """The PEP method of a card (its steps on PEPit points; ψ-free cards take ψ = 0 only)."""
    from fcocheck.rates.worstcase.cards import program

    return PepMethod(card.name, f"{card.citation} (from its card)", program(card),
                     smooth_only=not card.uses_psi, dual=card.dual)


def _cards() -> None:
    from fcocheck.rates.worstcase.cards import program
    from fcocheck.solvers import algorithms

    METHODS.update({name: card_method(card) for name, card in algorithms.CARDS.items()})
    # dual averaging (FCO eq. 2.4) is FedDualAvg with one client, one local step and η_s = 1
    METHODS["dual-averaging"] = PepMethod("dual-averaging", "FCO eq. (2.4) (FedDualAvg's card at M = K = 1)",
                                          program(algorithms.CARDS["feddualavg"]), federated=False, dual=True)
    algorithms._ON_REGISTER.append(lambda card: METHODS.__setitem__(card.name, card_method(card)))
    algorithms._ON_UNREGISTER.append(lambda name: METHODS.pop(name, None))


_cards()
