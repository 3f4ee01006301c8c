"""The algorithm registry (DESIGN 7): every entry passes the same contract suite.

``get(name)`` returns an ``Algorithm``; ``make_hyper(algorithm, params)`` builds and checks its
hyper-parameters from a mapping (strings are converted to the field's type).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from fcocheck.solvers.algorithms import (
    baselines,
    dane,
    fedavg,
    fedcanon,
    feddualavg,
    fedmid,
    perturbation,
    proxskip,
    scaffold,
    sequential,
    splitting,
    svrg,
    za1,
)
from fcocheck.solvers.algorithms.base import Algorithm, FedHyper, StepHyper
from fcocheck.solvers.algorithms.control import ControlHyper, init_controls
from fcocheck.solvers.algorithms.primitives import init_dual, init_primal
from fcocheck.solvers.errors import InvalidAlgorithmError, InvalidHyperparameterError

_FED = "federated"
ALGORITHMS: dict[str, Algorithm] = {a.name: a for a in (
    Algorithm("fedavg", FedHyper, init_primal, fedavg.fedavg_round, _FED,
              "FedAvg (FCO Alg. 1): local SGD, averaged; ignores ψ", uses_composite=False,
              uses_prox=False, solves_composite=False, split_invariant=True),
    Algorithm("fedavg-subgrad", FedHyper, init_primal, fedavg.fedavg_subgradient_round, _FED,
              "FedAvg(∂) (FCO Fig. 1): local subgradient steps on F + ψ", uses_composite=False,
              uses_prox=False, split_invariant=True),
    Algorithm("fedmid", FedHyper, init_primal, fedmid.fedmid_round, _FED,
              "FedMiD (FCO Alg. 2): local mirror/proximal steps, proximal server step"),
    Algorithm("fedmid-avg", FedHyper, init_primal, fedmid.fedmid_avg_round, _FED,
              "FedMiD with a simply averaging server (FCO §3.1's reading): ψ once per client step"),
    Algorithm("fedmid-osp", FedHyper, init_primal, fedmid.fedmid_osp_round, _FED,
              "FedMiD-OSP (slides Alg. 4): ψ only in the server step", split_invariant=True),
    Algorithm("feddualavg", FedHyper, init_dual, feddualavg.feddualavg_round, _FED,
              "FedDualAvg (FCO Alg. 3): local dual averaging, dual aggregation",
              growing_weight=True, split_invariant=True),
    Algorithm("feddualavg-osp", FedHyper, init_dual, feddualavg.feddualavg_osp_round, _FED,
              "FedDualAvg-OSP (FCO §5): ψ only in the server's primal output",
              growing_weight=True, split_invariant=True),
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
    # --- FedCanon (seed 003) and the baselines of BASELINES.md ----------------------------
    Algorithm("fedcanon", ControlHyper, init_controls, fedcanon.fedcanon_round, _FED,
              "FedCanon (seed 003 Alg. 1): control variates, one server prox per round",
              uses_composite=False, split_invariant=True),
    Algorithm("fedcanon2", ControlHyper, fedcanon.init_canon2, fedcanon.fedcanon2_round, _FED,
              "FedCanon II (seed 003 Alg. 2): g^t broadcast, every client applies the prox",
              uses_composite=False, split_invariant=True),
    Algorithm("scaffold", ControlHyper, init_controls, scaffold.scaffold_round, _FED,
              "SCAFFOLD Option II (Karimireddy et al. 2020): control variates; ignores ψ",
              uses_composite=False, uses_prox=False, solves_composite=False, split_invariant=True),
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
    # --- seed 004 -------------------------------------------------------------------------
    Algorithm("gd", svrg.StepSizeHyper, svrg.init_point, svrg.gd_round, "sequential",
              "(proximal) gradient descent on all data (seed 004 §2.1)", participation=False,
              uses_composite=False, exact_oracle=True),
    Algorithm("sgd", svrg.SVRGHyper, svrg.init_point, svrg.sgd_round, "sequential",
              "(proximal) SGD on single data points, m steps per round (seed 004 §2.1)",
              participation=False, uses_composite=False, exact_oracle=True,
              check_problem=svrg.needs_samples("sgd")),
    Algorithm("svrg", svrg.SVRGHyper, svrg.init_point, svrg.svrg_round, "sequential",
              "SVRG (seed 004 Alg. 1): one outer iteration per round", participation=False,
              uses_composite=False, exact_oracle=True, check_problem=svrg.needs_samples("svrg")),
    Algorithm("dane", dane.DaneHyper, svrg.init_point, dane.dane_round, _FED,
              "DANE (seed 004 Alg. 2): local solves of eq. (10), averaged", participation=False,
              uses_composite=False, exact_oracle=True, check_problem=dane.check_dane),
    Algorithm("naive-fsvrg", svrg.SVRGHyper, svrg.init_point, svrg.naive_fsvrg_round, _FED,
              "naive federated SVRG (seed 004 Alg. 3)", participation=False, uses_composite=False,
              exact_oracle=True, check_problem=svrg.needs_samples("naive-fsvrg"), client_randomness=True),
    Algorithm("fsvrg", svrg.StepSizeHyper, svrg.init_point, svrg.fsvrg_round, _FED,
              "federated SVRG (seed 004 Alg. 4): h/n_k, S_k, A; lazy sparse steps",
              participation=False, uses_composite=False, exact_oracle=True,
              check_problem=svrg.needs_samples("fsvrg"), client_randomness=True),
    Algorithm("primal-method", perturbation.PerturbHyper, perturbation.init_primal_method,
              perturbation.primal_method_round, _FED,
              "the Primal Method (seed 004 Alg. 5): quadratic perturbation with Σ_k g_k = 0",
              participation=False, uses_composite=False, uses_prox=False, exact_oracle=True,
              check_problem=perturbation.check_primal, counts_nodes=True),
    Algorithm("dual-method", perturbation.PerturbHyper, perturbation.init_dual_method,
              perturbation.dual_method_round, _FED,
              "the Dual Method (seed 004 Alg. 6): dual block proximal gradient ascent",
              participation=False, uses_composite=False, uses_prox=False, exact_oracle=True,
              check_problem=perturbation.check_dual),
    Algorithm("cocoa+", perturbation.PerturbHyper, perturbation.init_dual_method,
              perturbation.cocoa_round, _FED,
              "CoCoA+ (seed 004 A.3): Alg. 6 with step 5 by local coordinate passes",
              participation=False, uses_composite=False, uses_prox=False, exact_oracle=True,
              check_problem=perturbation.check_dual),
    Algorithm("one-shot", dane.OneShotHyper, svrg.init_point, dane.oneshot_round, _FED,
              "one-shot averaging (seed 004 §3.4): average the local minimisers once",
              participation=False, uses_composite=False, uses_prox=False, exact_oracle=True,
              check_problem=dane.check_oneshot),
)}

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
