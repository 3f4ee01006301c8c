"""A claim's worst case: the same bound against the method's PEP over the claim's function class.

A claim ``Φ(ŵ) − Φ* ≲ b(R)`` over a class is a statement about *every* instance of it; the instances
the claim draws are a sample, the performance-estimation problem (PEP) is the supremum.  Where the
method has a PEP form (a card's steps on PEPit points, or a built-in program) and the claim's class
has a PEP counterpart, the worst case W(R) is solved for R = 1 … R_max and the bound is judged by the
rule the worst-case tables use (``rates.worstcase.tightness``, relation ≲): the smallest constant
W(R)/b(R) must not keep growing in R.  The constant ``c_max`` is the sharpest constant the class allows
on that window.

The class's PEP counterpart (``pep_class``): for ``quadratics`` with a common Hessian, F is a convex
quadratic with spectrum in [μ, L], the clients its shifts F_m = F + ⟨c_m, ·⟩ with Σ c_m = 0 and
‖c_m‖₂ ≤ ζ (the generator bounds the dual norm √(L·cᵀQ⁻¹c) ≥ ‖c‖₂ by ζ, so its instances are in the
class), ψ any closed convex function when λ > 0 (ℓ1 is one), B = max over the drawn instances of
½‖w₀ − w*‖².  The PEP has M = 2 clients: a symmetric method with full participation does on M = 2
what it does on 2j clients in j copies, so W is a lower bound on the worst case over the claim's M
clients — a growing W(R)/b(R) falsifies the claim over the class as stated.  Other classes (a loss
with data, heterogeneous Hessians, a non-Euclidean mirror) have no PEP counterpart here: the worst
case then *does not apply* and says which.

For a μ-strongly convex class the worst case on R ≤ R_max only speaks for the claim when R_max reaches
the class's contraction time 1/(η_s η_c μ K) (``contraction_time``); otherwise it does not apply.

Only the averaged output is a PEP metric (``measure = gap_avg``: the card programs return the average
of the server iterates, as the engine's ŵ).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fcocheck.rates.verdict import NOT_APPLICABLE, Verdict

#: the PEPs are over M = 2 clients (module docstring)
PEP_CLIENTS = 2
#: the longest R grid solved (R = 1 … R_MAX, further capped by the PEP's size limit)
R_MAX = 8
RULE = "worst case over the class (PEP)"


def pep_class(gen: str, params: dict[str, Any], B: float) -> dict[str, Any] | str:
    """The PEP class of a claim's problem class, or the reason there is none."""
    import inspect

    from fcocheck.solvers.generators.quadratic import quadratics

    if gen != "quadratics":
        return f"class {gen!r} has no PEP counterpart here (the rule: quadratics with a common Hessian)"
    p = {k: v.default for k, v in inspect.signature(quadratics).parameters.items()} | dict(params)
    if p["hessian_spread"] or p["ball"] or p["mirror"] != "euclidean":
        return "heterogeneous Hessians, a ball constraint or a non-Euclidean mirror: no PEP counterpart here"
    return {"quadratic": True, "clients": "shift", "L": float(p["L"]), "mu": float(p["mu"]),
            "zeta": float(p["zeta"]), "psi": "convex" if p["lam"] > 0 else "zero", "B": float(B)}


def contraction_time(mu: float, eta: float, eta_s: float, K: int) -> float:
    """1/(η_s η_c μ K): the rounds a μ-strongly convex class needs before its rate shows (∞ for μ = 0).

    On a shorter window the worst case is the convex one (the iterates have not contracted), so a ratio
    growing there does not contradict a bound that holds after it; the worst case then does not apply.
    A convex class (μ = 0) has no such scale: its worst case is homogeneous in R.
    """
    return 0.0 if mu == 0 else 1.0 / (eta_s * eta * mu * K)


def pep_specs(c: Any, B: float) -> list[Any] | str:
    """The PEPs of claim ``c`` (one per R), or the reason the worst case does not apply."""
    from fcocheck.rates.worstcase.methods import METHODS
    from fcocheck.rates.worstcase.spec import MAX_CLIENT_STEPS, PepSpec
    from fcocheck.verify.claim import AT_MOST, CROSSOVER, IDENTITY, LOWER, method_name

    name = method_name(c)
    if c.sense == LOWER:
        return f"sense {LOWER}: the worst case over the class (a supremum) bounds the measure from above only"
    if c.sense == IDENTITY:
        return f"sense {IDENTITY}: an identity holds on every instance; there is no rate to bound"
    if c.sense == CROSSOVER:
        return f"sense {CROSSOVER}: a crossover compares two runs on each instance; there is no rate to bound"
    if c.sense == AT_MOST:
        return (f"sense {AT_MOST}: an inequality with every constant 1 on the runs it measures (its terms "
                "may be measured on them); a worst case over the class is a target of its own (worstcase)")
    if c.along[0] != "rounds" or c.measure != "gap_avg":
        return f"the claim sweeps {c.along[0]!r} and measures {c.measure!r}; the rule is rounds and gap_avg"
    if name not in METHODS:
        return f"{name} has no PEP form (a card, or a built-in PEP program)"
    if c.oracle != "exact":
        return f"oracle {c.oracle!r}; the PEP is for exact gradients"
    cls = pep_class(c.problem[0], dict(c.problem[1]), B)
    if isinstance(cls, str):
        return cls
    if METHODS[name].smooth_only and cls["psi"] != "zero":
        return f"{name} has no step for ψ and the class has λ > 0 (the rule: lam = 0 for a ψ-free method)"
    from fcocheck.verify.claim_expr import is_expression, own_constants

    tuned = sorted(k for k, v in c.hp.items() if is_expression(v))
    if tuned:
        return f"hyper-parameters {tuned} are expressions (set per instance); the PEP needs numbers"
    if own_constants(c):
        return "the bound names the instance's own constants; the worst case is over the class (state them)"
    hp = dict(c.hp)
    K = int(hp.pop("local_steps", 1))
    eta, eta_s = float(hp.pop("eta_c", 0.1)), float(hp.pop("eta_s", 1.0))
    top = min(R_MAX, MAX_CLIENT_STEPS // (PEP_CLIENTS * K))
    if top < 3:
        return f"K = {K}: at most {top} rounds fit the PEP's size limit; the rule is ≥ 3 rounds"
    T = contraction_time(cls["mu"], eta, eta_s, K)
    if top < T:
        return (f"the PEP reaches R = {top}, shorter than the class's contraction time 1/(η_sη_cμK) = "
                f"{T:.3g}: its worst cases there are the convex regime's, not the claim's (a larger η_cμK "
                "brings it in)")
    extra = tuple(sorted(hp.items()))
    return [PepSpec(name, M=PEP_CLIENTS, K=K, R=R, eta=eta, eta_s=eta_s, extra=extra, **cls)
            for R in range(1, top + 1)]


def worst_case(c: Any, B: float) -> tuple[Verdict, list[dict[str, Any]]]:
    """The claim's worst-case verdict and its rows (R, W(R), b(R), W/b) — module docstring."""
    from fcocheck.rates.worstcase.solve import worst_case as solve
    from fcocheck.rates.worstcase.tightness import tightness_verdict
    from fcocheck.verify.claim_expr import evaluate_bound

    specs = pep_specs(c, B)
    if isinstance(specs, str):
        return Verdict(NOT_APPLICABLE, RULE, specs), []
    b = evaluate_bound(c, [s.R for s in specs])
    rows = []
    for s, bound in zip(specs, b, strict=True):
        w = solve(s)
        rows.append({"R": s.R, "K": s.K, "worst": w.value, "bound": float(bound), "status": w.status,
                     "ratio": w.value / bound if np.isfinite(w.value) else float("nan")})
    v = tightness_verdict("lesssim", rows)
    cls = ", ".join(f"{k} {v}" for k, v in specs[0].as_dict().items()
                    if k in ("L", "mu", "zeta", "psi", "B", "M", "K", "eta", "eta_s"))
    return Verdict(v.status, RULE, f"{v.reason} (class: {cls}; R = 1…{specs[-1].R})",
                   {**v.evidence, "rows": rows}), rows
