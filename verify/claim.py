"""A rate claim a researcher states about a method — built-in or their own card — and gets judged.

    Claim("my-fedavgm-rate", method="fedavgm", bound="1/R", along=("rounds", [10, 20, 40, 80, 160, 320, 640]),
          problem=("quadratics", {"mu": 0.1, "zeta": 1.0}), hp={"eta_c": 0.1, "local_steps": 2, "beta": 0.5})

reads "for FedAvgM on the quadratics class, Φ(ŵ) − Φ* ≲ 1/R as R grows".  ``judge(claim)``:

* draws one **instance of the class per seed** (the generator's seed is the run's: the claim is judged
  across instances, not on one), runs the method at every point of ``along``;
* measures ``measure`` (a trace metric; by default Φ(ŵ) − Φ*, ŵ the method's output average) at the
  last round on every instance — each instance's constant is free (≲), so only the shape of its curve
  counts: its level is removed before the noise is estimated (``rates.oc.instance_noise``);
* evaluates ``bound`` (a sympy expression in the swept name — ``R`` for rounds — and the
  hyper-parameters) at every point;
* judges y ≲ bound along the sweep with ``rates.oc.bounded_ratio`` (``direction="grows"``: as the swept
  value grows; ``"shrinks"``: as it goes to 0), whose size (≤ 1%) and power against violations of
  the claim (y ∝ bound^0.5 … 0.8, flat, rising) are measured at this design and noise;
* judges only what was **resolved**: a gap Φ(ŵ) − Φ* within ``RESOLVED`` (10³) times the certificate of
  an instance's reference optimum is rounding, not a measurement — a method faster than the bound
  reaches it, and its ratio to a falling bound would then rise.  The sweep is cut before the first
  point where an instance is unresolved (named in the evidence), and a cut leaving < 4 points is
  inconclusive.  Other metrics are resolved where positive;
* where the method has a PEP form and the class a PEP counterpart, solves the **worst case** over the
  class and judges the same bound against it (``verify.claim_worst``): the drawn instances are a
  sample, the worst case is the supremum.

Power is against violations of *the claim*: a loose bound (R^-1/2 for a method converging like
R^-0.9) also passes a wrong implementation; state the sharpest bound you believe, and read the
reported constant max y/bound.  A claim is data: ``fcocheck_claims = [Claim(...)]`` in a test module
gives one pytest item each (the plugin), and ``fcocheck --plugin MODULE validate NAME`` judges them
(``--plugin`` goes before the command; a module that imports a sibling module needs its directory
on ``PYTHONPATH``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fcocheck.rates.oc import MIN_POINTS, bounded_ratio, instance_noise, resolved_prefix
from fcocheck.rates.verdict import INCONCLUSIVE, Verdict
from fcocheck.solvers.errors import FcocheckError


class InvalidClaimError(FcocheckError):
    """A claim that cannot be judged as stated (unknown metric, a bound not in the swept name …)."""


#: metrics measured against the reference optimum Φ*, resolved only above its certificate
GAP_METRICS = ("gap", "gap_avg")
#: how the report labels a measure
MEASURE_LABEL = {"gap_avg": "Φ(ŵ) − Φ*", "gap": "Φ(w_R) − Φ*", "prox_grad_norm": "‖G_η(w_R)‖"}
#: the swept name as the bound writes it
SYMBOL = {"rounds": "R", "local_steps": "K", "eta_c": "eta_c"}


@dataclass(frozen=True)
class Claim:
    """One claim (module docstring).

    Attributes:
        name: the claim's name (a pytest item, a line of ``validate``).
        method: a registry name, or a method card (registered when the claim is judged).
        bound: the bound as a sympy expression in the swept symbol (``R`` for rounds, else the name) and
            the hyper-parameters; constants are free (≲).
        along: (what is swept, its values): ``rounds``, a hyper-parameter or a generator parameter
            (``problem.NAME``).
        problem: (generator, parameters): the class whose instances are drawn, one per seed.
        hp: the method's hyper-parameters (the swept one is set at each point).
        measure: the trace metric (last round).
        rounds: R when ``along`` is not rounds.
        oracle: the gradient oracle.
        seeds: instances drawn (≥ 3: the claim is judged across instances).
        direction: ``grows`` (the claim is about the swept value growing) or ``shrinks`` (going to 0).
        source: where the claim is stated (a paper, a note).
        worst: also judge the bound against the worst case over the class, where it applies.

    """

    name: str
    method: Any
    bound: str
    along: tuple[str, Sequence[float]]
    problem: tuple[str, Mapping[str, Any]] = ("quadratics", {})
    hp: Mapping[str, Any] = field(default_factory=dict)
    measure: str = "gap_avg"
    rounds: int = 100
    oracle: str = "exact"
    seeds: int = 3
    direction: str = "grows"
    source: str = ""
    worst: bool = True

    def symbols(self) -> dict[str, Any]:
        """The bound as a sympy function of the swept value and the hyper-parameters."""
        import sympy as sp

        what = self.along[0]
        name = SYMBOL.get(what, what.removeprefix("problem."))
        expr = sp.sympify(self.bound)
        return {"expr": expr, "swept": sp.Symbol(name), "name": name}


def _check(c: Claim) -> None:
    if c.seeds < 3:
        raise InvalidClaimError(f"claim {c.name!r}: seeds = {c.seeds}; the rule is at least 3 instances")
    if c.direction not in ("grows", "shrinks"):
        raise InvalidClaimError(f"claim {c.name!r}: direction {c.direction!r}; the rule is grows | shrinks")
    values = list(c.along[1])
    if len(values) < 4 or any(not np.isfinite(v) or v <= 0 for v in values):
        raise InvalidClaimError(f"claim {c.name!r}: along {c.along!r}; the rule is ≥ 4 positive values")


def bound_values(c: Claim) -> np.ndarray:
    """The bound at every point of the sweep (every free constant 1)."""
    return evaluate_bound(c, c.along[1])


def evaluate_bound(c: Claim, values: Sequence[float]) -> np.ndarray:
    """The bound at ``values`` of the swept name (every free constant 1)."""
    s = c.symbols()
    expr, swept = s["expr"], s["swept"]
    subs = {sym: c.hp[str(sym)] for sym in expr.free_symbols if str(sym) in c.hp and sym != swept}
    free = expr.free_symbols - set(subs) - {swept}
    if free:
        raise InvalidClaimError(f"claim {c.name!r}: bound {c.bound!r} has free symbols "
                                f"{sorted(map(str, free))}; the rule is {s['name']} and the method's "
                                "hyper-parameters")
    out = np.array([float(expr.subs({**subs, swept: v})) for v in values])
    if not np.all(np.isfinite(out) & (out > 0)):
        raise InvalidClaimError(f"claim {c.name!r}: bound {c.bound!r} is not positive and finite on the "
                                "sweep")
    return out


def measure(c: Claim) -> tuple[np.ndarray, np.ndarray, float]:
    """The measurement, its resolution and the class's B.

    The measurement and its resolution (module docstring) are instances (seeds) × sweep points; B is the
    largest ½‖w₀ − w*‖² over the instances (the class's initial condition).
    """
    from fcocheck.solvers.engine import run
    from fcocheck.solvers.generators import generate
    from fcocheck.solvers.reference import reference_solve
    from fcocheck.solvers.reference.certificate import RESOLVED

    what, values = c.along
    gen, params = c.problem
    G, floor = np.empty((c.seeds, len(values))), np.zeros((c.seeds, len(values)))
    B = 0.0
    for i in range(c.seeds):
        p = generate(gen, seed=i, **params) if not what.startswith("problem.") else None
        ref = reference_solve(p) if p is not None else None
        for j, v in enumerate(values):
            hp, rounds, q, r = dict(c.hp), c.rounds, p, ref
            if what == "rounds":
                rounds = int(v)
            elif what.startswith("problem."):
                q = generate(gen, seed=i, **{**params, what.removeprefix("problem."): v})
                r = reference_solve(q)
            else:
                hp[what] = v
            t = run(method_name(c), q, hp, rounds=rounds, oracle=c.oracle, seed=i, reference=r)
            if c.measure not in t.arrays:
                raise InvalidClaimError(f"claim {c.name!r}: measure {c.measure!r}; the rule is a trace "
                                        f"metric {sorted(t.arrays)}")
            G[i, j] = float(t[c.measure][-1])
            if c.measure in GAP_METRICS:
                floor[i, j] = RESOLVED * r.certificate.value
            B = max(B, 0.5 * float(np.sum((q.zero() - r.w) ** 2)))
    return G, floor, B


def method_name(c: Claim) -> str:
    """The claim's method by name, registering it when the claim carries a card."""
    from fcocheck.solvers import algorithms
    from fcocheck.solvers.card import Card

    if isinstance(c.method, Card):
        if algorithms.CARDS.get(c.method.name) is not c.method:
            algorithms.register_card(c.method)
        return c.method.name
    return str(c.method)


def judge(c: Claim, seed: int = 0) -> tuple[list[Verdict], dict[str, Any]]:
    """The claim's verdicts and what was measured.

    The verdicts: on the drawn instances (with size and power), then against the class's worst case
    where it applies; ``rates.verdict.combine`` of them is the claim's status.
    """
    from fcocheck.verify.claim_worst import worst_case

    v, measured, B = judge_measured(c, seed)
    if not c.worst:
        return [v], measured
    w, rows = worst_case(c, B)
    measured["worst_case"] = rows
    return [v, w], measured


def judge_measured(c: Claim, seed: int = 0) -> tuple[Verdict, dict[str, Any], float]:
    """The verdict on the drawn instances, what was measured, and the class's B."""
    _check(c)
    b = bound_values(c)
    G, floor, B = measure(c)
    x = np.asarray(c.along[1], dtype=float)
    if c.direction == "shrinks":
        x = 1.0 / x
    order = np.argsort(x)
    name = c.symbols()["name"]
    measured = {"along": list(c.along[1]), "bound": b.tolist(), "mean": G.mean(axis=0).tolist(),
                "instances": G.tolist(), "resolution": floor.tolist()}
    kept = resolved_prefix(G[:, order], floor[:, order])
    if kept < len(order):
        measured["unresolved_from"] = float(c.along[1][order[kept]])
    if kept < MIN_POINTS:
        where = f"{name} = {c.along[1][order[kept]]:g}"
        reason = (f"an instance's measurement is unresolved from {where} (≤ {float(floor.max()):.1e}, 10³× "
                  f"its reference's certificate, or not positive): {kept} resolved points; the rule is ≥ "
                  f"{MIN_POINTS} — end the sweep earlier")
        return Verdict(INCONCLUSIVE, "resolution", reason, {}), measured, B
    order = order[:kept]
    # one row per instance: the rule averages log ratios (each instance's constant cancels from a slope)
    v = bounded_ratio(x[order], b[order], G[:, order], seed=seed, label=name,
                      noise=instance_noise(G[:, order]))
    return v, measured, B


def plot(c: Claim, measured: dict[str, Any]) -> dict[str, Any]:
    """The report's figure of a judged claim.

    Every instance's measurement (median and band), the bound with constants 1, and the bound scaled by
    the smallest constant covering every instance.
    """
    from fcocheck.verify.experiments.base import plot_spec, slope_series

    ratios = np.array(measured["instances"]) / np.array(measured["bound"])
    series = slope_series(method_name(c), c.along[1], measured["instances"], bound=measured["bound"])
    label = MEASURE_LABEL.get(c.measure, c.measure)
    return plot_spec("bound", c.symbols()["name"], label, [series], C=float(np.nanmax(ratios)),
                     bound_name=f"the claimed bound {c.bound}", bound_label=c.bound)


#: the public name (``fcocheck.judge_claim``)
judge_claim = judge
