"""Run configurations and sweep grids, each named by the SHA-256 of its canonical JSON.

A ``RunConfig`` is everything that determines a run's bits: the algorithm, the problem (a seeded
generator and its parameters), the hyper-parameters, R, the oracle, the seed, the participation
and the record mode.  Its ``key`` is the hex SHA-256 of the canonical JSON (sorted keys, floats by
``repr``), so the same configuration always gets the same key, on any machine, and a grid is
deduplicated by key.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from solvers.errors import FcocheckError

RECORDS = ("round", "step")


class InvalidSweepError(FcocheckError):
    """A sweep or run configuration breaks a rule (unknown field, empty axis, bad seed list)."""


def _plain(x: Any) -> Any:
    if isinstance(x, Mapping):
        return {str(k): _plain(v) for k, v in sorted(x.items())}
    if isinstance(x, list | tuple):
        return [_plain(v) for v in x]
    if isinstance(x, bool | int | float | str) or x is None:
        return x
    if hasattr(x, "item"):
        return x.item()
    raise InvalidSweepError(f"configuration value {x!r} ({type(x).__name__}); the rule is JSON scalars")


def canonical(obj: Any) -> str:
    """Canonical JSON: sorted keys, no spaces, floats by ``repr`` (round-trips exactly)."""
    return json.dumps(_plain(obj), sort_keys=True, separators=(",", ":"), allow_nan=False)


@dataclass(frozen=True)
class ProblemSpec:
    """A seeded generator instance: ``generate(generator, **params)``."""

    generator: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"generator": self.generator, "params": _plain(dict(self.params))}


@dataclass(frozen=True)
class RunConfig:
    """One run, fully determined (see the module docstring).

    Attributes:
        keep: multi-dimensional trace arrays to keep beside the scalar metrics (e.g. ``server_w``).
        tags: free labels for grouping in reports; part of the key, so two designs never collide.

    """

    algorithm: str
    problem: ProblemSpec
    hp: Mapping[str, Any]
    rounds: int
    oracle: str = "exact"
    seed: int = 0
    participation: int | None = None
    record: str = "round"
    keep: tuple[str, ...] = ()
    tags: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.record not in RECORDS:
            raise InvalidSweepError(f"record = {self.record!r}; the rule is one of {RECORDS}")
        if isinstance(self.seed, bool) or int(self.seed) != self.seed or self.seed < 0:
            raise InvalidSweepError(f"seed = {self.seed!r}; the rule is an integer >= 0")
        if isinstance(self.rounds, bool) or int(self.rounds) != self.rounds or self.rounds < 0:
            raise InvalidSweepError(f"rounds = {self.rounds!r}; the rule is an integer >= 0")

    def as_dict(self) -> dict[str, Any]:
        """JSON form (the hashed content)."""
        return {
            "algorithm": self.algorithm,
            "problem": self.problem.as_dict(),
            "hp": _plain(dict(self.hp)),
            "rounds": int(self.rounds),
            "oracle": self.oracle,
            "seed": int(self.seed),
            "participation": self.participation,
            "record": self.record,
            "keep": list(self.keep),
            "tags": _plain(dict(self.tags)),
        }

    @property
    def key(self) -> str:
        """Hex SHA-256 of the canonical JSON."""
        return hashlib.sha256(canonical(self.as_dict()).encode()).hexdigest()

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RunConfig:
        """Inverse of ``as_dict``; unknown fields are an error."""
        known = {
            "algorithm",
            "problem",
            "hp",
            "rounds",
            "oracle",
            "seed",
            "participation",
            "record",
            "keep",
            "tags",
        }
        extra = set(d) - known
        if extra:
            raise InvalidSweepError(
                f"run configuration fields {sorted(extra)}; the rule is a subset of {sorted(known)}"
            )
        prob = d.get("problem")
        if isinstance(prob, str):
            prob = {"generator": prob}
        if not isinstance(prob, Mapping) or "generator" not in prob:
            raise InvalidSweepError(
                f"problem = {prob!r}; the rule is a generator name or "
                "{'generator': NAME, 'params': {...}}"
            )
        return cls(
            algorithm=str(d["algorithm"]),
            problem=ProblemSpec(str(prob["generator"]), dict(prob.get("params", {}))),
            hp=dict(d.get("hp", {})),
            rounds=d.get("rounds", 100),
            oracle=str(d.get("oracle", "exact")),
            seed=d.get("seed", 0),
            participation=d.get("participation"),
            record=str(d.get("record", "round")),
            keep=tuple(d.get("keep", ())),
            tags=dict(d.get("tags", {})),
        )


def _axis_values(name: str, values: Any) -> list[Any]:
    if not isinstance(values, list) or not values:
        raise InvalidSweepError(f"grid axis {name!r} = {values!r}; the rule is a non-empty list")
    return values


def grid(base: Mapping[str, Any], axes: Mapping[str, list[Any]], seeds: Iterable[int]) -> list[RunConfig]:
    """The product of ``axes`` × ``seeds`` applied to ``base``, deduplicated by key, in grid order.

    Axis names address the configuration: ``algorithm``, ``rounds``, ``oracle``, ``participation``,
    ``hp.NAME`` for a hyper-parameter and ``problem.NAME`` for a generator parameter.  An axis
    value may also be a mapping of several such names set together (a "zip" point).
    """
    seeds = list(seeds)
    if not seeds:
        raise InvalidSweepError("seeds = []; the rule is at least one seed")
    names = list(axes)
    out: dict[str, RunConfig] = {}
    for point in itertools.product(*(_axis_values(n, axes[n]) for n in names)):
        for seed in seeds:
            d = json.loads(canonical(base))
            for name, value in zip(names, point, strict=True):
                for k, v in value.items() if isinstance(value, Mapping) else [(name, value)]:
                    _assign(d, k, v)
            d["seed"] = seed
            cfg = RunConfig.from_dict(d)
            out.setdefault(cfg.key, cfg)
    return list(out.values())


def _assign(d: dict[str, Any], name: str, value: Any) -> None:
    head, _, rest = name.partition(".")
    if head == "hp" and rest:
        d.setdefault("hp", {})[rest] = value
    elif head == "problem" and rest:
        prob = d.setdefault("problem", {})
        if isinstance(prob, str):
            prob = d["problem"] = {"generator": prob}
        prob.setdefault("params", {})[rest] = value
    elif head == "tags" and rest:
        d.setdefault("tags", {})[rest] = value
    elif not rest and head in ("algorithm", "rounds", "oracle", "participation", "record", "problem"):
        d[head] = value
    else:
        raise InvalidSweepError(
            f"grid axis {name!r}; the rule is algorithm | rounds | oracle | "
            "participation | record | problem | hp.NAME | problem.NAME | tags.NAME"
        )
