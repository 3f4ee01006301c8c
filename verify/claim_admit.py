"""Admission: the one check a claim passes before any work, wherever it is judged.

``admit(claim)`` runs, on the claim as written, on its full design and on each negative control:

1. the design's size (``LIMITS``: points, seeds, repetitions, rounds and runs; the docs state them in
   ``docs/explanation/inputs.md``, a test holds the two equal), before anything is allocated;
2. every rule of its fields (``claim_check.check``) and its bound's text (``verify.expression``);
3. every name it uses, resolved: the method (a registry name or a card), the class (a generator and
   its parameters), the swept axis (rounds, a hyper-parameter of the method or a parameter of the
   class) and every value along it — an integer axis takes integers, never 10.5 read as 10 — the
   hyper-parameters at every point (``algorithms.make_hyper``), the oracle, the stated constants and,
   when it is not one every run records, the measure (one round of the method on the claim's first
   instance says which metrics its runs record);
4. the bound on the design's points, when it needs no instance's constants (positive and finite).

A claim that breaks any of these is an ``InvalidClaimError`` naming the value and the rule: the
plugin loader, ``validate``, ``report``, the pytest plugin and ``judge`` call ``admit`` first, so an
invalid claim exits 2 (a failed item in pytest) with nothing run, judged or stored.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from fcocheck.solvers import algorithms
from fcocheck.solvers.errors import FcocheckError
from fcocheck.verify.claim import (
    DERIVED,
    GAP_METRICS,
    TWIN_MEASURES,
    Claim,
    InvalidClaimError,
    method_name,
)
from fcocheck.verify.claim_check import check, validate
from fcocheck.verify.claim_expr import is_expression, is_number

#: the design's size rules (each a most): what one claim may ask of the machine
LIMITS = {
    "points": 64,  # values along the sweep
    "seeds": 1024,  # instances drawn
    "repeats": 256,  # runs per instance and point
    "rounds": 10**6,  # R of one run
    "runs": 100_000,  # points × seeds × repeats × (1 + twin) of the claim and of each control, summed
}
#: metrics every run records (the engine's), and the measures read off them
COMMON = frozenset({*GAP_METRICS, "objective", "objective_avg", "prox_grad_norm", *DERIVED, *TWIN_MEASURES})


def _integer(v: Any) -> bool:
    return is_number(v) and float(v).is_integer()


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _expression(v: Any) -> bool:
    """A number, a text, a sympy object or a function returning one (what ``as_expr`` reads)."""
    import sympy as sp

    return is_number(v) or isinstance(v, str | sp.Basic) or (callable(v) and not isinstance(v, type))


def _mapping(keys: Any = str, values: Any = None) -> Any:
    return lambda v: isinstance(v, Mapping) and all(isinstance(k, keys) for k in v) and (
        values is None or all(values(x) for x in v.values()))


def _optional(test: Any) -> Any:
    return lambda v: v is None or test(v)


#: each field's type, and the rule the refusal names (the values' own rules come after: ``check``)
TYPES: dict[str, tuple[Any, str]] = {
    "name": (lambda v: isinstance(v, str), "a text"),
    "method": (lambda v: isinstance(v, str) or type(v).__name__ == "Card", "a registry name or a Card"),
    "bound": (_expression, "an expression: a number, its text, a sympy object or a function returning one"),
    "along": (lambda v: isinstance(v, tuple | list) and len(v) == 2 and isinstance(v[0], str)
              and isinstance(v[1], list | tuple), "(what is swept, [values])"),
    "problem": (lambda v: isinstance(v, tuple | list) and len(v) == 2 and isinstance(v[0], str)
                and isinstance(v[1], Mapping), "(generator, {parameter: value})"),
    "hp": (_mapping(str, lambda x: _expression(x) or isinstance(x, bool)), "a mapping name → value"),
    "measure": (lambda v: isinstance(v, str), "a metric's name"),
    "rounds": (_expression, "an integer, or an expression"),
    "oracle": (lambda v: isinstance(v, str), "a text: exact | gaussian:σ | minibatch:b"),
    "seeds": (_int, "an integer"),
    "repeats": (_int, "an integer"),
    "redraw": (_int, "an integer"),
    "direction": (lambda v: isinstance(v, str), "a text"),
    "source": (lambda v: isinstance(v, str), "a text"),
    "label": (lambda v: isinstance(v, str), "a text"),
    "theorem": (lambda v: isinstance(v, str), "a text"),
    "sense": (lambda v: isinstance(v, str), "a text"),
    "statistic": (lambda v: isinstance(v, str), "a text"),
    "constants_over": (lambda v: isinstance(v, str), "a text"),
    "worst": (lambda v: isinstance(v, bool), "a boolean"),
    "vanishes": (lambda v: isinstance(v, bool), "a boolean"),
    "constants": (_mapping(str, is_number), "a mapping name → number"),
    "reference_tol": (_optional(is_number), "None or a number"),
    "full": (_mapping(str), "a mapping of a claim's fields"),
    "controls": (_mapping(str, _mapping(str)), "a mapping label → {field: value}"),
    "tail": (is_number, "a number"),
    "twin": (_mapping(str), "a mapping of the run's fields"),
    "participation": (_optional(_int), "None or an integer"),
    "start": (_optional(is_number), "None or a number"),
    "known": (_optional(lambda v: isinstance(v, tuple)), "(cause, diagnostic), or None"),
    "condition": (_optional(callable), "None or a function"),
    "run_terms": (_mapping(str, lambda x: isinstance(x, str)), "a mapping name → metric"),
    "tested": (lambda v: isinstance(v, tuple) and all(isinstance(x, str) for x in v), "a tuple of names"),
}


def check_types(c: Claim, changes: Mapping[str, Any] | None = None) -> None:
    """Every field of ``c`` (or every field ``changes`` sets: a full design's, a control's) of its type."""
    for key, value in (changes if changes is not None else vars(c)).items():
        test, rule = TYPES.get(key, (lambda v: True, ""))
        if not test(value):
            shown = repr(value) if len(repr(value)) <= 80 else repr(value)[:77] + "..."
            where = "" if changes is None else " (a design's or a control's change)"
            raise InvalidClaimError(f"claim {getattr(c, 'name', '?')!r}: {key} = {shown}{where}; the rule is "
                                    f"{rule}")


def check_size(c: Claim) -> None:
    """The design within ``LIMITS`` (before any other rule: those may evaluate or allocate)."""
    pair = isinstance(c.along, tuple | list) and len(c.along) == 2 and isinstance(c.along[0], str)
    values = c.along[1] if pair else None
    if not (isinstance(values, list | tuple) and len(values) <= LIMITS["points"]):
        shown = f"{len(values)} values" if isinstance(values, list | tuple) else repr(c.along)[:80]
        raise InvalidClaimError(f"claim {c.name!r}: along {shown}; the rule is (what is swept, a list of at "
                                f"most {LIMITS['points']} values)")
    bad = [v for v in values if not (is_number(v) and math.isfinite(v))]
    if bad:
        raise InvalidClaimError(f"claim {c.name!r}: along {c.along[0]} holds {bad[0]!r}; the rule is finite "
                                "numbers")
    if not isinstance(c.hp, Mapping) or not all(isinstance(k, str) for k in c.hp):
        raise InvalidClaimError(f"claim {c.name!r}: hp {c.hp!r}; the rule is a mapping name → value")
    for what in ("seeds", "repeats"):
        v = getattr(c, what)
        if not (isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= LIMITS[what]):
            raise InvalidClaimError(f"claim {c.name!r}: {what} = {v!r}; the rule is an integer from 1 to "
                                    f"{LIMITS[what]}")
    rounds = [v for v in values if is_number(v)] if c.along[0] == "rounds" else [c.rounds]
    big = [r for r in rounds if is_number(r) and not r <= LIMITS["rounds"]]
    if big:
        raise InvalidClaimError(f"claim {c.name!r}: rounds {big[0]!r}; the rule is at most "
                                f"{LIMITS['rounds']} rounds a run")


def _runs(c: Claim) -> int:
    """Runs the claim and its controls make (the twin's counted)."""
    per = len(c.along[1]) * c.seeds * c.repeats * (2 if c.twin else 1)
    return per * (1 + len(c.controls) if isinstance(c.controls, Mapping) else 1)


def _axis(c: Claim, alg: Any) -> None:
    """The swept axis exists, and every value along it is one it takes."""
    import dataclasses

    from fcocheck.solvers.generators import check_parameters, parameters

    what, values = c.along
    if what in ("rounds", "local_steps") or (what not in ("rounds",) and not what.startswith("problem.")
                                             and _int_field(alg, what)):
        bad = [v for v in values if not (_integer(v) and v >= 1)]
        if bad:
            raise InvalidClaimError(f"claim {c.name!r}: along {what} holds {bad[0]!r}; the rule is integers "
                                    f"≥ 1 ({what} counts)")
    if what == "rounds":
        return
    if what.startswith("problem."):
        name, params = c.problem
        key = what.removeprefix("problem.")
        if key not in parameters(name):
            raise InvalidClaimError(f"claim {c.name!r}: along {what!r}; the rule is rounds, a "
                                    f"hyper-parameter of {alg.name} or problem.NAME with NAME a parameter of "
                                    f"{name!r} {sorted(parameters(name))}")
        for v in values:
            _problem(c, check_parameters, name, {**dict(params), key: v}, f"along {what} = {v!r}")
        return
    fields = {f.name for f in dataclasses.fields(alg.hyper)}
    if what not in fields:
        raise InvalidClaimError(f"claim {c.name!r}: along {what!r}; the rule is rounds, a hyper-parameter of "
                                f"{alg.name} {sorted(fields)} or problem.NAME")


def _int_field(alg: Any, name: str) -> bool:
    import dataclasses

    f = next((f for f in dataclasses.fields(alg.hyper) if f.name == name), None)
    return f is not None and isinstance(f.default, int) and not isinstance(f.default, bool)


def _problem(c: Claim, check_parameters: Any, name: str, params: Mapping[str, Any], where: str) -> None:
    try:
        check_parameters(name, dict(params), strict=True)
    except FcocheckError as exc:
        raise InvalidClaimError(f"claim {c.name!r}: {where}: {exc}") from None


def _hyper(c: Claim, alg: Any) -> None:
    """The method takes the claim's hyper-parameters at every point of the sweep.

    An hp given as an expression is known only on an instance (it may name B or L): an error is the
    claim's when it names a value the claim states as a number, or when no hp is an expression.
    """
    what = c.along[0]
    fixed = {k: v for k, v in c.hp.items() if not is_expression(v)}
    expressions = set(c.hp) - set(fixed)
    swept = what not in ("rounds",) and not what.startswith("problem.")
    for v in c.along[1] if swept else [None]:
        hp = fixed if v is None else {**fixed, what: v}
        try:
            algorithms.make_hyper(alg, hp)
        except FcocheckError as exc:
            named = [k for k in hp if re.search(rf"(?<![\w.]){re.escape(k)}(?!\w)", str(exc))]
            if named or not expressions:
                at = "" if v is None else f" at {what} = {v!r}"
                raise InvalidClaimError(f"claim {c.name!r}: hp {dict(hp)!r}{at}: {exc}") from None


def _constants(c: Claim) -> None:
    bad = {k: v for k, v in c.constants.items()
           if not (isinstance(k, str) and k.isidentifier() and is_number(v) and math.isfinite(v) and v >= 0)}
    if bad:
        raise InvalidClaimError(f"claim {c.name!r}: constants {bad!r}; the rule is names → finite numbers "
                                "≥ 0 (a class's L, σ, ζ …)")


def _measure(c: Claim, alg: Any) -> None:
    """A measure no run records by default is looked up in one round of the method (its trace's metrics)."""
    from fcocheck.verify.residuals import RESIDUALS

    if c.measure in COMMON or c.measure in RESIDUALS:
        return
    if not isinstance(c.measure, str):
        raise InvalidClaimError(f"claim {c.name!r}: measure {c.measure!r}; the rule is a metric's name")
    from fcocheck.solvers.engine.run import run
    from fcocheck.solvers.generators import generate

    name, params = c.problem
    hp = {k: v for k, v in c.hp.items() if not is_expression(v)}
    if c.along[0] not in ("rounds",) and not c.along[0].startswith("problem."):
        hp[c.along[0]] = c.along[1][0]
    record = "step" if c.statistic == "last_step_mean" or c.measure.endswith("_steps") else "round"
    try:
        t = run(alg, generate(name, **dict(params)), hp, rounds=1, oracle=c.oracle, record=record)
    except FcocheckError as exc:
        raise InvalidClaimError(f"claim {c.name!r}: one round of {alg.name} to read its metrics: "
                                f"{exc}") from None
    if c.measure not in t.arrays:
        raise InvalidClaimError(f"claim {c.name!r}: measure {c.measure!r}; the rule is a metric {alg.name}'s "
                                f"runs record {sorted(t.arrays)}, one of {sorted(DERIVED)}, a pair's "
                                f"{sorted(TWIN_MEASURES)} or a residual {sorted(RESIDUALS)}")


def check_names(c: Claim) -> None:
    """Every name the claim uses, resolved (module docstring, 3)."""
    from fcocheck.solvers.generators import check_parameters
    from fcocheck.solvers.oracles import parse_oracle

    try:
        alg = algorithms.get(method_name(c))
    except FcocheckError as exc:
        raise InvalidClaimError(f"claim {c.name!r}: method {c.method!r}: {exc}") from None
    if not (isinstance(c.problem, tuple) and len(c.problem) == 2 and isinstance(c.problem[0], str)
            and isinstance(c.problem[1], Mapping)):
        raise InvalidClaimError(f"claim {c.name!r}: problem {c.problem!r}; the rule is (generator, "
                                "{parameter: value})")
    _problem(c, check_parameters, c.problem[0], c.problem[1], "problem")
    try:
        parse_oracle(c.oracle)
    except FcocheckError as exc:
        raise InvalidClaimError(f"claim {c.name!r}: {exc}") from None
    _axis(c, alg)
    _hyper(c, alg)
    _constants(c)
    _measure(c, alg)


def _variants(c: Claim) -> list[Claim]:
    """The claim, its full design, and each negative control on the claim's design."""
    full = c.design(False)
    return [c, *([full] if full is not c else []),
            *(replace(c, **dict(v), controls={}, full={}) for v in c.controls.values())]


def admit(c: Any) -> Claim:
    """``c`` when it may be judged (module docstring); else an ``InvalidClaimError`` naming value and rule."""
    if not isinstance(c, Claim):
        from fcocheck.verify.experiments import not_a_claim

        raise InvalidClaimError(not_a_claim(c))
    check_types(c)
    for changes in (c.full, *c.controls.values()):
        check_types(c, changes)
    check_size(c)
    check(c)  # the full design's and controls' fields (``check``'s loop) before they are built
    variants = _variants(c)
    for v in variants:
        check_size(v)
    total = sum(_runs(v) for v in variants[:2])
    if total > LIMITS["runs"]:
        raise InvalidClaimError(f"claim {c.name!r}: {total} runs (points × seeds × repeats, twins and "
                                "controls counted, the full design's too); the rule is at most "
                                f"{LIMITS['runs']}")
    for v in variants:
        validate(v)
        check_names(v)
    return c
