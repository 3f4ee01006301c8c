"""Many runs as one computation: ``run_batch(algorithm, problems, hps, rounds, seeds) -> [Trace]``.

Runs of one dual card (FedDualAvg and its OSP variant) that share the shapes of their problems, their
(h, ψ), oracle, K and rounds, and differ in instance draw, seed or hyper-parameter values, advance
round by round together (``algorithms.batched_dual``: their clients stacked on one axis, one numpy
call per operation instead of one per run); so do FedCanon runs (Alg. 1) that share shapes, ψ, oracle,
K, b and rounds (``algorithms.batched_canon``: their clients and controls stacked the same way), ZA1 runs
on the same terms (``algorithms.batched_za1``), and runs of one primal card (FedAvg, FedAvgM, FedMiD,
FedMiD-avg, FedMiD-OSP: ``algorithms.batched_primal``) on the dual cards' terms, per-round records only.
Server transforms that act element by element (``Scale``, and ``Trace``: momentum) batch with either
kind of card, each run's transform state one row (``batched_dual.server_transforms``).  The dual
and primal cards batch with partial participation too (P < M clients a round): each run draws its own
S_r from its own sampling stream, as alone, and the round runs on those rows of the stacked clients
(``sampled``).

Everything else about a run is the engine's own: its ``prepare`` (checks, composite map, reference,
evaluator), its three seeded streams, its ``Recorder``, the divergence guard — a run that diverges is
recorded as diverged at that round and leaves the batch, the others go on.  A round reports the runs'
``BatchLog`` (their ``RoundLog``s stacked); the guard (``diverged_rows``), the metrics (``evaluate_many``:
one pass over the stacked clients) and the records (``BatchRecorder``, which hands each run's columns
to its ``Recorder`` at the end) take every run at once.  Per-step records (``record="step"``) are the
step-by-step schedule's arrays, run by run.  So each trace holds the same bits as ``run`` gives it alone
(``tests/solvers/test_run_batch*.py``); only ``meta["seconds"]`` differs (the batch's wall time shared
equally among its runs).

Every oracle batches — exact, Gaussian (each run's noise from its own stream) and minibatch (each run's
rows from its own stream): ``batched_dual.stacked_grads``.  A run the batched round does not cover
(``batch_key`` is None: another method, FedCanon or ZA1 with P < M, a kernel of the loop strategy (large
client blocks), one whose rounds run compiled or client-major alone, per-step records of clients other
than quadratics, of FedCanon or of ZA1) runs alone through ``run``, as does a run with no partner of its
key: never an error.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from fcocheck.solvers import ctrl_c, memory
from fcocheck.solvers.algorithms.base import Algorithm, BatchLog
from fcocheck.solvers.algorithms.batched_canon import CanonBatchEnv, CanonBatchState, canon_env, canon_round
from fcocheck.solvers.algorithms.batched_dual import (
    BatchEnv,
    BatchState,
    batchable_server,
    dual_round,
    stack_states,
    stacked_kernel,
)
from fcocheck.solvers.algorithms.batched_primal import (
    PrimalBatchState,
    primal_card,
    primal_round,
)
from fcocheck.solvers.algorithms.batched_za1 import ZA1BatchEnv, ZA1BatchState, za1_batch_round, za1_env
from fcocheck.solvers.algorithms.control import ControlHyper, init_controls
from fcocheck.solvers.algorithms.fedcanon import fedcanon_round
from fcocheck.solvers.algorithms.primitives import client_major, client_weights, fused
from fcocheck.solvers.algorithms.za1 import ZA1Hyper, init_za1, za1_round
from fcocheck.solvers.blas_threads import serial_blas
from fcocheck.solvers.card.steps import DualAdd
from fcocheck.solvers.engine.batch_recorder import BatchRecorder
from fcocheck.solvers.engine.evaluate import evaluate_many
from fcocheck.solvers.engine.recorder import Recorder
from fcocheck.solvers.engine.run import Setup, _meta, check_metrics_every, diverged_rows, prepare, run
from fcocheck.solvers.engine.sampler import sample_clients
from fcocheck.solvers.engine.trace import COMPLETED, DIVERGED, INTERRUPTED, Trace
from fcocheck.solvers.kernels import Kernel
from fcocheck.solvers.mirror_maps import Euclidean
from fcocheck.solvers.oracles import GaussianOracle, MinibatchOracle, Oracle
from fcocheck.solvers.problem import Problem

Array = np.ndarray


def _spec(x: Any) -> str:
    return type(x).__name__ + json.dumps(x.spec(), sort_keys=True, default=str)


def _contiguous(*arrays: Array) -> bool:
    return all(a.dtype == np.float64 and a.flags.c_contiguous for a in arrays)


def dual_method(algorithm: Algorithm) -> bool:
    """Whether ``algorithms.batched_dual`` runs this method: a dual card, ``Scale``/``Trace`` transforms."""
    card = algorithm.card
    return (card is not None and card.dual and card.memory is None and type(card.apply) is DualAdd
            and batchable_server(card))


def canon_method(algorithm: Algorithm) -> bool:
    """Whether ``algorithms.batched_canon`` runs this method: FedCanon (Alg. 1), its own round and state."""
    return (algorithm.round is fedcanon_round and algorithm.init is init_controls
            and algorithm.hyper is ControlHyper)


def primal_method(algorithm: Algorithm) -> bool:
    """Whether ``algorithms.batched_primal`` runs it: a primal card of its pieces (FedAvg, FedMiD, …)."""
    return primal_card(algorithm.card)


def za1_method(algorithm: Algorithm) -> bool:
    """Whether ``algorithms.batched_za1`` runs this method: ZA1, its own round and state."""
    return algorithm.round is za1_round and algorithm.init is init_za1 and algorithm.hyper is ZA1Hyper


def batched_method(algorithm: Algorithm) -> bool:
    """Whether a batched round runs this method: a dual or primal card, FedCanon or ZA1."""
    return (dual_method(algorithm) or primal_method(algorithm) or canon_method(algorithm)
            or za1_method(algorithm))


def batch_key(s: Setup, problem: Problem) -> tuple | None:
    """What runs must share to advance together, or None when ``run`` alone must take this one.

    Covered: a dual card whose server transforms are ``Scale`` or ``Trace`` (FedDualAvg, FedDualAvg-OSP, with
    server momentum), every client or P of them each round (the key holds P), the exact, Gaussian or minibatch
    oracle (its spec in the key: σ, b), and a batched kernel over dense float64 arrays (quadratics, or stacked
    samples) on which the run alone takes the step-by-step schedule (neither the compiled pass nor the
    client-major one); per-step records on quadratic clients only (the case tested bit for bit: a step's Σ_m
    p̃_m g^m reads the gradient rows, whose layout is the loss kernel's). FedCanon
    (``algorithms.batched_canon``) on the same terms with every client, per-round records only, its key adding
    the oracle queries per step b (its local steps never run compiled nor client-major alone); ZA1
    (``algorithms.batched_za1``) likewise. A primal card (``batched_primal.primal_card``) on the dual cards'
    terms, per-round records only; its compiled pass is asked as ``primal_round`` asks it, with (the step's
    map, η_c).
    """
    alg, env = s.algorithm, s.env
    card = alg.card
    if not batched_method(alg):
        return None
    P = None if s.participation in (None, problem.M) else s.participation  # S_r of P < M clients
    if env.record_steps and problem.loss != "quadratic":
        return None
    if type(env.oracle) not in (Oracle, GaussianOracle, MinibatchOracle) or env.kernel.strategy != "batched":
        return None
    if problem.loss == "quadratic":
        data: tuple = (problem.Q.shape,)
        dense = _contiguous(problem.Q, problem.c)
    else:
        stacked = problem.stacked
        dense = stacked is not None and _contiguous(stacked) and not problem.is_sparse
        data = (None if stacked is None else stacked.shape, problem.intercept, problem.ridge_lam)
    K = s.hp.local_steps
    if canon_method(alg) or za1_method(alg):  # their steps never run compiled nor client-major alone
        if not dense or env.record_steps or P is not None:
            return None
        try:
            maps = (_spec(problem.h), _spec(problem.psi))
        except (AttributeError, TypeError):
            return None
        return (alg.name, problem.loss, problem.M, problem.d, problem.dim, data, K,
                getattr(s.hp, "b", None), env.oracle.spec(), maps)
    step = card.client
    spec = step.compiled(problem.h, problem.psi, problem.dim)
    if card.dual:
        compiled: tuple | None = (spec, None)
    else:  # what ``primal_round`` hands ``primal_local``; per-round records only
        if env.record_steps:
            return None
        compiled = None if spec is None else (spec, getattr(s.hp, step.eta))
    kern = env.kernel if P is None else env.kernel.subset(np.arange(P))  # a round's kernel: S_r's clients
    if not dense or fused(env, kern, K, compiled) or client_major(env, kern, K):
        return None
    try:
        maps = (_spec(problem.h), _spec(problem.psi))
    except (AttributeError, TypeError):
        return None
    return (alg.name, problem.loss, problem.M, problem.d, problem.dim, data, K, env.oracle.spec(), maps,
            env.record_steps, P)


def run_batch(algorithm: str | Algorithm, problems: Sequence[Problem], hyperparameters: Sequence[Any],
              rounds: int, seeds: Sequence[int], oracle: str | Oracle = "exact",
              references: Sequence[Any] | None = None, metrics_every: int = 1,
              w0s: Sequence[Array | None] | None = None, record: str = "round",
              participation: int | None = None) -> list[Trace]:
    """Run i is ``run(algorithm, problems[i], hyperparameters[i], rounds, oracle, seeds[i])``, all at once.

    With ``reference=references[i]``, ``w0=w0s[i]``, ``metrics_every``, ``record`` and ``participation``.
    The runs ``batch_key`` groups advance together (module docstring); every other one runs alone.

    Args:
        algorithm: registry name (or alias) or an ``Algorithm``, common to every run.
        problems: one instance per run (the same object may repeat).
        hyperparameters: one mapping (or hyper-parameter instance) per run.
        rounds: R, common.
        seeds: one seed per run.
        oracle: common to every run.
        references: one per run as ``run``'s ``reference`` (None: each solved and certified).
        metrics_every: as ``run``'s.
        w0s: one start point per run as ``run``'s ``w0`` (None: each problem's ``zero()``).
        record: ``round`` or ``step``, common (``run``'s).
        participation: clients per round P, common (``run``'s; each run draws its own S_r).

    Returns:
        One trace per run, in order; each the bits ``run`` gives alone (``meta["seconds"]`` aside).

    Raises:
        FcocheckError: any invalid input (before any round runs).

    """
    B = len(problems)
    references = [None] * B if references is None else list(references)
    w0s = [None] * B if w0s is None else list(w0s)
    if not (len(hyperparameters) == len(seeds) == len(references) == len(w0s) == B):
        raise ValueError(f"run_batch: {B} problems, {len(hyperparameters)} hyper-parameter sets, "
                         f"{len(seeds)} seeds, {len(references)} references, {len(w0s)} start points; the "
                         "rule is one of each per run")
    check_metrics_every(metrics_every)
    name = algorithm if isinstance(algorithm, str) else algorithm.name
    refs = _solved(problems, references)
    setups = [prepare(algorithm, problems[i], hyperparameters[i], rounds, oracle, participation, record,
                      refs[i], w0s[i], "auto") for i in range(B)]
    batches, alone = batch_groups(setups, problems)
    out = {i: run(algorithm, problems[i], hyperparameters[i], rounds=rounds, oracle=oracle, seed=seeds[i],
                  record=record, reference=refs[i], w0=w0s[i], metrics_every=metrics_every,
                  participation=participation) for i in alone}
    for idx in batches:
        traces = _run_group(name, [setups[i] for i in idx], [problems[i] for i in idx], rounds,
                            [seeds[i] for i in idx], metrics_every, record)
        out.update(zip(idx, traces, strict=True))
    return [out[i] for i in range(B)]


def plan(algorithm: str | Algorithm, problems: Sequence[Problem], hyperparameters: Sequence[Any], rounds: int,
         oracle: str | Oracle = "exact", participation: int | None = None, record: str = "round"
         ) -> tuple[list[list[int]], list[int]]:
    """``run_batch``'s grouping of these runs, ``batch_groups``' (batches, alone), before any reference.

    The key reads the method, the instance, the oracle and the records, never the reference; so a caller
    that hands ``run_batch`` one batch at a time (a sweep: ``verify.sweep.task.execute_batch``) solves the
    reference of no run it leaves alone.  Raises what ``run_batch`` raises for an invalid input.
    """
    setups = [prepare(algorithm, p, hp, rounds, oracle, participation, record, False, None, "auto")
              for p, hp in zip(problems, hyperparameters, strict=True)]
    return batch_groups(setups, problems)


def batch_groups(setups: Sequence[Setup], problems: Sequence[Problem]) -> tuple[list[list[int]], list[int]]:
    """(batches, alone): the runs that share a ``batch_key`` with another, by key; every other run."""
    groups: dict[tuple, list[int]] = {}
    alone = []
    for i, (s, p) in enumerate(zip(setups, problems, strict=True)):
        key = batch_key(s, p)
        if key is None:
            alone.append(i)
        else:
            groups.setdefault(key, []).append(i)
    alone += [g[0] for g in groups.values() if len(g) == 1]
    return [g for g in groups.values() if len(g) > 1], sorted(alone)


def _solved(problems: Sequence[Problem], references: list[Any]) -> list[Any]:
    """Each run's reference; a missing one solved and certified once per problem object."""
    from fcocheck.solvers.reference import reference_solve

    solved: dict[int, Any] = {}
    out = []
    for p, ref in zip(problems, references, strict=True):
        if ref is None:
            if id(p) not in solved:
                solved[id(p)] = reference_solve(p)
            ref = solved[id(p)]
        out.append(ref)
    return out


def weightless(problem: Problem) -> bool:
    """Whether ∇(h + tψ)* is one map for every t ≠ 0: ψ an indicator (prox_{tψ} = Π_C) and h Euclidean."""
    return type(problem.h) is Euclidean and problem.psi.is_indicator


def _weights(problems: Sequence[Problem]) -> Array:
    """p̃ of every client of each run, ``(B, M)``."""
    return np.stack([client_weights(p, np.arange(p.M)) for p in problems])


def _env(setups: Sequence[Setup], problems: Sequence[Problem]) -> BatchEnv:
    """The batch's ``BatchEnv`` (dual and primal cards)."""
    first, p = setups[0], problems[0]
    return BatchEnv(first.algorithm.card, tuple(s.hp for s in setups), stacked_kernel(problems),
                    _weights(problems), first.env.composite, p.h, first.env.oracle, p.d,
                    first.env.record_steps, weightless(p))


def _canon_env(setups: Sequence[Setup], problems: Sequence[Problem]) -> CanonBatchEnv:
    return canon_env([s.hp for s in setups], stacked_kernel(problems), _weights(problems),
                     np.stack([p.weights for p in problems]), problems[0].psi, setups[0].env.oracle)


def _za1_env(setups: Sequence[Setup], problems: Sequence[Problem]) -> ZA1BatchEnv:
    return za1_env([s.hp for s in setups], stacked_kernel(problems), _weights(problems), problems[0].psi,
                   setups[0].env.oracle)


def _machinery(algorithm: Algorithm) -> tuple[Any, Any, Any]:
    """(the batch's env from its setups and problems, its round, its state from the runs' states)."""
    if canon_method(algorithm):
        return _canon_env, canon_round, lambda sts: CanonBatchState(
            np.stack([st.w for st in sts]), np.concatenate([st.c for st in sts]), 0)
    if za1_method(algorithm):
        return _za1_env, za1_batch_round, lambda sts: ZA1BatchState(
            np.stack([st.w for st in sts]), np.stack([st.corr for st in sts]),
            np.concatenate([st.mean_grads for st in sts]), 0)
    if primal_method(algorithm):
        return _env, primal_round, lambda sts: PrimalBatchState(np.stack([st.w for st in sts]), 0,
                                                                stack_states([st.server for st in sts]))
    return _env, dual_round, lambda sts: BatchState(np.stack([st.z for st in sts]),
                                                    np.stack([st.w for st in sts]), 0,
                                                    stack_states([st.server for st in sts]))


def sampled(env: Any, problems: Sequence[Problem], active: Sequence[int], clients: Sequence[Array]) -> Any:
    """The round's env when run ``active[j]`` samples ``clients[j]``: those rows of the stacked kernel, p̃.

    The kernel's data are gathered as a run alone's ``Kernel.subset`` gathers them (one copy, in the order
    of S_r), the weights are ``client_weights`` over S_r, run by run.
    """
    M = problems[0].M
    rows = np.concatenate([j * M + c for j, c in enumerate(clients)])
    full = env.kernel
    k = Kernel(problems[0], "batched", np.arange(len(rows), dtype=np.int64))
    if problems[0].loss == "quadratic":
        Q, c = full._quadratic()
        k._cache["Q"] = (Q[rows], c[rows])
    else:
        k._cache["X"], k._cache["y"] = full._stacked()[rows], full._labels()[rows]
    weights = np.stack([client_weights(problems[i], c) for i, c in zip(active, clients, strict=True)])
    return env._replace(kernel=k, weights=weights)


def _run_group(name: str, setups: list[Setup], problems: list[Problem], rounds: int, seeds: list[int],
               metrics_every: int, record: str = "round") -> list[Trace]:
    """The runs of one key, round by round together; a diverged run leaves the batch.

    Each round's log is the runs' ``BatchLog``; the divergence guard, the metrics (``evaluate_many``) and
    the records (``BatchRecorder``) take every run at once, each run's values those of ``run`` alone.
    """
    start = time.perf_counter()
    B, M = len(setups), problems[0].M
    rngs = [tuple(np.random.default_rng(c) for c in np.random.SeedSequence(seed).spawn(3)) for seed in seeds]
    untouched = [[g.bit_generator.state for g in r] for r in rngs]
    metas = [_meta(s, name, p, rounds, seed, record)
             for s, p, seed in zip(setups, problems, seeds, strict=True)]
    recs = [Recorder(s.evaluator, s.smoothness, s.participation, rounds) for s in setups]
    states = [s.algorithm.init(p, s.hp, s.w0, r[0]) for s, p, r in zip(setups, problems, rngs, strict=True)]
    status: list[str] = [COMPLETED] * B
    diverged_at: list[int | None] = [None] * B
    active = np.arange(B)
    scales = np.array([s.scale for s in setups], dtype=float)
    P = setups[0].participation
    partial = P is not None and P < M  # each run draws its own S_r: the round's env holds those clients
    clients = [np.arange(M)] * B
    make_env, advance, stacked = _machinery(setups[0].algorithm)
    s0 = setups[0]
    memory.check_run(f"{B} runs of {name} advancing together for {rounds} rounds", problems[0], rounds,
                     memory.local_steps_of(s0.hp), getattr(s0.env.oracle, "batch", 0), record, P, runs=B)
    book = BatchRecorder(recs, rounds, problems[0].dim, dual_method(setups[0].algorithm))
    try:
        with serial_blas():
            book.start([st.w for st in states], [getattr(st, "z", None) for st in states])
            state = stacked(states)
            env = make_env(setups, problems)
            for r in range(rounds):
                ctrl_c.check()  # a Ctrl-C that reached a round as another exception, or none
                if partial:  # S_r as ``run`` draws it, from each run's own sampling stream
                    clients = [sample_clients(rngs[i][1], M, P) for i in active]
                with np.errstate(all="ignore"):
                    state, log = advance(state, sampled(env, problems, active, clients) if partial else env,
                                         [rngs[i][2] for i in active])
                    due = (r + 1) % metrics_every == 0 or r + 1 == rounds
                    keep = ~diverged_rows(log.w, log.z, scales[active])
                    sums, hats = book.w_hat(active, log)
                    metrics = None
                    if due:  # one pass over every run's clients (``Recorder.record``: a finite objective)
                        evaluators = [setups[i].evaluator for i in active]
                        metrics = evaluate_many(evaluators, env.kernel, log.w, hats)
                        keep &= np.isfinite(metrics[0]["objective"])
                if not keep.all():
                    for i in active[~keep]:
                        status[i], diverged_at[i] = DIVERGED, r + 1
                if keep.any():
                    rows = np.flatnonzero(keep)
                    book.record(active[rows], _rows(log, rows), [clients[j] for j in rows], sums[rows],
                                None if metrics is None else _metric_rows(metrics, rows))
                if not keep.all():
                    active = active[keep]
                    if not len(active):
                        break
                    state = state.select(list(np.flatnonzero(keep)))
                    env = make_env([setups[i] for i in active], [problems[i] for i in active])
    except KeyboardInterrupt:
        for i in active:
            status[i] = INTERRUPTED
    book.finish()
    seconds = (time.perf_counter() - start) / B
    traces = []
    for i in range(B):
        random = any(g.bit_generator.state != u for g, u in zip(rngs[i], untouched[i], strict=True))
        metas[i].update(status=status[i], diverged_at=diverged_at[i], seconds=seconds,
                        metrics_every=int(metrics_every), random=random)
        traces.append(recs[i].trace(metas[i]))
    return traces


def _rows(log: BatchLog, rows: Array) -> BatchLog:
    """The log of the runs at positions ``rows`` (all of them: the log itself)."""
    if len(rows) == len(log.w):
        return log
    return BatchLog(log.w[rows], None if log.z is None else log.z[rows], log.avg_terms[rows], log.avg_count,
                    log.discrepancy[rows], log.counts, {k: v[rows] for k, v in log.extra.items()},
                    None if log.steps is None else [log.steps[j] for j in rows])


def _metric_rows(metrics: tuple[dict[str, Array], list[dict[str, Any]] | None], rows: Array
                 ) -> tuple[dict[str, Array], list[dict[str, Any]] | None]:
    """``evaluate_many``'s metrics of the runs at positions ``rows``."""
    stacked, own = metrics
    if len(rows) == len(stacked["objective"]):
        return metrics
    return {k: v[rows] for k, v in stacked.items()}, None if own is None else [own[j] for j in rows]
