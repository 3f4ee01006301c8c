"""Users' own algorithms: ``register`` an ``init``/``round`` pair and check it like a registry entry.

    alg = register("my-scaffold", init=my_init, round=my_round, hyper=MyHyper,
                   hyper_strategy=lambda L, Ls: st.fixed_dictionaries({...}),
                   equivalent_to="scaffold", solves_composite=False)
    for check, ev in run_suite(alg): print(check, ev.outcome, ev.detail)

or, in a test module (the ``pytest11`` plugin ``verify.pytest_plugin`` collects it):

    fcocheck_algorithms = [alg]

The functions follow the registry's contract: ``init(problem, hp, w0, rng) -> State``
(a NamedTuple with field ``w``) and ``round(state, hp, env, rng, clients) -> (State, RoundLog)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from fcocheck.solvers import algorithms
from fcocheck.solvers.algorithms.base import Algorithm
from fcocheck.solvers.errors import InvalidAlgorithmError


@dataclass(frozen=True)
class UserAlgorithm(Algorithm):
    """A registry-shaped algorithm with what the suite needs to know about it.

    Attributes:
        hyper_strategy: (L, L_sample) -> strategy of hyper-parameter dicts within the method's
            conditions (default: the registered ``equivalent_to``'s strategy).
        at_optimum: (problem, hp, w*) -> the state consistent with w* (property A); default
            that of ``equivalent_to``, else ``init`` at w*.
        equivalent_to: a registry name whose iterates this algorithm must reproduce.
        hp_map: maps this algorithm's hyper-parameters to ``equivalent_to``'s (default: same).
        expects: property → ``holds``/``fails`` the user asserts (others are only reported).
        shrinks_with: hyper-parameters (proximal or damping weights) that must not enlarge one
            round's move on a single client when doubled.
        reduces_to: declared reductions, each (hp changes, registry name, hp map or None): with those
            hyper-parameters the iterates equal the registry entry's (e.g. FedProx at μ = 0 is FedAvg).
        local_objective: a ``verify.relations.LocalObjective``: what each client minimises
            (F_m + a declared penalty); its settled output must be stationary for it.

    """

    hyper_strategy: Callable[[float, float], st.SearchStrategy] | None = None
    at_optimum: Callable[..., Any] | None = None
    equivalent_to: str | None = None
    hp_map: Callable[[dict], dict] | None = None
    expects: dict[str, str] = field(default_factory=dict)
    reduces_to: tuple = ()
    shrinks_with: tuple[str, ...] = ()
    local_objective: Any = None


def register(
    name: str,
    init: Callable,
    round: Callable,
    hyper: type,
    *,  # noqa: A002
    family: str = "federated",
    summary: str = "",
    equivalent_to: str | None = None,
    **options: Any,
) -> UserAlgorithm:
    """Build a ``UserAlgorithm`` (it is not added to the global registry).

    Args:
        name: the algorithm's name (must not shadow a registry entry).
        init: ``init(problem, hp, w0, rng) -> State``.
        round: ``round(state, hp, env, rng, clients) -> (State, RoundLog)``.
        hyper: frozen dataclass of hyper-parameters with ``check()`` and ``weights(R, growing)``.
        family: ``federated`` | ``sequential`` | ``baseline``.
        summary: one line.
        equivalent_to: a registry name this algorithm claims to reproduce.
        **options: any other ``UserAlgorithm``/``Algorithm`` field (``solves_composite``,
            ``uses_composite``, ``uses_prox``, ``participation``, ``hyper_strategy``,
            ``at_optimum``, ``hp_map``, ``expects``, ...).

    Raises:
        InvalidAlgorithmError: a name taken by the registry, or an unknown ``equivalent_to``.

    """
    if name in algorithms.ALGORITHMS or name in algorithms.ALIASES:
        raise InvalidAlgorithmError(
            f"{name!r} is a registry entry; the rule is a new name for your algorithm"
        )
    _check_callables(name, init, round, hyper)
    _check_options(name, equivalent_to, options)
    if equivalent_to is not None:
        ref = algorithms.get(equivalent_to)
        defaults = {
            "uses_composite": ref.uses_composite,
            "uses_prox": ref.uses_prox,
            "solves_composite": ref.solves_composite,
            "participation": ref.participation,
        }
        options = {**defaults, **options}
    else:
        options.setdefault("uses_composite", False)
    return UserAlgorithm(
        name=name,
        hyper=hyper,
        init=init,
        round=round,
        family=family,
        summary=summary or f"user algorithm {name}",
        equivalent_to=equivalent_to,
        **options,
    )


def _check_callables(name: str, init: Callable, round: Callable, hyper: type) -> None:  # noqa: A002
    """``init(problem, hp, w0, rng)``, ``round(state, hp, env, rng, clients)``, a dataclass ``hyper``."""
    import dataclasses
    import inspect

    for label, fn, arity, form in (
        ("init", init, 4, "init(problem, hp, w0, rng) -> State"),
        ("round", round, 5, "round(state, hp, env, rng, clients) -> (State, RoundLog)"),
    ):
        if not callable(fn):
            raise InvalidAlgorithmError(f"{name}: {label} = {fn!r} is not callable; the rule is {form}")
        try:
            inspect.signature(fn).bind(*range(arity))
        except TypeError:
            raise InvalidAlgorithmError(
                f"{name}: {label}{inspect.signature(fn)} cannot take {arity} positional arguments; "
                f"the rule is {form}"
            ) from None
        except ValueError:  # builtins without a signature: accepted as they are
            pass
    if not (isinstance(hyper, type) and dataclasses.is_dataclass(hyper)):
        raise InvalidAlgorithmError(
            f"{name}: hyper = {hyper!r}; the rule is a frozen dataclass of hyper-parameters with check()"
        )


def _check_options(name: str, equivalent_to: str | None, options: dict[str, Any]) -> None:
    """A strategy to draw hyper-parameters from, and ``expects`` naming properties A–D as holds/fails."""
    from fcocheck.verify.properties import PROPERTIES

    if equivalent_to is None and options.get("hyper_strategy") is None:
        raise InvalidAlgorithmError(
            f"{name}: no hyper_strategy and no equivalent_to; the rule is "
            "hyper_strategy=lambda L, L_sample: st.fixed_dictionaries({...}) drawing hyper-parameters "
            "within the method's conditions (or equivalent_to='a registry entry' to borrow its strategy)"
        )
    for prop, outcome in (options.get("expects") or {}).items():
        if prop not in PROPERTIES or outcome not in ("holds", "fails"):
            raise InvalidAlgorithmError(
                f"{name}: expects[{prop!r}] = {outcome!r}; the rule is a property of {sorted(PROPERTIES)} "
                "mapped to 'holds' or 'fails'"
            )
    declared = options.get("local_objective")
    if declared is not None:
        from fcocheck.verify.relations import LocalObjective

        if not isinstance(declared, LocalObjective) or not callable(declared.gradient):
            raise InvalidAlgorithmError(
                f"{name}: local_objective = {declared!r}; the rule is "
                "verify.relations.LocalObjective(gradient=lambda w, anchor, hp: ∇P(w; anchor))"
            )
