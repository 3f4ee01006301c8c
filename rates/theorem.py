"""A theorem as a value: its bound as named sympy terms, conditions, assumptions, citation.

The relation says how the bound is meant:

* ``lesssim`` — an upper bound up to an absolute constant (the papers' ≲); the toolkit fits it;
* ``leq`` — an inequality as printed, constant 1 (Lemma 4.4 in the slides);
* ``asymp`` — the rate itself up to constants (Θ, FO16 eq. 5);
* ``structure`` — only the shape is known (FedCanon: constants lost in extraction);
  the unknowns are the non-negative symbols in ``constants``;
* ``eq`` — an exact identity (eq. 4.5).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import sympy as sp

RELATIONS = {"lesssim": r"\lesssim", "leq": r"\le", "asymp": r"\asymp", "structure": r"\le", "eq": "="}


@dataclass(frozen=True)
class Theorem:
    """One theorem, lemma or identity of the source papers.

    Attributes:
        name: registry key (``fco-4.2``).
        title: one line.
        citation: paper and number (``FCO Thm 4.2 (simplified from Thm D.1)``).
        lhs: LaTeX of the bounded quantity.
        relation: one of ``RELATIONS``.
        terms: the bound, as (name, expression) pairs summed; for ``eq`` the right-hand side.
        tuned_terms: the published rate after choosing the step (empty when none is printed).
        step: the step the bound depends on (η_c), None when the bound is step-free.
        step_max: the constraint step ≤ step_max (None: no cap).
        conditions: LaTeX of every condition of the statement.
        assumptions: named assumptions (``A1: L-smooth, σ²-bounded variance``).
        constants: free non-negative constants of a ``structure`` bound.
        notes: readings of the statement the toolkit had to make, and findings.
        experiments: the theorem experiments (verify/) that check it.

    """

    name: str
    title: str
    citation: str
    lhs: str
    relation: str
    terms: tuple[tuple[str, sp.Expr], ...]
    tuned_terms: tuple[tuple[str, sp.Expr], ...] = ()
    step: sp.Symbol | None = None
    step_max: sp.Expr | None = None
    conditions: tuple[str, ...] = ()
    assumptions: tuple[str, ...] = ()
    constants: tuple[sp.Symbol, ...] = ()
    notes: tuple[str, ...] = ()
    experiments: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if self.relation not in RELATIONS:
            raise ValueError(
                f"theorem {self.name}: relation = {self.relation!r}; the rule is one of {sorted(RELATIONS)}"
            )

    @property
    def bound(self) -> sp.Expr:
        """The sum of the terms."""
        return sp.Add(*(t for _, t in self.terms))

    @property
    def tuned(self) -> sp.Expr | None:
        """The published tuned rate, or None."""
        return sp.Add(*(t for _, t in self.tuned_terms)) if self.tuned_terms else None

    def term(self, name: str) -> sp.Expr:
        """One term by name (bound terms first, then tuned terms)."""
        for key, expr in (*self.terms, *self.tuned_terms):
            if key == name:
                return expr
        raise KeyError(
            f"theorem {self.name} has no term {name!r}; it has "
            f"{[k for k, _ in (*self.terms, *self.tuned_terms)]}"
        )

    def symbols(self) -> set[sp.Symbol]:
        """Every free symbol of the bound and the tuned rate."""
        out = set(self.bound.free_symbols)
        if self.tuned is not None:
            out |= self.tuned.free_symbols
        return out

    def latex(self) -> dict[str, str]:
        """LaTeX of the statement and of the tuned rate."""
        rel = RELATIONS[self.relation]
        out = {"bound": f"{self.lhs} {rel} {sp.latex(self.bound)}"}
        if self.tuned is not None:
            out["tuned"] = f"{self.lhs} {rel} {sp.latex(self.tuned)}"
        return out

    def values(self, which: str = "terms", **values: float) -> dict[str, float]:
        """Each term's numeric value at ``values`` (symbol name → number), every free constant set to 1."""
        subs = {**dict.fromkeys(self.constants, 1.0), **_subs(values)}
        pairs = self.terms if which == "terms" else self.tuned_terms
        return {k: float(sp.N(t.subs(subs))) for k, t in pairs}

    def as_dict(self) -> dict[str, Any]:
        """JSON form (expressions as sympy strings and LaTeX)."""
        return {
            "name": self.name,
            "title": self.title,
            "citation": self.citation,
            "relation": self.relation,
            "latex": self.latex(),
            "terms": {k: str(t) for k, t in self.terms},
            "tuned_terms": {k: str(t) for k, t in self.tuned_terms},
            "step": None if self.step is None else str(self.step),
            "step_max": None if self.step_max is None else str(self.step_max),
            "conditions": list(self.conditions),
            "assumptions": list(self.assumptions),
            "constants": [str(c) for c in self.constants],
            "notes": list(self.notes),
            "experiments": list(self.experiments),
        }


def _subs(values: dict[str, float]) -> dict[sp.Symbol, float]:
    from fcocheck.rates.symbols import BY_NAME

    out = {}
    for key, val in values.items():
        if key not in BY_NAME:
            raise KeyError(f"unknown symbol {key!r}; the rule is one of {sorted(BY_NAME)}")
        out[BY_NAME[key]] = val
    return out
