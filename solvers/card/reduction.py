"""A card's reduction: at some of its hyper-parameters the method produces another method's iterates.

A ``Reduction`` is data a card declares and a check runs (``verify.invariants.cards``).  Its map from
this method's hyper-parameters to the target's is text in a small grammar — names, numbers and
+ − × ÷ (``evaluate``) — read with ``ast``, never evaluated as Python.  What a reduction may name is
checked when its card is built (``check``: the fixed and mapped names are the card's own, the map
parses) and when the card is registered (``check_target``: the target is a registry entry, the mapped
names its hyper-parameters), so a reduction to an unknown method or naming an unknown parameter stops
the plugin that declares it, naming the rule.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fcocheck.solvers.errors import InvalidAlgorithmError

_OPS: dict[type, Callable[[float, float], float]] = {ast.Mult: operator.mul, ast.Div: operator.truediv,
                                                     ast.Add: operator.add, ast.Sub: operator.sub}
GRAMMAR = "names of this method's hyper-parameters, numbers and + − * /"
#: the run settings a reduction may fix
RUN_KEYS = frozenset({"participation", "oracle"})
#: the check instances' data layouts and ψ kinds (``verify.cases.InstanceSpec``): what a reduction asks for
LAYOUTS = ("general", "identical", "one-client", "disjoint")
PSI_KINDS = ("zero", "l2sq", "l1")


def _nodes(expr: str) -> ast.Expression:
    try:
        return ast.parse(expr, mode="eval")
    except (SyntaxError, ValueError, TypeError, RecursionError):
        raise InvalidAlgorithmError(f"reduction map {expr!r} does not parse; the rule is {GRAMMAR}") from None


def evaluate(expr: str, values: Mapping[str, Any]) -> float:
    """``expr`` (names, numbers, + − × ÷) on ``values`` (a hyper-parameter map of a ``Reduction``)."""

    def ev(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float) \
                and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.Name) and node.id in values:
            return values[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.left), ev(node.right))
        raise InvalidAlgorithmError(f"reduction map {expr!r}: {ast.unparse(node)[:40]!r}; the rule is "
                                    f"{GRAMMAR}")

    return ev(_nodes(expr))


def names(expr: str) -> set[str]:
    """The names ``expr`` reads (it must follow the grammar: ``evaluate`` on any values of them would)."""
    if not isinstance(expr, str) or len(expr) > 200:
        raise InvalidAlgorithmError(f"reduction map {expr!r}; the rule is a text of at most 200 characters "
                                    f"in {GRAMMAR}")
    tree = _nodes(expr)
    found = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    evaluate(expr, dict.fromkeys(found, 1.0))  # the grammar, on any values
    return found


@dataclass(frozen=True)
class Reduction:
    """A claim that the method, at ``when``, produces ``target``'s iterates (hyper-parameters mapped).

    Attributes:
        target: a registry name.
        when: this method's hyper-parameters fixed for the claim (β = 0; K = 1).
        hp_map: target's hyper-parameter → an expression in this method's (``"eta_s*eta_c"``), or a
            name; unmapped names of the target keep this method's value of the same name.
        run: run settings the claim needs (``{"participation": None, "oracle": "exact"}``).
        psi: the instances' ψ kind the claim holds on (``"zero"``: ψ = 0), or None (any).
        layout: the instances' data layout (``"identical"``: every client the same data).
        psi_scale: the target runs on F + c·ψ (printed FedMiD applies ψ twice: c = 2).
        where: what it pins (shown with the verdict): e.g. "β acts: centralised heavy ball".

    """

    target: str
    when: Mapping[str, Any] = field(default_factory=dict)
    hp_map: Mapping[str, str] = field(default_factory=dict)
    run: Mapping[str, Any] = field(default_factory=dict)
    psi: str | None = None
    layout: str = "general"
    psi_scale: float = 1.0
    where: str = ""

    def check(self, card: str, params: Iterable[str]) -> None:
        """What this reduction of card ``card`` names is the card's own (``params``), and its map parses."""
        own = set(params)

        def refuse(what: str, rule: str) -> None:
            raise InvalidAlgorithmError(f"card {card!r}: reduction to {self.target!r}: {what}; the rule is "
                                        f"{rule}")

        if not isinstance(self.target, str) or not self.target:
            refuse(f"target {self.target!r}", "a registry name")
        for label, mapping in (("when", self.when), ("hp_map", self.hp_map), ("run", self.run)):
            if not isinstance(mapping, Mapping) or not all(isinstance(k, str) for k in mapping):
                refuse(f"{label} = {mapping!r}", "a mapping name → value")
        if set(self.when) - own:
            refuse(f"when names {sorted(set(self.when) - own)}", f"the card's hyper-parameters {sorted(own)}")
        for key, expr in self.hp_map.items():
            read = names(expr)
            if read - own:
                refuse(f"hp_map {key!r} = {expr!r} reads {sorted(read - own)}", f"{GRAMMAR} ({sorted(own)})")
        if set(self.run) - RUN_KEYS:
            refuse(f"run names {sorted(set(self.run) - RUN_KEYS)}", f"{sorted(RUN_KEYS)}")
        if self.psi is not None and self.psi not in PSI_KINDS:
            refuse(f"psi {self.psi!r}", f"None or one of {list(PSI_KINDS)}")
        if self.layout not in LAYOUTS:
            refuse(f"layout {self.layout!r}", f"one of {list(LAYOUTS)}")
        scale = self.psi_scale
        if isinstance(scale, bool) or not isinstance(scale, int | float) or not math.isfinite(scale) \
                or scale <= 0:
            refuse(f"psi_scale {scale!r}", "a finite positive number (the target runs on F + psi_scale·ψ)")
        if not isinstance(self.where, str):
            refuse(f"where {self.where!r}", "a text")

    def check_target(self, card: str, fields_of: Callable[[str], set[str] | None]) -> None:
        """The target is a registry entry and every name the map sets is one of its hyper-parameters.

        ``fields_of(name)``: the registry entry's hyper-parameters, None for a name it does not hold.
        """
        fields = fields_of(self.target)
        where = f"card {card!r}: reduction to {self.target!r}"
        if fields is None:
            raise InvalidAlgorithmError(f"{where}, which is not a registry entry; the rule is a built-in "
                                        "method or a card registered with it")
        if set(self.hp_map) - fields:
            raise InvalidAlgorithmError(f"{where} maps {sorted(set(self.hp_map) - fields)}; the rule is the "
                                        f"target's hyper-parameters {sorted(fields)}")
