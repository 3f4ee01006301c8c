"""A claim's expressions (its bound, its hyper-parameters) evaluated at a point, and a law's coordinate."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from fcocheck.solvers.readable import readable_name
from fcocheck.verify.claim import INSTANCE, LAW, Claim, InvalidClaimError, as_expr


def own_constants(c: Claim) -> set[str]:
    """The instance's constants the claim names and does not state: measured on each drawn instance."""
    return (names_used(c) & set(INSTANCE)) - set(c.constants)


def bound_varies(c: Claim) -> bool:
    """Whether the bound can differ between instances.

    It does when it names one of the instance's own constants (``own_constants``), directly or through
    an hp expression or R's that does (K for an expression of ``local_steps``).
    """
    moving = own_constants(c)
    expressions = {k: v for k, v in c.hp.items() if is_expression(v)}
    if is_expression(c.rounds):
        expressions["R"] = c.rounds
    while moving:
        new = {k for k, v in expressions.items()
               if k not in moving and {str(s) for s in as_expr(v, c.name).free_symbols} & moving}
        if not new:
            break
        moving |= new | ({"K"} if "local_steps" in new else set())
    return bool({str(s) for s in c.symbols()["expr"].free_symbols} & moving)


def is_number(x: Any) -> bool:
    """A plain number (a boolean is an option, not a number)."""
    return isinstance(x, int | float | np.integer | np.floating) and not isinstance(x, bool)


def is_expression(x: Any) -> bool:
    """An hp value to evaluate: a sympy object, a function returning one, or text that is not one word.

    A one-word text (``"gd"``, ``"permutation"``) and a boolean are options, passed through as given.
    """
    import sympy as sp

    if isinstance(x, sp.Basic) or (callable(x) and not isinstance(x, type)):
        return True
    return isinstance(x, str) and not x.strip().isidentifier()


def names_used(c: Claim) -> set[str]:
    """Every name the bound, the hp expressions and a rounds expression use (the twin's included)."""
    out = {str(s) for s in c.symbols()["expr"].free_symbols}
    twin = dict(c.twin) if isinstance(c.twin, Mapping) else {}
    for v in (*c.hp.values(), c.rounds, *dict(twin.get("hp", {})).values(), twin.get("rounds")):
        if is_expression(v):
            out |= {str(s) for s in as_expr(v, c.name).free_symbols}
    return out


def evaluate(c: Claim, what: str, expr: Any, ctx: Mapping[str, float]) -> float:
    """``expr`` at the names of ``ctx``; a name it lacks is a clean error naming the rule."""
    from sympy import sympify

    e = as_expr(expr, c.name)
    free = {str(s) for s in e.free_symbols} - set(ctx)
    if free:
        raise InvalidClaimError(
            f"claim {c.name!r}: {what} {str(expr)!r} has free symbols {sorted(free)}; the rule is "
            f"{c.symbols()['name']}, the method's hyper-parameters, the stated constants, the instance's "
            f"{list(INSTANCE)}" + (f" and the runs' {sorted(c.run_terms)}" if c.run_terms else ""))
    try:  # all names at once (``xreplace``): ``subs`` puts them in one by one, re-simplifying each time
        value = float(e.xreplace({s: sympify(ctx[str(s)]) for s in e.free_symbols}))
    except (TypeError, ValueError):
        value = float("nan")
    if not np.isfinite(value) and what != "bound":  # a bound's value gets its own error (``positive``)
        at = ", ".join(f"{k} = {ctx[k]:g}" for k in sorted({str(s) for s in e.free_symbols}))
        raise InvalidClaimError(f"claim {c.name!r}: {what} {str(expr)!r} is not a finite number at {at}; "
                                "the rule is finite wherever the claim runs")
    return value


def point(c: Claim, v: float, instance: Mapping[str, float]) -> tuple[dict[str, Any], int, dict[str, float]]:
    """The hyper-parameters, rounds and named values at swept value ``v`` on one instance.

    Names: the instance's measured constants, then the stated ``constants``, the numeric hp (``K`` for
    ``local_steps``), ``R`` (the rounds) and the swept value; then each hp expression, evaluated in them,
    and the rounds when they are one (``whole_rounds``).
    """
    what = c.along[0]
    ctx: dict[str, float] = {**instance, **c.constants}
    hp = {k: x for k, x in c.hp.items() if not is_expression(x)}
    rounds = c.rounds
    if what == "rounds":
        rounds = int(v)
    elif not what.startswith("problem."):
        hp[what] = v
    # the numbers as given (integers stay integers: sympy then evaluates exactly before the one rounding)
    ctx.update({k: x for k, x in hp.items() if is_number(x)})
    ctx[c.symbols()["name"]] = v
    # the expressions in the order their names become known (one may use another, or K, or R)
    pending = {k: x for k, x in c.hp.items() if is_expression(x) and k != what}
    if is_expression(rounds):
        pending[ROUNDS] = rounds
    else:
        ctx["R"] = rounds
    while True:
        if is_number(hp.get("local_steps")):
            ctx["K"] = hp["local_steps"]
        ready = [k for k, x in pending.items()
                 if {str(s) for s in as_expr(x, c.name).free_symbols} <= set(ctx)]
        if not ready:
            break
        for k in ready:
            if k == ROUNDS:
                rounds = ctx["R"] = whole_rounds(c, evaluate(c, "rounds", pending.pop(k), ctx), ctx)
            else:
                hp[k] = ctx[k] = evaluate(c, f"hp {k!r}", pending.pop(k), ctx)
    for k, x in pending.items():  # what is left names something unknown: the error says which
        evaluate(c, "rounds" if k == ROUNDS else f"hp {k!r}", x, ctx)
    return {**{k: hp[k] for k in c.hp if k in hp}, **hp}, rounds, ctx


#: the key of an expression for R among a point's pending expressions (no hyper-parameter is named so)
ROUNDS = "<rounds>"


def whole_rounds(c: Claim, value: float, ctx: Mapping[str, float]) -> int:
    """R from its expression's value at a point: a positive integer (to 10⁻⁹), or a clean error."""
    if not (value >= 1 and abs(value - round(value)) <= 1e-9 * value):
        at = ", ".join(f"{k} = {ctx[k]:g}" for k in sorted({str(s) for s in as_expr(c.rounds).free_symbols}))
        raise InvalidClaimError(f"claim {c.name!r}: rounds {str(c.rounds)!r} = {value!r} at {at}; the rule "
                                "is a positive integer (round it in the expression: ceiling(…))")
    return int(round(value))


def bound_values(c: Claim) -> np.ndarray:
    """The bound at every point of the sweep (every free constant 1; no instance constants)."""
    return evaluate_bound(c, c.along[1])


def evaluate_bound(c: Claim, values: Sequence[float]) -> np.ndarray:
    """The bound at ``values`` of the swept name (a bound without the instance's constants)."""
    return positive(c, np.array([evaluate(c, "bound", c.bound, point(c, v, {})[2]) for v in values]))


def positive(c: Claim, b: np.ndarray, where: str = "the sweep") -> np.ndarray:
    """``b``, the bound's values on ``where``, or a clean error: a bound is positive and finite."""
    bad = ~(np.isfinite(b) & (b > 0))
    if np.any(bad):
        raise InvalidClaimError(f"claim {c.name!r}: bound {c.bound_text()!r} = {float(b[bad][0])!r} on "
                                f"{where}; the rule is positive and finite")
    return b


def bound_terms(c: Claim) -> dict[str, Any]:
    """The bound's terms, a sum's summands by their text (sense ``≤``: each may be tested for need)."""
    import sympy as sp

    return {str(t): t for t in sp.Add.make_args(c.symbols()["expr"])}


def tested_terms(c: Claim) -> list[str]:
    """The terms (``bound_terms``) that contain a name of ``Claim.tested``: those deleted to show power."""
    return [k for k, t in bound_terms(c).items() if {str(s) for s in t.free_symbols} & set(c.tested)]


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
