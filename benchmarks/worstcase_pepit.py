"""``fcocheck worstcase`` against the same PEPs written directly in PEPit, timed in one run.

    .venv/bin/python benchmarks/worstcase_pepit.py [--quick] [--repeat N] [--no-process]

What is compared.  Four performance-estimation problems (PEPs), one grid point each of the targets
``fco-4.1``, ``fco-4.2``, ``fco-4.3`` and ``fco-lemma-4.5`` (FedDualAvg, M = 2 clients, ψ any closed
convex function, Euclidean h):

* **fcocheck**: ``fcocheck.rates.worstcase.solve.worst_case(spec)`` in process, the ``spec`` made from
  the target's grid exactly as ``fcocheck worstcase TARGET --grid K=.. R=..`` makes it;
* **direct**: the same PEP written here as a plain PEPit user would (``PEP()``, ``declare_function``,
  ``proximal_step``, ``set_performance_metric``, ``solve(wrapper="cvxpy", solver="CLARABEL")``), from
  the method's definition (Yuan, Zaheer & Reddi 2021, FedDualAvg): each client m keeps a dual point z,
  takes K steps z ← z − η_c ∇F_m(w) with w = prox_{η̃ψ}(z) at the accumulated step weight η̃, the
  server averages.  Every client of a round starts from the same server point, so the direct program
  computes that round's first primal point prox_{η̃ψ}(z_r) once and shares it;
* **direct, unshared** (diagnosis only): the same direct program computing that primal point once per
  client and once more for the output, as fcocheck's program does — one switch of the direct code.

The function classes, initial condition and metrics are those of the targets (see
``fcocheck.rates.worstcase.spec``): ``fco-4.1``/``fco-4.3``: F L-smooth convex, F_m = F + ⟨c_m, ·⟩
with Σ c_m = 0 and ‖c_m‖ ≤ ζ, metric Φ(ŵ) − Φ*; ``fco-4.2``: each F_m L-smooth convex with
‖∇F_m‖ ≤ G; ``fco-lemma-4.5``: F_m = (L/2)‖w‖² + ⟨c_m, w⟩, metric (1/M)Σ_m ‖z̄ − z^m‖² after the last
local step, whose exact value is (Kη_cζ)² (ψ the indicator of a point freezes the primal points).

How to read the output.

1. *Values and sizes*: both values, their relative difference, the side of the Gram matrix and the
   number of scalar constraints of each SDP, and the solver status (``optimal_inaccurate``: CLARABEL
   stopped at its reduced tolerance).  The values should agree to ~1e-5; where they do not, the
   exact value (lemma 4.5) says which is right.
2. *Seconds*: each PEP built and solved ``--repeat`` times, fcocheck and direct interleaved (the order
   alternates between repetitions), min and median wall seconds, and the ratio fcocheck ÷ direct;
   the last line is the geometric mean of the ratios (of the mins).  One untimed warm-up call of each
   comes first (it imports PEPit and cvxpy).
3. *Where the time goes*: instrumented runs of each variant (3, quick 1; the median of each stage)
   split into building the program, PEPit's interpolation constraints (``_prepare_constraints``),
   translating them to cvxpy expressions, cvxpy's canonicalisation, the solver (CLARABEL, with its
   iteration count and seconds per iteration) and PEPit's post-solve checks.
4. *Whole processes* (skipped by ``--no-process``): the wall time of ``fcocheck worstcase TARGET --grid
   K=1,2 R=1,2 --workers 1 --store NEW --no-progress``, of the same command once the store holds every
   point, of a fresh interpreter running fcocheck's ``worst_case`` over the same grid, and of a fresh
   interpreter running the direct programs over it; first, the imports alone: ``python -c "import PEPit,
   cvxpy"``, plus fcocheck's worst-case modules, plus ``fcocheck.reports.cli_report`` (which the
   command imports to open its session).

Nothing is asserted about time: a benchmark reports.  ``figures(quick)`` returns the four PEPs' values
and best seconds for ``benchmarks/suite.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import json
import math
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "fcocheck.reports.cli"]
SOLVER = "CLARABEL"


@dataclass(frozen=True)
class Case:
    """One PEP of the comparison: a target and the grid point (K, R) taken from it (M = 2)."""

    target: str
    K: int
    R: int
    quick_k: int
    quick_r: int

    def point(self, quick: bool) -> tuple[int, int]:
        """(K, R) of the full or the quick run."""
        return (self.quick_k, self.quick_r) if quick else (self.K, self.R)


#: ~0.5–2 s each with fcocheck here (2 cores, CLARABEL); the quick points take ~0.1–0.4 s.
CASES = (
    Case("fco-4.1", 2, 3, 2, 2),
    Case("fco-4.2", 2, 3, 2, 2),
    Case("fco-4.3", 2, 3, 2, 2),
    Case("fco-lemma-4.5", 2, 4, 2, 2),
)
#: the grid of the whole-process comparison, and its targets (fco-4.3 adds ζ = 0 twins and measured runs)
PROCESS_GRID = {"K": [1, 2], "R": [1, 2]}
PROCESS_TARGETS = ("fco-4.2", "fco-4.3")
#: what a fresh ``fcocheck worstcase`` process imports, in three nested sets (table 4)
IMPORT_SETS = {
    "python -c 'import PEPit, cvxpy'": "import PEPit, cvxpy",
    "+ fcocheck's worst-case modules (solve, session, store, judge)":
        "import PEPit, cvxpy, fcocheck.rates.worstcase.solve, fcocheck.verify.worstcase, "
        "fcocheck.verify.sweep.session, fcocheck.verify.sweep.store, fcocheck.verify.sweep.executors, "
        "fcocheck.rates.catalog, fcocheck.rates.verdict, fcocheck.rates.worstcase.tightness, "
        "fcocheck.reports.cli_worstcase",
    "+ fcocheck.reports.cli_report (home of _session)":
        "import PEPit, cvxpy, fcocheck.rates.worstcase.solve, fcocheck.verify.worstcase, "
        "fcocheck.verify.sweep.session, fcocheck.verify.sweep.store, fcocheck.verify.sweep.executors, "
        "fcocheck.rates.catalog, fcocheck.rates.verdict, fcocheck.rates.worstcase.tightness, "
        "fcocheck.reports.cli_worstcase, fcocheck.reports.cli_report",
}


# --------------------------------------------------------------------------------------------------
# The direct PEPit programs (PEPit is imported inside them: a child process pays only its imports)
# --------------------------------------------------------------------------------------------------


def mean(points: list[Any]) -> Any:
    """(1/n) Σ points, for PEPit points or expressions."""
    total = points[0]
    for p in points[1:]:
        total = total + p
    return total / len(points)


def prox(psi: Any, z: Any, t: float) -> Any:
    """prox_{tψ}(z) by PEPit's ``proximal_step``; z itself at t = 0 (the first step of FedDualAvg)."""
    from PEPit.primitive_steps import proximal_step

    return z if t == 0 else proximal_step(z, psi, t)[0]


def feddualavg(
    psi: Any, grad: Callable[[int, Any], Any], w0: Any, M: int, K: int, R: int, eta: float, eta_s: float,
    shared: bool = True,
) -> tuple[Any, Any]:
    """Run FedDualAvg on PEPit points from z_0 = w0 (Euclidean h, so ∇h(w0) = w0).

    Round r, local step k: η̃_{r,k} = η_s η_c r K + η_c k, w^m = prox_{η̃ψ}(z^m), z^m ← z^m − η_c ∇F_m(w^m);
    then z_{r+1} = z_r + η_s (z̄ − z_r).  Output: with η_s = 1, ŵ = the mean over r and k = 1..K of
    prox_{η̃_{r,k}ψ}(z̄_{r,k}); otherwise the mean of the server points prox_{η̃_{r+1,0}ψ}(z_{r+1}).

    Args:
        psi: the PEPit function ψ.
        grad: ``grad(m, w)``, client m's gradient at w.
        w0: the starting point.
        M: clients; K: local steps; R: rounds.
        eta: the client step η_c; eta_s: the server step η_s.
        shared: compute each round's first primal point prox(z_r) once for all clients and the output
            (a plain program); False computes it per client and again for the output (fcocheck's shape).

    Returns:
        The output point and (1/M)Σ_m ‖z̄ − z^m‖² after the last local step of the last round.

    """
    z, w = w0, w0
    shadow, server, last = [], [], None
    for r in range(R):
        zs = [z] * M
        for k in range(K):
            t = eta_s * eta * r * K + eta * k
            ws = [w] * M if k == 0 and shared else [prox(psi, zm, t) for zm in zs]
            if k > 0 and eta_s == 1:
                shadow.append(prox(psi, mean(zs), t))
            zs = [zm - eta * grad(m, wm) for m, (zm, wm) in enumerate(zip(zs, ws, strict=True))]
        zbar = mean(zs)
        last = mean([(zbar - zm) ** 2 for zm in zs])
        z = z + eta_s * (zbar - z)
        w = prox(psi, z, eta_s * eta * (r + 1) * K)
        server.append(w)
        if eta_s == 1:
            shadow.append(w)  # z_{r+1} = z̄_{r,K}: the server point is also ŵ's k = K term
    return (mean(shadow) if eta_s == 1 else mean(server)), last


def shifts(problem: Any, M: int, zeta: float) -> list[Any]:
    """c_1..c_M with Σ_m c_m = 0 and ‖c_m‖² ≤ ζ² (c_M = −Σ of the others)."""
    cs = [problem.set_initial_point() for _ in range(M - 1)]
    last = -1 * cs[0]
    for c in cs[1:]:
        last = last - c
    cs.append(last)
    for c in cs:
        problem.add_constraint(c**2 <= zeta**2)
    return cs


def pep_shift(M: int, K: int, R: int, eta: float, eta_s: float, L: float, B: float, zeta: float,
              shared: bool = True) -> Any:
    """Φ(out) − Φ* of FedDualAvg, F L-smooth convex, F_m = F + ⟨c_m, ·⟩, ½‖w0 − w*‖² ≤ B."""
    from PEPit import PEP
    from PEPit.functions import ConvexFunction, SmoothConvexFunction

    problem = PEP()
    F = problem.declare_function(SmoothConvexFunction, L=L)
    cs = shifts(problem, M, zeta)
    psi = problem.declare_function(ConvexFunction)
    Phi = F + psi
    w_star = Phi.stationary_point()
    w0 = problem.set_initial_point()
    problem.set_initial_condition(0.5 * (w0 - w_star) ** 2 <= B)
    out, _ = feddualavg(psi, lambda m, w: F.gradient(w) + cs[m], w0, M, K, R, eta, eta_s, shared)
    problem.set_performance_metric(Phi(out) - Phi(w_star))
    return problem


def pep_bounded_gradient(M: int, K: int, R: int, eta: float, eta_s: float, L: float, B: float, G: float,
                         shared: bool = True) -> Any:
    """Φ(out) − Φ* of FedDualAvg, each F_m L-smooth convex with ‖∇F_m‖ ≤ G, F = (1/M)Σ F_m."""
    from PEPit import PEP
    from PEPit.functions import ConvexFunction, SmoothConvexLipschitzFunction

    problem = PEP()
    fs = [problem.declare_function(SmoothConvexLipschitzFunction, L=L, M=G) for _ in range(M)]
    psi = problem.declare_function(ConvexFunction)
    Phi = mean(fs) + psi
    w_star = Phi.stationary_point()
    w0 = problem.set_initial_point()
    problem.set_initial_condition(0.5 * (w0 - w_star) ** 2 <= B)
    out, _ = feddualavg(psi, lambda m, w: fs[m].gradient(w), w0, M, K, R, eta, eta_s, shared)
    problem.set_performance_metric(Phi(out) - Phi(w_star))
    return problem


def pep_discrepancy(M: int, K: int, R: int, eta: float, L: float, B: float, zeta: float,
                    shared: bool = True) -> Any:
    """(1/M)Σ_m ‖z̄ − z^m‖² after the last local step, F_m = (L/2)‖w‖² + ⟨c_m, w⟩ (so ∇F_m(w) = Lw + c_m)."""
    from PEPit import PEP
    from PEPit.functions import ConvexFunction

    problem = PEP()
    psi = problem.declare_function(ConvexFunction)
    cs = shifts(problem, M, zeta)
    w0 = problem.set_initial_point()
    w_star = problem.set_initial_point()  # the class's ½‖w0 − w*‖² ≤ B (it binds nothing here)
    problem.set_initial_condition(0.5 * (w0 - w_star) ** 2 <= B)
    _, last = feddualavg(psi, lambda m, w: L * w + cs[m], w0, M, K, R, eta, 1.0, shared)
    problem.set_performance_metric(last)
    return problem


def direct_problem(args: dict[str, Any], shared: bool = True) -> Any:
    """The direct PEP of ``args`` (``direct_args``'s plain numbers and the kind of PEP)."""
    a = dict(args)
    kind = a.pop("kind")
    builder = {"shift": pep_shift, "bounded-gradient": pep_bounded_gradient, "discrepancy": pep_discrepancy}
    return builder[kind](**a, shared=shared)


def solve_direct(problem: Any) -> tuple[float, str]:
    """Solve a direct PEP with CLARABEL through cvxpy; its value (PEPit's dual bound) and cvxpy's status."""
    with warnings.catch_warnings():  # fcocheck silences the same 'may be inaccurate' warning
        warnings.simplefilter("ignore")
        value = problem.solve(wrapper="cvxpy", solver=SOLVER, verbose=0)
    return float(value), str(problem.wrapper.prob.status)


def direct_value(args: dict[str, Any], shared: bool = True) -> tuple[float, str, int, int, float]:
    """Build and solve the direct PEP.

    Returns:
        The value (PEPit's dual bound), cvxpy's status, the Gram side, the number of scalar
        constraints and the primal value (the worst case of the instance the solver found: a lower
        bound on the worst case up to the solver's feasibility tolerance).

    """
    from PEPit.point import Point

    problem = direct_problem(args, shared)
    value, status = solve_direct(problem)
    primal = float(problem.wrapper.prob.value)
    return value, status, Point.counter, len(problem._list_of_prepared_constraints), primal


# --------------------------------------------------------------------------------------------------
# fcocheck's side: the grid point as the CLI makes it, and the plain numbers the direct code takes
# --------------------------------------------------------------------------------------------------


def target_spec(target: str, K: int, R: int) -> Any:
    """The ``PepSpec`` that ``fcocheck worstcase TARGET --grid K=K R=R`` solves (quick grid, η_s rule)."""
    from fcocheck.verify.worstcase import TARGETS, target_specs

    specs = target_specs(TARGETS[target], True, {"K": [K], "R": [R]})
    if len(specs) != 1:
        raise ValueError(f"{target} at K={K}, R={R} has {len(specs)} grid points; one is expected")
    return specs[0]


def direct_args(spec: Any) -> dict[str, Any]:
    """The plain numbers of ``spec`` for the direct programs (and the kind of PEP it is)."""
    if (spec.method, spec.psi, spec.mu, spec.quadratic) != ("feddualavg", "convex", 0.0, False):
        raise ValueError(f"the direct programs are FedDualAvg with convex ψ, μ = 0, not {spec}")
    common = {"M": spec.M, "K": spec.K, "R": spec.R, "eta": spec.eta, "L": spec.L, "B": spec.B}
    if spec.metric == "discrepancy" and spec.norm == "q" and spec.clients == "shift" and spec.eta_s == 1:
        return {"kind": "discrepancy", **common, "zeta": spec.zeta}
    if spec.metric == "value" and spec.clients == "shift":
        return {"kind": "shift", **common, "eta_s": spec.eta_s, "zeta": spec.zeta}
    if spec.metric == "value" and spec.clients == "bounded-gradient":
        return {"kind": "bounded-gradient", **common, "eta_s": spec.eta_s, "G": spec.G}
    raise ValueError(f"no direct program for {spec}")


def exact_value(args: dict[str, Any]) -> float | None:
    """The closed-form worst case where one is known: lemma 4.5's discrepancy (Kη_cζ)² (M = 2)."""
    if args["kind"] == "discrepancy" and args["M"] == 2:
        return (args["K"] * args["eta"] * args["zeta"]) ** 2
    return None


# --------------------------------------------------------------------------------------------------
# Measurements
# --------------------------------------------------------------------------------------------------


@dataclass
class Measurement:
    """One PEP: both values, SDP sizes, statuses and the timed repetitions of each variant."""

    name: str
    spec: Any
    args: dict[str, Any]
    value_fcocheck: float = math.nan
    value_direct: float = math.nan
    value_unshared: float = math.nan
    primal_direct: float = math.nan
    status_fcocheck: str = ""
    status_direct: str = ""
    size: dict[str, tuple[int, int]] = field(default_factory=dict)
    seconds: dict[str, list[float]] = field(default_factory=dict)
    phases: dict[str, dict[str, float]] = field(default_factory=dict)

    def best(self, variant: str) -> float:
        """The fastest repetition of ``variant``."""
        return min(self.seconds[variant])

    def median(self, variant: str) -> float:
        """The median repetition of ``variant``."""
        return statistics.median(self.seconds[variant])


def run_fcocheck(m: Measurement) -> float:
    """fcocheck's ``worst_case`` on the spec; records value, status and size; returns wall seconds."""
    from fcocheck.rates.worstcase.solve import worst_case

    t0 = time.perf_counter()
    r = worst_case(m.spec)
    seconds = time.perf_counter() - t0
    m.value_fcocheck, m.status_fcocheck = r.value, f"{r.status} ({r.solver})"
    m.size["fcocheck"] = (r.gram_size, r.constraints)
    return seconds


def run_direct(m: Measurement, shared: bool = True) -> float:
    """The direct program (shared or not); records value, status and size; returns wall seconds."""
    t0 = time.perf_counter()
    value, status, gram, cons, primal = direct_value(m.args, shared)
    seconds = time.perf_counter() - t0
    if shared:
        m.value_direct, m.status_direct, m.primal_direct = value, status, primal
        m.size["direct"] = (gram, cons)
    else:
        m.value_unshared = value
        m.size["unshared"] = (gram, cons)
    return seconds


VARIANTS: dict[str, Callable[[Measurement], float]] = {
    "fcocheck": run_fcocheck,
    "direct": run_direct,
    "unshared": lambda m: run_direct(m, shared=False),
}


def measure(quick: bool, repeat: int, variants: tuple[str, ...] = ("fcocheck", "direct", "unshared"),
            log: Callable[[str], None] | None = None) -> list[Measurement]:
    """Every case: one warm-up, then ``repeat`` interleaved repetitions of each variant.

    Repetition i runs the variants in order for even i and reversed for odd i, so a drift of the
    machine's load falls on both sides.
    """
    ms = []
    for case in CASES:
        spec = target_spec(case.target, *case.point(quick))
        ms.append(Measurement(f"{case.target} K={spec.K} R={spec.R}", spec, direct_args(spec)))
    for name in variants:  # warm-up: imports, first-call caches
        VARIANTS[name](ms[0])
    for i in range(repeat):
        order = variants if i % 2 == 0 else variants[::-1]
        for m in ms:
            for name in order:
                gc.collect()  # the previous run's garbage is not charged to this one
                m.seconds.setdefault(name, []).append(VARIANTS[name](m))
        if log:
            log(f"  repetition {i + 1}/{repeat} done")
    return ms


def figures(quick: bool) -> list[dict[str, Any]]:
    """One dict per PEP: name, value_fcocheck, value_direct, seconds_fcocheck, seconds_direct.

    Seconds are the best of 3 interleaved repetitions (``measure``), values those of the last one.
    """
    return [
        {"name": m.name, "value_fcocheck": m.value_fcocheck, "value_direct": m.value_direct,
         "seconds_fcocheck": m.best("fcocheck"), "seconds_direct": m.best("direct")}
        for m in measure(quick, 3, ("fcocheck", "direct"))
    ]


# --------------------------------------------------------------------------------------------------
# Diagnosis: where one solve spends its time
# --------------------------------------------------------------------------------------------------

PHASES = ("build", "prepare", "to_cvxpy", "canon", "solver", "post", "other", "total")


@contextlib.contextmanager
def phase_clock() -> Iterator[dict[str, float]]:
    """Time PEPit's and cvxpy's stages by wrapping their methods for the duration (restored after).

    Yields a dict filled on exit: ``build`` (start to ``PEP.solve``: the program and fcocheck's own
    set-up), ``prepare`` (PEPit's interpolation constraints), ``to_cvxpy`` (PEPit constraints → cvxpy
    expressions), ``canon`` (cvxpy's compilation and the rest of ``Problem.solve`` around the solver),
    ``solver`` (CLARABEL with its interface), ``post`` (PEPit's feasibility checks and point values),
    ``other`` (the rest, e.g. fcocheck's result), ``total``; and ``iterations`` of the solver.
    """
    import cvxpy as cp
    from PEPit import PEP
    from PEPit.wrappers.cvxpy_wrapper import CvxpyWrapper

    acc: dict[str, float] = dict.fromkeys([*PHASES, "cvxpy", "solve", "iterations"], 0.0)
    first_solve: list[float] = []
    targets = [
        (PEP, "solve", "solve"), (PEP, "_prepare_constraints", "prepare"),
        (CvxpyWrapper, "set_main_variables", "to_cvxpy"),
        (CvxpyWrapper, "send_constraint_to_solver", "to_cvxpy"),
        (CvxpyWrapper, "generate_problem", "to_cvxpy"), (cp.Problem, "solve", "cvxpy"),
        (PEP, "check_feasibility", "post"), (PEP, "_eval_points_and_function_values", "post"),
    ]
    originals = [(owner, attr, getattr(owner, attr)) for owner, attr, _ in targets]

    def timed(fn: Callable[..., Any], key: str) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*a: Any, **kw: Any) -> Any:
            t = time.perf_counter()
            if key == "solve" and not first_solve:
                first_solve.append(t)
            try:
                return fn(*a, **kw)
            finally:
                acc[key] += time.perf_counter() - t
                if key == "cvxpy":
                    prob = a[0]
                    acc["solver"] += prob._solve_time or 0.0
                    acc["iterations"] += prob.solver_stats.num_iters or 0

        return wrapper

    for (owner, attr, key), (_, _, fn) in zip(targets, originals, strict=True):
        setattr(owner, attr, timed(fn, key))
    t0 = time.perf_counter()
    try:
        yield acc
    finally:
        acc["total"] = time.perf_counter() - t0
        for owner, attr, fn in originals:
            setattr(owner, attr, fn)
        acc["build"] = (first_solve[0] - t0) if first_solve else 0.0
        acc["canon"] = acc["cvxpy"] - acc["solver"]
        staged = acc["build"] + acc["prepare"] + acc["to_cvxpy"] + acc["cvxpy"] + acc["post"]
        acc["other"] = acc["total"] - staged


def diagnose(ms: list[Measurement], variants: tuple[str, ...], runs: int) -> None:
    """Run each variant of each PEP ``runs`` times instrumented; store the median of each stage."""
    for m in ms:
        samples: dict[str, list[dict[str, float]]] = {name: [] for name in variants}
        for i in range(runs):
            for name in variants if i % 2 == 0 else variants[::-1]:
                gc.collect()
                with phase_clock() as acc:
                    VARIANTS[name](m)
                samples[name].append(acc)
        for name, accs in samples.items():
            m.phases[name] = {k: statistics.median(a[k] for a in accs) for k in accs[0]}


# --------------------------------------------------------------------------------------------------
# Whole processes: the CLI against fresh interpreters looping over the same grid
# --------------------------------------------------------------------------------------------------


def wall(cmd: list[str]) -> tuple[float, int]:
    """Wall seconds and exit code of ``cmd`` (run from the repository root, output discarded)."""
    t0 = time.perf_counter()
    rc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    return time.perf_counter() - t0, rc


def process_rows(repeat: int, targets: tuple[str, ...]) -> list[tuple[str, list[float], str]]:
    """Per target: the CLI (new store, then full store), fcocheck's and the direct loop in fresh processes."""
    from fcocheck.verify.worstcase import plan

    grid = [f"{k}={','.join(str(v) for v in vals)}" for k, vals in PROCESS_GRID.items()]
    me = [sys.executable, str(Path(__file__).resolve())]
    rows: list[tuple[str, list[float], str]] = []
    for name, code in IMPORT_SETS.items():
        rows.append((f"imports: {name}", [wall([sys.executable, "-c", code])[0] for _ in range(repeat)], ""))
    with tempfile.TemporaryDirectory() as tmp:
        for target in targets:
            p = plan(target, True, PROCESS_GRID)
            specs = [s.as_dict() for s in p.specs]
            args = [direct_args(s) for s in p.specs]
            peps = sum(j.name.startswith("pep") for j in p.jobs)
            note = f"{len(p.jobs)} jobs: {peps} PEPs, {len(p.jobs) - peps} measured runs"
            cli = [*CLI, "worstcase", target, "--grid", *grid, "--workers", "1", "--no-progress", "--store"]
            times: dict[str, list[float]] = {}
            bad: list[str] = []
            for i in range(repeat):
                store = f"{tmp}/{target.replace('/', '_')}-{i}.sqlite"
                for key, cmd in (
                    ("cli", [*cli, store]),
                    ("cli-reuse", [*cli, store]),
                    ("fcocheck-loop", [*me, "--fcocheck-loop", json.dumps(specs)]),
                    ("direct-loop", [*me, "--direct-loop", json.dumps(args)]),
                ):
                    t, rc = wall(cmd)
                    times.setdefault(key, []).append(t)
                    if rc not in ((0, 1) if key.startswith("cli") else (0,)):  # the CLI: 1 = not consistent
                        bad.append(f"{key} exit {rc}")
            flag = f"  FAILED: {', '.join(sorted(set(bad)))}" if bad else ""
            g, n = " ".join(grid), len(specs)
            rows += [
                (f"fcocheck worstcase {target} --grid {g} (new store)", times["cli"], note + flag),
                ("   the same command again (store holds every point)", times["cli-reuse"], "0 jobs"),
                (f"   python: worst_case() over the {n} points", times["fcocheck-loop"], f"{n} PEPs"),
                (f"   python: direct PEPit over the {n} points", times["direct-loop"], f"{n} PEPs"),
            ]
    return rows


def child_loop(mode: str, payload: str) -> None:
    """A fresh process's loop over a grid (``--fcocheck-loop`` / ``--direct-loop``): print each value."""
    items = json.loads(payload)
    if mode == "fcocheck":
        from fcocheck.rates.worstcase.solve import worst_case
        from fcocheck.rates.worstcase.spec import PepSpec

        values = [worst_case(PepSpec(**d)).value for d in items]
    else:
        values = [direct_value(a)[0] for a in items]
    print(" ".join(f"{v:.10g}" for v in values))


# --------------------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------------------


def rel(a: float, b: float) -> float:
    """|a − b| / max(|a|, |b|)."""
    return abs(a - b) / max(abs(a), abs(b), 1e-300)


def print_values(ms: list[Measurement]) -> None:
    """Table 1: values, agreement, SDP sizes, statuses."""
    print("\n1. Values and SDP sizes (Gram side × scalar constraints); exact value where known")
    print(f"{'PEP':<22} {'fcocheck':>13} {'direct':>13} {'rel.diff':>9} {'exact':>8} {'Gram f/d':>9} "
          f"{'constr f/d':>11}  status fcocheck / direct")
    for m in ms:
        exact = exact_value(m.args)
        ex = f"{exact:8.4g}" if exact is not None else " " * 8
        (gf, cf), (gd, cd) = m.size["fcocheck"], m.size["direct"]
        print(f"{m.name:<22} {m.value_fcocheck:13.9g} {m.value_direct:13.9g} "
              f"{rel(m.value_fcocheck, m.value_direct):9.1e} {ex} {f'{gf}/{gd}':>9} {f'{cf}/{cd}':>11}  "
              f"{m.status_fcocheck} / {m.status_direct}")
        if exact is not None:
            print(f"{'':<22} error vs exact: fcocheck {rel(m.value_fcocheck, exact):.1e}, "
                  f"direct {rel(m.value_direct, exact):.1e}")
        if m.value_fcocheck < m.primal_direct * (1 - 1e-6):
            print(f"{'':<22} fcocheck's value is below the direct solve's primal worst instance "
                  f"{m.primal_direct:.9g} (a lower bound on the worst case) by "
                  f"{rel(m.value_fcocheck, m.primal_direct):.1e} relative")
    if any("unshared" in m.size for m in ms):
        print("   direct, unshared (fcocheck's shape: a round's first prox once per client, once for ŵ):")
        for m in ms:
            if "unshared" in m.size:
                g, c = m.size["unshared"]
                print(f"   {m.name:<22} value {m.value_unshared:13.9g}, rel.diff to fcocheck "
                      f"{rel(m.value_unshared, m.value_fcocheck):.1e}, Gram {g}, constraints {c}")


def print_seconds(ms: list[Measurement], repeat: int) -> None:
    """Table 2: seconds of each variant (min, median) and the ratios fcocheck ÷ direct."""
    extra = "unshared" in ms[0].seconds
    print(f"\n2. Seconds per PEP (build + solve), {repeat} interleaved repetitions: min / median")
    head = f"{'PEP':<22} {'fcocheck':>15} {'direct':>15} {'ratio min':>9} {'ratio med':>9}"
    print(head + (f" {'unshared':>15} {'unsh./direct':>12}" if extra else ""))
    logs: list[float] = []
    for m in ms:
        f, d = m.seconds["fcocheck"], m.seconds["direct"]
        ratio = min(f) / min(d)
        logs.append(math.log(ratio))
        line = (f"{m.name:<22} {min(f):6.3f} / {statistics.median(f):6.3f} "
                f"{min(d):6.3f} / {statistics.median(d):6.3f} {ratio:9.2f} "
                f"{statistics.median(f) / statistics.median(d):9.2f}")
        if extra:
            u = m.seconds["unshared"]
            line += f" {min(u):6.3f} / {statistics.median(u):6.3f} {min(u) / min(d):12.2f}"
        print(line)
    print(f"{'geometric mean':<22} {'':>15} {'':>15} {math.exp(sum(logs) / len(logs)):9.2f}")


def print_phases(ms: list[Measurement], runs: int) -> None:
    """Table 3: instrumented runs per variant, median seconds per stage and solver iterations."""
    print(f"\n3. Where the time goes (median of {runs} instrumented runs each; seconds; it = CLARABEL "
          "iterations, ms/it = solver time per iteration)")
    print(f"{'PEP':<22} {'variant':<9} " + " ".join(f"{p:>8}" for p in PHASES) + f" {'it':>4} {'ms/it':>6}")
    for m in ms:
        for name, acc in m.phases.items():
            per_it = 1e3 * acc["solver"] / max(acc["iterations"], 1)
            print(f"{m.name:<22} {name:<9} " + " ".join(f"{acc[p]:8.3f}" for p in PHASES)
                  + f" {acc['iterations']:4.0f} {per_it:6.1f}")


def print_processes(rows: list[tuple[str, list[float], str]], repeat: int) -> None:
    """Table 4: whole processes, min / median wall seconds."""
    print(f"\n4. Whole processes (fresh interpreter each, {repeat} repetitions): min / median wall seconds")
    for name, t, note in rows:
        print(f"{name:<72} {min(t):6.2f} / {statistics.median(t):6.2f}   {note}")


def main() -> None:
    """Measure and print the four tables (or run a child loop for table 4)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller grid points (K = R = 2), 3 repetitions")
    parser.add_argument("--repeat", type=int, default=None, help="timed repetitions (default 5, quick 3)")
    parser.add_argument("--no-process", action="store_true", help="skip the whole-process comparison")
    parser.add_argument("--fcocheck-loop", help=argparse.SUPPRESS)
    parser.add_argument("--direct-loop", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.fcocheck_loop or args.direct_loop:
        child_loop("fcocheck" if args.fcocheck_loop else "direct", args.fcocheck_loop or args.direct_loop)
        return
    repeat = args.repeat or (3 if args.quick else 5)
    t0 = time.perf_counter()
    variants = ("fcocheck", "direct", "unshared")
    ms = measure(args.quick, repeat, variants, log=lambda s: print(s, flush=True))
    runs = 1 if args.quick else 3
    diagnose(ms, variants, runs)
    print_values(ms)
    print_seconds(ms, repeat)
    print_phases(ms, runs)
    if not args.no_process:
        r = 3 if not args.quick else 2
        print_processes(process_rows(r, PROCESS_TARGETS[:1] if args.quick else PROCESS_TARGETS), r)
    print(f"\n(benchmark took {time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
