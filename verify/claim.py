"""A rate claim a researcher states about a method — built-in or their own card — and gets judged.

    Claim("my-fedavgm-rate", method="fedavgm", bound="1/R", along=("rounds", [10, 20, 40, 80, 160, 320, 640]),
          problem=("quadratics", {"mu": 0.1, "zeta": 1.0}), hp={"eta_c": 0.1, "local_steps": 2, "beta": 0.5})

reads "for FedAvgM on the quadratics class, Φ(ŵ) − Φ* ≲ 1/R as R grows".  ``judge(claim)``:

* draws one **instance of the class per seed** s, s + 1, … from the study seed s (the claim is judged
  across instances, not on one), runs the method at every point of ``along`` (with the instance's seed
  as the oracle's, or 1000·seed + k for repetition k);
* measures ``measure`` (a trace metric; by default Φ(ŵ) − Φ*, ŵ the method's output average) at the
  last round on every instance — each instance's constant is free (≲), so only the shape of its curve
  counts: its level is removed before the noise is estimated (``rates.oc.instance_noise``);
* evaluates ``bound`` (a sympy expression in the swept name — ``R`` for rounds — the hyper-parameters,
  the stated constants and the instance's own) at every point;
* judges y ≲ bound along the sweep with ``rates.oc.bounded_ratio`` (``direction="grows"``: as the swept
  value grows; ``"shrinks"``: as it goes to 0), whose size (≤ 1%) and power against violations of
  the claim (y ∝ bound^0.5 … 0.8, flat, rising) are measured at this design and noise — pooled over the
  instances when they share one bound and their runs are random, each instance against its own curve
  otherwise (``judge_data``); a lower bound (``sense="≳"``) by the same rule on the reciprocals, a law
  (``sense="Θ"``) by its log–log slope, an identity (``sense="="``) by its largest residual;
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

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import numpy as np

from fcocheck.rates.oc import MIN_POINTS, bounded_ratio, instance_noise, resolved_prefix
from fcocheck.rates.verdict import INCONCLUSIVE, INCONSISTENT, Verdict
from fcocheck.solvers.errors import FcocheckError
from fcocheck.solvers.readable import readable_name


class InvalidClaimError(FcocheckError):
    """A claim that cannot be judged as stated (unknown metric, a bound not in the swept name …)."""


#: metrics measured against the reference optimum Φ*, resolved only above its certificate
GAP_METRICS = ("gap", "gap_avg")
#: how the report labels a measure
MEASURE_LABEL = {"gap_avg": "Φ(ŵ) − Φ*", "gap": "Φ(w_R) − Φ*", "prox_grad_norm": "‖G_η(w_R)‖",
                 "prox_grad_norm_sq": "‖G_η(w_r)‖²",
                 "discrepancy_steps": "discrepancy (last local step)"}
#: the swept name as the bound writes it
SYMBOL = {"rounds": "R", "local_steps": "K", "eta_c": "eta_c", "problem.clients": "M"}
#: a measure in the report's statement of a claim
MEASURE_LATEX = {"gap_avg": r"\Phi(\hat{w}) - \Phi^\star", "gap": r"\Phi(w_R) - \Phi^\star",
                 "prox_grad_norm_sq": r"\|G_\eta(w_r)\|^2",
                 "w_hat_distance_sq": r"\tfrac12\|\hat{w} - \hat{w}_{\mathrm{twin}}\|^2",
                 "w_distance_relative": r"\|w_R - w_{R,\mathrm{twin}}\| / \|w_{R,\mathrm{twin}}\|"}
#: a claim's senses: an upper bound, a lower bound, a law, an identity (``Claim.sense``)
UPPER, LOWER, LAW, IDENTITY = "≲", "≳", "Θ", "="
#: what of a metric's curve a claim measures (``Claim.statistic``)
STATISTICS = ("last", "mean", "max", "tail_mean", "last_step_mean", "limit", "mean_above_floor", "rate")
#: measures derived from a trace metric (the report's label beside each)
DERIVED = {"prox_grad_norm_sq": ("prox_grad_norm", 2)}
#: measures read off a run and its twin (``Claim.twin``), and how the report labels each
TWIN_MEASURES = {"w_hat_distance_sq": "½‖ŵ − ŵ_twin‖²",
                 "w_distance_relative": "‖w_R − w_R,twin‖ / ‖w_R,twin‖"}
#: what a twin may change: the run, never the instance
TWIN_FIELDS = ("method", "hp", "oracle", "rounds")


@dataclass(frozen=True)
class Claim:
    """One claim (module docstring).

    Attributes:
        name: the claim's name (a pytest item, a line of ``validate``).
        method: a registry name, or a method card (registered when the claim is judged).
        bound: the bound, a sympy expression (or its text) in the swept symbol (``R`` for rounds, ``K`` for
            local steps, else the name), the hyper-parameters, ``constants`` and the instance's own
            constants (``INSTANCE``); its constant factor is free (≲).
        along: (what is swept, its values): ``rounds``, a hyper-parameter or a generator parameter
            (``problem.NAME``).
        problem: (generator, parameters): the class whose instances are drawn, one per seed.
        hp: the method's hyper-parameters (the swept one is set at each point): numbers, or expressions in
            the same names as ``bound`` (a step tuned to R and to each instance's B, say).  An expression
            may be given as a function returning one, built when the claim is judged.
        measure: the trace metric, or a measure derived from one (``DERIVED``: ``prox_grad_norm_sq``).
        rounds: R when ``along`` is not rounds.
        oracle: the gradient oracle.
        seeds: instances drawn (≥ 3: the claim is judged across instances).
        direction: ``grows`` (the claim is about the swept value growing) or ``shrinks`` (going to 0).
        source: where the claim is stated (a paper, a note).
        worst: also judge the bound against the worst case over the class, where it applies.
        constants: the class's stated constants (L, σ, ζ …), by their names in ``bound``; they take
            precedence over the instance's measured ones.
        repeats: runs per instance and point, each with its own oracle noise seed (a noisy oracle: each
            instance's noise is their spread).
        reference_tol: the certificate each instance's reference optimum is solved to (the default
            solver's when None): a measured floor must sit far above it.
        full: what the full design changes (``validate`` without ``--quick``): more seeds, a longer sweep.
        theorem: the catalog theorem the claim belongs to (a paper's claim), or empty (a user's).
        label: how the report names the bound (its text when empty).
        sense: ``≲`` (an upper bound: the ratio measured/bound must not keep growing along the sweep),
            ``≳`` (a lower bound: the ratio must not keep falling — judged as bound/measured ≲ 1, the
            reciprocals by the upper rule: a rate's lower bound is its time constant's upper bound) or
            ``Θ`` (a law: measured ∝ bound along the sweep — the log–log slope must equal the bound's
            exponent in the swept name, or in one expression of it — ``law_coordinate``) or ``=`` (an
            identity: the measure — a residual, ``verify.residuals`` — is at most ``bound``, the
            tolerance, at every point of every run; its controls must break it).
        statistic: what of the metric's curve is measured: ``last`` (its last round), ``mean`` (its
            mean over the rounds), ``max`` (its largest value: a residual's worst round), ``tail_mean``
            (its mean over the last ``tail``: a steady state),
            ``last_step_mean`` (a per-local-step metric's last step, averaged over the rounds; the runs
            then record every step), ``limit`` (lim_R Φ(ŵ_R) − Φ* of a dual-averaging method with exact
            gradients: ``measure="gap_avg"``, its tail average run to a settled value; a further verdict
            says whether every resolved point settled), ``mean_above_floor`` (along rounds: the running
            mean (1/R)Σ_{t<R} y_t less the floor — the mean over the last ``tail`` of the sweep's longest
            run —, the transient of a bound C/R + a floor, FedCanon Thm 1's), ``rate`` (the linear rate
            −log q per round over the slow half of the curve's linear phase, ``rates.fit.phase_rate``; a
            curve without one is unresolved there, one that does not contract (−log q ≤ 0) fails a
            lower bound outright).
        constants_over: ``point`` (each point's instance supplies its measured constants) or ``sweep``
            (a sweep of a generator parameter: each measured constant is the largest over the instance
            seed's sweep — one step and one bound constant for the whole sweep, as a class's L is).
        controls: negative controls, label → changes to the claim (another method, a hyper-parameter,
            another class): the claim's rule, on the same instances and sweep, must reject each variant
            (``control_verdicts``) — the rule's power shown on real runs, not only on simulated ones.
        vanishes: the measure also vanishes where the bound does — at the swept value 0
            (``direction="shrinks"``: a floor that is 0 without the regulariser, say), or at the zero of a
            law's coordinate (K = 1 for (K − 1)²): measured there on every instance, it must be at most
            ``VANISH`` times its value at the sweep's nearest point (``vanishing``).
        tail: the share of the run's last rounds ``statistic="tail_mean"`` averages (a steady state: long
            enough to average the noise, short enough to leave the transient out).
        twin: changes (``TWIN_FIELDS``: another oracle, method, hyper-parameters) giving every run a twin
            on the same instance with the same oracle seeds; the measure (``TWIN_MEASURES``) is then read
            off the pair — ``twin={"oracle": "exact"}`` with ``measure="w_hat_distance_sq"`` is the noise's
            share of the output ŵ, whatever the noise-free run carries (``twin_measure``).
        instance: one fixed instance (problem, reference) instead of drawn ones — a user's file
            (``validate --problem``): the claim and its controls run on it alone, with the study seed as
            the oracle's; a sweep of the class's parameters cannot run on it.
        redraw: how many instances may be replaced, each by a fresh draw from the study seed's own
            stream, when the measurement is unresolved at a point of its sweep (a floor of exactly 0 —
            an optimum at a vertex the method reaches — says nothing about how the floor moves); 0:
            none, the sweep is cut before the first unresolved point instead.  The replaced seeds are
            reported; a claim that cannot draw ``seeds`` resolved instances is inconclusive.

    """

    name: str
    method: Any
    bound: Any
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
    constants: Mapping[str, float] = field(default_factory=dict)
    repeats: int = 1
    reference_tol: float | None = None
    full: Mapping[str, Any] = field(default_factory=dict)
    theorem: str = ""
    label: str = ""
    sense: str = UPPER
    statistic: str = "last"
    controls: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    constants_over: str = "point"
    vanishes: bool = False
    tail: float = 0.5
    redraw: int = 0
    twin: Mapping[str, Any] = field(default_factory=dict)
    instance: Any = field(default=None, compare=False, repr=False)

    def symbols(self) -> dict[str, Any]:
        """The bound as a sympy expression, the swept symbol and its name."""
        import sympy as sp

        what = self.along[0]
        name = SYMBOL.get(what, what.removeprefix("problem."))
        return {"expr": _expr(self.bound, self.name), "swept": sp.Symbol(name), "name": name}

    def design(self, quick: bool) -> Claim:
        """The claim at the quick design, or with ``full``'s changes."""
        return self if quick or not self.full else replace(self, **dict(self.full), full={})

    def bound_text(self) -> str:
        """How the report names the bound."""
        return self.label or str(_expr(self.bound, self.name))


#: constants measured on each drawn instance when ``bound`` or an ``hp`` expression names them (a stated
#: constant of the same name wins): the clients M, and B = D_h(w*, w₀), L, G, μ and L_clients = max_m L_m
#: of ``solvers.constants.compute_constants``
INSTANCE = ("M", "B", "L", "G", "mu", "L_clients")


#: names sympy's parser would read as its own objects (ζ, β, Γ functions; E, I, N, O, Q, S constants and
#: helpers): in a claim they are symbols
PLAIN_NAMES = ("zeta", "beta", "gamma", "E", "I", "N", "O", "Q", "S")


def _expr(x: Any, claim: str = "") -> Any:
    """A sympy expression from an expression, its text, or a function returning one (built when judged)."""
    import sympy as sp

    if callable(x) and not isinstance(x, sp.Basic):
        x = x()
    if isinstance(x, sp.Basic):
        return x
    try:
        return sp.sympify(str(x), locals={n: sp.Symbol(n) for n in PLAIN_NAMES})
    except (sp.SympifyError, SyntaxError, TypeError) as exc:
        raise InvalidClaimError(f"claim {claim!r}: expression {str(x)!r} does not parse "
                                f"({type(exc).__name__}); the rule is a sympy expression in the claim's "
                                "names") from exc


def _validate(c: Claim) -> None:
    """``_check``, and a bound without the instance's constants evaluated before any run (fails early)."""
    _check(c)
    if not own_constants(c):
        bound_values(c)


def own_constants(c: Claim) -> set[str]:
    """The instance's constants the claim names and does not state: measured on each drawn instance."""
    return (_names(c) & set(INSTANCE)) - set(c.constants)


def _is_number(x: Any) -> bool:
    return isinstance(x, int | float | np.integer | np.floating) and not isinstance(x, bool)


def _is_expression(x: Any) -> bool:
    """An hp value to evaluate: a sympy object, a function returning one, or text that is not one word.

    A one-word text (``"gd"``, ``"permutation"``) and a boolean are options, passed through as given.
    """
    import sympy as sp

    if isinstance(x, sp.Basic) or (callable(x) and not isinstance(x, type)):
        return True
    return isinstance(x, str) and not x.strip().isidentifier()


def check_name(name: Any) -> None:
    """A claim's name names its files (the report's figure, a gallery page): one plain file name."""
    from fcocheck.solvers.files import _STEM

    if not isinstance(name, str) or not _STEM.fullmatch(name):
        raise InvalidClaimError(f"claim name {name!r}; the rule is letters, digits, '.', '_', '-', '+', '=' "
                                "(at most 151, not starting with '.'): it names the claim's files")


def _check(c: Claim) -> None:
    check_name(c.name)
    if c.instance is not None and c.along[0].startswith("problem."):
        raise InvalidClaimError(f"claim {c.name!r}: a fixed instance with a sweep of {c.along[0]!r}; the "
                                "rule is a sweep of rounds or a hyper-parameter (one file cannot vary its "
                                "class)")
    if c.seeds < 3:
        raise InvalidClaimError(f"claim {c.name!r}: seeds = {c.seeds}; the rule is at least 3 instances")
    if c.direction not in ("grows", "shrinks"):
        raise InvalidClaimError(f"claim {c.name!r}: direction {c.direction!r}; the rule is grows | shrinks")
    values = list(c.along[1])
    if len(values) < 4 or any(not np.isfinite(v) or v <= 0 for v in values):
        raise InvalidClaimError(f"claim {c.name!r}: along {c.along!r}; the rule is ≥ 4 positive values")
    if not (isinstance(c.repeats, int) and c.repeats >= 1):
        raise InvalidClaimError(f"claim {c.name!r}: repeats = {c.repeats!r}; the rule is an integer ≥ 1")
    from dataclasses import fields

    allowed = {f.name for f in fields(Claim)} - {"name", "full", "controls"}
    for what, changes in (("full", c.full), *((f"control {k!r}", v) for k, v in c.controls.items())):
        if not isinstance(changes, Mapping) or set(changes) - allowed:
            bad = sorted(set(changes) - allowed) if isinstance(changes, Mapping) else changes
            raise InvalidClaimError(f"claim {c.name!r}: {what} changes {bad!r}; the rule is fields of a "
                                    f"claim {sorted(allowed)}")
    _check_twin(c)
    own = own_constants(c)
    if c.oracle != "exact" and c.repeats < 2 and c.sense in (UPPER, LOWER) and own:
        raise InvalidClaimError(f"claim {c.name!r}: oracle {c.oracle!r} with repeats = {c.repeats} and a "
                                f"bound with the instance's {sorted(own)}; the rule is repeats ≥ 2 (each "
                                "instance is judged on its own bound, its repetitions' spread its noise)")
    if c.sense not in (UPPER, LOWER, LAW, IDENTITY):
        raise InvalidClaimError(f"claim {c.name!r}: sense {c.sense!r}; the rule is {UPPER} | {LOWER} | "
                                f"{LAW} | {IDENTITY}")
    if c.sense == IDENTITY:
        _check_identity(c)
    if c.sense == LOWER and c.vanishes:
        raise InvalidClaimError(f"claim {c.name!r}: vanishes with sense {LOWER}; the rule is {UPPER} or "
                                f"{LAW} (a lower bound says nothing where it vanishes)")
    if c.statistic not in STATISTICS:
        raise InvalidClaimError(f"claim {c.name!r}: statistic {c.statistic!r}; the rule is one of "
                                f"{STATISTICS}")
    if c.constants_over not in ("point", "sweep"):
        raise InvalidClaimError(f"claim {c.name!r}: constants_over {c.constants_over!r}; the rule is point | "
                                "sweep")
    if c.statistic == "mean_above_floor" and c.along[0] != "rounds":
        raise InvalidClaimError(f"claim {c.name!r}: statistic mean_above_floor along {c.along[0]!r}; the "
                                "rule is along rounds (a running mean's transient)")
    if c.statistic == "limit" and (c.measure != "gap_avg" or c.oracle != "exact" or c.repeats != 1):
        raise InvalidClaimError(f"claim {c.name!r}: statistic limit with measure {c.measure!r}, oracle "
                                f"{c.oracle!r}, repeats {c.repeats}; the rule is gap_avg, exact, 1")
    if not (isinstance(c.redraw, int) and not isinstance(c.redraw, bool) and c.redraw >= 0):
        raise InvalidClaimError(f"claim {c.name!r}: redraw = {c.redraw!r}; the rule is an integer ≥ 0")
    if not (_is_number(c.tail) and 0 < c.tail <= 1):
        raise InvalidClaimError(f"claim {c.name!r}: tail = {c.tail!r}; the rule is in (0, 1]")
    if c.tail != 0.5 and c.statistic not in ("tail_mean", "mean_above_floor"):
        raise InvalidClaimError(f"claim {c.name!r}: tail = {c.tail!r} with statistic {c.statistic!r}; the "
                                "rule is tail_mean or mean_above_floor (the statistics that read a tail)")
    raw, name = c.along[0].removeprefix("problem."), c.symbols()["name"]
    if raw != name and raw in _names(c):
        raise InvalidClaimError(f"claim {c.name!r}: the bound or an hp names {raw!r}; the rule is the swept "
                                f"name {name!r} (it would be read as a constant, the law's exponent in "
                                f"{name} as 0)")
    if c.along[0] not in ("rounds",) and not c.along[0].startswith("problem."):
        _check_runs(c, c.along[0], c.along[1][0], "along")
    if c.sense == LAW:
        law_x(c, c.along[1])  # a coordinate that is not positive on the sweep fails before any run
    if c.vanishes:
        _check_vanishes(c)
    for label, changes in c.controls.items():
        if "along" in changes and [float(v) for v in changes["along"][1]] != [float(v) for v in c.along[1]]:
            raise InvalidClaimError(f"claim {c.name!r}: control {label!r} along {changes['along'][1]!r}; the "
                                    f"rule is the claim's values {list(c.along[1])} (under another name if "
                                    "need be)")
    if c.reference_tol is not None and not (_is_number(c.reference_tol) and 0 < c.reference_tol < 1):
        raise InvalidClaimError(f"claim {c.name!r}: reference_tol = {c.reference_tol!r}; the rule is in "
                                "(0, 1)")


def _check_identity(c: Claim) -> None:
    """An identity's bound is its tolerance: one positive number, the same at every point."""
    e = _expr(c.bound, c.name)
    if e.free_symbols or not (e.is_number and float(e) > 0) or c.vanishes:
        raise InvalidClaimError(f"claim {c.name!r}: sense {IDENTITY} with bound {c.bound_text()!r}"
                                f"{' and vanishes' if c.vanishes else ''}; the rule is a tolerance, one "
                                "positive number (an identity holds everywhere, to it)")


def _check_twin(c: Claim) -> None:
    """A twin changes the run only, and goes with a measure read off the pair (and only then)."""
    if not isinstance(c.twin, Mapping) or set(c.twin) - set(TWIN_FIELDS):
        bad = sorted(set(c.twin) - set(TWIN_FIELDS)) if isinstance(c.twin, Mapping) else c.twin
        raise InvalidClaimError(f"claim {c.name!r}: twin changes {bad!r}; the rule is {list(TWIN_FIELDS)} "
                                "(the twin runs on the same instance)")
    if bool(c.twin) != (c.measure in TWIN_MEASURES):
        raise InvalidClaimError(f"claim {c.name!r}: measure {c.measure!r} with twin {dict(c.twin)!r}; the "
                                f"rule is a twin exactly with a measure of a pair {sorted(TWIN_MEASURES)}")
    if c.twin and c.statistic != "last":
        raise InvalidClaimError(f"claim {c.name!r}: statistic {c.statistic!r} with a twin; the rule is last "
                                "(a pair of runs gives one number)")
    if "rounds" in c.twin and c.along[0] == "rounds":
        raise InvalidClaimError(f"claim {c.name!r}: twin rounds with a sweep of rounds; the rule is the "
                                "sweep's R for both (a twin's own R would be overwritten at every point)")
    if "method" in c.twin:
        from fcocheck.solvers import algorithms
        from fcocheck.solvers.errors import FcocheckError

        try:
            algorithms.get(method_name(replace(c, method=c.twin["method"])))
        except FcocheckError as exc:
            raise InvalidClaimError(f"claim {c.name!r}: twin method {c.twin['method']!r}: {exc}") from None


def twin_measure(c: Claim, t: Any, twin: Any) -> float:
    """The claim's measure of a run and its twin (``TWIN_MEASURES``).

    ``w_hat_distance_sq`` = ½‖ŵ − ŵ_twin‖² with ŵ the run's output average (eq. 4.2 for FedDualAvg);
    ``w_distance_relative`` = ‖w_R − w_R,twin‖ / ‖w_R,twin‖ (the last iterates; 0 or ∞ when the twin
    ends at 0).
    """
    if c.measure == "w_hat_distance_sq":
        d = np.asarray(t.meta["w_hat"]) - np.asarray(twin.meta["w_hat"])
        return 0.5 * float(d @ d)
    w, w2 = np.asarray(t.final_w), np.asarray(twin.final_w)
    apart, size = float(np.linalg.norm(w - w2)), float(np.linalg.norm(w2))
    return apart / size if size > 0 else (0.0 if apart == 0 else float("inf"))


def _twin_runs(c: Claim, v: float, own: Mapping[str, float], q: Any, r: Any, s: int, record: str) -> list:
    """The twin of every run at swept value ``v`` on instance ``s`` (its own hp, the same oracle seeds)."""
    from fcocheck.verify.experiments.base import runs

    tc = replace(c, **dict(c.twin), twin={}, controls={}, full={})
    hp, rounds, _ = point(tc, v, own)
    return runs(method_name(tc), q, hp, rounds, tc.oracle, noise_seeds(c, s), r, record=record)


def _names(c: Claim) -> set[str]:
    """Every name the bound and the hp expressions use."""
    out = {str(s) for s in c.symbols()["expr"].free_symbols}
    for v in c.hp.values():
        if _is_expression(v):
            out |= {str(s) for s in _expr(v, c.name).free_symbols}
    return out


def _evaluate(c: Claim, what: str, expr: Any, ctx: Mapping[str, float]) -> float:
    """``expr`` at the names of ``ctx``; a name it lacks is a clean error naming the rule."""
    e = _expr(expr, c.name)
    free = {str(s) for s in e.free_symbols} - set(ctx)
    if free:
        raise InvalidClaimError(
            f"claim {c.name!r}: {what} {str(expr)!r} has free symbols {sorted(free)}; the rule is "
            f"{c.symbols()['name']}, the method's hyper-parameters, the stated constants and the instance's "
            f"{list(INSTANCE)}")
    try:
        value = float(e.subs({s: ctx[str(s)] for s in e.free_symbols}))
    except (TypeError, ValueError):
        value = float("nan")
    if not np.isfinite(value) and what != "bound":  # a bound's value gets its own error (``_positive``)
        at = ", ".join(f"{k} = {ctx[k]:g}" for k in sorted({str(s) for s in e.free_symbols}))
        raise InvalidClaimError(f"claim {c.name!r}: {what} {str(expr)!r} is not a finite number at {at}; "
                                "the rule is finite wherever the claim runs")
    return value


def point(c: Claim, v: float, instance: Mapping[str, float]) -> tuple[dict[str, Any], int, dict[str, float]]:
    """The hyper-parameters, rounds and named values at swept value ``v`` on one instance.

    Names: the instance's measured constants, then the stated ``constants``, the numeric hp (``K`` for
    ``local_steps``), ``R`` (the rounds) and the swept value; then each hp expression, evaluated in them.
    """
    what = c.along[0]
    ctx: dict[str, float] = {**instance, **c.constants}
    hp = {k: x for k, x in c.hp.items() if not _is_expression(x)}
    rounds = c.rounds
    if what == "rounds":
        rounds = int(v)
    elif not what.startswith("problem."):
        hp[what] = v
    # the numbers as given (integers stay integers: sympy then evaluates exactly before the one rounding)
    ctx.update({k: x for k, x in hp.items() if _is_number(x)})
    ctx["R"] = rounds
    ctx[c.symbols()["name"]] = v
    # the expressions in the order their names become known (one may use another, or K)
    pending = {k: x for k, x in c.hp.items() if _is_expression(x) and k != what}
    while True:
        if _is_number(hp.get("local_steps")):
            ctx["K"] = hp["local_steps"]
        ready = [k for k, x in pending.items() if {str(s) for s in _expr(x, c.name).free_symbols} <= set(ctx)]
        if not ready:
            break
        for k in ready:
            hp[k] = ctx[k] = _evaluate(c, f"hp {k!r}", pending.pop(k), ctx)
    for k, x in pending.items():  # what is left names something unknown: the error says which
        _evaluate(c, f"hp {k!r}", x, ctx)
    return {**{k: hp[k] for k in c.hp if k in hp}, **hp}, rounds, ctx


def bound_values(c: Claim) -> np.ndarray:
    """The bound at every point of the sweep (every free constant 1; no instance constants)."""
    return evaluate_bound(c, c.along[1])


def evaluate_bound(c: Claim, values: Sequence[float]) -> np.ndarray:
    """The bound at ``values`` of the swept name (a bound without the instance's constants)."""
    return _positive(c, np.array([_evaluate(c, "bound", c.bound, point(c, v, {})[2]) for v in values]))


def _positive(c: Claim, b: np.ndarray, where: str = "the sweep") -> np.ndarray:
    bad = ~(np.isfinite(b) & (b > 0))
    if np.any(bad):
        raise InvalidClaimError(f"claim {c.name!r}: bound {c.bound_text()!r} = {float(b[bad][0])!r} on "
                                f"{where}; the rule is positive and finite")
    return b


def _instance_constants(c: Claim, p: Any, ref: Any) -> dict[str, float]:
    """The instance's constants that the claim names and does not state (``INSTANCE``)."""
    need = own_constants(c)
    out: dict[str, float] = {"M": int(p.M)} if "M" in need else {}
    if need - {"M"}:
        from fcocheck.solvers.constants import compute_constants

        k = compute_constants(p, ref.w)
        for name in need - {"M"}:
            value = getattr(k, name)
            if value is None:
                raise InvalidClaimError(f"claim {c.name!r}: the instance's {name} is not computable for "
                                        f"{p.name}; the rule is to state it in constants")
            out[name] = float(value)
    return out


def curve(c: Claim, t: Any, hp: Mapping[str, Any] | None = None) -> np.ndarray:
    """One run's curve of the claim's measure.

    A trace metric, one derived from it (``DERIVED``), or an identity's residual read with the run's
    hyper-parameters ``hp`` (``verify.residuals.RESIDUALS``).
    """
    from fcocheck.verify.residuals import RESIDUALS

    if c.measure in RESIDUALS:
        return np.asarray(RESIDUALS[c.measure](t, hp or {}), dtype=float)
    metric, power = DERIVED.get(c.measure, (c.measure, 1))
    if metric not in t.arrays:
        raise InvalidClaimError(f"claim {c.name!r}: measure {c.measure!r}; the rule is a trace metric "
                                f"{sorted(t.arrays)} or one of {sorted(DERIVED)}")
    return np.asarray(t[metric], dtype=float) ** power


def statistic(c: Claim, curve: np.ndarray) -> float:
    """The claim's number from one run's curve of its metric (``Claim.statistic``)."""
    if c.statistic == "last_step_mean":
        if curve.ndim != 2:
            raise InvalidClaimError(f"claim {c.name!r}: statistic last_step_mean of {c.measure!r} (shape "
                                    f"{curve.shape}); the rule is a per-local-step metric (rounds × steps)")
        return float(np.mean(curve[:, -1]))
    if c.statistic == "tail_mean":
        from fcocheck.verify.experiments.base import tail_mean

        return tail_mean(curve, c.tail)
    if c.statistic == "max":
        return float(np.max(curve))
    if c.statistic not in ("last", "mean"):  # limit, mean_above_floor: across runs (measure_instance)
        raise ValueError(f"statistic {c.statistic!r} is not one run's number")
    return float(curve[-1] if c.statistic == "last" else np.mean(curve))


def noise_seeds(c: Claim, instance_seed: int) -> list[int]:
    """The oracle seeds of one instance's runs: its own seed, or 1000·seed + k for repetition k."""
    return [instance_seed] if c.repeats == 1 else [1000 * instance_seed + k for k in range(c.repeats)]


class Measurement(NamedTuple):
    """What ``measure`` returns (shapes: S instances, P points, ``repeats`` repetitions)."""

    G: np.ndarray  #: the measurement, S × repeats × P
    floor: np.ndarray  #: each measurement's resolution, S × P
    bound: np.ndarray  #: the bound on each instance's constants, S × P
    B: float  #: the largest ½‖w₀ − w*‖² over the instances
    residual: np.ndarray  #: ``statistic="limit"``: each limit's convergence residual, S × P (else 0)
    seeds: list[int]  #: the instances' seeds
    skipped: list[int]  #: ``redraw``: the instances replaced (a point unresolved)
    random: bool = True  #: some run drew random numbers (oracle noise, the method's own draws)


class _Row(NamedTuple):
    """One instance's share of a ``Measurement``: repeats × P, then P each, its B."""

    G: np.ndarray
    floor: np.ndarray
    bound: np.ndarray
    B: float
    residual: np.ndarray
    random: bool = True


def measure_instance(c: Claim, s: int) -> _Row:
    """Instance ``s`` of the claim's class at every point of its sweep (``measure``)."""
    from fcocheck.rates.fit import phase_rate
    from fcocheck.solvers.reference.certificate import RESOLVED
    from fcocheck.verify.experiments.base import runs, tail_mean
    from fcocheck.verify.experiments.instances import drawn
    from fcocheck.verify.residuals import RESIDUALS

    what, values = c.along
    gen, params = c.problem
    P = len(values)
    G, floor, bound, resid = np.empty((c.repeats, P)), np.zeros(P), np.empty(P), np.zeros(P)
    above = np.zeros(c.repeats)  # ``mean_above_floor``: each repetition's floor
    B = 0.0
    fixed = (c.instance if c.instance is not None else None if what.startswith("problem.")
             else drawn(gen, s, c.reference_tol, **params))
    cases = [fixed or drawn(gen, s, c.reference_tol, **{**params, what.removeprefix("problem."): v})
             for v in values]
    own = [_instance_constants(c, q, r) for q, r in cases]
    if c.constants_over == "sweep":
        own = [{k: max(o[k] for o in own) for k in own[0]}] * len(own)
    longest = None
    random = False  # ``limit``: exact gradients, a dual-averaging method (``_check``)
    if prefixes(c):  # one run to the sweep's largest R; each point reads its first R rounds
        hp, rounds, _ = point(c, max(values), own[int(np.argmax(values))])
        longest = runs(method_name(c), cases[0][0], hp, rounds, c.oracle, noise_seeds(c, s), cases[0][1])
    for j, v in enumerate(values):
        q, r = cases[j]
        hp, rounds, ctx = point(c, v, own[j])
        bound[j] = _positive(c, np.array([_evaluate(c, "bound", c.bound, ctx)]), f"instance {s}, "
                             f"{c.symbols()['name']} = {v:g}")[0]
        if c.measure in GAP_METRICS:
            floor[j] = RESOLVED * r.certificate.value
        if c.statistic == "limit":
            G[0, j], resid[j] = _limit(c, q, r, hp, rounds, s, floor[j])
        else:
            record = "step" if c.statistic == "last_step_mean" or c.measure in RESIDUALS else "round"
            traces = longest or runs(method_name(c), q, hp, rounds, c.oracle, noise_seeds(c, s), r,
                                     record=record)
            twins = _twin_runs(c, v, own[j], q, r, s, record) if c.twin else []
            for k, t in enumerate(traces):
                random = random or bool(t.meta.get("random", True))
                if c.twin:
                    random = random or bool(twins[k].meta.get("random", True))
                    G[k, j] = twin_measure(c, t, twins[k])
                    continue
                y = curve(c, t, hp)[: rounds + 1] if longest else curve(c, t, hp)
                if c.statistic == "mean_above_floor":  # the running mean now, its floor once the sweep is run
                    G[k, j] = float(np.mean(y[:-1]))
                    if v == max(values):
                        above[k] = tail_mean(y[:-1], c.tail)
                elif c.statistic == "rate":  # a rate is resolved where its phase is: judged where finite
                    G[k, j] = phase_rate(y, floor[j])
                else:
                    G[k, j] = statistic(c, y)
        B = max(B, 0.5 * float(np.sum((q.zero() - r.w) ** 2)))
    if c.statistic == "mean_above_floor":
        G = np.maximum(G - above[:, None], 1e-300)
    if c.statistic == "rate":  # the gap's resolution is in the phase; a rate is resolved where positive
        floor = np.zeros(P)
    return _Row(G, floor, bound, B, resid, random)


#: statistics of a curve's first R rounds alone (``prefixes``)
PREFIX_STATISTICS = ("last", "mean", "tail_mean", "mean_above_floor")


def prefixes(c: Claim) -> bool:
    """Whether a sweep of R is read off one run to the largest R: the same bits, one run per instance.

    A run of R rounds is the first R rounds of a longer one (the engine draws every random choice round by
    round, and nothing in a round depends on the rounds to come) — so when no hyper-parameter depends on
    R (a number, not an expression) and the statistic reads the curve's first R rounds only.
    """
    return (c.along[0] == "rounds" and c.statistic in PREFIX_STATISTICS and not c.twin
            and not any(_is_expression(x) for x in c.hp.values()))


def measure(c: Claim, seed: int = 0, instances: Sequence[int] | None = None) -> Measurement:
    """The measurement, its resolution, the bound, the class's B and the limits' residuals.

    Instances are drawn with seeds ``seed, seed + 1, …`` (the study seed reaches the instance), or are
    ``instances`` (a control or a check on the claim's own draw); with ``redraw``, an instance unresolved
    at a point is replaced from the study seed's own stream (``verify.experiments.base.draw_instances``).
    The measurement is instances × repetitions × sweep points, its resolution and the bound (each
    instance's own constants) instances × points; B is the largest ½‖w₀ − w*‖² over the instances (the
    class's initial condition, for the worst case).  Every run goes through
    ``verify.experiments.base.runs``, so a report stores it in its run tables.
    """
    from fcocheck.verify.experiments.base import draw_instances

    skipped: list[int] = []
    if c.instance is not None:  # one fixed instance
        drawn = [(seed, measure_instance(c, seed))]
    elif instances is not None:
        drawn = [(s, measure_instance(c, s)) for s in instances]
    elif c.redraw:
        def resolved(s: int) -> _Row | None:
            row = measure_instance(c, s)
            return row if resolved_prefix(row.G.mean(axis=0)[None, :], row.floor[None, :]) == row.floor.size \
                else None

        # at most ``redraw`` replacements: the draw stops at the rejection after the last one
        drawn, skipped = draw_instances(seed, c.seeds, resolved, c.redraw + 1)
    else:
        drawn = [(seed + i, measure_instance(c, seed + i)) for i in range(c.seeds)]
    rows = [r for _, r in drawn]
    P = len(c.along[1])
    if not rows:
        return Measurement(np.empty((0, c.repeats, P)), np.zeros((0, P)), np.empty((0, P)), 0.0,
                           np.zeros((0, P)), [], skipped)
    return Measurement(np.array([r.G for r in rows]), np.array([r.floor for r in rows]),
                       np.array([r.bound for r in rows]), max(r.B for r in rows),
                       np.array([r.residual for r in rows]), [s for s, _ in drawn], skipped,
                       any(r.random for r in rows))


def _limit(c: Claim, q: Any, r: Any, hp: dict[str, Any], rounds: int, s: int,
           resolution: float) -> tuple[float, float]:
    """``statistic="limit"``: lim_R Φ(ŵ_R) − Φ* and its residual (``verify.experiments.limits``)."""
    from fcocheck.verify.experiments.limits import limit_gap

    try:
        return limit_gap(method_name(c), q, r, hp, rounds, s, resolution)
    except KeyError as exc:
        raise InvalidClaimError(f"claim {c.name!r}: statistic limit of {method_name(c)!r}, which logs no "
                                f"{exc}; the rule is a dual-averaging method (its shadow's primal images)") \
            from exc


def method_name(c: Claim) -> str:
    """The claim's method by name, registering it when the claim carries a card."""
    from fcocheck.solvers import algorithms
    from fcocheck.solvers.card import Card

    if isinstance(c.method, Card):
        if algorithms.CARDS.get(c.method.name) is not c.method:
            algorithms.register_card(c.method)
        return c.method.name
    return str(c.method)


def judge(c: Claim, seed: int = 0, quick: bool = True) -> tuple[list[Verdict], dict[str, Any]]:
    """The claim's verdicts and what was measured (at its quick design, or its full one).

    The verdicts: on the drawn instances (with size and power), each negative control
    (``control_verdicts``), the limits' settling (``statistic="limit"``), the measure where the bound
    vanishes (``vanishing``), then against the class's worst case where it applies;
    ``rates.verdict.combine`` of them is the claim's status.  When ``redraw`` cannot draw ``seeds``
    resolved instances, one inconclusive verdict says so and nothing else is judged.
    """
    from fcocheck.verify.claim_worst import worst_case

    c = c.design(quick)
    _validate(c)
    m = measure(c, seed)
    if len(m.seeds) < (1 if c.instance is not None else c.seeds):
        return [_too_few(c, m)], {"seeds": m.seeds, "skipped": m.skipped}
    v, measured = judge_data(c, m.G, m.floor, m.bound, seed, m.seeds, m.random)
    if m.skipped:
        measured["skipped"] = m.skipped
    verdicts = [v, *control_verdicts(c, m.G, m.floor, m.bound, seed, measured)] if c.controls else [v]
    if c.statistic == "limit":
        verdicts.append(settled(m))
    if c.vanishes:
        verdicts.append(vanishing(c, m.G, seed, measured, m.floor))
    if not c.worst:
        return verdicts, measured
    w, rows = worst_case(c, m.B)
    measured["worst_case"] = rows
    return [*verdicts, w], measured


def judge_measured(c: Claim, seed: int = 0) -> tuple[Verdict, dict[str, Any], float]:
    """The verdict on the drawn instances, what was measured, and the class's B (``judge_data``)."""
    _validate(c)
    m = measure(c, seed)
    if len(m.seeds) < c.seeds:
        return _too_few(c, m), {"seeds": m.seeds, "skipped": m.skipped}, m.B
    v, measured = judge_data(c, m.G, m.floor, m.bound, seed, m.seeds, m.random)
    return v, measured, m.B


def _too_few(c: Claim, m: Measurement) -> Verdict:
    """``redraw`` ran out: fewer than ``seeds`` instances resolve every point."""
    return Verdict(INCONCLUSIVE, "resolution", f"only {len(m.seeds)} of {c.seeds} instances resolve every "
                   f"point of the sweep: {len(m.skipped)} draws rejected ({m.skipped}), {c.redraw} "
                   f"replacements allowed; the rule is {c.seeds} — allow more redraws or end the sweep "
                   "earlier",
                   {"skipped": m.skipped})


def judge_data(c: Claim, G3: np.ndarray, floor: np.ndarray, b: np.ndarray, seed: int = 0,
               seeds: Sequence[int] | None = None, random: bool = True) -> tuple[Verdict, dict[str, Any]]:
    """The claim's rule on a measurement (instances × repetitions × points), its resolution and bound.

    Sense ``Θ``: the log–log slope over the resolved points against the bound's exponent (``_law``).
    Sense ``≲`` — one bound for every instance and one *random* run per point (``random``: oracle noise
    or the method's own draws): every instance is judged against the same bound, pooled
    (``rates.oc.bounded_ratio`` with the instances' two-way noise).  Otherwise each instance against its
    own bound with its own noise — a deterministic run's curve is exact (how two instances' shapes
    differ is two experiments, not noise), repetitions give their spread — on the points it resolves,
    with 1/S of the false-alarm budget (``verify.experiments.judge.bound_instances``).  Sense ``≳``: the
    same rule on the reciprocals (``_lower``).  Sense ``=``: every run at every point within the
    tolerance (``_identity``).
    """
    from fcocheck.verify.experiments.judge import bound_instances

    if c.sense == LOWER:
        return _lower(c, G3, floor, b, seed, seeds, random)
    if c.sense == IDENTITY:
        return _identity(c, G3, b), _measured(c, G3, floor, b, seed, seeds)
    G = G3.mean(axis=1)
    x = np.asarray(c.along[1], dtype=float)
    if c.direction == "shrinks":
        x = 1.0 / x
    order = np.argsort(x)
    name = c.symbols()["name"]
    shown = ("1/" if c.direction == "shrinks" else "") + readable_name(name)  # the judged coordinate
    pooled = _shared(b) and c.repeats == 1 and random
    measured = _measured(c, G3, floor, b, seed, seeds)
    kept = resolved_prefix(G[:, order], floor[:, order])
    if kept < len(order):
        measured["unresolved_from"] = float(c.along[1][order[kept]])
    if not pooled and c.sense == UPPER:
        Y = G3 if c.repeats > 1 else G
        v = bound_instances(x[order], b[:, order], Y[..., order], seed=seed, label=shown,
                            floor=floor[:, order], deterministic=c.repeats == 1 and not random)
        return v, measured
    if kept < MIN_POINTS:
        where = f"{name} = {c.along[1][order[kept]]:g}"
        reason = (f"an instance's measurement is unresolved from {where} (≤ {float(floor.max()):.1e}, 10³× "
                  f"its reference's certificate, or not positive): {kept} resolved points; the rule is ≥ "
                  f"{MIN_POINTS} — end the sweep earlier")
        return Verdict(INCONCLUSIVE, "resolution", reason, {}), measured
    order = order[:kept]
    if c.sense == LAW:
        along = np.asarray(c.along[1], dtype=float)[order]
        return _law(c, G3[..., order], along, seed, measured), measured
    # one row per instance: the rule averages log ratios (each instance's constant cancels from a slope)
    v = bounded_ratio(x[order], b[0, order], G[:, order], seed=seed, label=shown,
                      noise=instance_noise(G[:, order]))
    return v, measured


def _identity(c: Claim, G3: np.ndarray, b: np.ndarray) -> Verdict:
    """An identity: the largest measure over every run and point at most the tolerance ``bound``.

    Not a rate, so nothing is resolved away: a residual of exactly 0 holds, a non-finite one breaks it.
    Power: a residual 10× the tolerance is rejected (``verify.experiments.judge.identity``); on real runs,
    the claim's controls must break it.
    """
    from fcocheck.verify.experiments.judge import identity

    worst = float(np.max(G3)) if G3.size and np.all(np.isfinite(G3)) else float("inf")
    S, runs, P = G3.shape
    return identity(worst, float(b.flat[0]), f"{c.measure}, the largest over {S} instance(s) × {runs} "
                    f"run(s) × {P} points")


def _lower(c: Claim, G3: np.ndarray, floor: np.ndarray, b: np.ndarray, seed: int,
           seeds: Sequence[int] | None, random: bool) -> tuple[Verdict, dict[str, Any]]:
    """A lower bound y ≳ b judged as 1/y ≲ 1/b by the upper rule, its size and power (a time constant).

    Its violations are the upper rule's on the reciprocals: along a growing 1/b, a time constant growing
    like (1/b)^1.2 … 1.5 — a rate vanishing like b^1.2 … 1.5, faster than the bound allows.  A run that
    does not contract (any repetition's −log q ≤ 0, ``statistic="rate"``) fails the bound outright.  A
    point not measured on some instance (no rate, or y within its resolution) is never cut from the
    sweep — the small-bound end is where a lower bound fails — the verdict is inconclusive, naming it.
    What is measured is reported as measured (y and b), the judged ratio named.
    """
    measured = _measured(c, G3, floor, b, seed, seeds)
    name = readable_name(c.symbols()["name"])
    if c.statistic == "rate":
        stalled = ~np.isnan(G3) & (G3 <= 0)
        if stalled.any():
            i, k, j = (int(x[0]) for x in np.nonzero(stalled))
            s = seeds[i] if seeds is not None else seed + i
            reason = (f"no contraction: −log q = {G3[i, k, j]:.3g} ≤ 0 on instance {s} at {name} = "
                      f"{c.along[1][j]:g}, where the bound {c.bound_text()} is {b[i, j]:.3g} > 0")
            return Verdict(INCONSISTENT, "lower bound", reason, {"rate": float(G3[i, k, j])}), measured
    missing = ~np.all(G3 > floor[:, None, :], axis=(0, 1))  # nan compares False: not measured
    if missing.any():
        where = ", ".join(f"{v:g}" for v in np.asarray(c.along[1])[missing])
        why = "no linear phase of 3 points, or" if c.statistic == "rate" else "at or below"
        reason = (f"not measured at {name} = {where} on some instance ({c.statistic} of {c.measure}: {why} "
                  "its resolution); a lower bound is judged on the whole sweep, its small-bound end "
                  "included — run longer, or start further from the optimum")
        return Verdict(INCONCLUSIVE, "resolution", reason, {}), measured
    v, upper = judge_data(replace(c, sense=UPPER), 1.0 / G3, np.zeros_like(floor), 1.0 / b, seed, seeds,
                          random)
    measured.update({k: x for k, x in upper.items() if k not in measured}, judged="bound / measured ≲ 1")
    return replace(v, rule=f"{v.rule} (1/y ≲ 1/bound)"), measured


def _shared(b: np.ndarray) -> bool:
    """One bound for every instance, to 10⁻⁹ relative.

    Two instances' measured μ of one class's 0.1 may differ in their last bits.
    """
    return bool(np.allclose(b, b[:1], rtol=1e-9, atol=0.0))


def _measured(c: Claim, G3: np.ndarray, floor: np.ndarray, b: np.ndarray, seed: int,
              seeds: Sequence[int] | None) -> dict[str, Any]:
    """What was measured, in the claim's own terms.

    The sweep, the bound (one row when every instance shares it), the instances' means, their
    resolution, the seeds (and each repetition).
    """
    G = G3.mean(axis=1)
    common = _shared(b) and c.repeats == 1
    out = {"along": list(c.along[1]), "bound": (b[0] if common else b).tolist(),
           "mean": G.mean(axis=0).tolist(), "instances": G.tolist(), "resolution": floor.tolist(),
           "seeds": list(seeds) if seeds is not None else [seed + i for i in range(G.shape[0])]}
    if c.repeats > 1:
        out["repetitions"] = G3.tolist()
    return out


def settled(m: Measurement) -> Verdict:
    """``statistic="limit"``: every resolved point's limit settled (residual ≤ ``LIMIT_TOL``)."""
    from fcocheck.rates.threshold import at_most
    from fcocheck.verify.experiments.judge import identity
    from fcocheck.verify.experiments.limits import LIMIT_DOUBLINGS, LIMIT_TOL

    resolved = m.G.mean(axis=1) > m.floor
    worst = float(m.residual[resolved].max()) if resolved.any() else 0.0
    if at_most(worst, LIMIT_TOL):
        return identity(worst, LIMIT_TOL, "lim Φ(ŵ_R) reached (tail R/2…R vs 3R/4…R) at every resolved point")
    return Verdict(INCONCLUSIVE, "limit reached", f"a limit had not settled after {LIMIT_DOUBLINGS} "
                   f"doublings of R: residual {worst:.2e} (rule ≤ {LIMIT_TOL:g}); no floor measured")


#: ``Claim.vanishes``: the measure where the bound vanishes, relative to its value at the nearest point
VANISH = 1e-3


def _check_runs(c: Claim, what: str, v: Any, why: str) -> None:
    """The method takes hyper-parameter ``what`` = v (with the claim's numeric ones), or a clean error."""
    from fcocheck.solvers import algorithms
    from fcocheck.solvers.errors import FcocheckError

    hp = {k: x for k, x in c.hp.items() if _is_number(x) or (isinstance(x, str) and not _is_expression(x))}
    try:
        algorithms.make_hyper(algorithms.get(method_name(c)), {**hp, what: v})
    except FcocheckError as exc:
        if re.search(rf"(?<![\w.]){re.escape(what)}(?![\w])", str(exc)):  # the error names it (``m``, not
            raise InvalidClaimError(f"claim {c.name!r}: {why} {what} = {v!r}: {exc}") from None  # "param")


def _check_vanishes(c: Claim) -> None:
    """``vanishes`` on a claim whose bound vanishes at an admissible point outside its sweep."""
    import sympy as sp

    if c.constants_over == "sweep":
        raise InvalidClaimError(f"claim {c.name!r}: vanishes with constants_over 'sweep'; the rule is "
                                "'point' (the point where the bound vanishes has no sweep to take them over)")
    if c.sense == LAW:
        if law_exponent(c) <= 0:
            raise InvalidClaimError(f"claim {c.name!r}: vanishes, but {c.bound_text()!r} has exponent "
                                    f"{law_exponent(c):g}; the rule is a law of positive exponent (one that "
                                    "vanishes where its coordinate does)")
    else:
        s = c.symbols()
        swept = next((v for v in s["expr"].free_symbols if str(v) == s["name"]), None)
        at0 = sp.limit(s["expr"], swept, 0, "+") if swept is not None else s["expr"]
        if c.direction != "shrinks" or at0 != 0:
            raise InvalidClaimError(f"claim {c.name!r}: vanishes with direction {c.direction!r} and "
                                    f"{c.bound_text()!r} → {at0} as {s['name']} → 0; the rule is direction "
                                    "shrinks and a bound that vanishes at 0")
    v0, values = vanishing_point(c), [float(v) for v in c.along[1]]
    integers = all(v.is_integer() for v in values)
    if (integers and not float(v0).is_integer()) or min(values) <= v0 <= max(values) or v0 < 0:
        raise InvalidClaimError(f"claim {c.name!r}: vanishes at {c.symbols()['name']} = {v0:g}; the rule is "
                                "a point outside the sweep, ≥ 0, and an integer for an integer sweep")
    if c.along[0] != "rounds" and not c.along[0].startswith("problem."):
        _check_runs(c, c.along[0], v0, "vanishes at")


def vanishing_point(c: Claim) -> float:
    """Where ``Claim.vanishes`` measures: the swept value at which the bound vanishes.

    0 for an upper bound along a shrinking direction; for a law, the one real zero of its coordinate
    (λ = 0 for λ², K = 1 for (K − 1)²), an integer where the sweep is of integers.
    """
    import sympy as sp

    integers = all(float(a).is_integer() for a in c.along[1])
    if c.sense != LAW:
        return 0 if integers else 0.0
    u = law_coordinate(c)[1]
    swept, x = next(iter(u.free_symbols), None), sp.Symbol("x")  # x: no sign assumed (λ > 0 has no zero)
    roots = [r for r in (sp.solve(u.subs(swept, x), x) if swept is not None else []) if r.is_real]
    if len(roots) != 1:
        raise InvalidClaimError(f"claim {c.name!r}: vanishes, but the law's coordinate {u} has zeros "
                                f"{roots}; the rule is exactly one real zero (where the measure must vanish)")
    v = float(roots[0])
    return int(v) if v.is_integer() and integers else v


def vanishing(c: Claim, G3: np.ndarray, seed: int, measured: dict[str, Any],
              floor: np.ndarray | None = None) -> Verdict:
    """``Claim.vanishes``: the measure where the bound vanishes is ≤ ``VANISH`` × its value nearest it.

    The same instances are run at the bound's zero (``vanishing_point``; the bound is not evaluated there:
    it is 0 by the claim); each must vanish — a value within its resolution (``floor``: a gap within its
    reference's certificate) counts as 0.  It is compared with the nearest point of the sweep that every
    instance resolves (none: inconclusive).  Power (``verify.experiments.judge.vanishes``): the measure
    kept there on every instance, or on one, is rejected.
    """
    from fcocheck.verify.experiments.judge import vanishes

    v0 = vanishing_point(c)
    at_zero = replace(c, along=(c.along[0], (v0,)), bound=1, controls={}, full={}, vanishes=False)
    seeds = measured.get("seeds", [seed + i for i in range(G3.shape[0])])
    m0 = measure(at_zero, seed, seeds)
    zero = m0.G.mean(axis=1)[:, 0]
    measured["at_zero"] = zero.tolist()
    G = G3.mean(axis=1)
    F = np.zeros_like(G) if floor is None else floor
    resolved = [j for j in range(G.shape[1]) if np.all((G[:, j] > F[:, j]) & (G[:, j] > 0))]
    name = readable_name(c.symbols()["name"])
    if not resolved:
        return Verdict(INCONCLUSIVE, "vanishes", f"no point of the sweep is resolved on every instance: "
                       f"nothing to compare {c.measure} at {name} = {v0:g} with")
    j = min(resolved, key=lambda k: abs(float(c.along[1][k]) - v0))
    zero = np.where(zero <= m0.floor[:, 0], 0.0, zero)
    return vanishes(zero, G[:, j], seeds,
                    f"{c.measure} at {name} = {v0:g} / at {name} = {c.along[1][j]:.3g}", VANISH)


def control_verdicts(c: Claim, G3: np.ndarray, floor: np.ndarray, b: np.ndarray, seed: int,
                     measured: dict[str, Any]) -> list[Verdict]:
    """Each negative control (``Claim.controls``): the claim's own rule must reject the variant's runs.

    The variant — the claim with the control's changes (another method, a hyper-parameter …) — is
    measured on the same instances and sweep and judged by the same rule against the claim's bound; it
    must come out inconsistent.  Power: the claim's own measurement, offered as the control, is not
    rejected (``verify.experiments.judge.control``), so a rule that rejects everything cannot pass it.
    A law's control is judged on each instance (``law_each``): a variant's exponent is its own on each
    instance (FedMiD-avg's drift floor grows like ζ^2.4 on one instance and ζ^7.6 on another), and one
    interval pooled over a few instances' slopes is too wide to reject anything.
    """
    from fcocheck.verify.experiments.judge import control

    out = []
    measured["controls"] = {}
    for label, changes in c.controls.items():
        variant = replace(c, **dict(changes), controls={}, full={})
        _check(variant)
        mv = measure(variant, seed, measured["seeds"])
        G3v = mv.G
        measured["controls"][label] = G3v.mean(axis=1).tolist()

        def rule(d: np.ndarray, fl: np.ndarray = mv.floor, random: bool = mv.random) -> Verdict:
            D = np.asarray(d).reshape(G3.shape)
            if c.sense == LAW:
                return law_each(c, D, fl, b, seed, measured["seeds"])
            return judge_data(c, D, fl, b, seed, random=random)[0]

        out.append(control(rule, G3v, G3, label))
    return out


def law_each(c: Claim, G3: np.ndarray, floor: np.ndarray, b: np.ndarray, seed: int,
             seeds: Sequence[int]) -> Verdict:
    """A law judged on each instance by its own exponent (a negative control's rule).

    Rejected if the rule rejects it on at least one instance and accepts it on none (an instance whose
    curve bends too much for its points — an interval like [−0.16, 12.1] — neither accepts nor rejects);
    accepted if it accepts it on one.
    """
    from fcocheck.rates.verdict import CONSISTENT, INCONSISTENT

    rows = [judge_data(c, G3[i:i + 1], floor[i:i + 1], b[i:i + 1], seed)[0] for i in range(G3.shape[0])]
    text = "; ".join(f"[{s}] {v.reason.split('; power')[0]}" for s, v in zip(seeds, rows, strict=True))
    status = (CONSISTENT if any(v.status == CONSISTENT for v in rows) else
              INCONSISTENT if any(v.status == INCONSISTENT for v in rows) else INCONCLUSIVE)
    return Verdict(status, rows[0].rule, text)


def law_coordinate(c: Claim) -> tuple[float, Any]:
    """A law's exponent p and coordinate u: the bound is (a constant) × u^p, u the swept name or in it.

    ``K**2`` → (2, K); ``(K - 1)**2`` → (2, K − 1): the measure is fitted against u, so a law in K − 1
    is a power law although it is not one in K; several factors in the swept name (``K*(K - 1)``) make
    u their product with exponent 1.  A bound without the swept name is a law of exponent 0.  Anything
    else is a clean error.
    """
    from fcocheck.rates.algebra import exponent

    s = c.symbols()
    swept = next((v for v in s["expr"].free_symbols if str(v) == s["name"]), None)
    if swept is None:
        return 0.0, s["swept"]
    e = exponent(s["expr"], swept)
    if getattr(e, "is_number", False):
        return float(e), swept
    moving = [(base, p) for base, p in s["expr"].as_powers_dict().items() if swept in base.free_symbols]
    if moving and all(p.is_number for _, p in moving) and all(b.free_symbols == {swept} for b, _ in moving):
        if len(moving) == 1:
            return float(moving[0][1]), moving[0][0]
        import sympy as sp

        return 1.0, sp.Mul(*[b**p for b, p in moving])  # K·(K − 1): the bound itself, exponent 1
    raise InvalidClaimError(f"claim {c.name!r}: the exponent of {c.bound_text()!r} in {s['name']} is "
                            f"{e}; the rule for sense {LAW} is a power of the swept name, or of one "
                            "expression in it (a constant times u^p)")


def law_exponent(c: Claim) -> float:
    """The bound's exponent in its law coordinate (``law_coordinate``)."""
    return law_coordinate(c)[0]


def law_x(c: Claim, values: Sequence[float]) -> tuple[np.ndarray, str]:
    """The law coordinate u at the swept ``values``, and how it reads.

    Positive on the sweep; negative throughout, it is −u; else a clean error.
    """
    u = law_coordinate(c)[1]
    name = c.symbols()["name"]
    x = np.array([float(u.subs({v: val for v in u.free_symbols})) for val in values], dtype=float)
    if np.all(x < 0):  # (1 − K)² is (K − 1)²: the coordinate's sign is the writer's choice
        u, x = -u, -x
    if not np.all(np.isfinite(x) & (x > 0)):
        raise InvalidClaimError(f"claim {c.name!r}: the law's coordinate {u} is {x.tolist()} on the sweep; "
                                "the rule is positive (a power law is fitted in its logarithm)")
    label = readable_name(name) if str(u) == name else str(u).replace(name, readable_name(name))
    label = label.replace("-", "−")
    return x, label


def _law(c: Claim, G3: np.ndarray, along: np.ndarray, seed: int, measured: dict[str, Any]) -> Verdict:
    """Measured ∝ bound: the log–log slope along the law's coordinate against the bound's exponent.

    Two-sided, with its violations (``verify.experiments.judge.exponent``); every run is a row
    (instances and repetitions: the interval takes their spread).
    """
    from fcocheck.verify.experiments.judge import exponent as judge_exponent

    p = law_exponent(c)
    x, label = law_x(c, along)
    fit, v = judge_exponent(list(x), G3.reshape(-1, G3.shape[-1]), p, "two-sided", seed, label)
    measured["fit"] = {**fit.as_dict(), "predicted": p, "x": x.tolist(), "label": label}
    return v


def design_line(c: Claim, measured: dict[str, Any]) -> str:
    """The claim's design in one line: the method, the instances drawn, the oracle, the sweep."""
    noise = (", exact gradients" if c.oracle == "exact" else
             f", {c.oracle}" + (f" ({c.repeats} noise seeds each)" if c.repeats > 1 else ""))
    stated = ", ".join(f"{k} = {v:g}" for k, v in c.constants.items())
    replaced = f" (replaced: {measured['skipped']})" if measured.get("skipped") else ""
    drawn = (f"instance {c.instance[0].name} (oracle seed {measured['seeds'][0]})" if c.instance is not None
             else f"{c.seeds} {c.problem[0]} instances (seeds {measured['seeds']}{replaced})")
    twin = f"; each run beside its twin {dict(c.twin)}" if c.twin else ""
    return (f"{method_name(c)} on {drawn}{noise}{'; stated ' + stated if stated else ''}{twin}; "
            f"{measure_text(c)} {c.sense} {c.bound_text()} along {c.along[0]} = "
            f"[{', '.join(f'{v:.4g}' for v in c.along[1])}]")


def measure_text(c: Claim) -> str:
    """What the claim measures, in words: the measure, or the statistic that is not a value of it (a rate)."""
    label = {**MEASURE_LABEL, **TWIN_MEASURES}.get(c.measure, c.measure)
    return f"−log q per round of {label}" if c.statistic == "rate" else label


#: a generator's name for a parameter whose symbol is a Python keyword: typeset as the symbol
LATEX_ALIAS = {"lam": "lambda"}

#: what the rows of a claim's figure are (its caption's words)
ROWS = "runs (instances and their repetitions)"


def statement_latex(c: Claim) -> str:
    """The claim as LaTeX: the measure, ≲ or ≍, the bound, and the direction of the sweep."""
    import sympy as sp

    lhs = MEASURE_LATEX.get(c.measure, r"\text{" + c.measure.replace("_", r"\_") + "}")
    if c.statistic == "rate":  # the rate of the measure's linear phase, not the measure
        lhs = rf"-\log q\left[{lhs}\right]"
    rel = {UPPER: r"\lesssim", LOWER: r"\gtrsim", IDENTITY: r"\le"}.get(c.sense, r"\asymp")
    s = c.symbols()
    to = r"\to \infty" if c.direction == "grows" else r"\to 0"
    names = {v: sp.latex(sp.Symbol(LATEX_ALIAS[str(v)])) for v in s["expr"].free_symbols | {s["swept"]}
             if str(v) in LATEX_ALIAS}
    swept = sp.latex(s["swept"], symbol_names=names)
    where = rf"\text{{along }} {swept}" if c.sense in (LAW, IDENTITY) else f"{swept} {to}"  # on the sweep
    return rf"{lhs} {rel} {sp.latex(s['expr'], symbol_names=names)} \quad ({where})"


def plot(c: Claim, measured: dict[str, Any]) -> dict[str, Any] | None:
    """The report's figure of a judged claim (None if it was not judged: nothing to draw).

    One bound for every instance: every instance's measurement (median and band), the bound with
    constants 1, and the bound scaled by the smallest constant covering every instance.  A bound per
    instance: each run's ratio to its instance's bound (median and band), against 1.
    """
    from fcocheck.verify.experiments.base import plot_spec, slope_series

    if "bound" not in measured or (c.sense == LAW and "fit" not in measured):
        return None  # not judged: too few instances, or too few resolved points for a law
    if c.sense == IDENTITY:  # the largest measure of the claim and of each control, against the tolerance
        bars = [{"label": method_name(c), "value": float(np.max(measured["instances"]))}]
        bars += [{"label": f"control: {name.split(' (')[0].split(':')[0]}", "value": float(np.max(Yc))}
                 for name, Yc in measured.get("controls", {}).items()]
        return plot_spec("bars", "", f"largest {c.measure}", bars, tol=float(np.max(measured["bound"])))
    bound = np.array(measured["bound"])
    label = measure_text(c)
    along = c.along[1]
    if c.sense == LAW:
        Y = np.array(measured.get("repetitions", measured["instances"])).reshape(-1, len(along))
        from fcocheck.rates.fit import SlopeFit

        xs, xlabel = law_x(c, along)
        fit = {k: v for k, v in measured["fit"].items() if k not in ("predicted", "x", "label")}
        series = [slope_series(method_name(c), xs, Y, SlopeFit(**fit), measured["fit"]["predicted"])]
        series += [slope_series(f"control: {name.split(' (')[0].split(':')[0]}", xs,
                                np.maximum(Yc, 1e-300)) for name, Yc in measured.get("controls", {}).items()]
        return plot_spec("slope", xlabel, label, series, rows=ROWS)
    if bound.ndim == 2:
        Y = np.array(measured.get("repetitions", measured["instances"]))
        ratios = (Y / (bound[:, None, :] if Y.ndim == 3 else bound)).reshape(-1, len(along))
        series = slope_series(f"{method_name(c)} (ratio to each instance's bound)", along, ratios,
                              bound=[1.0] * len(along))
        return plot_spec("bound", readable_name(c.symbols()["name"]), f"{label} / its bound", [series],
                         C=_covering(c, ratios), lower=c.sense == LOWER, rows=ROWS,
                         worst_overlay=_is_tuned_rate(c),
                         bound_label="tuned rate" if _is_tuned_rate(c) else "the claimed bound",
                         bound_name=f"1 (the claimed bound {c.bound_text()} with each instance's constants)")
    ratios = np.array(measured["instances"]) / bound
    series = slope_series(method_name(c), along, measured["instances"], bound=measured["bound"])
    return plot_spec("bound", readable_name(c.symbols()["name"]), label, [series], C=_covering(c, ratios),
                     lower=c.sense == LOWER, rows=ROWS, bound_name=f"the claimed bound {c.bound_text()}",
                     bound_label=c.bound_text(), worst_overlay=_is_tuned_rate(c))


def _covering(c: Claim, ratios: np.ndarray) -> float:
    """The constant the figure scales the bound by: the largest ratio (≲), the smallest (≳)."""
    return float(np.nanmin(ratios) if c.sense == LOWER else np.nanmax(ratios))


def _is_tuned_rate(c: Claim) -> bool:
    """Whether the claim's bound is its theorem's published tuned rate.

    The report then draws the theorem's worst-case constant beside it; any other bound's worst case is
    the claim's own.
    """
    from fcocheck.rates.catalog import THEOREMS

    thm = THEOREMS.get(c.theorem)
    return thm is not None and thm.tuned is not None and c.symbols()["expr"] == thm.tuned


#: the public name (``fcocheck.judge_claim``)
judge_claim = judge
