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
import numbers
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fcocheck.solvers import algorithms
from fcocheck.solvers.errors import FcocheckError

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
    """Canonical JSON: sorted keys, no spaces, floats by ``repr`` (round-trips exactly).

    Raises:
        InvalidSweepError: a NaN or infinite value (no canonical JSON form).

    """
    try:
        return json.dumps(_plain(obj), sort_keys=True, separators=(",", ":"), allow_nan=False)
    except ValueError:
        raise InvalidSweepError(f"configuration {obj!r} holds NaN or infinity; the rule is finite "
                                "numbers") from None


def file_sha256(path: str) -> str:
    """Hex SHA-256 of a file's bytes (an instance file is keyed by its content)."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    except OSError as exc:
        raise InvalidSweepError(
            f"instance file {path!r}: {exc.strerror}; the rule is a readable .npz") from None
    return h.hexdigest()


@dataclass(frozen=True)
class ProblemSpec:
    """A seeded generator instance ``generate(generator, **params)``, or an instance file.

    A file is named by its path and keyed by the SHA-256 of its bytes: the run's key changes when
    the file's content does, and a run refuses a file whose content changed since.
    """

    generator: str | None
    params: Mapping[str, Any] = field(default_factory=dict)
    file: str | None = None
    sha256: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """JSON form."""
        if self.file is not None:
            return {"file": self.file, "sha256": self.sha256}
        return {"generator": self.generator, "params": _plain(dict(self.params))}

    @classmethod
    def from_value(cls, prob: Any) -> ProblemSpec:
        """A generator name, a path ending in .npz, or {'generator': …, 'params': …} / {'file': …}."""
        if isinstance(prob, str):
            prob = {"file": prob} if prob.endswith(".npz") else {"generator": prob}
        if isinstance(prob, Mapping) and set(prob) <= {"file", "sha256"} \
                and isinstance(prob.get("file"), str):
            return cls(None, {}, prob["file"], prob.get("sha256") or file_sha256(prob["file"]))
        if not (isinstance(prob, Mapping) and isinstance(prob.get("generator"), str)
                and set(prob) <= {"generator", "params"} and isinstance(prob.get("params", {}), Mapping)):
            raise InvalidSweepError(
                f"problem = {prob!r}; the rule is a generator name, an instance file (.npz), "
                "{'generator': NAME, 'params': {...}} or {'file': PATH}")
        return cls(prob["generator"], dict(prob.get("params", {})))


@dataclass(frozen=True)
class RunConfig:
    """One run, fully determined (see the module docstring).

    Attributes:
        keep: multi-dimensional trace arrays to keep beside the scalar metrics (e.g. ``server_w``).
        tags: free labels for grouping in reports; part of the key, so two designs never collide.
        metrics_every: evaluate the data-pass metrics every this many rounds and at the last one
            (``solvers.engine.run``); a tuning run scored on its final value needs only the last.
            Part of the key only when it is not 1, so the keys of every earlier design are unchanged.

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
    metrics_every: int = 1

    def __post_init__(self) -> None:
        if not _FIELD_RULES["metrics_every"][1](self.metrics_every):
            raise InvalidSweepError(f"metrics_every = {self.metrics_every!r}; the rule is "
                                    f"{_FIELD_RULES['metrics_every'][0]}")
        if self.record not in RECORDS:
            raise InvalidSweepError(f"record = {self.record!r}; the rule is one of {RECORDS}")
        if not isinstance(self.seed, numbers.Integral) or isinstance(self.seed, bool) \
                or not 0 <= self.seed < 2**63:
            raise InvalidSweepError(f"seed = {self.seed!r}; the rule is an integer in [0, 2^63 - 1]")
        if not isinstance(self.rounds, numbers.Integral) or isinstance(self.rounds, bool) or self.rounds < 0:
            raise InvalidSweepError(f"rounds = {self.rounds!r}; the rule is an integer >= 0")

    def as_dict(self) -> dict[str, Any]:
        """JSON form (the hashed content).

        A user's algorithm adds ``definition``, the digest of its card (``algorithms.definition``): an
        edited card's runs get other keys, so the store never serves the old card's runs for it.
        """
        definition = algorithms.definition(self.algorithm)
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
        } | ({"metrics_every": int(self.metrics_every)} if self.metrics_every != 1 else {}) \
          | ({"definition": definition} if definition is not None else {})

    @property
    def instance_spec(self) -> str:
        """The problem's canonical JSON: what names its instance and its reference (the caches' key)."""
        return canonical(self.problem.as_dict())

    @property
    def key(self) -> str:
        """Hex SHA-256 of the canonical JSON."""
        return hashlib.sha256(canonical(self.as_dict()).encode()).hexdigest()

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RunConfig:
        """Inverse of ``as_dict``; unknown fields are an error (``definition`` is derived again, not read)."""
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
            "metrics_every",
            "definition",
        }
        extra = set(d) - known
        if extra:
            raise InvalidSweepError(
                f"run configuration fields {sorted(extra)}; the rule is a subset of {sorted(known)}"
            )
        _types(d)
        return cls(
            algorithm=d["algorithm"],
            problem=ProblemSpec.from_value(d.get("problem")),
            hp=dict(d.get("hp", {})),
            rounds=d.get("rounds", 100),
            oracle=d.get("oracle", "exact"),
            seed=d.get("seed", 0),
            participation=d.get("participation"),
            record=d.get("record", "round"),
            keep=tuple(d.get("keep", ())),
            tags=dict(d.get("tags", {})),
            metrics_every=d.get("metrics_every", 1),
        )


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


# field → (rule, test): a sweep file is validated by type, never coerced
_FIELD_RULES: dict[str, tuple[str, Any]] = {
    "algorithm": ("a registry name (string)", lambda v: isinstance(v, str)),
    "hp": ("an object of hyper-parameters", lambda v: isinstance(v, Mapping)),
    "rounds": ("an integer >= 0", lambda v: _is_int(v) and v >= 0),
    "oracle": ("a string: exact | gaussian:σ | minibatch:b", lambda v: isinstance(v, str)),
    "seed": ("an integer in [0, 2^63 - 1]", lambda v: _is_int(v) and 0 <= v < 2**63),
    "participation": ("null or an integer >= 1", lambda v: v is None or (_is_int(v) and v >= 1)),
    "record": (f"one of {list(RECORDS)}", lambda v: v in RECORDS),
    "keep": ("a list of array names",
             lambda v: isinstance(v, list | tuple) and all(isinstance(k, str) for k in v)),
    "tags": ("an object", lambda v: isinstance(v, Mapping)),
    "metrics_every": ("an integer >= 1", lambda v: _is_int(v) and v >= 1),
}


def _types(d: Mapping[str, Any]) -> None:
    if "algorithm" not in d:
        raise InvalidSweepError(f"run configuration {dict(d)!r} has no 'algorithm'; the rule is one per run")
    for name, value in d.items():
        if name in _FIELD_RULES and not _FIELD_RULES[name][1](value):
            raise InvalidSweepError(f"run configuration field {name!r} = {value!r}; the rule is "
                                    f"{_FIELD_RULES[name][0]}")


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
    if rest and head in ("hp", "tags") and not isinstance(d.get(head, {}), dict):
        raise InvalidSweepError(f"base.{head} = {json.dumps(d[head])[:80]} while the grid sets {name!r}; the "
                                f"rule is base.{head} an object")
    if head == "hp" and rest:
        d.setdefault("hp", {})[rest] = value
    elif head == "problem" and rest:
        prob = d.setdefault("problem", {})
        if isinstance(prob, str):
            prob = d["problem"] = {"generator": prob}
        if "file" in prob:
            raise InvalidSweepError(
                f"grid axis {name!r} sets a generator parameter, but the problem is the instance file "
                f"{prob['file']!r}; the rule is problem.NAME for generators")
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
