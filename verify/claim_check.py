"""The rules a claim follows, checked before any run: a broken one is an error naming value and rule."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from fcocheck.verify.claim import (
    AT_MOST,
    CROSSOVER,
    CROSSOVER_MEASURES,
    IDENTITY,
    INSTANCE,
    LAW,
    LOWER,
    STATISTICS,
    TWIN_FIELDS,
    TWIN_MEASURES,
    UPPER,
    Claim,
    InvalidClaimError,
    as_expr,
    method_name,
)
from fcocheck.verify.claim_expr import (
    bound_values,
    bound_varies,
    is_expression,
    is_number,
    law_exponent,
    law_x,
    names_used,
    own_constants,
    vanishing_point,
)


def check_name(name: Any) -> None:
    """A claim's name names its files (the report's figure, a gallery page): one plain file name."""
    from fcocheck.solvers.files import PLAIN_RULE, is_plain_name

    if not is_plain_name(name):
        raise InvalidClaimError(f"claim name {name!r}; the rule is {PLAIN_RULE}")


def validate(c: Claim) -> None:
    """``check``, and a bound without the instance's constants evaluated before any run (fails early)."""
    check(c)
    if not own_constants(c) and not c.run_terms:  # measured terms are known only once the runs are
        bound_values(c)


def check(c: Claim) -> None:
    """Every rule of a claim's fields (a control's and the full design's variants are checked as claims)."""
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
    if not _rounds(c.rounds) or (is_expression(c.rounds) and c.along[0] == "rounds"):
        raise InvalidClaimError(f"claim {c.name!r}: rounds = {c.rounds!r}; the rule is an integer ≥ 1, or an "
                                "expression in the claim's names when R is not swept")
    if c.participation is not None and not (isinstance(c.participation, int) and c.participation >= 1
                                            and not isinstance(c.participation, bool)):
        raise InvalidClaimError(f"claim {c.name!r}: participation = {c.participation!r}; the rule is an "
                                "integer ≥ 1 (clients per round), or None for all")
    if c.start is not None and not (is_number(c.start) and 0 < c.start < float("inf")):
        raise InvalidClaimError(f"claim {c.name!r}: start = {c.start!r}; the rule is a distance ρ > 0 to the "
                                "optimum, or None for the engine's start")
    if c.statistic == "limit" and (c.participation is not None or c.start is not None):
        raise InvalidClaimError(f"claim {c.name!r}: statistic limit with participation or start; the rule is "
                                "neither (a limit runs the method's own full-participation start)")
    if c.known is not None and not (isinstance(c.known, tuple) and len(c.known) == 2
                                    and isinstance(c.known[0], str) and callable(c.known[1])):
        raise InvalidClaimError(f"claim {c.name!r}: known = {c.known!r}; the rule is (cause, diagnostic): a "
                                "sentence and a function (claim, seeds) → (confirmed, its numbers)")
    if c.condition is not None and not callable(c.condition):
        raise InvalidClaimError(f"claim {c.name!r}: condition {c.condition!r}; the rule is a function "
                                "(problem, reference) → None, or what the instance lacks")
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
    if c.oracle != "exact" and c.repeats < 2 and c.sense in (UPPER, LOWER) and bound_varies(c):
        raise InvalidClaimError(f"claim {c.name!r}: oracle {c.oracle!r} with repeats = {c.repeats} and a "
                                f"bound that varies with the instance's {sorted(own_constants(c))}; the rule "
                                "is repeats ≥ 2 (each instance is judged on its own bound, its "
                                "repetitions' spread its noise)")
    if c.sense not in (UPPER, LOWER, LAW, IDENTITY, CROSSOVER, AT_MOST):
        raise InvalidClaimError(f"claim {c.name!r}: sense {c.sense!r}; the rule is {UPPER} | {LOWER} | "
                                f"{LAW} | {IDENTITY} | {CROSSOVER} | {AT_MOST}")
    _check_at_most(c)
    if c.sense == IDENTITY:
        _check_identity(c)
    if c.sense == CROSSOVER:
        _check_crossover(c)
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
    if not (is_number(c.tail) and 0 < c.tail <= 1):
        raise InvalidClaimError(f"claim {c.name!r}: tail = {c.tail!r}; the rule is in (0, 1]")
    if c.tail != 0.5 and c.statistic not in ("tail_mean", "mean_above_floor"):
        raise InvalidClaimError(f"claim {c.name!r}: tail = {c.tail!r} with statistic {c.statistic!r}; the "
                                "rule is tail_mean or mean_above_floor (the statistics that read a tail)")
    raw, name = c.along[0].removeprefix("problem."), c.symbols()["name"]
    if raw != name and raw in names_used(c):
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
    if c.reference_tol is not None and not (is_number(c.reference_tol) and 0 < c.reference_tol < 1):
        raise InvalidClaimError(f"claim {c.name!r}: reference_tol = {c.reference_tol!r}; the rule is in "
                                "(0, 1)")


def _check_identity(c: Claim) -> None:
    """An identity's bound is its tolerance: one positive number, the same at every point."""
    e = as_expr(c.bound, c.name)
    if e.free_symbols or not (e.is_number and float(e) > 0) or c.vanishes:
        raise InvalidClaimError(f"claim {c.name!r}: sense {IDENTITY} with bound {c.bound_text()!r}"
                                f"{' and vanishes' if c.vanishes else ''}; the rule is a tolerance, one "
                                "positive number (an identity holds everywhere, to it)")


def _check_crossover(c: Claim) -> None:
    """A crossover's measure is a ratio of the run to its twin; its bound a point of the sweep, no curve."""
    swept = c.symbols()["name"]
    if c.measure not in CROSSOVER_MEASURES or c.vanishes:
        raise InvalidClaimError(f"claim {c.name!r}: sense {CROSSOVER} with measure {c.measure!r}"
                                f"{' and vanishes' if c.vanishes else ''}; the rule is a ratio of the run to "
                                f"its twin {list(CROSSOVER_MEASURES)} (which of the two wins)")
    if swept in {str(s) for s in as_expr(c.bound, c.name).free_symbols}:
        raise InvalidClaimError(f"claim {c.name!r}: sense {CROSSOVER} with bound {c.bound_text()!r} in the "
                                f"swept {swept}; the rule is the crossover's location, free of {swept}")
    if c.oracle != "exact" or c.participation is not None or c.redraw:
        raise InvalidClaimError(f"claim {c.name!r}: sense {CROSSOVER} with oracle {c.oracle!r}, "
                                f"participation {c.participation!r}, redraw {c.redraw}; the rule is exact, "
                                "None, 0 (the comparisons are exact, and a ratio of 0 or ∞ is a measurement)")


#: what of a run an inequality (``≤``) reads: one run's number, averaged over the point's repetitions
AT_MOST_STATISTICS = ("last", "mean", "max", "tail_mean")


def _check_at_most(c: Claim) -> None:
    """An inequality (``≤``): terms measured on the runs and the terms tested for need, and only then."""
    if c.sense != AT_MOST:
        if c.run_terms or c.tested:
            raise InvalidClaimError(f"claim {c.name!r}: run_terms {dict(c.run_terms)!r} / tested "
                                    f"{c.tested!r} with sense {c.sense!r}; the rule is sense {AT_MOST} (an "
                                    "inequality with every constant 1)")
        return
    names = {str(s) for s in c.symbols()["expr"].free_symbols}
    if not isinstance(c.run_terms, Mapping) or not all(
            isinstance(k, str) and k.isidentifier() and isinstance(v, str) for k, v in c.run_terms.items()):
        raise InvalidClaimError(f"claim {c.name!r}: run_terms {c.run_terms!r}; the rule is name → trace "
                                "metric, both text")
    used = set(INSTANCE) | set(c.constants) | set(c.hp) | {"K", "R", c.symbols()["name"]}
    taken = used & set(c.run_terms)
    if taken:
        raise InvalidClaimError(f"claim {c.name!r}: run_terms name {sorted(taken)}; the rule is names the "
                                "instance's constants, the stated ones, the hyper-parameters and the swept "
                                "name do not use")
    if not isinstance(c.tested, tuple) or not c.tested or not set(c.tested) <= names:
        raise InvalidClaimError(f"claim {c.name!r}: tested {c.tested!r} with bound {c.bound_text()!r}; the "
                                "rule is at least one of the bound's names, whose terms the design must "
                                "show are needed (the rule's power)")
    if c.controls or c.redraw:
        raise InvalidClaimError(f"claim {c.name!r}: sense {AT_MOST} with controls {sorted(c.controls)} and "
                                f"redraw {c.redraw}; the rule is none (its power is each tested term "
                                "deleted, and a gap at rounding is a measurement)")
    if (c.statistic not in AT_MOST_STATISTICS or c.twin or c.vanishes
            or (c.oracle != "exact" and c.repeats < 2)):
        raise InvalidClaimError(f"claim {c.name!r}: sense {AT_MOST} with statistic {c.statistic!r}, twin "
                                f"{dict(c.twin)!r}, vanishes {c.vanishes}, oracle {c.oracle!r} and repeats "
                                f"{c.repeats}; the rule is a statistic of one run "
                                f"{list(AT_MOST_STATISTICS)}, no twin, no vanishes, and repeats ≥ 2 for a "
                                "noisy oracle (a mean is judged with its standard error)")


def _rounds(x: Any) -> bool:
    """R as a claim may give it: an integer ≥ 1, or an expression (each value checked: ``whole_rounds``)."""
    return is_expression(x) or (isinstance(x, int) and not isinstance(x, bool) and x >= 1)


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
    if "rounds" in c.twin and not _rounds(c.twin["rounds"]):
        raise InvalidClaimError(f"claim {c.name!r}: twin rounds = {c.twin['rounds']!r}; the rule is an "
                                "integer ≥ 1, or an expression in the claim's names")
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


def _check_runs(c: Claim, what: str, v: Any, why: str) -> None:
    """The method takes hyper-parameter ``what`` = v (with the claim's numeric ones), or a clean error."""
    from fcocheck.solvers import algorithms
    from fcocheck.solvers.errors import FcocheckError

    hp = {k: x for k, x in c.hp.items() if is_number(x) or (isinstance(x, str) and not is_expression(x))}
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
