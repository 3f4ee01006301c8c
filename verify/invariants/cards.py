"""The checks every method card gets, derived from the card (nothing of the method is restated here).

For each card of the registry (built-in or a user's, ``cards_invariants``):

* ``written-NAME`` — the engine's iterates against the card run client by client, step by step
  (``reference``: a Python loop over clients and local steps, exact gradients, every client, the card's
  own pieces on one vector at a time; a dual card's clients hold dual points, ``dual_reference``).
  The engine's schedules — vectorised, client-major above
  ``kernels.BLOCK`` clients, the compiled K-step pass, with an intercept or without, recording per
  step or not — must all give these iterates.  Fixed examples select every schedule whatever the seed.
* ``counts-NAME`` — the logged calls and floats per round against ``card.counts`` (drawn participation).
* ``NAME=TARGET`` — one per ``Reduction`` on the card: at ``when`` (and ψ = 0 if it says so) the
  iterates equal the target's with the mapped hyper-parameters.
* ``exercised-NAME`` — every hyper-parameter some piece reads and that has a neutral value (β = 0,
  η_s = 1) is run away from it by at least one reduction; otherwise a bug in the piece it drives
  passes every check (the written-out reference repeats the card, so it cannot see one), and the
  cell fails naming the parameter.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import strategies as st

from fcocheck.solvers import algorithms
from fcocheck.solvers.card.reduction import evaluate
from fcocheck.solvers.composite import composite_map
from fcocheck.solvers.engine import run
from fcocheck.solvers.engine.run import EXPLOSION_FACTOR
from fcocheck.solvers.kernels import BLOCK
from fcocheck.solvers.smoothness import client_smoothness_max, sample_smoothness
from fcocheck.verify.cases import InstanceSpec, build
from fcocheck.verify.evidence import FAILS, HOLDS, IDENTITY_TOL, Evidence, bounded, same_iterates
from fcocheck.verify.hyper import hyper_strategy
from fcocheck.verify.invariants.base import Invariant, guarded, relative, trace_of
from fcocheck.verify.optimum import optimum
from fcocheck.verify.strategies import Case, instance_specs, run_options

ROUNDS = 3


# --- the card written out, one client at a time --------------------------------------------------
class VectorOps:
    """``Ops`` on one vector: the problem's ∇h, ∇h*, ∇(h + tψ)* and ∂ψ."""

    def __init__(self, p: Any) -> None:
        self.p = p

    def mirror(self, x: np.ndarray) -> np.ndarray:
        """∇h."""
        return self.p.h.grad(x)

    def conj(self, v: np.ndarray) -> np.ndarray:
        """∇h*."""
        return self.p.h.grad_conj(v)

    def prox(self, v: np.ndarray, t: float) -> np.ndarray:
        """∇(h + tψ)*."""
        return composite_map(self.p.h, self.p.psi, v, t)

    def subgrad(self, x: np.ndarray) -> np.ndarray:
        """∂ψ."""
        return self.p.psi.subgradient(x)


def reference(card: Any, p: Any, hp: Any, rounds: int) -> np.ndarray:
    """Server iterates w_0..w_R of ``card`` with exact gradients and every client, written out."""
    if card.dual:
        return dual_reference(card, p, hp, rounds)
    if card.memory is not None:
        return memory_reference(card, p, hp, rounds)
    ops = VectorOps(p)
    kernels = [p.kernel.subset(np.array([m])) for m in range(p.M)]
    w, states, out = p.zero(), tuple(None for _ in card.server), []
    out.append(w)
    for _ in range(rounds):
        delta = np.zeros_like(w)
        for m in range(p.M):
            x = w.copy()
            for _ in range(hp.local_steps):
                x = card.client(x, kernels[m].grads(x[None, :])[0], hp, ops)
            delta = delta + p.weights[m] * (x - w)
        w, states = card.server_step(w, delta, states, hp, ops)
        out.append(w)
    return np.array(out)


def dual_reference(card: Any, p: Any, hp: Any, rounds: int) -> np.ndarray:
    """``reference`` for a card with a dual step: each client's z from z_r, queried at x(z, η̃_{r,k})."""
    ops, step = VectorOps(p), card.client
    kernels = [p.kernel.subset(np.array([m])) for m in range(p.M)]
    w, states = p.zero(), tuple(None for _ in card.server)
    z, out = ops.mirror(w), [w]
    for r in range(rounds):
        delta = np.zeros_like(z)
        for m in range(p.M):
            zm = z.copy()
            for k in range(hp.local_steps):
                x = step.query(zm, step.tilde(hp, r, k), ops)
                zm = step(zm, kernels[m].grads(x[None, :])[0], hp, ops)
            delta = delta + p.weights[m] * (zm - z)
        z, w, states = card.dual_server_step(z, delta, states, hp, ops, r)
        out.append(w)
    return np.array(out)


def memory_reference(card: Any, p: Any, hp: Any, rounds: int) -> np.ndarray:
    """``reference`` for a card with a client memory: one client at a time, its memory carried over."""
    ops, step, memory = VectorOps(p), card.client, card.memory
    kernels = [p.kernel.subset(np.array([m])) for m in range(p.M)]
    w, states = p.zero(), tuple(None for _ in card.server)
    C, c = memory.init(p.M, p.dim)
    out = [w]
    for _ in range(rounds):
        delta, change, new = np.zeros_like(w), np.zeros_like(w), C.copy()
        for m in range(p.M):
            y, e = w.copy(), memory.correction(C[m], c)
            for _ in range(hp.local_steps):
                y = step(y, kernels[m].grads(y[None, :])[0], hp, ops, e)
            new[m] = memory.update(C[m], c, w, y, hp)
            delta = delta + p.weights[m] * (y - w)
            change = change + p.weights[m] * (new[m] - C[m])
        c, C = memory.server(c, change), new
        w, states = card.server_step(w, delta, states, hp, ops)
        out.append(w)
    return np.array(out)


@dataclasses.dataclass(frozen=True)
class PathCase:
    """A case and the engine schedule it must select: intercept, per-step records, client count."""

    case: Case
    intercept: bool = False
    steps: str = "round"

    def describe(self) -> str:
        """The case and its schedule."""
        return (f"{self.case.describe()}; intercept {self.intercept}, record {self.steps}"
                + (" (client-major: M > BLOCK)" if self.case.spec.M > BLOCK else ""))

    def record(self) -> dict[str, Any]:
        """JSON-ready form (counterexample files)."""
        return {**self.case.record(), "spec": dataclasses.asdict(self.case.spec), "intercept": self.intercept,
                "record": self.steps}


def _problem(pc: PathCase) -> Any:
    p = build(pc.case.spec)
    return dataclasses.replace(p, intercept=True) if pc.intercept else p


def written(name: str, pc: PathCase) -> Evidence:
    """The engine's iterates (on the schedule ``pc`` selects) against ``reference``."""
    card = algorithms.card_of(name)
    p = _problem(pc)
    hp = algorithms.make_hyper(algorithms.get(name), pc.case.hp)
    t = run(name, p, hp, rounds=ROUNDS, oracle="exact", seed=0, record=pc.steps, reference=False)
    ref = reference(card, p, hp, ROUNDS)
    got, stopped = t["server_w"], ""
    if t.status == "diverged" and got.shape[0] < ref.shape[0]:
        # the engine's explosion guard stopped the run (the reference has none): the reference must blow up
        # at that round too, by the engine's own rule; then the rounds both ran are compared
        nxt, bound = ref[got.shape[0]], EXPLOSION_FACTOR * max(1.0, float(np.linalg.norm(ref[0])))
        if np.all(np.isfinite(nxt)) and np.linalg.norm(nxt) <= bound:
            detail = (f"{name}: the engine stopped the run as diverged at round {got.shape[0]}, where "
                      f"the card written out has a finite ‖w‖ = {np.linalg.norm(nxt):.3e}; {pc.describe()}")
            return Evidence(f"written-{name}", FAILS, float("inf"), IDENTITY_TOL, detail)
        stopped = (f"; the engine stopped the run as diverged after {got.shape[0] - 1} rounds (so does "
                   "the card written out): those compared")
        ref = ref[: got.shape[0]]
    if got.shape != ref.shape:
        return Evidence(f"written-{name}", FAILS, float("inf"), IDENTITY_TOL,
                        f"{name}: the engine ran {got.shape[0] - 1} rounds ({t.status}), the reference "
                        f"{ROUNDS}; {pc.describe()}")
    resid = relative(got - ref, ref)
    logged = ""
    if pc.steps == "round" and "w_hat" in t.meta:  # the fast schedules' logs against the step-by-step one's
        s = run(name, p, hp, rounds=ROUNDS, oracle="exact", seed=0, record="step", reference=False)
        pairs = [(t.arrays[k], s.arrays[k]) for k in ("discrepancy", "w_hat") if k in t.arrays]
        pairs.append((np.asarray(t.meta["w_hat"]), np.asarray(s.meta.get("w_hat", np.nan))))
        log_resid = max(relative(a - b, b) for a, b in pairs)
        logged = f"; logged ŵ and discrepancy against the recorded schedule's {log_resid:.2e}"
        resid = max(resid, log_resid)
    return bounded(f"written-{name}", resid, IDENTITY_TOL,
                   f"{name}: max relative difference from the card written out client by client {resid:.2e} "
                   f"(rule ≤ {IDENTITY_TOL:g}){logged}{stopped}; {pc.describe()}")


@st.composite
def written_cases(draw: Any, name: str) -> PathCase:
    """Any ψ, the card's own hyper-parameter grid, intercept and per-step records on or off."""
    spec = draw(instance_specs("general", ("zero", "l2sq", "l1")))
    alg = algorithms.get(name)
    hp = draw(hyper_strategy(alg, optimum(spec).L_max, sample_smoothness(build(spec))))
    return PathCase(Case(spec, hp), draw(st.booleans()), draw(st.sampled_from(["round", "step"])))


def path_examples(name: str) -> list[PathCase]:
    """Every engine schedule, whatever the seed.

    {vectorised, compiled} × intercept × per-step records, and a client-major round (``BLOCK`` + 3 tiny
    clients), each with the card's first non-neutral grid values.
    """
    alg = algorithms.get(name)
    hp = _acting(alg.card, 0.25 / optimum(InstanceSpec("general", 3, 3, 5, 1.0, "l1", 0.1, 7)).L_max)
    small = InstanceSpec("general", 3, 3, 5, 1.0, "l1", 0.1, 7)  # 5 rows: not a multiple of the unroll
    big = InstanceSpec("general", BLOCK + 3, 2, 2, 0.3, "zero", 0.0, 7)
    out = [PathCase(Case(small, hp), i, r) for i in (False, True) for r in ("round", "step")]
    # no certified optimum is needed (nor sought: tiny clients are degenerate one by one), only L_max
    steps = {q.name: 0.25 / client_smoothness_max(build(big)) for q in alg.card.params if q.per}
    out.append(PathCase(Case(big, {**hp, **steps}), False, "round"))
    return out


def _acting(card: Any, eta: float) -> dict[str, Any]:
    """Steps drawn per 1/L (η_c, η_l) = ``eta``, K = 3, the others at their first non-neutral grid value."""
    hp = {}
    for p in card.params:
        if p.per:
            hp[p.name] = eta
        elif p.name == "local_steps":
            hp[p.name] = 3
        elif p.grid:
            hp[p.name] = next((v for v in p.grid if v != p.neutral), p.grid[0])
    return hp


# --- counts -------------------------------------------------------------------------------------
KEYS = ("grad_calls", "subgrad_calls", "prox_calls_client", "prox_calls_server", "floats_up", "floats_down")


def counted(name: str, case: Case) -> Evidence:
    """Per-round increments of the logged counters against ``card.counts``."""
    card = algorithms.card_of(name)
    t = trace_of(name, case, ROUNDS)
    p = build(case.spec)
    S = case.participation or p.M
    batch = case.hp.get(getattr(card.client, "batch", ""), 1)
    c = card.counts(S, p.M, case.hp.get("local_steps", 1), p.dim, batch)
    want = np.array([c.grad, c.subgrad, c.prox_client, c.prox_server, c.floats_up, c.floats_down],
                    dtype=float)
    got = np.array([np.diff(t[k]) for k in KEYS]).T
    return bounded(f"counts-{name}", float(np.abs(got - want[None, :]).max()), 0.0,
                   f"{name}: per-round counts logged {got[0].astype(int).tolist()} vs the card's "
                   f"{want.astype(int).tolist()} ({', '.join(KEYS)}); {case.describe()}")


@st.composite
def count_cases(draw: Any, name: str) -> Case:
    """Any ψ, any participation, the card's grid."""
    spec = draw(instance_specs("general", ("zero", "l1")))
    hp = draw(hyper_strategy(algorithms.get(name), optimum(spec).L_max, sample_smoothness(build(spec))))
    S = draw(st.integers(1, spec.M))
    return Case(spec, hp, seed=draw(st.integers(0, 50)), participation=None if S == spec.M else S)


# --- reductions ---------------------------------------------------------------------------------
def target_hp(red: Any, hp: dict[str, Any]) -> dict[str, Any]:
    """The target's hyper-parameters: mapped ones evaluated, others of the same name carried over."""
    fields = {f.name for f in dataclasses.fields(algorithms.get(red.target).hyper)}
    out = {k: evaluate(v, hp) for k, v in red.hp_map.items()}
    out.update({k: v for k, v in hp.items() if k in fields and k not in out})
    return out


def reduced(name: str, red: Any, case: Case) -> Evidence:
    """The method at ``red.when`` against ``red.target``: the same iterates (same oracle draws)."""
    hp = {**case.hp, **red.when}
    kw = {"oracle": case.oracle, "seed": case.seed, "participation": case.participation, **red.run}
    p = build(case.spec)
    a = run(name, p, hp, rounds=ROUNDS, reference=False, **kw)
    q = p if red.psi_scale == 1.0 else dataclasses.replace(
        p, regularizer=dataclasses.replace(p.regularizer, lam=red.psi_scale * p.regularizer.lam))
    b = run(red.target, q, target_hp(red, hp), rounds=ROUNDS, reference=False, **kw)
    ran = dataclasses.replace(case, **{k: v for k, v in red.run.items() if k in ("oracle", "participation")})
    return same_iterates(f"{name}={red.target}", a, b,
                         f"{name} with {dict(red.when)} against {red.target} ({red.where or 'reduction'}); "
                         f"{ran.describe()}")  # the oracle and participation the reduction ran with


@st.composite
def reduction_cases(draw: Any, name: str, red: Any) -> Case:
    """Instances (ψ = 0 when the reduction says so) and the card's grid.

    Noisy oracles and sampling are drawn unless the reduction fixes them.
    """
    kinds = (red.psi,) if red.psi else ("zero", "l2sq", "l1")
    spec = draw(instance_specs(red.layout, kinds, min_clients=2 if red.layout == "identical" else 1))
    hp = draw(hyper_strategy(algorithms.get(name), optimum(spec).L_max, sample_smoothness(build(spec))))
    return Case(spec, {**hp, **red.when}, **draw(run_options(spec.M)))


# --- coverage of what a card adds ---------------------------------------------------------------
def exercised(card: Any) -> Evidence:
    """Every parameter a piece reads and that has a neutral value runs away from it in some reduction."""
    missing = []
    for p in card.params:
        if p.neutral is None or p.name not in card.reads():
            continue
        acting = [v for v in p.grid if v != p.neutral]
        free = acting[0] if acting else p.neutral
        by = [r for r in card.reduces_to if r.when.get(p.name, free) != p.neutral]
        if not acting or not by:
            missing.append(p.name)
    name = f"exercised-{card.name}"
    if missing:
        return Evidence(name, FAILS, float(len(missing)), 0.0,
                        f"{card.name}: {missing} never run away from their neutral value "
                        f"{[card.neutral()[m] for m in missing]} by a reduction to an independent method; "
                        "a bug in the piece each drives would pass every check (the written-out reference "
                        "repeats the card).  The rule: a Reduction where it acts, e.g. heavy-ball (or "
                        "nesterov) at K = 1 for server momentum, and a grid with a non-neutral value")
    pinned = {p.name: [r.target for r in card.reduces_to if p.name not in r.when]
              for p in card.params if p.neutral is not None and p.name in card.reads()}
    return Evidence(name, HOLDS, 0.0, 0.0, f"{card.name}: every parameter with a neutral value is run "
                    f"where it acts: {pinned or 'none to run'}")


def _single(card: Any) -> Callable[[], st.SearchStrategy]:
    return lambda: st.just(card)


def card_invariants(cards: list[Any]) -> tuple[Invariant, ...]:
    """The invariants of every card (module docstring)."""
    out: list[Invariant] = []
    for card in cards:
        n = card.name
        out.append(Invariant(
            f"written-{n}", card.citation,
            f"{n}: the engine's iterates on every schedule equal the card written out client by client",
            (n,), HOLDS, lambda n=n: written_cases(n), guarded(f"written-{n}", lambda c, n=n: written(n, c)),
            examples=lambda n=n: path_examples(n)))
        out.append(Invariant(
            f"counts-{n}", card.citation,
            f"{n}: gradient, map and communication counts as its card states them",
            (n,), HOLDS, lambda n=n: count_cases(n), guarded(f"counts-{n}", lambda c, n=n: counted(n, c))))
        for red in card.reduces_to:
            label = f"{n}={red.target}"
            out.append(Invariant(
                label, card.citation, f"{n} at {dict(red.when)} ({red.layout} data, ψ {red.psi or 'any'}) is "
                f"{red.target}" + (f" on F + {red.psi_scale:g}ψ" if red.psi_scale != 1 else "")
                + (f": {red.where}" if red.where else ""), (n, red.target), HOLDS,
                lambda n=n, r=red: reduction_cases(n, r),
                guarded(label, lambda c, n=n, r=red: reduced(n, r, c))))
        out.append(Invariant(
            f"exercised-{n}", "a check that cannot see a parameter cannot fail on it",
            f"{n}: every hyper-parameter with a neutral value is run where it acts by a reduction", (n,),
            HOLDS,
            _single(card), lambda c: exercised(c)))
    return tuple(out)


INVARIANTS = card_invariants(list(algorithms.CARDS.values()))
