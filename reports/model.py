"""The report's content as plain data, shared by the HTML and the Markdown renderers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fcocheck.rates.verdict import Verdict, combine


@dataclass
class ExperimentBlock:
    """One theorem experiment: its stored result and its figure stem (None: no figure)."""

    result: dict[str, Any]
    figure: str | None
    caption: str = ""


@dataclass
class TheoremSection:
    """A theorem, its statement, and the experiments that check it."""

    name: str
    title: str
    citation: str
    statement: str
    conditions: list[str]
    experiments: list[ExperimentBlock]

    @property
    def status(self) -> str:
        """The experiments' verdicts combined (``rates.verdict.combine``)."""
        return combine([Verdict(b.result["status"], "", "") for b in self.experiments])


@dataclass
class ReproductionBlock:
    """A reproduced figure or table: the plain ``Reproduction`` and its figure stem."""

    rep: Any
    figure: str | None
    caption: str = ""


@dataclass
class TightnessBlock:
    """A worst-case (PEP) tightness study: its payload (``verify.worstcase.judge``) and figure stem."""

    result: dict[str, Any]
    figure: str | None
    caption: str = ""


@dataclass
class Report:
    """Everything rendered."""

    mode: str
    seed: int
    theorems: list[TheoremSection] = field(default_factory=list)
    invariants: list[dict[str, Any]] = field(default_factory=list)
    properties: list[dict[str, Any]] = field(default_factory=list)
    algorithms: list[str] = field(default_factory=list)
    property_rules: dict[str, str] = field(default_factory=dict)
    reproductions: list[ReproductionBlock] = field(default_factory=list)
    tightness: list[TightnessBlock] = field(default_factory=list)
    provenance: dict[str, Any] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    def verdicts(self) -> dict[str, str]:
        """Experiment name → status (what the HTML shows and ``fcocheck validate --json`` says)."""
        return {b.result["name"]: b.result["status"] for t in self.theorems for b in t.experiments}

    def summary(self) -> dict[str, Any]:
        """Counts for the at-a-glance box."""
        count = lambda xs: {s: sum(1 for x in xs if x == s) for s in sorted(set(xs))}  # noqa: E731
        return {
            "theorems": count([t.status for t in self.theorems]),
            "experiments": count(list(self.verdicts().values())),
            "invariants": {
                "proved": sum(1 for c in self.invariants if c["ok"]),
                "broken": sum(1 for c in self.invariants if not c["ok"]),
            },
            "properties": {
                p: count([c["outcome"] for c in self.properties if c["column"] == p])
                for p in self.property_rules
            },
            "reproductions": count([b.rep.status for b in self.reproductions]),
            "tightness": count([b.result["status"] for b in self.tightness]),
            "errors": len(self.errors),
        }

    def as_dict(self) -> dict[str, Any]:
        """JSON form (``report.json``)."""
        return {
            "mode": self.mode,
            "seed": self.seed,
            "summary": self.summary(),
            "theorems": [
                {
                    "name": t.name,
                    "status": t.status,
                    "experiments": {b.result["name"]: b.result["status"] for b in t.experiments},
                }
                for t in self.theorems
            ],
            "verdicts": self.verdicts(),
            "invariants": self.invariants,
            "properties": self.properties,
            "reproductions": [
                {"name": b.rep.name, "status": b.rep.status, "findings": [vars(f) for f in b.rep.findings]}
                for b in self.reproductions
            ],
            "tightness": {
                b.result["name"]: {
                    "status": b.result["status"],
                    "verdicts": {k: v["status"] for k, v in b.result["verdicts"].items()},
                    "c_max": b.result["verdicts"]["tightness"]["evidence"].get("c_max"),
                }
                for b in self.tightness
            },
            "errors": self.errors,
            "provenance": self.provenance,
        }
