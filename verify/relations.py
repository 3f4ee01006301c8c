"""Relations that need no reference implementation: what any federated method must respect.

Each relation runs the algorithm twice on two presentations of **one** optimisation problem and
compares the server iterates (exact gradients, full participation, relative tolerance
``IDENTITY_TOL``).  The instance has clients of unequal sizes weighted p_m = n_m/n (FO16 eq. 8),
so a method that weighs clients uniformly changes the problem when a client is split:

* ``client-permutation``: reordering the clients (data and weights together) changes nothing;
  a server that keeps one client's model instead of the weighted average fails;
* ``client-split`` (methods with ``local_steps``, at K = 1, where a round depends on the clients
  only through ∇F = Σ p_m ∇F_m): splitting one client's rows into two clients with their own n_m/n
  weights changes nothing; uniform weights or an unweighted average fail;
* ``zero-weight-client``: appending a client with weight p = 0 and arbitrary data changes nothing
  (full participation); a method that weighs clients uniformly, or lets an unweighted client into
  its average or its control variates' sum, fails;
* ``translation``: on a ψ = 0 problem, moving the data by a (y ↦ y + X_m a, so F ↦ F(· − a)) and the
  start by a moves every iterate by a (Euclidean h); a method that shrinks towards 0 instead of
  towards the server model (a proximal term μ/2‖w‖² for μ/2‖w − w_r‖²) fails;
* ``shrinks-with-X`` (declared, ``shrinks_with=("mu",)``): on the pooled one-client problem, one round's
  move ‖w_1 − w_0‖ does not grow when hyper-parameter X doubles (a proximal or damping weight);
  a flipped proximal sign fails;
* ``reduces-to-X`` (declared by the algorithm, ``reduces_to=[(hp_changes, "registry-name", hp_map)]``):
  with those hyper-parameters its iterates equal the registry entry's (noisy oracle and client
  sampling, same seed) — e.g. FedProx at μ = 0 is FedAvg; a forgotten local step fails;
* ``local-objective`` (declared, ``local_objective=LocalObjective(gradient)``): each client minimises
  F_m(w) + P(w; w_r, hp), P declared by its gradient.  On the pooled one-client problem with the
  declared ``fixed`` hyper-parameters (η_s = 1), the local steps are doubled until one round's
  output settles (relative change ≤ ``SETTLED``); there the declared objective's gradient
  ∇F(w) + ∇P(w; w_0, hp), with ∇F from the toolkit's own kernel, must vanish relative to its
  value at w_0.  A penalty applied twice (2μ: FedProx with another μ, which no other relation
  sees) leaves −μ(w − w_0) ≠ 0.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fcocheck.solvers import algorithms
from fcocheck.solvers.engine import run
from fcocheck.solvers.problem import Problem, sample_weights
from fcocheck.verify.cases import build, weighted
from fcocheck.verify.evidence import IDENTITY_TOL, Evidence, bounded, not_applicable, same_iterates
from fcocheck.verify.strategies import Case

ROUNDS = 4
#: local-objective: the converged local iterate changes by at most this (relative) when K doubles
SETTLED = 1e-12
#: local-objective: the local steps tried, doubling from the first
LOCAL_STEPS = (256, 512, 1024, 2048, 4096, 8192, 16384)
#: local-objective: ‖∇(F + P)(w_K)‖ / ‖∇(F + P)(w_0)‖ allowed at the settled iterate
STATIONARY_TOL = 1e-8


@dataclass(frozen=True)
class LocalObjective:
    """What each client minimises in a round: F_m(w) + P(w; w_r, hp), declared by ∇P.

    Attributes:
        gradient: (w, anchor, hp dict) -> ∇P(w; anchor) — e.g. FedProx's
            ``lambda w, a, hp: hp["mu"] * (w - a)``.
        steps: the hyper-parameter counting local steps (doubled until the output settles).
        fixed: hyper-parameters set for the check (a server step of 1, so w_1 is the client's output).

    """

    gradient: Callable[[np.ndarray, np.ndarray, dict], np.ndarray]
    steps: str = "local_steps"
    fixed: dict = field(default_factory=lambda: {"eta_s": 1.0})
def permuted(p: Problem, order: np.ndarray) -> Problem:
    """The same problem with its clients in ``order``."""
    return dataclasses.replace(
        p, X=tuple(p.X[i] for i in order), y=tuple(p.y[i] for i in order), weights=p.weights[order]
    )


def split(p: Problem, m: int) -> Problem:
    """Client m's rows as two clients (first half, second half), every weight n_m/n again."""
    half = p.X[m].shape[0] // 2
    X = p.X[:m] + (p.X[m][:half], p.X[m][half:]) + p.X[m + 1 :]
    y = p.y[:m] + (p.y[m][:half], p.y[m][half:]) + p.y[m + 1 :]
    n = np.array([x.shape[0] for x in X])
    return dataclasses.replace(p, X=X, y=y, weights=sample_weights(n))


def _run(alg: Any, p: Problem, hp: dict, **kw: Any):
    opts = {"rounds": ROUNDS, "oracle": "exact", "seed": 0, "reference": False, **kw}
    return run(alg, p, hp, **opts)


def client_permutation(alg: Any, case: Case) -> Evidence:
    """Reversed client order (data and weights together): the same iterates."""
    if alg.client_randomness:
        return not_applicable("client-permutation", f"{alg.name} draws client-indexed randomness")
    p = weighted(build(case.spec))
    if p.M < 2:
        return not_applicable("client-permutation", "one client: nothing to permute")
    order = np.arange(p.M)[::-1]
    return same_iterates(
        "client-permutation",
        _run(alg, p, case.hp),
        _run(alg, permuted(p, order), case.hp),
        f"clients reversed, sizes {p.n.tolist()}, weights n_m/n; {case.describe()}",
    )


def with_ghost(p: Problem, seed: int) -> Problem:
    """``p`` plus a last client of weight 0 holding large random data (its rows and targets ×10)."""
    rng = np.random.default_rng(seed)
    n0, d = p.X[0].shape
    X = p.X + (10.0 * rng.standard_normal((n0, d)),)
    y = p.y + (10.0 * rng.standard_normal(n0),)
    return dataclasses.replace(p, X=X, y=y, weights=np.append(p.weights, 0.0), weighting="custom")


def zero_weight_client(alg: Any, case: Case) -> Evidence:
    """A weight-0 client with arbitrary data appended: the same iterates."""
    if alg.client_randomness or alg.counts_nodes:
        why = "draws client-indexed randomness" if alg.client_randomness else "uses the node count K itself"
        return not_applicable("zero-weight-client", f"{alg.name} {why}")
    p = weighted(build(case.spec))
    hp = dict(case.hp)
    if "sigma" in {f.name for f in dataclasses.fields(alg.hyper)} and not hp.get("sigma"):
        hp["sigma"] = float(p.M)  # FO16's default σ = K counts the nodes: keep the original K
    return same_iterates(
        "zero-weight-client",
        _run(alg, p, hp),
        _run(alg, with_ghost(p, case.spec.data_seed), hp),
        f"a client of weight 0 with random data appended to sizes {p.n.tolist()}; {case.describe()}",
    )


def translated(p: Problem, a: np.ndarray) -> Problem:
    """F ↦ F(· − a): every client's targets y_m + X_m a (least squares; ψ = 0 stays 0)."""
    return dataclasses.replace(p, y=tuple(y + X @ a for X, y in zip(p.X, p.y, strict=True)))


def translation(alg: Any, case: Case) -> Evidence:
    """ψ = 0: the iterates on F(· − a) from w0 + a are the iterates on F from w0, moved by a.

    The drawn instance is taken with ψ = 0 (ψ is not translated with F; L is unchanged, so the
    drawn hyper-parameters stay admissible).
    """
    case = dataclasses.replace(case, spec=dataclasses.replace(case.spec, psi="zero", lam=0.0))
    p = weighted(build(case.spec))
    a = np.random.default_rng(case.spec.data_seed + 7).standard_normal(p.dim)
    base = _run(alg, p, case.hp, w0=p.zero())
    moved = _run(alg, translated(p, a), case.hp, w0=p.zero() + a)
    shifted_back = moved.arrays["server_w"] - a[None, :]
    back = dataclasses.replace(moved, arrays={**moved.arrays, "server_w": shifted_back})
    return same_iterates(
        "translation",
        base,
        back,
        f"data and start moved by a (‖a‖ = {np.linalg.norm(a):.3g}), iterates moved back; {case.describe()}",
    )


def client_split(alg: Any, case: Case) -> Evidence:
    """At K = 1 one client split in two (weights n_m/n): the same iterates."""
    if not alg.split_invariant:
        return not_applicable("client-split", f"{alg.name} does not declare that K = 1 sees only ∇F")
    if "local_steps" not in {f.name for f in dataclasses.fields(alg.hyper)}:
        return not_applicable("client-split", f"{alg.name} has no local_steps hyper-parameter")
    p = weighted(build(case.spec))
    m = int(np.argmax(p.n))
    if p.n[m] < 2:
        return not_applicable("client-split", "every client has one row: nothing to split")
    hp = {**case.hp, "local_steps": 1}
    return same_iterates(
        "client-split",
        _run(alg, p, hp),
        _run(alg, split(p, m), hp),
        f"client {m} ({p.n[m]} rows) split in two at K = 1, sizes {p.n.tolist()}; {case.describe()}",
    )


def reduction(alg: Any, case: Case, changes: dict, target: str, hp_map: Any = None) -> Evidence:
    """With ``changes`` the iterates equal registry entry ``target``'s (noisy oracle, sampling, same seed)."""
    name = f"reduces-to-{target}"
    hp = {**case.hp, **changes}
    ref_hp = hp_map(hp) if hp_map else hp
    kw = {"oracle": case.oracle, "seed": case.seed, "participation": case.participation}
    p = build(case.spec)
    return same_iterates(
        name,
        _run(alg, p, hp, **kw),
        _run(algorithms.get(target), p, ref_hp, **kw),
        f"{alg.name} with {changes} against {target}; {case.describe()}",
    )


def pooled(p: Problem) -> Problem:
    """Every row on one client (weight 1): the same F, no heterogeneity."""
    X = (np.vstack(p.X),)
    y = (np.concatenate(p.y),)
    return dataclasses.replace(p, X=X, y=y, weights=np.ones(1), weighting="uniform")


def shrinks_with(alg: Any, case: Case, field: str) -> Evidence:
    """One round's move on the pooled problem at X/2 and at X: the larger weight moves no further."""
    name = f"shrinks-with-{field}"
    value = float(case.hp.get(field, 0.0))
    if value <= 0:
        return not_applicable(name, f"{field} = {value}: nothing to compare")
    p = pooled(build(case.spec))
    w0 = p.zero()
    moves = []
    for v in (value / 2, value):
        t = run(alg, p, {**case.hp, field: v}, rounds=1, oracle="exact", seed=0, reference=False, w0=w0)
        if t.status != "completed":
            return not_applicable(name, f"a run did not complete ({t.status}); {case.describe()}")
        moves.append(float(np.linalg.norm(t["server_w"][1] - w0)))
    grow = (moves[1] - moves[0]) / max(moves[0], 1e-300)
    return bounded(
        name,
        max(grow, 0.0),
        IDENTITY_TOL,
        f"one-round move {moves[0]:.4g} at {field} = {value / 2:.3g} and {moves[1]:.4g} at {value:.3g} "
        f"(rule: no growth beyond {IDENTITY_TOL:g} relative); {case.describe()}",
    )


def local_objective(alg: Any, case: Case, declared: LocalObjective) -> Evidence:
    """The settled one-client round output is a stationary point of the declared local objective."""
    name = "local-objective"
    p = pooled(build(case.spec))
    w0 = p.zero()
    hp = {**case.hp, **declared.fixed}

    def grad_local(w: np.ndarray) -> np.ndarray:
        return p.kernel.grads(w[None, :])[0] + np.asarray(declared.gradient(w, w0, hp), dtype=float)

    start = float(np.linalg.norm(grad_local(w0)))
    if start == 0.0:
        return not_applicable(name, f"w_0 already minimises the local objective; {case.describe()}")
    prev = None
    for K in LOCAL_STEPS:
        t = run(alg, p, {**hp, declared.steps: K}, rounds=1, oracle="exact", seed=0, reference=False, w0=w0)
        if t.status != "completed":
            return not_applicable(name, f"the run did not complete at {declared.steps} = {K} ({t.status})")
        w = t["server_w"][1]
        scale = max(1.0, float(np.linalg.norm(w)))
        if prev is not None and np.linalg.norm(w - prev) <= SETTLED * scale:
            resid = float(np.linalg.norm(grad_local(w))) / start
            return bounded(
                name,
                resid,
                STATIONARY_TOL,
                f"one client, {declared.steps} = {K} (settled): ‖∇F(w) + ∇P(w; w_0)‖ / its value at w_0 = "
                f"{resid:.2e} (rule ≤ {STATIONARY_TOL:g}); {case.describe()}",
            )
        prev = w
    return not_applicable(name, f"the local iterate did not settle by {declared.steps} = {LOCAL_STEPS[-1]}; "
                                f"{case.describe()}")
