"""The algorithm registry (DESIGN 7): every entry passes the same contract suite.

``get(name)`` returns an ``Algorithm``; ``make_hyper(algorithm, params)`` builds and checks its
hyper-parameters from a mapping (strings are converted to the field's type).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from solvers.algorithms import baselines, fedavg, feddualavg, fedmid, sequential
from solvers.algorithms.base import Algorithm, FedHyper, StepHyper
from solvers.algorithms.primitives import init_dual, init_primal
from solvers.errors import InvalidAlgorithmError, InvalidHyperparameterError

_FED = "federated"
ALGORITHMS: dict[str, Algorithm] = {a.name: a for a in (
    Algorithm("fedavg", FedHyper, init_primal, fedavg.fedavg_round, _FED,
              "FedAvg (FCO Alg. 1): local SGD, averaged; ignores ψ", uses_composite=False),
    Algorithm("fedavg-subgrad", FedHyper, init_primal, fedavg.fedavg_subgradient_round, _FED,
              "FedAvg(∂) (FCO Fig. 1): local subgradient steps on F + ψ", uses_composite=False),
    Algorithm("fedmid", FedHyper, init_primal, fedmid.fedmid_round, _FED,
              "FedMiD (FCO Alg. 2): local mirror/proximal steps, proximal server step"),
    Algorithm("fedmid-osp", FedHyper, init_primal, fedmid.fedmid_osp_round, _FED,
              "FedMiD-OSP (slides Alg. 4): ψ only in the server step"),
    Algorithm("feddualavg", FedHyper, init_dual, feddualavg.feddualavg_round, _FED,
              "FedDualAvg (FCO Alg. 3): local dual averaging, dual aggregation",
              growing_weight=True),
    Algorithm("feddualavg-osp", FedHyper, init_dual, feddualavg.feddualavg_osp_round, _FED,
              "FedDualAvg-OSP (FCO §5): ψ only in the server's primal output",
              growing_weight=True),
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
    from solvers.spec import closest

    key = ALIASES.get(name, name)
    if key not in ALGORITHMS:
        known = sorted([*ALGORITHMS, *ALIASES])
        raise InvalidAlgorithmError(f"unknown algorithm {name!r}; known: {known}{closest(name, known)}")
    return ALGORITHMS[key]


def _convert(alg: Algorithm, f: dataclasses.Field, value: Any) -> Any:
    kind = type(f.default) if f.default is not dataclasses.MISSING else float
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
    from solvers.spec import closest

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
