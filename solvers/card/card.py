"""A method card: one description of a federated method in paper form, from which every form follows.

A card states a method the way its paper does — hyper-parameters (with their rules, neutral values
and the grid checks draw from), the client step, the server transforms and the server apply, what it
claims and where it is defined:

    FEDAVGM = Card(
        "fedavgm", "FedAvg with server momentum", "Hsu, Qi & Brown 2019, Alg. 1",
        params=(eta_c(), eta_s(), local_steps(), Param("beta", 0.0, "momentum β", unit_interval, 0.0,
                                                       (0.0, 0.5, 0.9))),
        client=Gradient(), server=(Trace("beta"), Scale("eta_s")), apply=Add(),
        reduces_to=(Reduction("fedavg", {"beta": 0.0}), ...))

Derived from it (never written again): the engine's vectorised round (``algorithm()``, with the
compiled K-step pass selected from the client step's ``compiled`` form), the per-round counts
(``counts``), the ψ-weights the engine checks before round 0, the registry flags (``uses_prox``,
``solves_composite``, …), the PEP program (``fcocheck.rates.worstcase.cards``) and the written-out
per-client reference (``fcocheck.verify.invariants.cards``).

One round (FCO Alg. 1–2 with a stateful server):  w^m_{r,0} = w_r; w^m_{r,k+1} = step(w^m_{r,k}, g^m_{r,k});
Δ_r = Σ_{m∈S_r} p̃_m (w^m_{r,K} − w_r); (u_r, s_{r+1}) = chain(Δ_r, s_r); w_{r+1} = apply(w_r, u_r).

A card whose client step is a ``DualStep`` (FCO Alg. 3) runs the same round in the dual: the clients
start from the server's dual point z_r, step z ← z − η_c g at x = ∇(h + η̃_{r,k}ψ)*(z), Δ_r is the
weighted mean of z^m_{r,K} − z_r, and ``DualAdd`` gives z_{r+1} = z_r + u_r and
w_{r+1} = ∇(h + η̃_{r+1,0}ψ)*(z_{r+1}); the round also logs the primal images of the dual shadow whose
average is ŵ (eq. 4.2).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from fcocheck.solvers.algorithms.base import Algorithm, Counts, Env, RoundLog
from fcocheck.solvers.algorithms.control import corrected_local
from fcocheck.solvers.algorithms.primitives import client_weights, dual_local, primal_round
from fcocheck.solvers.card.params import Param, hyper_class
from fcocheck.solvers.card.reduction import Reduction
from fcocheck.solvers.card.steps import (
    Add,
    Corrected,
    DualAdd,
    DualStep,
    Gradient,
    Mirror,
    MirrorAdd,
    Scale,
    Subgradient,
    Trace,
)

Array = np.ndarray
ClientStep = Gradient | Subgradient | Mirror | DualStep | Corrected
Transform = Scale | Trace
Apply = Add | MirrorAdd | DualAdd


_HYPERS: dict[int, tuple[Any, type]] = {}


class CardState(NamedTuple):
    """Server state of a card's method: w_r, the round index r, and each server transform's state."""

    w: Array
    r: int
    server: tuple = ()


class MemoryCardState(NamedTuple):
    """Server state of a card with a client memory.

    w_r, every client's memory c (M, dim), the server's part of it (``server``: SCAFFOLD's c), r, and
    each server transform's state (``chain``).  The first four fields are those of the hand-written
    control-variate methods' ``ControlState``, so a user's SCAFFOLD written against it can borrow this
    card's state at the optimum.
    """

    w: Array
    c: Array
    server: Array
    r: int
    chain: tuple = ()


class DualCardState(NamedTuple):
    """Server state of a card with a dual step: z_r, its primal image w_r, r, each transform's state."""

    z: Array
    w: Array
    r: int
    server: tuple = ()


def check_declarations(card: Any) -> None:
    """A card's declarations follow their rules, checked when it is built.

    Its name is plain (it names files), its parameters are ``Param`` objects with distinct identifier
    names, and each reduction names only the card's own parameters (``Reduction.check``).
    """
    from fcocheck.solvers.errors import InvalidAlgorithmError
    from fcocheck.solvers.files import PLAIN_RULE, is_plain_name

    if not is_plain_name(card.name):
        raise InvalidAlgorithmError(f"card name {card.name!r}; the rule is {PLAIN_RULE}")
    names = [getattr(p, "name", None) for p in card.params]
    bad = [n for n in names if names.count(n) > 1 or not (isinstance(n, str) and n.isidentifier())]
    if bad or not all(isinstance(p, Param) for p in card.params):
        raise InvalidAlgorithmError(f"card {card.name!r}: parameters {names}; the rule is Param objects with "
                                    f"distinct identifier names ({sorted(set(map(str, bad)))} break it)")
    for red in card.reduces_to:
        if not isinstance(red, Reduction):
            raise InvalidAlgorithmError(f"card {card.name!r}: reduces_to holds {red!r}; the rule is "
                                        "Reduction objects")
        red.check(card.name, names)


@dataclass(frozen=True)
class Card:
    """A method, once (module docstring).

    Attributes:
        name: registry name (CLI spelling).
        summary: one line for ``fcocheck algorithms``.
        citation: where the method is defined (paper, algorithm/equation number).
        params: hyper-parameters.
        client: the client step.
        server: transforms applied in order to the aggregated update Δ_r.
        apply: how the transformed update moves the server point.
        claims: property → (``holds``/``fails``, source) for the properties (A)–(D).
        reduces_to: reductions to other methods (each becomes a check).
        doc: Algorithm / Guarantee / References text (the registry entry's documentation).
        family: ``federated`` (default) or ``sequential``.
        memory: what each client keeps between rounds (``memory.Controls``: SCAFFOLD's control
            variates), read by a ``Corrected`` client step; None for a memoryless method.

    """

    name: str
    summary: str
    citation: str
    params: tuple[Param, ...]
    client: ClientStep
    server: tuple[Transform, ...] = (Scale("eta_s"),)
    apply: Apply = Add()
    claims: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    reduces_to: tuple[Reduction, ...] = ()
    doc: str = ""
    family: str = "federated"
    memory: Any = None

    def __post_init__(self) -> None:
        """Its names and declarations follow their rules (``check_declarations``), and its pieces fit.

        A dual step goes with a dual apply, a corrected step with a memory.
        """
        from fcocheck.solvers.errors import InvalidAlgorithmError

        check_declarations(self)
        if isinstance(self.client, DualStep) != isinstance(self.apply, DualAdd):
            raise InvalidAlgorithmError(
                f"card {self.name!r}: client {type(self.client).__name__} with apply "
                f"{type(self.apply).__name__}; the rule is DualStep with DualAdd (a dual point on both "
                "sides), and neither otherwise")
        if isinstance(self.client, Corrected) != (self.memory is not None):
            raise InvalidAlgorithmError(
                f"card {self.name!r}: client {type(self.client).__name__} with memory {self.memory!r}; "
                "the rule is a Corrected client step with a client memory (memory=Controls(...)), and "
                "neither otherwise")

    # --- derived facts ---------------------------------------------------------------------------
    @property
    def uses_psi(self) -> bool:
        """Whether any piece touches ψ (a prox or a subgradient)."""
        return bool(self.client.prox_cost or self.client.subgrad_cost or self.apply.prox_cost)

    @property
    def uses_h(self) -> bool:
        """Whether any piece needs the mirror map (∇h, ∇h*, ∇(h + tψ)*)."""
        return bool(self.client.uses_h or self.apply.uses_h)

    @property
    def dual(self) -> bool:
        """Whether the clients step in the dual (a ``DualStep``; the apply is then a ``DualAdd``)."""
        return isinstance(self.client, DualStep)

    @property
    def split_invariant(self) -> bool:
        """At K = 1 a round sees the clients only through ∇F.

        True unless the client step applies ψ after its gradient step (a dual step applies it before:
        every client queries at the same point, and the average of z − η_c g_m is linear).
        """
        return self.dual or not self.client.prox_cost

    def reads(self) -> set[str]:
        """The hyper-parameters some piece reads (the others drive only the engine's loops: K)."""
        pieces = (self.client, *self.server, self.apply, *((self.memory,) if self.memory else ()))
        return {n for piece in pieces for n in piece.reads}

    def counts(self, S: int, M: int, K: int, dim: int, batch: int = 1) -> Counts:
        """Oracle calls and floats of one round with S of M clients, K steps, model size ``dim``.

        ``batch``: oracle queries per local step (a ``Corrected`` step's b); a memory sends its own
        vectors both ways besides the model.
        """
        vectors = 1 + (self.memory.floats if self.memory else 0)
        return Counts(grad=S * K * batch, subgrad=self.client.subgrad_cost * S * K,
                      prox_client=self.client.prox_cost * S * K, prox_server=self.apply.prox_cost,
                      floats_up=vectors * S * dim, floats_down=vectors * S * dim)

    def neutral(self) -> dict[str, Any]:
        """Parameter → the value at which the component it drives does nothing (where one exists)."""
        return {p.name: p.neutral for p in self.params if p.neutral is not None}

    # --- the forms of the method -----------------------------------------------------------------
    def hyper(self) -> type:
        """The frozen hyper-parameter dataclass (one per card), ``weights`` from the pieces that apply ψ."""
        if id(self) in _HYPERS:
            return _HYPERS[id(self)][1]
        cls = hyper_class(self.name, self.params)
        card = self

        def weights(hp: Any, rounds: int, growing: bool) -> list[float]:
            # a dual card: the server's last η̃_{R,0} and ŵ's last shadow image η̃_{R−1,K} (larger if η_s < 1)
            R, step = max(rounds, 1), card.client
            dual = [step.tilde(hp, R, 0), step.tilde(hp, R - 1, hp.local_steps)] if card.dual else []
            return dual + card.client.weights(hp, rounds) + card.apply.weights(hp, rounds)

        cls.weights = weights
        _HYPERS[id(self)] = (self, cls)  # the card is kept alive with its class
        return cls

    def init(self, problem: Any, hp: Any, w0: Array, rng: np.random.Generator) -> CardState | DualCardState:
        """w_0 (and z_0 = ∇h(w_0) for a dual card) and every server transform's initial state (``None``)."""
        w0, states = np.array(w0, dtype=float), tuple(None for _ in self.server)
        if self.memory is not None:
            return MemoryCardState(w0, *self.memory.init(problem.M, problem.dim), 0, states)
        return DualCardState(problem.h.grad(w0), w0, 0, states) if self.dual else CardState(w0, 0, states)

    def transform(self, delta: Any, states: tuple, hp: Any) -> tuple[Any, tuple]:
        """(u_r, states') from Δ_r: the server transforms in order."""
        u, new = delta, []
        for transform, s in zip(self.server, states, strict=True):
            u, s = transform.update(u, s, hp)
            new.append(s)
        return u, tuple(new)

    def server_step(self, w: Any, delta: Any, states: tuple, hp: Any, ops: Any) -> tuple[Any, tuple]:
        """(w_{r+1}, states') from w_r and Δ_r: the transforms in order, then the apply."""
        u, new = self.transform(delta, states, hp)
        return self.apply(w, u, hp, ops), new

    def dual_server_step(self, z: Any, delta: Any, states: tuple, hp: Any, ops: Any,
                         r: int) -> tuple[Any, Any, tuple]:
        """(z_{r+1}, w_{r+1}, states') of a dual card from z_r and Δ_r (round r)."""
        u, new = self.transform(delta, states, hp)
        z, w = self.apply(z, u, self.client.tilde(hp, r + 1, 0), ops)
        return z, w, new

    def round(self, state: Any, hp: Any, env: Env, rng: np.random.Generator,
              clients: Array) -> tuple[Any, RoundLog]:
        """One round on the engine, of whichever form the card's pieces make (``_round_fn``)."""
        return self._round_fn()(state, hp, env, rng, clients)

    def _round_fn(self) -> Any:
        """The round of this card's form: with a client memory, dual, or primal."""
        if self.memory is not None:
            return self._memory_round
        return self._dual_round if self.dual else self._primal_round

    def _primal_round(self, state: CardState, hp: Any, env: Env, rng: np.random.Generator,
                      clients: Array) -> tuple[CardState, RoundLog]:
        """One round of a primal card (``primitives.primal_round``: vectorised, client-major, compiled)."""
        ops = EnvOps(env)
        states: list[tuple] = []

        def server(w: Array, delta: Array) -> Array:
            w_next, s = self.server_step(w, delta, state.server, hp, ops)
            states.append(s)
            return w_next

        p = env.problem
        new, log = primal_round(state, hp, env, rng, clients, lambda W, G: self.client(W, G, hp, ops), server,
                                prox_client=self.client.prox_cost, prox_server=self.apply.prox_cost,
                                subgrad=self.client.subgrad_cost,
                                compiled=self.client.compiled(p.h, p.psi, p.dim))
        return CardState(new.w, new.r, states[0]), log

    def _dual_round(self, state: DualCardState, hp: Any, env: Env, rng: np.random.Generator,
                    clients: Array) -> tuple[DualCardState, RoundLog]:
        """One round of a dual card (``primitives.dual_local``: vectorised, client-major, compiled)."""
        ops, step, r, K = EnvOps(env), self.client, state.r, hp.local_steps
        kern = env.kernel.subset(clients)
        weights = client_weights(env.problem, clients)
        ts = [step.tilde(hp, r, k) for k in range(K + 1)]  # η̃_{r,0..K}: queries use 0..K−1, ŵ 1..K
        p, dim, prox = env.problem, env.problem.dim, ops.prox
        local = dual_local(env, kern, rng, state.z, weights, K, getattr(hp, step.eta),
                           lambda Z, k: step.query(Z, ts[k], ops), lambda zbar, k: prox(zbar, ts[k]),
                           (step.compiled(p.h, p.psi, dim), np.array(ts[:K]) if step.prox else np.zeros(K)))
        delta = weights @ (local.final - state.z[None, :])
        z_next, w_next, states = self.dual_server_step(state.z, delta, state.server, hp, ops, r)
        # counted where the calls are made (K queries on |S| clients, a map per query when it applies ψ,
        # one server map), not from ``counts``, which the counts check compares with this log
        S = len(clients)
        calls = Counts(grad=S * K, prox_client=S * K * step.prox_cost, prox_server=self.apply.prox_cost,
                       floats_up=S * dim, floats_down=S * dim)
        log = RoundLog(w=w_next, z=z_next, avg_terms=local.avg_terms, avg_count=K,
                       discrepancy=local.discrepancy, counts=calls, steps=local.steps)
        return DualCardState(z_next, w_next, r + 1, states), log

    def _memory_round(self, state: MemoryCardState, hp: Any, env: Env, rng: np.random.Generator,
                      clients: Array) -> tuple[MemoryCardState, RoundLog]:
        """One round of a card with a client memory (``control.corrected_local``, vectorised over clients).

        Each sampled client steps from w_r with its correction e_i = ``memory.correction(c_i, c)``; its
        memory moves to ``memory.update`` after the K steps; the server's part by Σ_{i∈S} p_i (c_i⁺ − c_i)
        (p the clients' own weights); the model by the transforms and the apply, as every card's.
        """
        p, memory, step, K = env.problem, self.memory, self.client, hp.local_steps
        kern = env.kernel.subset(clients)
        weights = client_weights(p, clients)
        batch = getattr(hp, step.batch)
        C = state.c[clients]
        corr = memory.correction(C, state.server[None, :])
        local = corrected_local(env, kern, rng, state.w, corr, weights, K, getattr(hp, step.eta), batch)
        C_new = memory.update(C, state.server[None, :], state.w, local.final, hp)
        delta = weights @ (local.final - state.w)
        ops = EnvOps(env) if self.apply.uses_h or self.apply.prox_cost else None  # w + u needs no maps
        w_next, states = self.server_step(state.w, delta, state.chain, hp, ops)
        control = memory.server(state.server, p.weights[clients] @ (C_new - C))
        controls = state.c.copy()
        controls[clients] = C_new
        # counted where the calls are made: K·b queries on |S| clients; the model and the memory's
        # vectors each way
        S, vectors, dim = len(clients), 1 + memory.floats, p.dim
        calls = Counts(grad=S * K * batch, prox_server=self.apply.prox_cost, floats_up=vectors * S * dim,
                       floats_down=vectors * S * dim)
        log = RoundLog.primal(w_next, calls, discrepancy=local.discrepancy,
                              extra={memory.extra_key: memory.residual(controls, control, p.weights)})
        return MemoryCardState(w_next, controls, control, state.r + 1, states), log

    def at_optimum(self, problem: Any, hp: Any, w: Array) -> Any:
        """The state consistent with w*: w*, and the memory's fixed point there (∇F_i(w*), ∇F(w*))."""
        state = self.init(problem, hp, w, np.random.default_rng(0))
        if self.memory is None:
            return state
        G = problem.client_grads(problem.broadcast(w))
        C, c = self.memory.at_optimum(G, problem.weights @ G)
        return state._replace(c=C, server=c)

    def algorithm(self) -> Algorithm:
        """The registry entry: ``init``/``round`` and the flags, all derived."""
        prox = bool(self.client.prox_cost or self.apply.prox_cost)  # ∇(h + tψ)* somewhere
        round_fn = self._round_fn()  # chosen once, not per round
        return Algorithm(self.name, self.hyper(), self.init, _documented(round_fn, self.doc), self.family,
                         self.summary, uses_composite=prox, uses_prox=prox, solves_composite=self.uses_psi,
                         growing_weight=self.dual, split_invariant=self.split_invariant, card=self)


class EnvOps:
    """``Ops`` on the engine's batched arrays: the problem's maps, bound once per round.

    ``mirror`` = ∇h, ``conj`` = ∇h*, ``prox`` = ∇(h + tψ)* (the engine's resolved composite map),
    ``subgrad`` = ∂ψ: the problem's own functions, with no wrapper between a card's piece and them
    (thousands of small rounds pay per call).
    """

    def __init__(self, env: Env) -> None:
        h, psi = env.problem.h, env.problem.psi
        self.mirror: Callable[[Array], Array] = h.grad
        self.conj: Callable[[Array], Array] = h.grad_conj
        self.prox: Callable[[Array, float], Array] = env.composite
        self.subgrad: Callable[[Array], Array] = psi.subgradient


def _documented(fn: Any, doc: str) -> Any:
    """``fn`` as a plain function carrying ``doc`` (the registry reads ``round.__doc__``)."""

    def round(state: Any, hp: Any, env: Env, rng: np.random.Generator, clients: Array) -> Any:  # noqa: A001
        return fn(state, hp, env, rng, clients)

    round.__doc__ = doc or fn.__doc__
    return round


def reductions_named(cards: Sequence[Card], name: str) -> list[Reduction]:
    """Every reduction of the card ``name`` (empty when it has none or is not a card)."""
    return [r for c in cards if c.name == name for r in c.reduces_to]
