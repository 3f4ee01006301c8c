"""What the papers claim about properties (A)–(D) of FO16 §3.1, method by method.

A ``Claim`` is the expected outcome of one cell of the conformance matrix, with its source and
the conditions under which the source makes it (hyper-parameters it fixes, the ψ it covers).
The property is searched **under those conditions**, and the cell's verdict is

* ``consistent`` (agrees): the measured outcome is the claimed one;
* ``inconsistent`` (disagrees): it is not — ``fcocheck check`` exits 1;
* ``known disagreement``: it is not, for a documented reason that a diagnostic measured in the
  same search confirms (``Known.confirm``); exit 0 — anything else stays inconsistent;
* ``inconclusive`` (unverified): the search could not evaluate the property (n/a) under the
  claim's conditions;
* ``no claim``: no source says (the outcome is only reported).

The words are the theorem studies' (``rates.verdict``): one vocabulary across the report.

Claims are quoted from the seeds, or derived from the method's own update where the seed states
the update but not the property (``derived``: the update's direction vanishes at w*).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fcocheck.rates.threshold import above, at_most
from fcocheck.rates.verdict import CONSISTENT, INCONCLUSIVE, INCONSISTENT
from fcocheck.rates.verdict import KNOWN as KNOWN_DISAGREEMENT

# the one verdict vocabulary of theorems and reproductions (``verify.studies``), plus "no claim"
AGREES, DISAGREES, KNOWN, UNVERIFIED = CONSISTENT, INCONSISTENT, KNOWN_DISAGREEMENT, INCONCLUSIVE
NO_CLAIM = "no claim"


@dataclass(frozen=True)
class Claim:
    """Expected outcome of (algorithm, property) and where it comes from.

    Attributes:
        expect: ``holds`` or ``fails``.
        source: seed and section (or ``derived: …`` with the one-line derivation).
        hp: hyper-parameters the claim fixes (they override the drawn ones).
        psi: the ψ kinds the claim covers (None: every kind the method accepts).

    """

    expect: str
    source: str
    hp: dict[str, Any] = field(default_factory=dict)
    psi: tuple[str, ...] | None = None

    def describe(self) -> str:
        """``holds (FO16 §3.4; mu=0, eta=1)``."""
        cond = [f"{k}={v}" for k, v in self.hp.items()] + ([f"ψ ∈ {list(self.psi)}"] if self.psi else [])
        return f"{self.expect} ({self.source}" + (f"; {', '.join(cond)})" if cond else ")")


@dataclass(frozen=True)
class Known:
    """A documented disagreement: the reason (formatted with the evidence's numbers) and its diagnostic."""

    reason: str
    confirm: Callable[[dict[str, Any]], bool]


def _unstable_fixed_point(numbers: dict[str, Any]) -> bool:
    """w* is a fixed point to rounding (first round ≤ 1e-12) that repels (drift grows > 1.5×/round)."""
    first, growth = numbers.get("first_round"), numbers.get("growth")
    return first is not None and growth is not None and at_most(first, 1e-12) and above(growth, 1.5)


_FIXED_POINT_VR = "derived: the variance-reduced direction ∇f_i(w*) − ∇f_i(w*) + ∇F(w*) vanishes at w*"
_FIXED_POINT_PG = "derived: w* = prox_{ηψ}(w* − η∇F(w*)) is the optimality condition"

CLAIMS: dict[tuple[str, str], Claim] = {
    # FO16 §3.4: "for any choice of μ and η, DANE also achieves property (A)"; (D) at μ = 0, η = 1;
    # "DANE does not achieve ... (B) and (C)"
    ("dane", "A"): Claim("holds", "FO16 §3.4"),
    ("dane", "B"): Claim("fails", "FO16 §3.4"),
    ("dane", "C"): Claim("fails", "FO16 §3.4"),
    ("dane", "D"): Claim("holds", "FO16 §3.4", {"mu": 0.0, "eta": 1.0, "local_solver": "exact"},
                         psi=("zero", "l2sq")),
    # FO16 §3.4: one-shot averaging cannot work unless the local functions are all the same
    ("one-shot", "A"): Claim("fails", "FO16 §3.4"),
    ("one-shot", "D"): Claim("holds", "FO16 §3.4 (each node minimises F_k)", {"local_solver": "exact"},
                             psi=("zero", "l2sq")),
    # FO16 §2.1: SGD with a constant step only reaches a neighbourhood
    ("sgd", "A"): Claim("fails", "FO16 §2.1"),
    **{(n, "A"): Claim("holds", f"FO16 {alg}; {_FIXED_POINT_VR}")
       for n, alg in (("svrg", "Alg. 1"), ("naive-fsvrg", "Alg. 3"), ("fsvrg", "Alg. 4"))},
    **{(n, "A"): Claim("holds", f"FCO §3.1 (sequential baselines); {_FIXED_POINT_PG}")
       for n in ("gd", "pgm", "centralized", "mirror-descent", "dual-averaging")},
    # FedCanon §I/§III: control variates correct client drift; with ψ = 0 FedCanon is SCAFFOLD and
    # its Thm 1 floor (σ² and ψ's subgradient bound) vanishes under exact gradients
    ("fedcanon", "A"): Claim("holds", "FedCanon Thm 1, floor zero at σ = 0, ψ = 0", psi=("zero",)),
    ("fedcanon2", "A"): Claim("holds", "FedCanon Alg. 2 = FedCanon", psi=("zero",)),
    # FedCanon §I: primal–dual methods solve the composite problem exactly (fixed points = solutions)
    ("feddr", "A"): Claim("holds", "FedCanon §I; docs/baselines.md (Douglas–Rachford fixed points)"),
    ("fedadmm", "A"): Claim("holds", "FedCanon §I; docs/baselines.md (= FedDR, α = 1)"),
    # docs/baselines.md: ProxSkip/Scaffnew converge linearly to x* (Mishchenko et al. 2022 Thm 3.6);
    # ZA1 corrects drift with the (t+1)η client prox weight "the algebraically consistent choice"
    ("proxskip", "A"): Claim("holds", "docs/baselines.md (ProxSkip: linear convergence to x*)"),
    ("scaffnew", "A"): Claim("holds", "docs/baselines.md (Scaffnew: linear convergence to x*)"),
    ("za1", "A"): Claim("holds", "docs/baselines.md (ZA1: drift correction, (t+1)η prox weight)"),
}

DOCUMENTED: dict[tuple[str, str], Known] = {
    ("dane", "A"): Known(
        "A holds in exact arithmetic (one round from w* moves it {first_round:.1e}, rounding), but the "
        "fixed point is unstable: that error grows ×{growth:.3g} per round, the spectral radius of the "
        "linearised round map (power iteration on the rounding error)",
        _unstable_fixed_point,
    ),
}


def claim(algorithm: str, prop: str) -> Claim | None:
    """The claim on (algorithm, property), if a source makes one (a method card states its own)."""
    from fcocheck.solvers import algorithms

    card = algorithms.card_of(algorithm)
    if card is not None and prop in card.claims:
        expect, source = card.claims[prop]
        return Claim(expect, source)
    return CLAIMS.get((algorithm, prop))


def verdict(algorithm: str, prop: str, outcome: str, numbers: dict[str, Any] | None) -> tuple[str, str]:
    """(verdict, note) of one cell against its claim (module docstring)."""
    c = claim(algorithm, prop)
    if c is None:
        return NO_CLAIM, ""
    if outcome == "n/a":
        return UNVERIFIED, f"claimed {c.describe()}; not evaluable under its conditions"
    if outcome == c.expect:
        return AGREES, f"claimed {c.describe()}"
    known = DOCUMENTED.get((algorithm, prop))
    if known is not None and known.confirm(numbers or {}):
        return KNOWN, f"claimed {c.describe()}; " + known.reason.format(**(numbers or {}))
    return DISAGREES, f"claimed {c.describe()}; measured {outcome}"
