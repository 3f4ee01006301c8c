"""The round engine: ``run(algorithm, problem, hyperparameters, rounds, ...) -> Trace``.

The engine owns everything that is not the algorithm: input checks, the seeded random
streams, client sampling, the divergence guard, interruption, and the metrics that need the
problem.  Algorithms only see ``Env`` and return ``RoundLog``s.

Random streams: ``SeedSequence(seed)`` spawns three independent generators — algorithm
initialisation, client sampling, oracle noise/minibatches — so the same seed gives the same
bits, and changing the participation does not change the oracle's stream layout.
"""

from __future__ import annotations

import math
import numbers
import time
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from fcocheck.solvers import algorithms, ctrl_c, memory
from fcocheck.solvers.algorithms.base import Algorithm, Env, RoundLog
from fcocheck.solvers.blas_threads import serial_blas
from fcocheck.solvers.composite import make_composite
from fcocheck.solvers.engine.evaluate import Evaluator
from fcocheck.solvers.engine.recorder import Recorder
from fcocheck.solvers.engine.sampler import check_participation, sample_clients
from fcocheck.solvers.engine.trace import COMPLETED, DIVERGED, INTERRUPTED, Trace
from fcocheck.solvers.errors import (
    InvalidHyperparameterError,
    InvalidOracleError,
    InvalidProblemError,
    InvalidStepSizeError,
    NoClosedFormError,
)
from fcocheck.solvers.kernels import Kernel, check_strategy
from fcocheck.solvers.oracles import Oracle, parse_oracle
from fcocheck.solvers.problem import Problem
from fcocheck.solvers.progress import Progress
from fcocheck.solvers.smoothness import global_smoothness

Array = np.ndarray
RECORD_MODES = ("round", "step")
#: An iterate with ‖w‖ above this multiple of max(1, ‖w_0‖, ‖w*‖) counts as diverged.
EXPLOSION_FACTOR = 1e8


@dataclass(frozen=True)
class Setup:
    """Everything a run needs, checked before round 0."""

    algorithm: Algorithm
    hp: Any
    env: Env
    evaluator: Evaluator
    w0: Array
    participation: int | None
    scale: float
    smoothness: float
    reference: dict[str, Any] | None


MAX_ROUNDS = 10_000_000  # per-round buffers are preallocated: 10^7 rounds ≈ 80 MB per metric


def _check_rounds(rounds: Any) -> int:
    if not isinstance(rounds, numbers.Integral) or isinstance(rounds, bool) or not 0 <= rounds <= MAX_ROUNDS:
        raise InvalidHyperparameterError(
            f"rounds R = {rounds!r} is invalid; the rule is an integer 0 <= R <= {MAX_ROUNDS:,}")
    return int(rounds)


def check_metrics_every(metrics_every: Any) -> None:
    """An integer >= 1."""
    integral = isinstance(metrics_every, int | np.integer) and not isinstance(metrics_every, bool)
    if not integral or metrics_every < 1:
        raise InvalidHyperparameterError(f"metrics_every = {metrics_every!r}; the rule is an integer >= 1")


def _check_start(problem: Problem, w0: Array | None) -> Array:
    w0 = problem.zero() if w0 is None else np.array(w0, dtype=float)
    if w0.shape != (problem.dim,) or not np.all(np.isfinite(w0)):
        raise InvalidProblemError(f"{problem.name}: start point of shape {w0.shape} (or not finite); "
                                  f"the rule is a finite vector of shape ({problem.dim},)")
    with np.errstate(all="ignore"):
        inside = bool(np.all(problem.h.in_domain(w0))) and bool(np.all(np.isfinite(problem.h.grad(w0))))
    if not inside:
        raise InvalidProblemError(f"{problem.name}: start point leaves the domain of h = "
                                  f"{problem.mirror.name!r}; the rule is w0 ∈ dom h with ∇h(w0) finite")
    return w0


def _composite(alg: Algorithm, problem: Problem, hp: Any, rounds: int, w0: Array):
    """Resolve ∇(h + tψ)* once and try it (or prox_{tψ}) at every weight the run will use."""
    try:
        fn = make_composite(problem.h, problem.psi)
    except NoClosedFormError:
        if alg.uses_composite:
            raise
        fn = None
    for t in hp.weights(rounds, alg.growing_weight):
        try:
            if alg.uses_composite:
                fn(problem.h.grad(w0), t)
            elif alg.uses_prox:  # Euclidean prox methods: prox_{tψ} single-valued (tρ < 1)
                problem.psi.prox(w0, t)
        except InvalidStepSizeError as exc:
            raise InvalidStepSizeError(
                f"{alg.name} with {asdict(hp)} over R = {rounds} rounds needs ∇(h + tψ)* at "
                f"t = {t!r}: {exc}"
            ) from None
    return fn


def _reference(problem: Problem, reference: Any) -> dict[str, Any] | None:
    if reference is False:
        return None
    if reference is None:
        from fcocheck.solvers.reference import reference_solve

        reference = reference_solve(problem)
    if isinstance(reference, (int, float)):
        return {"objective": float(reference), "label": "given", "w": None}
    return {"objective": reference.objective, "label": reference.label,
            "relative_certificate": reference.certificate.relative, "w": reference.w}


def check_setup(algorithm: str | Algorithm, problem: Problem, hyperparameters: Any, rounds: int,
                oracle: str | Oracle, participation: int | None, record: str
                ) -> tuple[Algorithm, Any, Oracle, int | None]:
    """Every rule a run's configuration must meet on this problem (used by sweeps before running).

    Returns:
        (algorithm, hyper-parameters, oracle, P).

    Raises:
        FcocheckError: the first rule broken, naming the value.

    """
    alg = algorithm if isinstance(algorithm, Algorithm) else algorithms.get(algorithm)
    hp = algorithms.make_hyper(alg, hyperparameters if hyperparameters is not None else {})
    _check_rounds(rounds)
    P = check_participation(participation, problem.M)
    if P is not None and P < problem.M and not alg.participation:
        raise InvalidHyperparameterError(f"{alg.name} runs without client sampling; the rule is no "
                                         "--clients-per-round for the centralized and local baselines")
    if record not in RECORD_MODES:
        raise InvalidHyperparameterError(f"record = {record!r}; the rule is one of {list(RECORD_MODES)}")
    oracle = parse_oracle(oracle) if isinstance(oracle, str) else oracle
    memory.check_run(f"{alg.name} for {int(rounds)} rounds on {problem.name!r}", problem, int(rounds),
                     memory.local_steps_of(hp), getattr(oracle, "batch", 0), record, P)
    if alg.exact_oracle and oracle.kind != "exact":
        raise InvalidOracleError(f"{alg.name} draws its own data points (or is deterministic); oracle "
                                 f"{oracle.spec()!r} given, the rule is oracle 'exact'")
    if alg.check_problem is not None:
        alg.check_problem(problem, hp)
    if oracle.kind == "minibatch":  # compatibility with the problem's data, one draw at w0
        oracle.grads(Kernel(problem), problem.broadcast(problem.zero()), np.random.default_rng(0))
    return alg, hp, oracle, P


def prepare(algorithm: str | Algorithm, problem: Problem, hyperparameters: Any, rounds: int,
            oracle: str | Oracle, participation: int | None, record: str, reference: Any,
            w0: Array | None, gradient: str) -> Setup:
    """Check every input and build the run's machinery (raises before any round runs)."""
    alg, hp, oracle, P = check_setup(algorithm, problem, hyperparameters, rounds, oracle, participation,
                                     record)
    rounds = int(rounds)
    w0 = _check_start(problem, w0)
    composite = _composite(alg, problem, hp, rounds, w0)
    env = Env(problem, oracle, Kernel(problem, check_strategy(gradient)), composite, record == "step")
    L = global_smoothness(problem)
    eta = 1.0 / L if L > 0 else 1.0
    if problem.psi.rho > 0:
        eta = min(eta, 0.5 / problem.psi.rho)
    ref = _reference(problem, reference)
    evaluator = Evaluator(problem, None if ref is None else ref["objective"], eta)
    norms = [1.0, float(np.linalg.norm(w0))]
    if ref is not None and ref["w"] is not None:
        norms.append(float(np.linalg.norm(ref["w"])))
    return Setup(alg, hp, env, evaluator, w0, P, max(norms), L, ref)


def diverged(log: RoundLog, scale: float) -> bool:
    """Non-finite, or ‖w_{r+1}‖ > EXPLOSION_FACTOR · scale."""
    w = np.asarray(log.w, dtype=float)
    if not np.isfinite(w).all() or (log.z is not None and not np.isfinite(log.z).all()):
        return True
    flat = w.ravel(order="K")  # np.linalg.norm's own computation: √(x·x) over the raveled array
    return math.sqrt(flat.dot(flat)) > EXPLOSION_FACTOR * scale


def diverged_rows(W: Array, Z: Array | None, scales: Array) -> Array:
    """``diverged`` for each row of W (and Z): run i's w_{r+1} = W[i], its scale ``scales[i]``.

    Each row's ‖w‖ the very dot product ``diverged`` takes (``batched_dual.stacked_dot``).
    """
    from fcocheck.solvers.algorithms.batched_dual import stacked_dot

    finite = np.isfinite(W).all(axis=1)
    if Z is not None:
        finite &= np.isfinite(Z).all(axis=1)
    with np.errstate(all="ignore"):
        return ~finite | (np.sqrt(stacked_dot(W, W)) > EXPLOSION_FACTOR * scales)


def _meta(s: Setup, name: str, problem: Problem, rounds: int, seed: int, record: str) -> dict[str, Any]:
    ref = None if s.reference is None else {k: v for k, v in s.reference.items() if k != "w"}
    return {"algorithm": s.algorithm.name, "requested": name, "problem": problem.name,
            "problem_meta": problem.meta, "hyper": asdict(s.hp), "oracle": s.env.oracle.spec(),
            "sigma2": s.env.oracle.sigma2, "seed": int(seed), "participation": s.participation,
            "M": problem.M, "dim": problem.dim, "record": record, "gradient": s.env.kernel.strategy,
            "rounds": rounds, "reference": ref,
            "constants": {"L": s.smoothness, "eta_prox_grad": s.evaluator.eta}}


def run(algorithm: str | Algorithm, problem: Problem, hyperparameters: Any = None, rounds: int = 100,
        oracle: str | Oracle = "exact", seed: int = 0, participation: int | None = None,
        record: str = "round", reference: Any = None, w0: Array | None = None,
        gradient: str = "auto", progress: bool = False, metrics_every: int = 1) -> Trace:
    """Run ``algorithm`` for ``rounds`` rounds and return its instrumented trace.

    Args:
        algorithm: registry name (or alias) or an ``Algorithm``.
        problem: the FCO instance.
        hyperparameters: mapping of hyper-parameter names to values (strings are converted),
            or an instance of the algorithm's hyper-parameter dataclass.
        rounds: R >= 0.
        oracle: ``exact`` | ``gaussian:σ`` | ``minibatch:b`` or an ``Oracle``.
        seed: the one seed every random choice flows from.
        participation: clients per round P (1 <= P <= M), None for full participation.
        record: ``round`` (per-round metrics) or ``step`` (also per-local-step quantities).
        reference: a ``ReferenceSolution``, a number Φ*, None (solve and certify now) or
            False (no gaps).
        w0: start point (default ∇h*(0), the problem's ``zero()``).
        gradient: ``auto`` | ``batched`` | ``loop`` (results agree to rounding).
        progress: draw a progress bar on stderr when it is a terminal.
        metrics_every: evaluate the per-point metrics that need a pass over the data (objective,
            gaps, ‖G_η‖, structure) after every ``metrics_every``-th round and the last one; the
            other rounds hold NaN there.  The recorded rounds are exact, the iterates are the
            same bits as with 1, and counts, discrepancy and ŵ are kept every round.  A non-finite
            iterate still stops the run at once; an infinite objective of a finite iterate
            (an infeasible point of an indicator ψ) is seen at the next evaluated round.

    Returns:
        The ``Trace``; a diverging run ends with status ``diverged`` and ``diverged_at`` = the
        first round whose iterate was non-finite or exploded; Ctrl-C ends it with status
        ``interrupted`` keeping every completed round.

    Raises:
        FcocheckError: any invalid input (before round 0).

    """
    start = time.perf_counter()
    check_metrics_every(metrics_every)
    name = algorithm if isinstance(algorithm, str) else algorithm.name
    s = prepare(algorithm, problem, hyperparameters, rounds, oracle, participation, record,
                reference, w0, gradient)
    streams = np.random.SeedSequence(seed).spawn(3)
    rngs = rng_init, rng_sample, rng_oracle = tuple(np.random.default_rng(c) for c in streams)
    untouched = [g.bit_generator.state for g in rngs]
    meta = _meta(s, name, problem, int(rounds), seed, record)
    rec = Recorder(s.evaluator, s.smoothness, s.participation, int(rounds))
    state = s.algorithm.init(problem, s.hp, s.w0, rng_init)
    status, diverged_at = COMPLETED, None
    bar = Progress(int(rounds), s.algorithm.name, progress, unit="round")
    try:
        with serial_blas():  # the engine's pool, not BLAS's, uses the cores
            rec.start(state.w, getattr(state, "z", None))
            for r in range(int(rounds)):
                ctrl_c.check()  # a Ctrl-C that reached a round as another exception, or none
                clients = sample_clients(rng_sample, problem.M, s.participation)
                with np.errstate(all="ignore"):
                    state, log = s.algorithm.round(state, s.hp, s.env, rng_oracle, clients)
                    due = (r + 1) % metrics_every == 0 or r + 1 == int(rounds)
                    if diverged(log, s.scale) or not rec.record(log, clients, evaluate=due):
                        status, diverged_at = DIVERGED, r + 1
                        break
                bar.update(r + 1, f"gap {rec.last('gap'):.3e}" if s.reference else "")
    except KeyboardInterrupt:
        status = INTERRUPTED
    finally:
        bar.close()
    # whether the run drew anything (oracle noise, sampled clients, the method's own draws): if not, the
    # seed does not enter it — the same bits at every seed
    random = any(g.bit_generator.state != u for g, u in zip(rngs, untouched, strict=True))
    meta.update(status=status, diverged_at=diverged_at, seconds=time.perf_counter() - start,
                metrics_every=int(metrics_every), random=random)
    return rec.trace(meta)
