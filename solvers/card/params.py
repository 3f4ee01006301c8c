"""A method's hyper-parameters, declared once: type, default, rule, neutral value and the grid checks draw.

    Param("beta", 0.0, "momentum β", rule=unit_interval, neutral=0.0, grid=(0.0, 0.5, 0.9))

``hyper_class(name, params)`` builds the frozen dataclass the engine runs with (its ``check``
applies every rule); ``verify.hyper`` derives the Hypothesis strategy from the grids (a step given
``per="L"`` is drawn as factor/L_max, ``per="L_sample"`` as factor/L_sample), and the suite reads
``neutral`` to report whether a check ever exercised a parameter where it acts (β = 0 hides every
momentum bug).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from fcocheck.solvers.algorithms.base import hp_field, positive_int, positive_step
from fcocheck.solvers.errors import InvalidHyperparameterError

Rule = Callable[[str, Any], None]


class _Required:
    """The default of a parameter that has none (it must be given)."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


def unit_interval(name: str, value: float) -> None:
    """0 ≤ value < 1 (a momentum or averaging coefficient)."""
    if not (0.0 <= float(value) < 1.0):
        raise InvalidHyperparameterError(f"{name} = {value!r} is invalid; the rule is 0 <= {name} < 1")


@dataclass(frozen=True)
class Param:
    """One hyper-parameter.

    Attributes:
        name: the paper's name, as the CLI and sweeps spell it (``eta_c``, ``beta``).
        default: its default (``REQUIRED``: none, it must be given).
        help: one line for ``fcocheck algorithms`` and the docs.
        rule: raises ``InvalidHyperparameterError``/``InvalidStepSizeError`` naming the rule.
        neutral: the value at which the component it drives does nothing (β = 0, η_s = 1), if any.
        grid: the values checks draw, simplest first (Hypothesis shrinks towards the first).
        per: ``"L"`` or ``"L_sample"``: the grid holds factors of 1/L_max or 1/L_sample.

    """

    name: str
    default: Any = REQUIRED
    help: str = ""
    rule: Rule | None = None
    neutral: Any = None
    grid: Sequence[Any] = field(default_factory=tuple)
    per: str | None = None


def eta_c(grid: Sequence[float] = (0.25, 0.1, 0.5)) -> Param:
    """The client step η_c > 0, drawn as a factor of 1/L_max."""
    return Param("eta_c", help="client learning rate η_c > 0", rule=positive_step, grid=grid, per="L")


def eta_s(grid: Sequence[float] = (1.0, 0.5)) -> Param:
    """The server step η_s > 0 (neutral 1: the plain average)."""
    return Param("eta_s", 1.0, "server learning rate η_s > 0", positive_step, neutral=1.0, grid=grid)


def local_steps(grid: Sequence[int] = (1, 2, 3, 4, 5)) -> Param:
    """K ≥ 1 local steps per round (neutral 1: no client drift)."""
    return Param("local_steps", 1, "local steps per round K >= 1", positive_int, neutral=1, grid=grid)


def hyper_class(name: str, params: Sequence[Param]) -> type:
    """The frozen dataclass of ``params`` (required ones first), with ``check`` applying every rule."""
    ordered = sorted(params, key=lambda p: p.default is not REQUIRED)
    fields = [(p.name, float, hp_field(help=p.help)) if p.default is REQUIRED
              else (p.name, type(p.default), hp_field(p.default, help=p.help)) for p in ordered]

    def check(self: Any) -> None:
        for p in params:
            if p.rule is not None:
                p.rule(p.name, getattr(self, p.name))

    cls_name = "".join(ch for ch in name.title() if ch.isalnum()) + "Hyper"
    cls = dataclasses.make_dataclass(cls_name, fields, frozen=True,
                                     namespace={"check": check, "__doc__": f"Hyper-parameters of {name}."})
    cls.PARAMS = tuple(params)
    # importable by name (pickle sends hyper-parameters to pool workers by reference)
    cls.__module__, cls.__qualname__ = __name__, cls_name
    globals()[cls_name] = cls
    return cls
