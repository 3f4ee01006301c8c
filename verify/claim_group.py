"""Several claims judged as one study: one statement of a theorem measured along several sweeps.

FedCanon's floor, say, is ∝ η_l², ∝ (K − 1)², 0 at K = 1 and flat in η_g: three laws, each a ``Claim``
with its own sweep, drawn on the same instances of one class.  A ``ClaimGroup`` names them as one study
(``validate`` runs it by its name); its verdicts are its claims' (each reason says which law), its
figure draws every claim's measurement with its fitted law on one set of axes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from fcocheck.verify.claim import Claim


@dataclass(frozen=True)
class ClaimGroup:
    """Claims judged together (module docstring).

    Attributes:
        name: the study's name (a line of ``validate``).
        theorem: the catalog theorem its claims belong to.
        summary: one line: what the claims say together.
        claims: the claims, each judged on its own design (instances ``seed, seed + 1, …`` for each).
        xlabel: the figure's horizontal axis (each claim's coordinate).

    """

    name: str
    theorem: str
    summary: str
    claims: tuple[Claim, ...]
    xlabel: str

    def judge(self, seed: int = 0, quick: bool = True) -> tuple[list, dict[str, Any]]:
        """Every claim's verdicts (each reason naming its law) and what each measured, and the figure."""
        from fcocheck.solvers.readable import readable_name
        from fcocheck.verify.claim import judge, plot
        from fcocheck.verify.experiments.base import plot_spec

        verdicts, measured, series = [], {}, []
        for c in self.claims:
            vs, m = judge(c, seed, quick)
            law = f"{c.bound_text()} along {readable_name(c.symbols()['name'])}"
            verdicts += [replace(v, reason=f"{law}: {v.reason}") for v in vs]
            m["plot"] = plot(c.design(quick), m)
            series += [{**s, "label": f"{s['label']} ({law})"} for s in m["plot"]["series"]]
            measured[c.name] = m
        ylabel = measured[self.claims[0].name]["plot"]["ylabel"]
        for m in measured.values():
            m.pop("plot")
        measured["plot"] = plot_spec("slope", self.xlabel, ylabel, series)
        return verdicts, measured
