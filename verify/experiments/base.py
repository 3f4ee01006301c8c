"""A theorem experiment: a small sweep design, its measurements, its checks and their verdicts.

Each experiment names the theorem it checks, what varies, what is measured and which numeric
rule of ``rates.verdict`` decides.  ``quick`` designs keep every experiment to a few seconds on
2 cores; full designs widen the sweeps and add seeds.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from fcocheck.rates.verdict import ERROR, NOT_APPLICABLE, Verdict, combine
from fcocheck.solvers import ctrl_c
from fcocheck.solvers.engine.batch import run_batch
from fcocheck.solvers.engine.run import run
from fcocheck.solvers.engine.trace import INTERRUPTED, Trace
from fcocheck.solvers.error_text import describe
from fcocheck.solvers.errors import FcocheckError
from fcocheck.solvers.problem import Problem


@dataclass
class Result:
    """What one experiment measured and concluded."""

    name: str
    theorem: str
    design: str
    measured: dict[str, Any]
    checks: list[Verdict]
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def status(self) -> str:
        """The combined verdict of the checks (``rates.verdict.combine``)."""
        return combine(self.checks)

    def as_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "name": self.name,
            "theorem": self.theorem,
            "status": self.status,
            "design": self.design,
            "measured": _plain(self.measured),
            "checks": [_plain(with_departure(c.as_dict())) for c in self.checks],
            "seconds": self.seconds,
            "notes": self.notes,
        }


#: a check whose rule reads no departure scale: its power is against the violations it names
NO_SCALE = {"eps_min": None, "scale": "does not apply",
            "excludes": "its named violations (an identity, an inequality with constant 1, a crossover, a "
                        "control or a limit has no exponent to depart from)"}


def with_departure(check: dict[str, Any]) -> dict[str, Any]:
    """A check's JSON form with its smallest detected departure (``NO_SCALE`` for the rules without one)."""
    evidence = check.get("evidence") or {}
    return check if "departure" in evidence else {**check, "evidence": {**evidence, "departure": NO_SCALE}}


@dataclass(frozen=True)
class Experiment:
    """A registered experiment: ``body(quick, seed) -> Result``.

    Attributes:
        needs: for an experiment that can run on a user's instance (``validate --problem``), the
            check that the instance has what the claim assumes: ``needs(problem, ref)`` returns
            None or the missing property; None for an experiment that sweeps its own generator.
        sweeps: what such an experiment varies (named when it does not apply to a fixed instance).
        definition: a user's claim's digest (``solvers.definition``), which keys its stored result
            beside the code version; None for the papers' claims (the code version covers them).

    """

    name: str
    theorem: str
    summary: str
    body: Callable[..., Result]
    needs: Callable[[Any, Any], str | None] | None = None
    sweeps: str = ""
    definition: str | None = None

    def __call__(self, quick: bool = True, seed: int = 0, instance: tuple | None = None) -> Result:
        """Run it and time it (on ``instance`` = (problem, reference) when given and supported)."""
        start = time.perf_counter()
        if instance is not None:
            why = (f"{self.sweeps or 'its own generator'} swept over instances of its class, which one "
                   "fixed instance file cannot vary") if self.needs is None else self.needs(*instance)
            if why:
                res = Result(self.name, self.theorem, f"on instance {instance[0].name}", {},
                             [Verdict(NOT_APPLICABLE, "applicability", f"it needs {why}")])
                res.seconds = time.perf_counter() - start
                return res
        try:
            res = self.body(quick, seed) if instance is None else self.body(quick, seed, instance=instance)
        except Exception as exc:  # one broken experiment is a recorded error, not the end of `validate all`
            ctrl_c.check()  # unless it is a Ctrl-C in another form
            why = f"it could not be judged: {describe(exc)}"
            res = Result(self.name, self.theorem, self.summary, {}, [Verdict(ERROR, "error", why)])
        res.seconds = time.perf_counter() - start
        return res


#: the per-round curves kept for every run behind a verdict (``collect``)
CURVES = ("gap", "gap_avg", "objective", "prox_grad_norm", "discrepancy", "density")
_SINKS: list[list[dict[str, Any]]] = []


@contextmanager
def collect() -> Iterator[list[dict[str, Any]]]:
    """Record every run ``runs`` makes inside the block: its configuration and per-round curves.

    The report's theorem jobs wrap each experiment in it, so the payload stored in the results
    store holds every run behind the verdict, not only the summary.
    """
    sink: list[dict[str, Any]] = []
    _SINKS.append(sink)
    try:
        yield sink
    finally:
        _SINKS.remove(sink)


def _record(algorithm: str, problem: Problem, hp: dict[str, Any], oracle: str, seed: int, kw: dict,
            t: Trace, seconds: float) -> None:
    if not _SINKS:
        return
    from fcocheck.solvers.digest import instance_sha256

    extra = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
    _SINKS[-1].append({
        "algorithm": algorithm, "problem": problem.name, "problem_meta": dict(problem.meta),
        "instance_sha256": instance_sha256(problem), "hp": dict(hp),
        "oracle": oracle, "seed": seed, **extra, "status": t.status, "seconds": seconds,
        "curves": {k: t.arrays[k].tolist() for k in CURVES if k in t.arrays and t.arrays[k].ndim == 1},
    })


def runs(
    algorithm: str,
    problem: Problem,
    hp: dict[str, Any],
    rounds: int,
    oracle: str,
    seeds: list[int],
    reference: Any,
    record: str = "round",
    **kw: Any,
) -> list[Trace]:
    """One trace per seed; a diverged run is kept (its metrics end early) and flagged by the caller.

    ``kw`` goes to ``solvers.engine.run`` (``w0``, ``participation``).  Inside ``collect`` every run
    is recorded.  A configuration this process ran already is not run again (``MEMO``): its bits depend
    on nothing else (the engine's streams come from the seed).  A run the engine ended on Ctrl-C is not
    a result: the interrupt goes on (``KeyboardInterrupt``).  Several seeds of per-round records with no
    ``kw`` but ``w0`` and ``participation`` run as one ``run_batch`` (``runs_together``: the same traces,
    each run's ``seconds`` the batch's share).
    """
    if len(seeds) > 1 and record == "round" and _together(kw):
        return runs_together(algorithm, [(problem, hp, seeds, reference)], rounds, oracle, **kw)[0]
    out = []
    for s in seeds:
        key, objects = _memo_key(algorithm, problem, hp, rounds, oracle, s, reference, record, kw)
        got = _recall(key) if record == "round" else _take(Run(algorithm, problem, hp, rounds, oracle, s,
                                                               reference, kw, record))
        if got is None:
            t0 = time.perf_counter()
            t = run(algorithm, problem, hp, rounds=rounds, oracle=oracle, seed=s, reference=reference,
                    record=record, **kw)
            got = _keep(key, objects, t, time.perf_counter() - t0)
        _record(algorithm, problem, hp, oracle, s, {"rounds": rounds, **kw}, *got)
        out.append(got[0])
    return out


Point = tuple[Problem, dict[str, Any], list[int], Any]  # (instance, hyper-parameters, seeds, reference)


def runs_together(algorithm: str, points: Sequence[Point], rounds: int, oracle: str,
                  **kw: Any) -> list[list[Trace]]:
    """``[runs(algorithm, q, hp, rounds, oracle, seeds, reference, **kw) for q, hp, seeds, reference in …]``.

    Per-round records, every run from ``w0`` and with P clients per round when given (``kw``: ``w0``,
    ``participation``, recorded as given): the runs not in the memo as one ``run_batch``, which
    advances together those it can (the same traces as alone, each run's ``seconds`` the batch's share);
    inside ``collect`` every run is recorded.
    """
    if not _together(kw):
        raise ValueError(f"runs_together: {sorted(kw)}; the rule is w0 and participation at most")
    flat = [Run(algorithm, q, hp, rounds, oracle, s, ref, kw) for q, hp, seeds, ref in points for s in seeds]
    keys = [_memo_key(algorithm, r.problem, r.hp, rounds, oracle, r.seed, r.reference, "round", kw)
            for r in flat]
    got = [_recall(key) for key, _ in keys]
    todo = [i for i, g in enumerate(got) if g is None]
    for i, g in zip(todo, _fresh([flat[i] for i in todo], [keys[i] for i in todo]), strict=True):
        got[i] = g
    done = iter(got)
    out = []
    for q, hp, seeds, _ in points:
        out.append([])
        for s in seeds:
            t, seconds = next(done)
            _record(algorithm, q, hp, oracle, s, {"rounds": rounds, **kw}, t, seconds)
            out[-1].append(t)
    return out


class Run(NamedTuple):
    """One engine run as ``runs`` makes it for one seed, per-round records (``prefetch``)."""

    algorithm: str
    problem: Problem
    hp: dict[str, Any]
    rounds: int
    oracle: str
    seed: int
    reference: Any
    kw: dict[str, Any]  #: the engine's options (``w0``, ``participation``), as ``runs`` gets them
    record: str = "round"  #: ``round``, or ``step`` (kept until its one recall: ``_take``)


def _fresh(todo: Sequence[Run], keys: Sequence[tuple[tuple | None, tuple]]) -> list[tuple[Trace, float]]:
    """Run ``todo`` (each with its memo key and objects) and keep each; each run's trace and seconds.

    One ``run_batch`` per (method, rounds, oracle, record, participation) — what a batch's runs share —,
    each run with its own instance, hyper-parameters, seed and start point.  A per-step run is kept until
    its one recall (``_ONCE``), a per-round one in the memo.
    """
    groups: dict[tuple[str, int, str, str, int | None], list[int]] = {}
    for i, r in enumerate(todo):
        key = (r.algorithm, r.rounds, r.oracle, r.record, r.kw.get("participation"))
        groups.setdefault(key, []).append(i)
    got: list[tuple[Trace, float] | None] = [None] * len(todo)
    for (algorithm, rounds, oracle, record, participation), idx in groups.items():
        fresh = run_batch(algorithm, [todo[i].problem for i in idx], [todo[i].hp for i in idx], rounds,
                          [todo[i].seed for i in idx], oracle, [todo[i].reference for i in idx],
                          w0s=[todo[i].kw.get("w0") for i in idx], record=record, participation=participation)
        for i, t in zip(idx, fresh, strict=True):
            got[i] = (_keep if record == "round" else _keep_once)(*keys[i], t, t.meta["seconds"])
    return [g for g in got if g is not None]


def prefetch(planned: Sequence[Run]) -> int:
    """Run into the memo, in as few ``run_batch`` calls as may be, the planned runs it can recall and lacks.

    Why: a claim measures its instances one by one, each asking ``runs`` / ``runs_together`` for its own
    runs; a batch across the instances (and their noise seeds) costs little more than one instance's.  The
    caller then asks for each run as before and gets it from the memo (hold it there: ``holding``), so
    its order, its records (``collect``: recorded when asked for, not here) and its bits are unchanged (a
    per-step run is held apart until its one recall, ``_take``: the memo keeps none) —
    a planned run the caller never asks for costs time only, one it asks for and was not planned is run
    then.  Runs that may not batch (``_together``, a method the batched round does not cover:
    ``batched``) or cannot be kept (``_memo_key`` None) are left to the caller: run ahead, they would
    gain nothing.  Returns how many runs were run.
    """
    todo: list[Run] = []
    keys: list[tuple[tuple | None, tuple]] = []
    seen: set[tuple] = set()
    for r in planned:
        if not (_together(r.kw) and batched(r.algorithm)):
            continue
        key, objects = (_memo_key(r.algorithm, r.problem, r.hp, r.rounds, r.oracle, r.seed, r.reference,
                                  "round", r.kw) if r.record == "round" else _once_key(r))
        if key is None or key in _MEMO or key in _ONCE or key in seen:
            continue
        seen.add(key)
        todo.append(r)
        keys.append((key, objects))
    _fresh(todo, keys)
    return len(todo)


def batched(algorithm: str) -> bool:
    """Whether ``run_batch`` may advance runs of ``algorithm`` together (``solvers.engine.batch``).

    False for a name the registry does not know: the run that uses it raises the registry's error.
    """
    from fcocheck.solvers import algorithms
    from fcocheck.solvers.engine.batch import batched_method

    try:
        return batched_method(algorithms.get(algorithm))
    except FcocheckError:
        return False


@contextmanager
def holding(n: int) -> Iterator[None]:
    """Inside the block the memo keeps ``n`` runs more than ``MEMO``; on leaving it, the least recent go.

    Why: a claim's prefetched runs (``prefetch``) must stay until its instances ask for them, more than
    ``MEMO`` for a claim of many instances; after it, the memo is its usual size.
    """
    global _HELD
    _HELD += n
    try:
        yield
    finally:
        _HELD -= n
        while len(_MEMO) > MEMO + _HELD:
            _MEMO.popitem(last=False)
        if not _HELD:  # per-step runs run ahead that no one asked for
            _ONCE.clear()


#: runs a process keeps (least recently used out): a claim's twin, its controls and its sibling claims
#: rerun its configurations on the same instances (the curse study's 5 run sets per sweep are 2)
MEMO = 64
_MEMO: OrderedDict[tuple, tuple[Trace, float, tuple]] = OrderedDict()
#: runs the memo keeps beyond ``MEMO`` for now (``holding``)
_HELD = 0
#: per-step runs run ahead (``prefetch``), each kept until its one recall (``_take``) or the end of the
#: outermost ``holding``: per-step traces are megabytes, the memo does not keep them
_ONCE: dict[tuple, tuple[Trace, float, tuple]] = {}
#: what a memo key may hold besides the instance objects: values whose repr is their value
_PLAIN = (bool, int, float, str, type(None), np.integer, np.floating)


def _together(kw: dict[str, Any]) -> bool:
    """Whether runs with the engine options ``kw`` may run as one batch: a start point, clients per round."""
    return set(kw) <= {"w0", "participation"}


def _recall(key: tuple | None) -> tuple[Trace, float] | None:
    """A kept run (its trace and first run's seconds), now the most recent; None if not kept."""
    if key is None or key not in _MEMO:
        return None
    _MEMO.move_to_end(key)
    return _MEMO[key][:2]


def _keep(key: tuple | None, objects: tuple, t: Trace, seconds: float) -> tuple[Trace, float]:
    """Keep a fresh run under ``key`` (None: not kept); a run the engine ended on Ctrl-C is an interrupt."""
    if t.status == INTERRUPTED:  # not a result: never judged nor kept
        raise KeyboardInterrupt
    if key is not None:
        _MEMO[key] = (t, seconds, objects)  # the objects held: their ids stay theirs
        if len(_MEMO) > MEMO + _HELD:
            _MEMO.popitem(last=False)
    return t, seconds


def _once_key(r: Run) -> tuple[tuple | None, tuple]:
    """A per-step run's key in ``_ONCE`` (``_memo_key``'s, marked per-step) and the objects it names."""
    key, objects = _memo_key(r.algorithm, r.problem, r.hp, r.rounds, r.oracle, r.seed, r.reference, "round",
                             r.kw)
    return (None if key is None else (*key, r.record)), objects


def _take(r: Run) -> tuple[Trace, float] | None:
    """A per-step run run ahead (its trace and seconds), no longer kept; None if there is none."""
    key, _ = _once_key(r)
    got = None if key is None else _ONCE.pop(key, None)
    return None if got is None else got[:2]


def _keep_once(key: tuple | None, objects: tuple, t: Trace, seconds: float) -> tuple[Trace, float]:
    """``_keep`` for a per-step run run ahead: kept in ``_ONCE`` until its one recall."""
    if t.status == INTERRUPTED:
        raise KeyboardInterrupt
    if key is not None:
        _ONCE[key] = (t, seconds, objects)
    return t, seconds


def _memo_key(algorithm: str, problem: Problem, hp: dict[str, Any], rounds: int, oracle: str, seed: int,
              reference: Any, record: str, kw: dict[str, Any]) -> tuple[tuple | None, tuple]:
    """A run's configuration as a key (and the objects it names): objects by identity, values by exact repr.

    An engine option that is an array (a start point ``w0``) is keyed by its bits (``_bits``: an array's
    repr is not its value).  The key is None (not kept) for a per-step record (megabytes a trace) or any
    other argument that is not a plain scalar.  The objects are held beside the entry, so an id is never
    another object's while its entry lives; a card registered again under the same name is another object,
    so another key.
    """
    from fcocheck.solvers import algorithms

    options = [v for v in kw.values() if not isinstance(v, np.ndarray)]
    if record != "round" or not all(isinstance(v, _PLAIN) for v in (*hp.values(), *options)):
        return None, ()
    objects = (algorithms.ALGORITHMS.get(algorithms.ALIASES.get(algorithm, algorithm)), problem, reference)
    return (algorithm, tuple(id(o) for o in objects), repr(sorted(hp.items())), rounds, oracle, seed,
            tuple((k, _bits(v)) for k, v in sorted(kw.items()))), objects


def _bits(v: Any) -> str | tuple:
    """A plain value by its exact repr, an array by its dtype, shape and bytes: equal keys, equal values."""
    if isinstance(v, np.ndarray):
        return v.dtype.str, v.shape, v.tobytes()
    return repr(v)


#: where a study seed's replacement instances start (``draw_instances``): far above any study seed
REPLACEMENT_BASE = 1_000_000


def draw_instances(seed: int, want: int, accept: Callable[[int], Any], cap: int) -> tuple[list, list[int]]:
    """``want`` instances of a class that ``accept`` (instance seed → what it measured, or None to skip).

    Slot i tries instance seed + i; a skipped draw is replaced from the study seed's own stream
    ``REPLACEMENT_BASE + cap·seed + k`` (k = 0, 1, …), so two study seeds never fall back on the same
    instances (a sequential search made seeds 5, 6 and 7 of a study all measure instances 7, 8, 9).
    At most ``cap`` draws are skipped.  Returns [(instance seed, what it measured)] and the skipped seeds.
    """
    got: list[tuple[int, Any]] = []
    skipped: list[int] = []
    for slot in range(want):
        s = seed + slot
        while True:
            out = accept(s)
            if out is not None:
                got.append((s, out))
                break
            skipped.append(s)
            if len(skipped) >= cap:
                return got, skipped
            s = REPLACEMENT_BASE + cap * seed + len(skipped) - 1
    return got, skipped


def tail_mean(arr: np.ndarray, tail: float = 0.25) -> float:
    """Mean of the last ``tail`` fraction of a curve (a steady-state value)."""
    arr = np.asarray(arr, dtype=float)
    return float(arr[int(np.floor(arr.size * (1 - tail))) :].mean())


def _plain(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_plain(v) for v in x]
    if isinstance(x, np.ndarray):
        return _plain(x.tolist())
    if isinstance(x, np.generic):
        return x.item()
    return x


def slope_series(
    label: str,
    x: Any,
    Y: Any,
    fit: Any = None,
    predicted: float | None = None,
    fit_x: Any = None,
    inverse: bool = False,
    bound: Any = None,
) -> dict[str, Any]:
    """One measured curve for the report: x, Y (seeds × points), the fitted and the predicted slope.

    The fit's line and the predicted slope are given in the plotted coordinates (log y vs log x):
    a fit made against 1/x (``inverse``) has its slope, interval and prediction negated.  The
    predicted line is drawn through the fitted line at the geometric middle of the fitted range.
    """
    Y = np.atleast_2d(np.asarray(Y, dtype=float))
    s: dict[str, Any] = {"label": label, "x": [float(v) for v in x], "Y": Y.tolist()}
    if fit is not None:
        fx = np.asarray(x if fit_x is None else fit_x, dtype=float)
        sign = -1.0 if inverse else 1.0
        lo, hi = sorted((sign * fit.lo, sign * fit.hi))
        s["fit"] = {
            "slope": sign * fit.slope,
            "intercept": fit.intercept,
            "ci": [lo, hi],
            "x": [float(fx.min()), float(fx.max())],
        }
        if predicted is not None:
            s["predicted"] = sign * predicted
    if bound is not None:
        s["bound"] = [float(v) for v in bound]
    return s


def plot_spec(
    kind: str, xlabel: str, ylabel: str, series: list[dict[str, Any]], **extra: Any
) -> dict[str, Any]:
    """What the report should draw for an experiment (``kind``: slope | bound | scatter | bars | trace)."""
    return {"kind": kind, "xlabel": xlabel, "ylabel": ylabel, "series": series, **extra}


#: quick-mode seconds of each experiment, serial (``validate all --quick --workers 1 --json``, 2 cores,
#: 2026-11-27, after FedCanon's runs batched); those under a second are left out: only the order in which
#: a pool is fed depends on them (longest first), never a result
COST = {"fco-4.1-speedup": 6.7, "fco-4.3-floor-K": 6.5, "fco-curse-rate": 5.5, "fco-4.2-vs-4.1": 4.2,
        "fedcanon-pl-linear": 3.9, "fco-4.3-tuned-R": 3.7, "fco-4.2-rounds": 3.7,
        "fedcanon-floor-structure": 3.1, "fedcanon-heterogeneity": 2.7, "fco-4.3-variance-M": 2.5,
        "fco-4.3-floor-zeta": 2.3, "svrg-contraction": 1.5}


def longest_first(names: list[str]) -> list[str]:
    """``names`` in decreasing expected cost (``COST``; unknown names last, in their order)."""
    return sorted(names, key=lambda n: -COST.get(n, 0.0))
