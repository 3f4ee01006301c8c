"""Several claims judged as one study: one statement of a theorem measured along several sweeps.

FedCanon's floor, say, is ∝ η_l², ∝ (K − 1)², 0 at K = 1 and flat in η_g: three laws, each a ``Claim``
with its own sweep, drawn on the same instances of one class.  A ``ClaimGroup`` names them as one study
(``validate`` runs it by its name); its verdicts are its claims' (each reason says which law), its
figure draws its laws' measurements with their fitted laws on one set of axes.
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
        theorem: the catalog theorem its claims belong to (each claim's own).
        summary: one line: what the claims say together.
        claims: the claims, each judged on its own design (instances ``seed, seed + 1, …`` for each), with
            distinct names.

    """

    name: str
    theorem: str
    summary: str
    claims: tuple[Claim, ...]

    def __post_init__(self) -> None:
        """A group that cannot be judged as stated is a clean error, naming the rule."""
        from fcocheck.verify.claim import InvalidClaimError
        from fcocheck.verify.claim_check import check_name

        check_name(self.name)
        names = [c.name for c in self.claims]
        if len(names) < 2 or len(set(names)) != len(names) or "plot" in names:
            raise InvalidClaimError(f"claim group {self.name!r}: claims {names}; the rule is at least two, "
                                    "with distinct names, none named 'plot'")
        other = sorted({c.theorem for c in self.claims} - {self.theorem})
        if other:
            raise InvalidClaimError(f"claim group {self.name!r}: its claims' theorems {other}; the rule is "
                                    f"the group's, {self.theorem!r}")

    def judge(self, seed: int = 0, quick: bool = True) -> tuple[list, dict[str, Any]]:
        """Every claim's verdicts (each reason naming its law) and what each measured, and the figure.

        The figure draws every judged law's series on one set of axes, each against its own coordinate
        (η_l, K − 1, η_g …: ``verify.claim_expr.law_x``); a group without a judged law draws its first
        judged claim's own figure (bounds along different sweeps share no axis); a claim that could not
        be judged draws nothing.
        """
        from fcocheck.solvers.readable import readable_name
        from fcocheck.verify.claim import LAW
        from fcocheck.verify.claim_judge import judge
        from fcocheck.verify.claim_text import ROWS, plot
        from fcocheck.verify.experiments.base import plot_spec

        verdicts, measured, figures = [], {}, []
        for c in self.claims:
            vs, m = judge(c, seed, quick)
            law = f"{c.bound_text()} along {readable_name(c.symbols()['name'])}"
            verdicts += [replace(v, reason=f"{law}: {v.reason}") for v in vs]
            figure = plot(c.design(quick), m)
            if figure is not None:
                figures.append((c.sense == LAW, law, figure))
            measured[c.name] = m
        laws = [(law, f) for is_law, law, f in figures if is_law]
        if figures and all(f["kind"] == "scatter" for _, _, f in figures):  # inequalities: one cloud of runs
            first = figures[0][2]
            runs = {k: [x for _, _, f in figures for x in f["series"][0][k]] for k in ("x", "y", "labels")}
            measured["plot"] = plot_spec("scatter", first["xlabel"], first["ylabel"],
                                         [{"label": self.name, **runs}])
        elif laws:
            series = [{**s, "label": f"{s['label']} ({law})"} for law, f in laws for s in f["series"]]
            xlabels = list(dict.fromkeys(f["xlabel"] for _, f in laws))
            axis = ", ".join(xlabels[:-1]) + f" or {xlabels[-1]}" if len(xlabels) > 1 else xlabels[0]
            measured["plot"] = plot_spec("slope", axis, laws[0][1]["ylabel"], series, rows=ROWS)
        else:
            measured["plot"] = figures[0][2] if figures else None
        return verdicts, measured
