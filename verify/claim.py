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
  otherwise (``claim_judge.judge_data``); a lower bound (``sense="≳"``) by the same rule on the
  reciprocals, a law (``sense="Θ"``) by its log–log slope, an identity (``sense="="``) by its largest
  residual, a crossover (``sense="≶"``: the run beats its twin iff the swept value ≲ the bound) by the
  winner on each side (``rates.sides``), an inequality with every constant 1 (``sense="≤"``: a lemma's
  bound, terms measured on the same run allowed) run by run on means over the repetitions, with the
  power to detect each ``tested`` term deleted (``rates.inequality``);
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

This module holds the claim as data; the rest of its life is one module each: ``claim_expr`` (its
expressions evaluated at a point), ``claim_check`` (the rules a claim must follow, checked before any
run), ``claim_measure`` (the runs and the measurement), ``claim_judge`` (the verdicts),
``claim_text`` (its statement, design line and figure), ``claim_worst`` (the class's worst case) and
``claim_group`` (claims judged together).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from fcocheck.solvers.errors import FcocheckError
from fcocheck.verify.expression import refused


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
                 "w_distance_relative": r"\|w_R - w_{R,\mathrm{twin}}\| / \|w_{R,\mathrm{twin}}\|",
                 "gap_ratio": r"\frac{\Phi(w_R) - \Phi^\star}{(\Phi(w_R) - \Phi^\star)_{\mathrm{twin}}}",
                 "gap_avg_ratio": (r"\frac{\Phi(\hat{w}) - \Phi^\star}"
                                   r"{(\Phi(\hat{w}) - \Phi^\star)_{\mathrm{twin}}}")}


#: a claim's senses: an upper bound, a lower bound, a law, an identity (``Claim.sense``)
UPPER, LOWER, LAW, IDENTITY, CROSSOVER, AT_MOST = "≲", "≳", "Θ", "=", "≶", "≤"


#: what of a metric's curve a claim measures (``Claim.statistic``)
STATISTICS = ("last", "mean", "max", "tail_mean", "last_step_mean", "limit", "mean_above_floor", "rate",
              "factor")


#: measures derived from a trace metric (the report's label beside each)
DERIVED = {"prox_grad_norm_sq": ("prox_grad_norm", 2)}


#: measures read off a run and its twin (``Claim.twin``), and how the report labels each
TWIN_MEASURES = {"w_hat_distance_sq": "½‖ŵ − ŵ_twin‖²",
                 "w_distance_relative": "‖w_R − w_R,twin‖ / ‖w_R,twin‖",
                 "gap_ratio": "(Φ(w_R) − Φ*) / (Φ(w_R) − Φ*)_twin",
                 "gap_avg_ratio": "(Φ(ŵ) − Φ*) / (Φ(ŵ) − Φ*)_twin"}


#: a known disagreement's diagnostic: (claim, instance seeds) → (confirmed, its numbers)
Diagnostic = Callable[[Any, list[int]], tuple[bool, str]]


#: the measures a crossover (``≶``) compares a run and its twin by: which is nearer the optimum
CROSSOVER_MEASURES = ("gap_avg_ratio",)


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
        rounds: R when ``along`` is not rounds: a number, or an expression in the names a bound may use (the
            hyper-parameters, the stated and the instance's constants: R tuned to the point —
            ``"ceiling(8/(mu*eta_c*K))"`` — evaluated with the hyper-parameters; a positive integer there).
        oracle: the gradient oracle.
        seeds: instances drawn (≥ 3: the claim is judged across instances).
        direction: ``grows`` (the claim is about the swept value growing) or ``shrinks`` (going to 0).
        source: where the claim is stated (a paper, a note).
        worst: also judge the bound against the worst case over the class, where it applies.
        constants: the class's stated constants (L, σ, ζ …), by their names in ``bound``; they take
            precedence over the instance's measured ones.
        repeats: runs per instance and point, each with its own run seed — the oracle's noise, or a
            method's own draws (SVRG's inner samples) with exact gradients: each instance's noise is their
            spread.
        reference_tol: the certificate each instance's reference optimum is solved to (the default
            solver's when None): a measured floor must sit far above it.
        full: what the full design changes (``validate`` without ``--quick``): more seeds, a longer sweep.
        theorem: the catalog theorem the claim belongs to (a paper's claim), or empty (a user's).
        label: how the report names the bound (its text when empty).
        sense: ``≲`` (an upper bound: the ratio measured/bound must not keep growing along the sweep),
            ``≳`` (a lower bound: the ratio must not keep falling — judged as bound/measured ≲ 1, the
            reciprocals by the upper rule: a rate's lower bound is its time constant's upper bound) or
            ``Θ`` (a law: measured ∝ bound along the sweep — the log–log slope must equal the bound's
            exponent in the swept name, or in one expression of it — ``claim_expr.law_coordinate``) or
            ``=`` (an identity: the measure — a residual, ``verify.residuals`` — is at most ``bound``, the
            tolerance, at every point of every run; its controls must break it) or ``≶`` (a crossover: the
            measure is a ratio of the run to its ``twin`` — ``gap_avg_ratio`` —, the run must win (< 1) where
            the swept value is at most bound/4 and lose (> 1) where it is at least 4·bound: ``bound`` is the
            crossover, the point where the winner changes, known up to its constants —
            ``rates.sides.crossover_sides``; exact runs only) or ``≤`` (an inequality with every constant 1,
            a lemma's: at every point of every instance the measure's mean over the repetitions is at most
            the bound — a sum of terms, which may name ``run_terms`` —, judged with its standard error;
            deleting each ``tested`` term must break it somewhere: ``rates.inequality.bounded_by``).
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
            lower bound outright), ``factor`` (that phase's contraction q = e^{−rate} per round itself,
            what a bound of the form f_t − f* ≤ c^t (f_0 − f*) bounds: SVRG's eq. (5); a curve without a
            phase because it never falls 100× — flat, stalled — gets its factor over the whole run, ≥ 1
            when it does not contract; one that leaves the finite numbers ∞, which fails an upper bound
            outright; one that falls within 2 steps is unresolved; ``rates.fit.phase_factor``).
        constants_over: ``point`` (each point's instance supplies its measured constants) or ``sweep``
            (a sweep of a generator parameter: each measured constant is the largest over the instance
            seed's sweep — one step and one bound constant for the whole sweep, as a class's L is).
        controls: negative controls, label → changes to the claim (another method, a hyper-parameter,
            another class): the claim's rule, on the same instances and sweep, must reject each variant
            (``claim_judge.control_verdicts``) — the rule's power shown on real runs, not only on
            simulated ones.
        vanishes: the measure also vanishes where the bound does — at the swept value 0
            (``direction="shrinks"``: a floor that is 0 without the regulariser, say), or at the zero of a
            law's coordinate (K = 1 for (K − 1)²): measured there on every instance, it must be at most
            ``VANISH`` times its value at the sweep's nearest point (``claim_judge.vanishing``).
        tail: the share of the run's last rounds ``statistic="tail_mean"`` averages (a steady state: long
            enough to average the noise, short enough to leave the transient out).
        twin: changes (``TWIN_FIELDS``: another oracle, method, hyper-parameters) giving every run a twin
            on the same instance with the same oracle seeds; the measure (``TWIN_MEASURES``) is then read
            off the pair — ``twin={"oracle": "exact"}`` with ``measure="w_hat_distance_sq"`` is the noise's
            share of the output ŵ, whatever the noise-free run carries (``claim_measure.twin_measure``).  A
            twin whose method has no hyper-parameter of the swept name (PGM beside FedMiD swept in η_c)
            runs without it; any other follows the sweep.
        instance: one fixed instance (problem, reference) instead of drawn ones — a user's file
            (``validate --problem``): the claim and its controls run on it alone, with the study seed as
            the oracle's; a sweep of the class's parameters cannot run on it.
        redraw: how many instances may be replaced, each by a fresh draw from the study seed's own
            stream, when the measurement is unresolved at a point of its sweep (a floor of exactly 0 —
            an optimum at a vertex the method reaches — says nothing about how the floor moves); 0:
            none, the sweep is cut before the first unresolved point instead.  The replaced seeds are
            reported; a claim that cannot draw ``seeds`` resolved instances is inconclusive.  An
            identity is never redrawn for resolution (a residual of 0 is a measurement); ``redraw`` also
            bounds the replacements of instances without the claim's ``condition``.
        condition: what an instance of the class must have for the claim to speak of it, beyond the
            generator's parameters: a function (problem, reference) → None when it has it, else what it
            lacks (a sentence).  An instance without it is replaced like an unresolved one (``redraw``
            draws at most); a class that cannot supply ``seeds`` such instances, or a fixed instance
            without it, does not apply (``not applicable``, naming what was lacking).
        participation: clients sampled per round (all when None): the engine's ``participation``.
        start: ρ > 0 starts every run at w* + ρ·u, u a unit vector drawn from the instance's seed (a
            fixed distance to the optimum: B = ρ²/2 in the Euclidean h); None, the engine's start 0.
        known: a documented disagreement between the paper and the method as printed, (cause, diagnostic):
            when the claim is judged inconsistent, ``diagnostic(claim, seeds)`` → (confirmed, its numbers)
            measures the cause on the same instances; confirmed, the verdict is ``known disagreement``,
            otherwise it stays inconsistent, saying the cause was not confirmed
            (``rates.verdict.known_disagreement``: a new failure never hides behind a documented one).
        run_terms: sense ``≤``: names the bound may use for values measured on the same runs, name → trace
            metric (its last value, read off each run: each term is evaluated run by run and paired with
            that run's left side — the mean of a term nonlinear in a run term is E[f(X)], not f(E[X]))
            — Lemma 4.4's L·D_disc is the engine's ``discrepancy_overhead``.
        tested: sense ``≤``: names whose terms of the bound (each term of the sum that contains one) the
            design must show are needed — deleted from the bound, the inequality must break in at least
            ``rates.oc.POWER`` of simulated repetitions (the rule's power); at least one.

    """

    name: str
    method: Any
    bound: Any
    along: tuple[str, Sequence[float]]
    problem: tuple[str, Mapping[str, Any]] = ("quadratics", {})
    hp: Mapping[str, Any] = field(default_factory=dict)
    measure: str = "gap_avg"
    rounds: Any = 100
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
    condition: Any = None
    participation: int | None = None
    start: float | None = None
    known: tuple[str, Diagnostic] | None = field(default=None, compare=False)
    run_terms: Mapping[str, str] = field(default_factory=dict)
    tested: tuple[str, ...] = ()

    def swept_name(self) -> str:
        """The swept quantity's name in the bound (``rounds`` → R, ``problem.zeta`` → zeta, …)."""
        what = self.along[0]
        return SYMBOL.get(what, what.removeprefix("problem."))

    def symbols(self) -> dict[str, Any]:
        """The bound as a sympy expression, the swept symbol and its name."""
        import sympy as sp

        name = self.swept_name()
        return {"expr": as_expr(self.bound, self.name), "swept": sp.Symbol(name), "name": name}

    def design(self, quick: bool) -> Claim:
        """The claim at the quick design, or with ``full``'s changes."""
        return self if quick or not self.full else replace(self, **dict(self.full), full={})

    def bound_text(self) -> str:
        """How the report names the bound."""
        return self.label or str(as_expr(self.bound, self.name))


#: constants measured on each drawn instance when ``bound`` or an ``hp`` expression names them (a stated
#: constant of the same name wins): the clients M, and B = D_h(w*, w₀), L, G, μ, L_clients = max_m L_m and
#: L_sample = max_i L_i (one sample's: SVRG's step scale) of ``solvers.constants.compute_constants``
INSTANCE = ("M", "B", "L", "G", "mu", "L_clients", "L_sample")


#: names sympy's parser would read as its own objects (ζ, β, Γ functions; E, I, N, O, Q, S constants and
#: helpers): in a claim they are symbols
PLAIN_NAMES = ("zeta", "beta", "gamma", "E", "I", "N", "O", "Q", "S")


def as_expr(x: Any, claim: str = "") -> Any:
    """A sympy expression from an expression, its text, or a function returning one (built when judged)."""
    import sympy as sp

    if callable(x) and not isinstance(x, sp.Basic):
        x = x()
    if isinstance(x, sp.Basic):
        return x
    why = refused(str(x))
    if why is not None:
        shown = str(x) if len(str(x)) <= 80 else str(x)[:77] + "..."
        raise InvalidClaimError(f"claim {claim!r}: expression {shown!r} holds {why}")
    try:
        return _parsed(str(x))
    except (sp.SympifyError, SyntaxError, TypeError) as exc:
        raise InvalidClaimError(f"claim {claim!r}: expression {str(x)!r} does not parse "
                                f"({type(exc).__name__}); the rule is a sympy expression in the claim's "
                                "names") from exc


@lru_cache(maxsize=4096)
def _parsed(text: str) -> Any:
    """``text`` as a sympy expression (once per text: an expression is immutable, parsing is not cheap)."""
    import sympy as sp

    return sp.sympify(text, locals={n: sp.Symbol(n) for n in PLAIN_NAMES})


def method_name(c: Claim) -> str:
    """The claim's method by name, registering it when the claim carries a card."""
    from fcocheck.solvers import algorithms
    from fcocheck.solvers.card import Card

    if isinstance(c.method, Card):
        if algorithms.CARDS.get(c.method.name) is not c.method:
            algorithms.register_card(c.method)
        return c.method.name
    return str(c.method)
