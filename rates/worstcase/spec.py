"""One worst-case computation, stated as a value, and the rules it must obey.

The function class (all Euclidean: h = ½‖·‖², so ∇(h + tψ)* = prox_{tψ} and B = D_h(w*, w0) =
½‖w0 − w*‖²):

* ``F`` L-smooth convex (``quadratic``: a convex quadratic, the class of FCO Assumption 2);
  ``mu > 0`` makes it μ-strongly convex (sequential methods, or federated ones on the shift class);
* ``psi`` ``"convex"`` (any closed convex ψ, possibly an indicator) or ``"zero"``;
* heterogeneity, named by ``clients``:

  - ``"shift"``: F_m = F + ⟨c_m, ·⟩ with Σ_m c_m = 0 and ‖c_m‖ ≤ ζ, so ‖∇F_m(x) − ∇F(x)‖ = ‖c_m‖ ≤ ζ
    at **every** x — FCO Assumption 2(a) read as ‖∇F_m − ∇F‖² ≤ ζ² (with ``quadratic``: exactly
    the quadratic-with-common-Hessian case);
  - ``"bounded-gradient"``: every F_m is its own L-smooth convex function with ‖∇F_m‖ ≤ G
    everywhere (the class of FCO Thm 4.2);
  - ``"free"``: every F_m is its own L-smooth convex function, nothing else (worst cases of local
    steps can then be unbounded; that is recorded, not raised).
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import asdict, dataclass, replace
from typing import Any

from fcocheck.solvers.errors import FcocheckError

CLIENTS = ("shift", "bounded-gradient", "free")
PSI = ("convex", "zero")
METRICS = ("value", "distance", "lemma-4.4", "discrepancy")
NORMS = ("euclidean", "q")
#: The largest number of client gradient steps M·K·R one PEP may hold.  Measured here (2 cores,
#: CLARABEL, 2026-11-26, with one prox per point): FedDualAvg with composite ψ and shift clients takes
#: 1.2 s at M·K·R = 8 (M = 2), 3.1 s at 18 and 9.8 s at 24 — the SDP has O((M·K·R)²) interpolation
#: constraints, so the cap keeps a full grid's largest point near 10 s.
MAX_CLIENT_STEPS = 24


class InvalidWorstCaseError(FcocheckError):
    """A worst-case request breaks a rule (unknown method, grid too large, class PEPit cannot express)."""


@dataclass(frozen=True)
class PepSpec:
    """One PEP: a method, its parameters and the function class.

    Attributes:
        method: key of ``rates.worstcase.methods.METHODS``.
        M: clients; K: local steps; R: rounds (sequential methods: R steps, M = K = 1).
        eta: client step η_c (the step of a sequential method).
        eta_s: server step η_s (FedCanon: η_g).
        L: smoothness; mu: strong convexity (0: convex).
        B: D_h(w*, w0) = ½‖w0 − w*‖² (the initial condition is ½‖w0 − w*‖² ≤ B).
        zeta: the shift heterogeneity ζ (``clients="shift"``).
        G: the gradient bound (``clients="bounded-gradient"``).
        clients: how the clients differ (module docstring).
        psi: ``"convex"`` or ``"zero"``.
        quadratic: F a convex quadratic (Assumption 2) instead of any L-smooth convex F.
        metric: ``value`` Φ(out) − Φ*; ``distance`` ‖out − w*‖²; ``lemma-4.4`` Φ(ŵ) − Φ* minus the
            discrepancy overhead of Lemma 4.4; ``discrepancy`` (1/M)Σ_m‖z̄ − z^m‖² at the last local step.
        norm: ``euclidean``, or ``q`` — FCO Assumption 2 in its own norm ‖w‖²_Q = wᵀQw/‖Q‖₂ with a common
            Hessian: in the coordinates where h = ½‖·‖² every F_m = (L/2)‖w‖² + ⟨c_m, w⟩, ζ bounds
            ‖c_m − c̄‖ and the discrepancy is measured there (``discrepancy`` metric, shift class only).
        extra: the method's own hyper-parameters beyond the shared ones, as sorted (name, value) pairs
            (a card's β); part of the key only when not empty, so adding one to a method changes no
            stored worst case of the others.

    """

    method: str
    M: int = 2
    K: int = 1
    R: int = 1
    eta: float = 0.1
    eta_s: float = 1.0
    L: float = 1.0
    mu: float = 0.0
    B: float = 0.5
    zeta: float = 0.0
    G: float = 1.0
    clients: str = "shift"
    psi: str = "convex"
    quadratic: bool = False
    metric: str = "value"
    extra: tuple[tuple[str, float], ...] = ()
    norm: str = "euclidean"

    @property
    def key(self) -> str:
        """SHA-256 of the canonical JSON (the cache key in the results store)."""
        fields = asdict(self)
        if not self.extra:
            del fields["extra"]
        if self.norm == "euclidean":  # the default: keys stored before the field existed stay valid
            del fields["norm"]
        else:
            fields["extra"] = [list(kv) for kv in self.extra]
        return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:24]

    def as_dict(self) -> dict[str, Any]:
        """JSON form."""
        return asdict(self)

    def with_(self, **changes: Any) -> PepSpec:
        """A copy with ``changes``."""
        return replace(self, **changes)


def check_spec(spec: PepSpec, methods: dict[str, Any]) -> PepSpec:
    """Validate ``spec`` against its method and the size limit; return it unchanged.

    Raises:
        InvalidWorstCaseError: naming the value and the rule it breaks.

    """
    if spec.method not in methods:
        raise InvalidWorstCaseError(
            f"method {spec.method!r} is unknown; the rule is one of {sorted(methods)}"
        )
    for name in ("M", "K", "R"):
        val = getattr(spec, name)
        if not isinstance(val, int) or isinstance(val, bool) or val < 1:
            raise InvalidWorstCaseError(f"{name} = {val!r}; the rule is an integer ≥ 1")
    for name in ("eta", "eta_s", "L", "B"):
        _positive(name, getattr(spec, name))
    for name in ("mu", "zeta", "G"):
        val = getattr(spec, name)
        if not (isinstance(val, int | float) and math.isfinite(val) and val >= 0):
            raise InvalidWorstCaseError(f"{name} = {val!r}; the rule is a finite number ≥ 0")
    if spec.mu >= spec.L:
        raise InvalidWorstCaseError(f"mu = {spec.mu} ≥ L = {spec.L}; the rule is 0 ≤ μ < L")
    _choice("clients", spec.clients, CLIENTS)
    _choice("psi", spec.psi, PSI)
    _choice("metric", spec.metric, METRICS)
    _choice("norm", spec.norm, NORMS)
    if spec.norm == "q" and (spec.clients != "shift" or spec.metric != "discrepancy"):
        raise InvalidWorstCaseError(
            f"norm 'q' with clients = {spec.clients!r}, metric = {spec.metric!r}; the rule is the shift "
            "class and the discrepancy metric (Assumption 2 in its own norm: F_m = (L/2)‖w‖² + ⟨c_m, w⟩)")
    steps = spec.M * spec.K * spec.R
    if steps > MAX_CLIENT_STEPS:
        raise InvalidWorstCaseError(
            f"M·K·R = {spec.M}·{spec.K}·{spec.R} = {steps} client steps; the rule is ≤ {MAX_CLIENT_STEPS} "
            "(the SDP grows as (M·K·R)²: measured ~10 s at 18 and ~9 min at 32 on 2 cores)"
        )
    methods[spec.method].check(spec)
    return spec


def _positive(name: str, val: Any) -> None:
    if not (isinstance(val, int | float) and not isinstance(val, bool) and math.isfinite(val) and val > 0):
        raise InvalidWorstCaseError(f"{name} = {val!r}; the rule is a finite number > 0")


def _choice(name: str, val: Any, allowed: tuple[str, ...]) -> None:
    if val not in allowed:
        raise InvalidWorstCaseError(f"{name} = {val!r}; the rule is one of {list(allowed)}")
