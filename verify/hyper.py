"""Hyper-parameters that respect each registered algorithm's conditions, as Hypothesis strategies.

Step sizes are drawn as a factor times 1/L_max (L_max = max(L, max_m L_m): local steps must be
stable on every client; 1/L_sample for methods stepping on single data points), so they are
inside each method's stability region whatever the instance; the
conventional value comes first in every ``sampled_from`` and counts shrink towards 1, so a
counterexample shrinks to the simplest hyper-parameters that still fail.

``HYPER[name](L_max, L_sample)`` returns the strategy of a hand-written registry entry; a method card's
strategy is derived from its parameters' grids (``card_strategy``), and a user's ``register``-ed
algorithm brings its own (``hyper_strategy=...``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

Strategy = st.SearchStrategy
#: Local steps per round K: from 1 (no client drift) to a few.
LOCAL_STEPS = st.integers(1, 5)
FACTORS = st.sampled_from([0.25, 0.1, 0.5])


def _step(L: float, Ls: float) -> Strategy:
    return st.fixed_dictionaries({"eta": FACTORS.map(lambda f: f / L), "local_steps": LOCAL_STEPS})


def _control(L: float, Ls: float) -> Strategy:
    return st.fixed_dictionaries({"eta_l": FACTORS.map(lambda f: f / L), "local_steps": LOCAL_STEPS})


def _skip(L: float, Ls: float) -> Strategy:
    return st.fixed_dictionaries(
        {"gamma": FACTORS.map(lambda f: f / L), "p": st.sampled_from([0.5, 1.0, 0.2])}
    )


def _za1(L: float, Ls: float) -> Strategy:
    return st.fixed_dictionaries({"eta": FACTORS.map(lambda f: f / L), "local_steps": LOCAL_STEPS})


def _split(L: float, Ls: float) -> Strategy:
    return st.fixed_dictionaries(
        {
            "eta": st.sampled_from([1.0, 0.5, 2.0]).map(lambda f: f / L),
            "alpha": st.sampled_from([1.0, 1.5, 0.5]),
            "local_solver": st.just("exact"),
        }
    )


def _fedadmm(L: float, Ls: float) -> Strategy:
    return st.fixed_dictionaries(
        {"eta": st.sampled_from([1.0, 0.5, 2.0]).map(lambda f: f / L), "local_solver": st.just("exact")}
    )


def _gd(L: float, Ls: float) -> Strategy:
    return st.fixed_dictionaries({"h": st.sampled_from([1.0, 0.5]).map(lambda f: f / L)})


def _svrg(L: float, Ls: float) -> Strategy:
    return st.fixed_dictionaries(
        {"h": st.sampled_from([0.1, 0.05]).map(lambda f: f / Ls), "m": st.sampled_from([0, 10, 30])}
    )


def _fsvrg(L: float, Ls: float) -> Strategy:
    return st.fixed_dictionaries({"h": st.sampled_from([1.0, 0.5]).map(lambda f: f / Ls)})


def _dane(L: float, Ls: float) -> Strategy:
    return st.fixed_dictionaries({"mu": st.sampled_from([0.0, 0.1, 1.0]).map(lambda f: f * L)})


def _none(L: float, Ls: float) -> Strategy:
    return st.just({})


def _cocoa(L: float, Ls: float) -> Strategy:
    return st.fixed_dictionaries({"local_steps": st.integers(1, 5)})


def _heavy_ball(L: float, Ls: float) -> Strategy:
    return st.fixed_dictionaries({"eta": FACTORS.map(lambda f: f / L),
                                  "beta": st.sampled_from([0.5, 0.9, 0.0])})


def card_strategy(card: Any, L: float, L_sample: float) -> Strategy:
    """Each parameter of ``card`` drawn from its grid (a step ``per`` L: factor/L_max or factor/L_sample).

    A parameter without a grid keeps its default; one without either cannot be drawn (raised).
    """
    scale = {"L": L, "L_sample": L_sample}
    draws: dict[str, Strategy] = {}
    for p in card.params:
        if p.grid:
            values = [v / scale[p.per] for v in p.grid] if p.per else list(p.grid)
            draws[p.name] = st.sampled_from(values)
    return st.fixed_dictionaries(draws)


HYPER: dict[str, Callable[[float, float], Strategy]] = {
    **dict.fromkeys(["heavy-ball", "nesterov"], _heavy_ball),
    **dict.fromkeys(["pgm", "mirror-descent", "dual-averaging", "centralized", "local"], _step),
    **dict.fromkeys(["fedcanon", "fedcanon2"], _control),
    **dict.fromkeys(["proxskip", "scaffnew", "scaffnew-composite"], _skip),
    "za1": _za1,
    "feddr": _split,
    "fedadmm": _fedadmm,
    "gd": _gd,
    **dict.fromkeys(["sgd", "svrg", "naive-fsvrg"], _svrg),
    "fsvrg": _fsvrg,
    "dane": _dane,
    "primal-method": _none,
    "dual-method": _none,
    "cocoa+": _cocoa,
    "one-shot": _none,
}


def hyper_strategy(alg: Any, L: float, L_sample: float) -> Strategy:
    """The strategy of ``alg`` (a registry entry or a user's algorithm with ``hyper_strategy``)."""
    own = getattr(alg, "hyper_strategy", None)
    if own is not None:
        return own(L, L_sample)
    if getattr(alg, "card", None) is not None:
        return card_strategy(alg.card, L, L_sample)
    if alg.name not in HYPER:
        from fcocheck.solvers.errors import InvalidAlgorithmError

        raise InvalidAlgorithmError(
            f"algorithm {alg.name!r} has no hyper_strategy and names no registry entry (equivalent_to); "
            "the rule is register(..., hyper_strategy=lambda L, L_sample: st.fixed_dictionaries({...})) "
            "drawing hyper-parameters within the method's conditions (e.g. eta_c ≤ 1/(4L))"
        )
    return HYPER[alg.name](L, L_sample)
