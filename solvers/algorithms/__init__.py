"""The algorithm registry: every entry passes the same contract suite.

``get(name)`` returns an ``Algorithm``; ``make_hyper(algorithm, params)`` builds and checks its
hyper-parameters from a mapping (strings are converted to the field's type).
"""

from __future__ import annotations

import dataclasses
import numbers
from typing import Any

import numpy as np

from fcocheck.solvers.algorithms import (
    baselines,
    dane,
    fedcanon,
    heavy_ball,
    nesterov,
    perturbation,
    proxskip,
    sequential,
    splitting,
    svrg,
    za1,
)
from fcocheck.solvers.algorithms.base import Algorithm, StepHyper
from fcocheck.solvers.algorithms.control import ControlHyper, init_controls
from fcocheck.solvers.algorithms.primitives import init_dual, init_primal
from fcocheck.solvers.definition import definition_digest
from fcocheck.solvers.errors import InvalidAlgorithmError, InvalidHyperparameterError

_FED = "federated"
class _Registry(dict):
    """A dict whose method cards are loaded on first use.

    The cards (``fcocheck.solvers.methods``) are built from pieces that import this package's modules,
    so they cannot be imported while this package is: every read of the registry first makes sure they
    are in (``_load_cards``).
    """

    def _ready(self) -> None:
        if not _LOADED:
            _load_cards()

    def __getitem__(self, key: str) -> Any:
        self._ready()
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self._ready()
        return super().__contains__(key)

    def __iter__(self) -> Any:
        self._ready()
        return super().__iter__()

    def __len__(self) -> int:
        self._ready()
        return super().__len__()

    def get(self, key: str, default: Any = None) -> Any:  # noqa: D102
        self._ready()
        return super().get(key, default)

    def keys(self) -> Any:  # noqa: D102
        self._ready()
        return super().keys()

    def values(self) -> Any:  # noqa: D102
        self._ready()
        return super().values()

    def items(self) -> Any:  # noqa: D102
        self._ready()
        return super().items()


_LOADED: list[bool] = []

ALGORITHMS: dict[str, Algorithm] = _Registry({a.name: a for a in (
    Algorithm("heavy-ball", heavy_ball.HeavyBallHyper, heavy_ball.init, heavy_ball.heavy_ball_round,
              "sequential", "Polyak's heavy ball on F (ψ ignored), one query per client per step",
              uses_composite=False, uses_prox=False, solves_composite=False, split_invariant=True),
    Algorithm("nesterov", heavy_ball.HeavyBallHyper, nesterov.init, nesterov.nesterov_round,
              "sequential", "Nesterov's accelerated gradient on F (ψ ignored), constant momentum β; logs y_t",
              uses_composite=False, uses_prox=False, solves_composite=False, split_invariant=True),
    Algorithm("pgm", StepHyper, init_primal, sequential.pgm_round,
              "sequential", "stochastic proximal gradient (FCO eq. 2.1), batch M·K per step",
              uses_composite=False),
    Algorithm("mirror-descent", StepHyper, init_primal,
              sequential.mirror_descent_round, "sequential",
              "stochastic composite mirror descent (FCO eqs. 2.2–2.3), batch M·K per step"),
    Algorithm("dual-averaging", StepHyper, init_dual,
              sequential.dual_averaging_round, "sequential",
              "stochastic regularised dual averaging (FCO eq. 2.4), batch M·K per step",
              growing_weight=True),
    Algorithm("centralized", StepHyper, baselines.init, baselines.centralized_round,
              "baseline", "K mirror-PGM steps per round on the pooled data (FCO Fig. 1)",
              participation=False),
    Algorithm("local", baselines.LocalHyper, baselines.init, baselines.local_round, "baseline",
              "K mirror-PGM steps per round on one client's data, no communication (FCO Fig. 1)",
              participation=False),
    # --- FedCanon and the baselines of docs/baselines.md ----------------------------
    Algorithm("fedcanon", ControlHyper, init_controls, fedcanon.fedcanon_round, _FED,
              "FedCanon (Alg. 1): control variates, one server prox per round",
              uses_composite=False, split_invariant=True),
    Algorithm("fedcanon2", ControlHyper, fedcanon.init_canon2, fedcanon.fedcanon2_round, _FED,
              "FedCanon II (FedCanon Alg. 2): g^t broadcast, every client applies the prox",
              uses_composite=False, split_invariant=True),
    Algorithm("proxskip", proxskip.SkipHyper, proxskip.init_proxskip, proxskip.proxskip_round,
              "sequential", "ProxSkip (Mishchenko et al. 2022 Alg. 1): prox with probability p",
              participation=False, uses_composite=False),
    Algorithm("scaffnew", proxskip.SkipHyper, proxskip.init_skip, proxskip.scaffnew_round, _FED,
              "Scaffnew (Mishchenko et al. 2022 Alg. 2): communicate with probability p; ignores ψ",
              participation=False, uses_composite=False, uses_prox=False, solves_composite=False),
    Algorithm("scaffnew-composite", proxskip.SkipHyper, proxskip.init_skip,
              proxskip.scaffnew_composite_round, _FED,
              "Scaffnew with prox_{(γ/p)ψ} at communication (the toolkit's composite extension)",
              participation=False, uses_composite=False),
    Algorithm("za1", za1.ZA1Hyper, za1.init_za1, za1.za1_round, _FED,
              "ZA1 (Zhang et al. 2024): decoupled client/server proxes with drift correction",
              uses_composite=False, split_invariant=True),
    Algorithm("feddr", splitting.SplitHyper, splitting.init_feddr, splitting.feddr_round, _FED,
              "FedDR (Tran-Dinh et al. 2021): randomised Douglas-Rachford splitting",
              uses_composite=False, check_problem=splitting.check_split),
    Algorithm("fedadmm", splitting.SplitHyper, splitting.init_fedadmm, splitting.fedadmm_round, _FED,
              "FedADMM (Wang et al. 2022): local augmented Lagrangian steps, server prox",
              uses_composite=False, check_problem=splitting.check_split),
    # --- FO16 -------------------------------------------------------------------------
    Algorithm("gd", svrg.StepSizeHyper, svrg.init_point, svrg.gd_round, "sequential",
              "(proximal) gradient descent on all data (FO16 §2.1)", participation=False,
              uses_composite=False, exact_oracle=True),
    Algorithm("sgd", svrg.SVRGHyper, svrg.init_point, svrg.sgd_round, "sequential",
              "(proximal) SGD on single data points, m steps per round (FO16 §2.1)",
              participation=False, uses_composite=False, exact_oracle=True,
              check_problem=svrg.needs_samples("sgd")),
    Algorithm("svrg", svrg.SVRGHyper, svrg.init_point, svrg.svrg_round, "sequential",
              "SVRG (FO16 Alg. 1): one outer iteration per round", participation=False,
              uses_composite=False, exact_oracle=True, check_problem=svrg.needs_samples("svrg")),
    Algorithm("dane", dane.DaneHyper, svrg.init_point, dane.dane_round, _FED,
              "DANE (FO16 Alg. 2): local solves of eq. (10), averaged", participation=False,
              uses_composite=False, exact_oracle=True, check_problem=dane.check_dane),
    Algorithm("naive-fsvrg", svrg.SVRGHyper, svrg.init_point, svrg.naive_fsvrg_round, _FED,
              "naive federated SVRG (FO16 Alg. 3)", participation=False, uses_composite=False,
              exact_oracle=True, check_problem=svrg.needs_samples("naive-fsvrg"), client_randomness=True),
    Algorithm("fsvrg", svrg.StepSizeHyper, svrg.init_point, svrg.fsvrg_round, _FED,
              "federated SVRG (FO16 Alg. 4): h/n_k, S_k, A; lazy sparse steps",
              participation=False, uses_composite=False, exact_oracle=True,
              check_problem=svrg.needs_samples("fsvrg"), client_randomness=True),
    Algorithm("primal-method", perturbation.PerturbHyper, perturbation.init_primal_method,
              perturbation.primal_method_round, _FED,
              "the Primal Method (FO16 Alg. 5): quadratic perturbation with Σ_k g_k = 0",
              participation=False, uses_composite=False, uses_prox=False, exact_oracle=True,
              check_problem=perturbation.check_primal, counts_nodes=True),
    Algorithm("dual-method", perturbation.PerturbHyper, perturbation.init_dual_method,
              perturbation.dual_method_round, _FED,
              "the Dual Method (FO16 Alg. 6): dual block proximal gradient ascent",
              participation=False, uses_composite=False, uses_prox=False, exact_oracle=True,
              check_problem=perturbation.check_dual),
    Algorithm("cocoa+", perturbation.PerturbHyper, perturbation.init_dual_method,
              perturbation.cocoa_round, _FED,
              "CoCoA+ (FO16 A.3): Alg. 6 with step 5 by local coordinate passes",
              participation=False, uses_composite=False, uses_prox=False, exact_oracle=True,
              check_problem=perturbation.check_dual),
    Algorithm("one-shot", dane.OneShotHyper, svrg.init_point, dane.oneshot_round, _FED,
              "one-shot averaging (FO16 §3.4): average the local minimisers once",
              participation=False, uses_composite=False, uses_prox=False, exact_oracle=True,
              check_problem=dane.check_oneshot),
)})

#: every method card (``fcocheck.solvers.methods``, and users' through ``register_card``)
CARDS: dict[str, Any] = _Registry()
#: the names shipped with fcocheck (hand-written entries and the built-in cards)
BUILT_IN: set[str] = set(dict.keys(ALGORITHMS))


def _load_cards() -> None:
    """Register the built-in cards (once; see ``_Registry``)."""
    _LOADED.append(True)
    from fcocheck.solvers import methods

    for card in methods.cards():
        dict.__setitem__(CARDS, card.name, card)
        dict.__setitem__(ALGORITHMS, card.name, card.algorithm())
        BUILT_IN.add(card.name)
    from fcocheck.solvers.card import plugins

    plugins.from_environment()  # a worker of a command run with --plugin knows the user's cards too


def register_card(card: Any) -> Algorithm:
    """Add a user's method card to the registry.

    ``run``, ``sweep``, ``check``, ``worstcase`` and the report then know it by name, as a built-in one.

    Raises:
        InvalidAlgorithmError: a name that a built-in entry or an alias already has, or a name already
            registered for another card.

    """
    if card.name in BUILT_IN or card.name in ALIASES:
        raise InvalidAlgorithmError(f"{card.name!r} is a built-in registry entry; the rule is a new name for "
                                    "your method")
    if card.name in CARDS and CARDS[card.name] is not card:
        raise InvalidAlgorithmError(f"{card.name!r} is already registered for another card; the rule is one "
                                    "card per name")
    CARDS[card.name] = card
    ALGORITHMS[card.name] = card.algorithm()
    for hook in _ON_REGISTER:
        hook(card)
    return ALGORITHMS[card.name]


def hyper_fields(name: str) -> set[str] | None:
    """The hyper-parameters of registry entry ``name`` (or an alias); None when there is no such entry."""
    key = ALIASES.get(name, name)
    return {f.name for f in dataclasses.fields(ALGORITHMS[key].hyper)} if key in ALGORITHMS else None


def check_reductions(cards: Any) -> None:
    """Each card's reductions lead to registry entries and map only their hyper-parameters.

    Run once every card a plugin lists is registered (two of them may reduce to each other).

    Raises:
        InvalidAlgorithmError: an unknown target, or a mapped name the target does not have.

    """
    for card in cards:
        for red in card.reduces_to:
            red.check_target(card.name, hyper_fields)


def unregister(name: str) -> None:
    """Remove a user's card (tests); built-in entries stay."""
    if name in BUILT_IN:
        raise InvalidAlgorithmError(f"{name!r} is built in; the rule is a user's card")
    CARDS.pop(name, None)
    ALGORITHMS.pop(name, None)
    for hook in _ON_UNREGISTER:
        hook(name)


#: callbacks of the layers that derive tables from the cards (the invariants, the PEP methods)
_ON_REGISTER: list[Any] = []
_ON_UNREGISTER: list[Any] = []


def definition(name: str) -> str | None:
    """What a user's entry ``name`` is, as a digest (``solvers.definition``); None for a built-in entry.

    A built-in entry's code is in ``code_version``; a user's card is not, so every result computed with
    it is keyed by this digest too: an edited card is never served the old card's runs.
    """
    key = ALIASES.get(name, name)
    if key not in ALGORITHMS or key in BUILT_IN:
        return None
    return definition_digest(CARDS.get(key) or ALGORITHMS[key])


def user_definitions() -> str | None:
    """One digest of every user entry registered (None when there is none): what derived tables hold."""
    users = sorted(n for n in ALGORITHMS if n not in BUILT_IN)
    return definition_digest(tuple((n, definition(n)) for n in users)) if users else None


def card_of(name: str) -> Any:
    """The method card behind registry entry ``name`` (None for a hand-written round or an unknown name)."""
    alg = ALGORITHMS.get(ALIASES.get(name, name))
    return None if alg is None else alg.card


#: Other names for registry entries.
ALIASES: dict[str, str] = {
    "minibatch-pgm": "mirror-descent",  # the R-step, batch-MK comparator of Thm 4.1
    "fedpgd": "fedmid",  # slides: Federated PGD = FedMiD with Euclidean h
}


def get(name: str) -> Algorithm:
    """The registry entry for ``name`` (or an alias).

    Raises:
        InvalidAlgorithmError: unknown name (the message suggests the closest).

    """
    from fcocheck.solvers.spec import closest

    key = ALIASES.get(name, name)
    if key not in ALGORITHMS:
        known = sorted([*ALGORITHMS, *ALIASES])
        raise InvalidAlgorithmError(f"unknown algorithm {name!r}; known: {known}{closest(name, known)}")
    return ALGORITHMS[key]


def _convert(alg: Algorithm, f: dataclasses.Field, value: Any) -> Any:
    kind = type(f.default) if f.default is not dataclasses.MISSING else float
    if not isinstance(value, str | bool | np.bool_ | numbers.Real):
        raise InvalidHyperparameterError(
            f"{alg.name}: {f.name} = {value!r} ({type(value).__name__}); the rule is a {kind.__name__}")
    if isinstance(value, bool | np.bool_) and kind is not bool:
        raise InvalidHyperparameterError(
            f"{alg.name}: {f.name} = {value!r} is a boolean; the rule is a {kind.__name__} (true is never 1)")
    if kind is int and isinstance(value, float) and value.is_integer():
        return int(value)
    if not isinstance(value, str):
        return value
    try:
        return kind(value)
    except ValueError:
        raise InvalidHyperparameterError(
            f"{alg.name}: {f.name} = {value!r} is not a valid {kind.__name__}"
        ) from None


def make_hyper(alg: Algorithm, params: Any) -> Any:
    """Build and check ``alg``'s hyper-parameters from a mapping or an existing instance.

    Raises:
        InvalidHyperparameterError: unknown or missing names, wrong types, broken rules.
        InvalidStepSizeError: a step size ≤ 0.

    """
    from fcocheck.solvers.spec import closest

    if isinstance(params, alg.hyper):
        params.check()
        return params
    fields = {f.name: f for f in dataclasses.fields(alg.hyper)}
    for key in params:
        if key not in fields:
            raise InvalidHyperparameterError(
                f"{alg.name} has no hyper-parameter {key!r}; its hyper-parameters are "
                f"{list(fields)}{closest(key, list(fields))}"
            )
    missing = [n for n, f in fields.items() if f.default is dataclasses.MISSING and n not in params]
    if missing:
        raise InvalidHyperparameterError(f"{alg.name}: hyper-parameter {missing[0]!r} is required")
    hp = alg.hyper(**{k: _convert(alg, fields[k], v) for k, v in params.items()})
    hp.check()
    return hp


__all__ = ["ALGORITHMS", "ALIASES", "Algorithm", "get", "make_hyper"]
