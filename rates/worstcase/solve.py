"""Solve one PEP and record the outcome: a solver failure or an unbounded class is a result.

``worst_case(spec)`` builds the program of ``spec.method`` on its function class, sets the metric
and solves the SDP with CLARABEL (an interior-point method: the dual value it returns is an upper
bound on the worst case up to its tolerance), then with SCS if CLARABEL fails.  The result carries
the status, the value, the solver, the seconds, the size of the SDP, and the dimension of the
worst-case instance (numerical rank of the Gram matrix).
"""

from __future__ import annotations

import contextlib
import io
import time
import warnings
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from fcocheck.rates.worstcase.methods import METHODS, Program
from fcocheck.rates.worstcase.setting import Setting, declare
from fcocheck.rates.worstcase.spec import PepSpec, check_spec
from fcocheck.solvers import ctrl_c
from fcocheck.solvers.error_text import describe

#: Solvers tried in turn; SCS is first-order and coarser, used only when CLARABEL fails.
SOLVERS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("CLARABEL", {}),
    ("SCS", {"eps": 1e-7, "max_iters": 200_000}),
)
_GOOD = {"optimal", "optimal_inaccurate"}
SHOW_DIMENSION = 3


@dataclass(frozen=True)
class WorstCase:
    """The outcome of one PEP.

    Attributes:
        spec: what was asked (``PepSpec.as_dict()``).
        status: ``optimal``; ``unbounded`` (no finite worst case over the class); ``failed`` (every
            solver failed; ``error`` says why).
        value: the worst case (``nan`` unless optimal).
        solver: the solver that produced it, and ``inaccurate`` when it flagged its own accuracy.
        seconds: wall time of the solve.
        gram_size: side of the Gram matrix; constraints: number of scalar constraints.
        dimension: numerical rank of the optimal Gram matrix (the worst instance lives in ℝ^dimension).
        error: the solver's message when status is ``failed``.
        instance: when dimension ≤ ``SHOW_DIMENSION``, the worst instance's w0 and output as
            coordinates relative to w* in an orthonormal basis of ℝ^dimension (else empty).

    """

    spec: dict[str, Any]
    status: str
    value: float
    solver: str
    seconds: float
    gram_size: int
    constraints: int
    dimension: int
    error: str = ""
    instance: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """JSON form (``nan`` as None)."""
        out = asdict(self)
        out["value"] = None if not np.isfinite(self.value) else float(self.value)
        return out


def worst_case(spec: PepSpec, instance: bool = False) -> WorstCase:
    """The worst case of ``spec`` (validated first; raises ``InvalidWorstCaseError`` on bad input).

    ``instance``: also look for a low-dimensional worst instance (PEPit's trace heuristic: a second
    SDP minimising tr G at the optimal value) and return it when its dimension ≤ ``SHOW_DIMENSION``.
    """
    check_spec(spec, METHODS)
    t0 = time.perf_counter()
    setting = declare(spec)
    program = METHODS[spec.method].run(setting, spec)
    setting.pep.set_performance_metric(_metric(setting, program, spec))
    result = _solve(setting, spec, t0, instance)
    if result.status == "optimal" and 0 < result.dimension <= SHOW_DIMENSION:
        result = replace(result, instance=_instance(setting, program, result.dimension))
    return result


def _instance(s: Setting, prog: Program, dim: int) -> dict[str, Any]:
    """w0 and the output relative to w*, in the top ``dim`` principal directions of the Gram factor."""
    try:
        pts = {"w0": s.w0.eval(), "out": prog.out.eval(), "w_star": s.w_star.eval()}
    except Exception:  # PEPit could not recover the points: nothing to show, the value stands
        ctrl_c.check()  # unless it is a Ctrl-C in another form
        return {}
    X = np.stack([np.asarray(v, dtype=float).ravel() for v in pts.values()])
    X = X - X[-1]
    _, _, Vt = np.linalg.svd(X, full_matrices=False)
    coords = X @ Vt[:dim].T
    return {"relative_to": "w_star", "w0": coords[0].round(6).tolist(), "out": coords[1].round(6).tolist()}


def _metric(s: Setting, prog: Program, spec: PepSpec) -> Any:
    """The performance metric of ``spec.metric`` (see ``PepSpec``)."""
    if spec.metric == "distance":
        return (prog.out - s.w_star) ** 2
    if spec.metric == "discrepancy":
        return prog.last_discrepancy
    gap = s.Phi(prog.out) - s.Phi(s.w_star)
    if spec.metric == "lemma-4.4":
        overhead = prog.discrepancies[0]
        for d in prog.discrepancies[1:]:
            overhead = overhead + d
        return gap - (spec.L / (spec.K * spec.R)) * overhead
    return gap


def _solve(s: Setting, spec: PepSpec, t0: float, low_rank: bool = False) -> WorstCase:
    errors = []
    for name, options in SOLVERS:
        if low_rank:
            options = {**options, "dimension_reduction_heuristic": "trace"}
        try:
            with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                warnings.simplefilter("ignore")
                value = s.pep.solve(wrapper="cvxpy", solver=name, verbose=0, **options)
        except Exception as exc:  # a solver failure is a result, the next solver is tried
            ctrl_c.check()  # unless it is a Ctrl-C in another form
            errors.append(f"{name}: {describe(exc)}")
            continue
        status = str(s.pep.wrapper.prob.status)
        if status in _GOOD and np.isfinite(value):
            label = name if status == "optimal" else f"{name} (inaccurate)"
            return _result(s, spec, "optimal", float(value), label, t0)
        if status.startswith("unbounded") or status.startswith("infeasible"):  # dual infeasible: no bound
            return _result(s, spec, "unbounded", float("inf"), name, t0)
        errors.append(f"{name}: status {status}")
    return _result(s, spec, "failed", float("nan"), "", t0, "; ".join(errors))


def _result(
    s: Setting, spec: PepSpec, status: str, value: float, solver: str, t0: float, error: str = ""
) -> WorstCase:
    G = getattr(s.pep, "G_value", None)
    dim = 0
    if status == "optimal" and G is not None:
        eig = np.linalg.eigvalsh(np.asarray(G, dtype=float))
        dim = int(np.sum(eig > 1e-6 * max(eig.max(), 1e-300)))
    size = len(G) if G is not None else 0
    cons = len(getattr(s.pep, "_list_of_prepared_constraints", []))
    return WorstCase(spec.as_dict(), status, value, solver, time.perf_counter() - t0, size, cons, dim, error)
