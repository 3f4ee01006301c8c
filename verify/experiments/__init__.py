"""The theorem experiments: which sweep validates which theorem (``fcocheck validate``)."""

from __future__ import annotations

import dataclasses

from fcocheck.solvers.definition import definition_digest
from fcocheck.verify import paper_claims
from fcocheck.verify.experiments.base import Experiment, Result

USER_CLAIM = "user claim"


def claim_experiment(claim, summary: str = "", needs=None) -> Experiment:  # noqa: ANN001 - a Claim, a check
    """A claim (a paper's, ``verify.paper_claims``, or a user's) as an experiment ``validate`` runs by name.

    Its result: the claim's verdicts (on the drawn instances, then the worst case where it applies), what
    was measured and its figure; its design line says what was drawn and judged.  With ``needs`` (what a
    user's instance must have, ``Experiment.needs``) it also runs on one fixed instance
    (``validate --problem``): the same claim and controls on that instance alone (``Claim.instance``).
    """
    from dataclasses import replace

    from fcocheck.verify.claim_judge import judge
    from fcocheck.verify.claim_text import design_line, plot, statement_latex

    def body(quick: bool, seed: int, instance: tuple | None = None) -> Result:
        c = claim.design(quick)
        if instance is not None:
            c = replace(c, instance=instance)
        verdicts, measured = judge(c, seed)
        measured["plot"] = plot(c, measured)  # None when it was not judged
        measured["statement"] = statement_latex(c)
        notes = [claim.source] if claim.source else []
        return Result(claim.name, claim.theorem or USER_CLAIM, design_line(c, measured), measured, verdicts,
                      notes=notes)

    summary = summary or f"{claim.measure} {claim.sense} {claim.bound_text()}"
    from fcocheck.solvers.readable import readable_name

    return Experiment(claim.name, claim.theorem or USER_CLAIM, summary, body, needs=needs,
                      sweeps=readable_name(claim.swept_name()))


def group_experiment(group) -> Experiment:  # noqa: ANN001 - a verify.claim_group.ClaimGroup
    """A group of claims (``verify.claim_group``) as one experiment: its claims' verdicts, one figure."""
    from fcocheck.solvers.readable import readable_name
    from fcocheck.verify.claim_text import design_line

    def body(quick: bool, seed: int) -> Result:
        verdicts, measured = group.judge(seed, quick)
        design = "; ".join(f"[{c.bound_text()}] {design_line(c.design(quick), measured[c.name])}"
                           for c in group.claims)
        sources = list(dict.fromkeys(c.source for c in group.claims if c.source))
        return Result(group.name, group.theorem, design, measured, verdicts, notes=sources)

    sweeps = ", ".join(dict.fromkeys(readable_name(c.symbols()["name"]) for c in group.claims))
    return Experiment(group.name, group.theorem, group.summary, body, sweeps=sweeps)


def _any_convex(problem, ref) -> str | None:  # noqa: ANN001
    """Eq. 4.5 is an identity of FedDualAvg: it needs a convex instance (certified optimum)."""
    return None if problem.convex else "a convex instance (this one is not)"


def _strongly_convex(problem, ref) -> str | None:  # noqa: ANN001
    """FedCanon Thm 2 needs the proximal PL condition: a strongly convex smooth part suffices."""
    from fcocheck.solvers.constants import compute_constants

    if not problem.convex:
        return "a convex instance (this one is not)"
    mu = compute_constants(problem, ref.w).mu
    return None if mu and mu > 1e-10 else (f"the proximal PL condition (a strongly convex F: μ = {mu!r} "
                                           "here, or not computable for this loss)")


_ALL = (
    claim_experiment(paper_claims.CLAIMS["fco-eq-4.5"],
                     "dual shadow identity (FedDualAvg holds, FedMiD fails)", _any_convex),
    group_experiment(paper_claims.GROUPS["fco-lemma-4.4"]),
    claim_experiment(paper_claims.CLAIMS["fco-lemma-4.5-K-noise"], "discrepancy ∝ K at ζ = 0"),
    claim_experiment(paper_claims.CLAIMS["fco-lemma-4.5-K-hetero"], "discrepancy ∝ K² at σ = 0"),
    claim_experiment(paper_claims.CLAIMS["fco-lemma-4.5-eta"], "discrepancy ∝ η_c²"),
    claim_experiment(paper_claims.CLAIMS["fco-4.3-floor-zeta"], "steady state vs ζ (≲ η_c²LK²ζ²)"),
    claim_experiment(paper_claims.CLAIMS["fco-4.3-floor-K"], "steady state vs K (≲ η_c²LK²ζ²)"),
    claim_experiment(paper_claims.CLAIMS["fco-4.3-variance-M"], "the noise's share of ŵ ∝ η_cσ²/M at ζ = 0"),
    claim_experiment(paper_claims.CLAIMS["fco-4.3-tuned-R"], "Φ(ŵ) − Φ* vs R at the tuned η_c, rate (4.4)"),
    claim_experiment(paper_claims.CLAIMS["fco-4.2-rounds"],
                     "bounded-gradient instance, Φ(ŵ) − Φ* vs R, rate (4.3)"),
    group_experiment(paper_claims.GROUPS["fco-4.1-minibatch"]),
    claim_experiment(paper_claims.CLAIMS["fco-4.2-vs-4.1"],
                     "the remark after Thm 4.2: which regime wins on each side of R* = L²B/G²"),
    group_experiment(paper_claims.GROUPS["fco-4.1-speedup"]),
    group_experiment(paper_claims.GROUPS["fco-curse-rate"]),
    claim_experiment(paper_claims.CLAIMS["fedcanon-floor-b"], "floor ∝ σ²/b"),
    claim_experiment(paper_claims.CLAIMS["fedcanon-floor-lambda"], "floor → 0 as λ → 0, ∝ (λB_r)²"),
    claim_experiment(paper_claims.CLAIMS["fedcanon-transient"], "running mean of ‖G‖² falls like 1/T"),
    claim_experiment(paper_claims.CLAIMS["fedcanon-heterogeneity"],
                     "floor independent of ζ (FedMiD-avg as negative control)"),
    group_experiment(paper_claims.GROUPS["fedcanon-floor-structure"]),
    claim_experiment(paper_claims.CLAIMS["fedcanon-pl-linear"],
                     "the linear phase's rate does not vanish with R", _strongly_convex),
    group_experiment(paper_claims.GROUPS["fedcanon-pl-rate"]),
    claim_experiment(paper_claims.CLAIMS["svrg-contraction"], "SVRG's factor per epoch vs m: ≲ 1/(μhm) + hL"),
)

#: what each experiment that sweeps its own generator varies (named when it does not apply to a file)
_SWEEPS = {
    "fco-4.1-minibatch": "η_cKL", "fco-4.2-vs-4.1": "R around each instance's L²B/G²",
}
_ALL = tuple(dataclasses.replace(e, sweeps=_SWEEPS.get(e.name, e.sweeps)) for e in _ALL)
EXPERIMENTS: dict[str, Experiment] = {e.name: e for e in _ALL}


def not_a_claim(x) -> str:  # noqa: ANN001 - anything
    """The error for an entry of ``fcocheck_claims`` that is not a ``Claim``."""
    return (f"fcocheck_claims holds {type(x).__name__} {getattr(x, 'name', x)!r}; the rule is Claim objects "
            "(a ClaimGroup's claims are listed one by one)")


def register_claim(claim) -> Experiment:  # noqa: ANN001 - a verify.claim.Claim
    """A user's claim as an experiment: ``validate`` and the report run it by name, like the papers'.

    The claim is admitted first (``verify.claim_admit``: every rule, the design's size, every name it
    uses), so an invalid claim stops the command that loads it (exit 2) before anything runs; a second,
    different claim of the same name is refused (the first would have been replaced silently).
    """
    from fcocheck.verify.claim import InvalidClaimError
    from fcocheck.verify.claim_admit import admit
    from fcocheck.verify.claim_check import check_name

    check_name(getattr(claim, "name", None))
    old = EXPERIMENTS.get(claim.name)
    if old is not None and old.theorem != USER_CLAIM:
        raise InvalidClaimError(f"claim {claim.name!r} is a built-in study's name; the rule is a new name")
    if getattr(claim, "theorem", ""):
        raise InvalidClaimError(f"claim {claim.name!r}: theorem {claim.theorem!r}; the rule is empty for a "
                                "user's claim (a catalog theorem's claims are the papers')")
    definition = definition_digest(admit(claim))
    if old is not None and old.definition != definition:
        raise InvalidClaimError(f"two different claims are named {claim.name!r}; the rule is one claim per "
                                "name")
    exp = dataclasses.replace(claim_experiment(claim), definition=definition)
    EXPERIMENTS[claim.name] = exp
    return exp


def unregister_claim(claim) -> None:  # noqa: ANN001 - a verify.claim.Claim
    """Forget a user's claim registered by ``register_claim`` (a plugin refused after it was listed)."""
    exp = EXPERIMENTS.get(getattr(claim, "name", None))
    if exp is not None and exp.theorem == USER_CLAIM:
        del EXPERIMENTS[claim.name]


def _claims() -> None:
    from fcocheck.solvers.card import plugins

    for claim in plugins.CLAIMS:
        register_claim(claim)
    plugins._ON_CLAIM.append(register_claim)
    plugins._ON_UNCLAIM.append(unregister_claim)


_claims()


def select(name: str) -> list[Experiment]:
    """``all``, one experiment, or every experiment of one theorem (users' claims included)."""
    if name == "all":
        return list(EXPERIMENTS.values())
    if name in EXPERIMENTS:
        return [EXPERIMENTS[name]]
    chosen = [e for e in EXPERIMENTS.values() if e.theorem == name]
    if not chosen:
        raise KeyError(
            f"validate {name!r}: the rule is 'all', a theorem "
            f"({sorted({e.theorem for e in EXPERIMENTS.values()})}) or an "
            f"experiment ({sorted(EXPERIMENTS)})"
        )
    return chosen


__all__ = ["EXPERIMENTS", "Experiment", "Result", "select"]
