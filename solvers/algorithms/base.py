"""The algorithm contract: hyper-parameters, environment, round log, registry entry.

An algorithm is a pair of pure functions over a typed, immutable state:

    init(problem, hp, w0, rng)                -> State
    round(state, hp, env, rng, clients)       -> (State, RoundLog)

``clients`` are the sampled client indices S_r (sorted), ``env`` bundles the problem, the
oracle, the gradient kernel and the composite map.  Everything the engine records that only
the algorithm can see travels in the ``RoundLog``: no globals, no callbacks, no counters
hidden in closures.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from fcocheck.solvers.composite import CompositeFn
from fcocheck.solvers.errors import InvalidHyperparameterError, InvalidStepSizeError
from fcocheck.solvers.kernels import Kernel
from fcocheck.solvers.oracles import Oracle
from fcocheck.solvers.problem import Problem

Array = np.ndarray


class Env(NamedTuple):
    """What a round may read: the problem and the machinery built once per run.

    Attributes:
        problem: the FCO instance.
        oracle: the stochastic gradient oracle.
        kernel: the gradient kernel over every client (``kernel.subset(S)`` per round).
        composite: ``(z, t) ↦ ∇(h + tψ)*(z)`` for the problem's (h, ψ), resolved once.
        record_steps: whether per-local-step quantities are wanted in ``RoundLog.steps``.

    """

    problem: Problem
    oracle: Oracle
    kernel: Kernel
    composite: CompositeFn
    record_steps: bool = False


@dataclass(frozen=True)
class Counts:
    """Oracle calls and communication of one round (exact, counted where they happen).

    Attributes:
        grad: stochastic-gradient queries (one per client per query point).
        sample_grad: single-sample gradients ∇f_i (FO16 methods: SVRG, FSVRG, SGD);
            a full pass over n samples counts n.
        subgrad: subgradient evaluations of ψ on clients (FedAvg(∂)).
        prox_client: client-side evaluations of a map involving ψ (∇(h + tψ)* or prox).
        prox_server: server-side evaluations of a map involving ψ.
        floats_up: floats sent from clients to the server.
        floats_down: floats sent from the server to clients.

    """

    grad: int = 0
    sample_grad: int = 0
    subgrad: int = 0
    prox_client: int = 0
    prox_server: int = 0
    floats_up: int = 0
    floats_down: int = 0

    def as_dict(self) -> dict[str, int]:
        """Field name → value (read every round: no ``dataclasses.asdict`` deep copy)."""
        return {f: getattr(self, f) for f in _COUNT_FIELDS}


_COUNT_FIELDS = tuple(f.name for f in dataclasses.fields(Counts))


@dataclass(frozen=True)
class RoundLog:
    """What one round reports to the engine.

    Attributes:
        w: server primal point after the round, w_{r+1}.
        z: server dual point after the round (dual-averaging family), else None.
        avg_terms: sum of the round's terms of the output average ŵ (eq. 4.2 for the dual
            family: Σ_{k=1..K} ∇(h + η̃_{r,k}ψ)*(z̄_{r,k}); the server iterate otherwise).
        avg_count: how many terms ``avg_terms`` holds.
        discrepancy: per local step k = 0..K−1, Σ_m p̃_m ‖z̄_{r,k} − z^m_{r,k}‖²_* at the points
            where gradients are queried (p̃ = client weights renormalised over S_r; 1/|S_r|
            for uniform weights, the (1/M) Σ_m of Lemma 4.4–4.5); empty when not defined.
        counts: oracle calls and floats communicated.
        steps: per-local-step arrays (only with ``record_steps``): ``dual_shadow``
            (K+1, dim), ``grad_avg`` (K, dim), ``shadow_primal`` (K, dim), ``client_duals``
            (K, |S_r|, dim) for the dual family.
        extra: algorithm-specific scalars (control-variate sums, ...).

    """

    w: Array
    z: Array | None
    avg_terms: Array
    avg_count: int
    discrepancy: Array
    counts: Counts
    steps: dict[str, Array] = field(default_factory=dict)
    extra: dict[str, float] = field(default_factory=dict)

    @classmethod
    def primal(cls, w: Array, counts: Counts, discrepancy: Array | None = None,
               steps: dict[str, Array] | None = None, extra: dict[str, float] | None = None) -> RoundLog:
        """The log of a method whose output average ŵ is the mean of its server iterates."""
        return cls(w=w, z=None, avg_terms=w, avg_count=1,
                   discrepancy=np.zeros(0) if discrepancy is None else discrepancy, counts=counts,
                   steps=steps or {}, extra=extra or {})


class BatchLog(NamedTuple):
    """What one round of B runs advancing together reports (``engine.batch``): ``RoundLog``s stacked.

    Row i of each array is what run i's ``RoundLog`` holds alone.

    Attributes:
        w: the runs' w_{r+1}, ``(B, dim)``.
        z: their z_{r+1} (dual family), else None.
        avg_terms: each run's terms of ŵ, ``(B, dim)`` (``RoundLog.avg_terms``).
        avg_count: how many terms each row holds (the same for every run).
        discrepancy: ``(B, K)`` (``RoundLog.discrepancy``; ``(B, 0)`` when not defined).
        counts: the calls and floats of one run's round (the same for every run).
        extra: each extra's values, ``(B,)`` or ``(B, …)``.
        steps: each run's per-step arrays (``RoundLog.steps``), only with per-step records.

    """

    w: np.ndarray
    z: np.ndarray | None
    avg_terms: np.ndarray
    avg_count: int
    discrepancy: np.ndarray
    counts: Counts
    extra: dict[str, np.ndarray] = {}
    steps: list[dict[str, np.ndarray]] | None = None


InitFn = Callable[[Problem, Any, np.random.Generator], Any]
RoundFn = Callable[[Any, Any, Env, np.random.Generator, Array], tuple[Any, RoundLog]]


@dataclass(frozen=True)
class Algorithm:
    """A registry entry.

    Attributes:
        name: registry name (CLI spelling).
        hyper: the frozen hyper-parameter dataclass.
        init: ``init(problem, hp, w0, rng) -> State`` (w0: the starting point).
        round: ``round(state, hp, env, rng, clients) -> (State, RoundLog)``.
        family: ``federated``, ``sequential`` or ``baseline``.
        summary: one line for ``fcocheck algorithms``.
        participation: whether client sampling applies.
        uses_composite: whether the algorithm needs ∇(h + tψ)* in closed form.
        growing_weight: whether the ψ-weight grows with the round (dual averaging: η̃_{r,k}).
        uses_prox: whether the algorithm evaluates prox_{tψ} (or ∇(h + tψ)*) at the weights
            ``hp.weights`` lists; the engine tries each before round 0 (tρ < 1 for weakly
            convex ψ).
        check_problem: ``check(problem, hp)`` raising before round 0 when the algorithm cannot
            run on the problem (no sample data, no exact local solver, outside its class).
        exact_oracle: the algorithm draws its own samples (or is deterministic): the run's
            oracle must be ``exact``.
        solves_composite: whether the method targets Φ = F + ψ (False: it ignores ψ as
            published — FedAvg, SCAFFOLD, Scaffnew — and is checked on ψ = 0 only).
        split_invariant: a round at K = 1 sees the clients only through ∇F = Σ p_m ∇F_m, so
            splitting a client (weights n_m/n) must leave the iterates unchanged (not FedMiD:
            avg ∘ prox ≠ prox ∘ avg; not FedDR/FedADMM or one-shot: local subproblems).
        client_randomness: the rounds draw client-indexed randomness beyond the oracle (FSVRG's
            per-client permutations), so reordering the clients reorders the draws.
        counts_nodes: the update uses the number of nodes K itself (FO16 App. A's Primal
            Method: η = K/σ), so a node of weight 0 still changes it.
        card: the ``solvers.card.Card`` the entry was derived from (None for a hand-written round).

    """

    name: str
    hyper: type
    init: InitFn
    round: RoundFn
    family: str
    summary: str
    participation: bool = True
    uses_composite: bool = True
    growing_weight: bool = False
    uses_prox: bool = True
    check_problem: Callable[[Problem, Any], None] | None = None
    exact_oracle: bool = False
    solves_composite: bool = True
    split_invariant: bool = False
    client_randomness: bool = False
    counts_nodes: bool = False
    card: Any = None

    @property
    def doc(self) -> str:
        """The round function's docstring (Algorithm / Guarantee / References)."""
        return self.round.__doc__ or ""

    def parameters(self) -> dict[str, dict[str, Any]]:
        """Hyper-parameter name → {default, help}."""
        out = {}
        for f in dataclasses.fields(self.hyper):
            default = None if f.default is dataclasses.MISSING else f.default
            out[f.name] = {"default": default, "help": f.metadata.get("help", "")}
        return out


# --- hyper-parameter rules --------------------------------------------------------------
def positive_step(name: str, value: float) -> None:
    """η > 0 and finite."""
    if not (np.isfinite(value) and value > 0):
        raise InvalidStepSizeError(f"{name} = {value!r} is invalid; the rule is {name} > 0 and finite")


#: the largest count a hyper-parameter may set (local steps, batch sizes, passes): beyond it a run would
#: exhaust memory or never end rather than fail
MAX_COUNT = 1_000_000


def positive_int(name: str, value: int) -> None:
    """An integer 1 ≤ value ≤ ``MAX_COUNT`` (local steps, batch sizes)."""
    if isinstance(value, bool) or int(value) != value or value < 1:
        raise InvalidHyperparameterError(f"{name} = {value!r} is invalid; the rule is an integer >= 1")
    if value > MAX_COUNT:
        raise InvalidHyperparameterError(f"{name} = {value!r} is too large; the rule is at most {MAX_COUNT}")


def hp_field(default: Any = dataclasses.MISSING, help: str = "") -> Any:  # noqa: A002
    """A dataclass field carrying its help text."""
    return field(default=default, metadata={"help": help})


def eta_tilde(eta_s: float, eta_c: float, r: int, K: int, k: int) -> float:
    """η̃_{r,k} = η_s η_c r K + η_c k  (FCO Alg. 3 line 8).

    The server's primal output ∇(h + η_s η_c (r+1) K ψ)*(z_{r+1}) uses η̃_{r+1,0}: both go
    through this one function, so client step 0 of round r+1 sees bit-for-bit the weight the
    server used.
    """
    return eta_s * eta_c * r * K + eta_c * k


class ServerState(NamedTuple):
    """Server state of the primal family: w_r and the round index r."""

    w: Array
    r: int


class DualServerState(NamedTuple):
    """Server state of the dual-averaging family: z_r, its primal image w_r, and r."""

    z: Array
    w: Array
    r: int


@dataclass(frozen=True)
class FedHyper:
    """Hyper-parameters shared by the FCO federated algorithms (Alg. 1–4)."""

    eta_c: float = hp_field(help="client learning rate η_c > 0")
    eta_s: float = hp_field(1.0, help="server learning rate η_s > 0")
    local_steps: int = hp_field(1, help="local steps per round K >= 1")

    def check(self) -> None:
        """η_c > 0, η_s > 0, K >= 1."""
        positive_step("eta_c", self.eta_c)
        positive_step("eta_s", self.eta_s)
        positive_int("local_steps", self.local_steps)

    def weights(self, rounds: int, growing: bool) -> list[float]:
        """The largest ψ-weights t the run passes to ∇(h + tψ)* (checked before round 0).

        Mirror-descent family: η_c (clients) and η_s η_c K (server); dual-averaging family:
        η̃ reaches η_s η_c R K at the server's last primal output.
        """
        if growing:
            return [eta_tilde(self.eta_s, self.eta_c, max(rounds, 1), self.local_steps, 0)]
        return [self.eta_c, self.eta_s * self.eta_c * self.local_steps]


@dataclass(frozen=True)
class StepHyper:
    """Step size and K of the sequential methods and the non-federated baselines.

    K is the number of oracle queries per client per step for the sequential methods (batch
    M·K) and the number of proximal steps per round for ``centralized`` and ``local``.
    """

    eta: float = hp_field(help="step size η > 0")
    local_steps: int = hp_field(1, help="K >= 1: queries per client per step (sequential) or "
                                        "steps per round (baselines)")

    def check(self) -> None:
        """η > 0, K >= 1."""
        positive_step("eta", self.eta)
        positive_int("local_steps", self.local_steps)

    def weights(self, rounds: int, growing: bool) -> list[float]:
        """Largest ψ-weight passed to ∇(h + tψ)* (η; dual averaging: η·R)."""
        return [self.eta * max(rounds, 1)] if growing else [self.eta]
