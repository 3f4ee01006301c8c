"""The pieces a method card is made of: a client step, server transforms, and a server apply.

Each piece is written once, over abstract vectors, through an ``Ops`` that supplies the maps of the
problem: numpy arrays batched over clients in the engine, one client's vector in the written-out
reference, PEPit points in the worst-case program.  The same arithmetic therefore *is* each form of
the method; nothing is restated.

    client step   x ← step(x, g)          e.g. ``Mirror(prox=True)``: ∇(h + η_cψ)*(∇h(x) − η_c g)
    server        u ← chain(Δ)            e.g. ``Trace("beta"), Scale("eta_s")``: v ← βv + Δ; u = η_s v
    apply         w ← apply(w, u)         e.g. ``Add()``: w + u;  ``MirrorAdd(weight)``: ∇(h + tψ)*(∇h(w) + u)

Transforms follow optax's ``init``/``update`` pair: ``update(u, state, hp) -> (u', state')``; a state
starts as ``None`` (the zero vector, for every form: numpy and PEPit alike).  Each piece also states
what it costs (maps involving ψ, subgradients) and, where the engine's compiled pass can run it, its
``MapSpec``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from fcocheck.solvers.algorithms.fused_steps import IDENTITY, MapSpec, conj_spec, map_spec

Vec = Any  # a numpy array (one row per client, or one vector) or a PEPit point


class Ops(Protocol):
    """The problem's maps, for one form of a method (numpy batched, numpy single, PEPit)."""

    def mirror(self, x: Vec) -> Vec:
        """∇h(x)."""

    def conj(self, v: Vec) -> Vec:
        """∇h*(v)."""

    def prox(self, v: Vec, t: float) -> Vec:
        """∇(h + tψ)*(v) (prox_{tψ}(v) for Euclidean h)."""

    def subgrad(self, x: Vec) -> Vec:
        """One subgradient of ψ at x."""


# --- client steps: x ← step(x, g, hp, ops) -------------------------------------------------------
@dataclass(frozen=True)
class Gradient:
    """x ← x − η g (plain SGD: ignores h and ψ; FedAvg, FCO Alg. 1)."""

    eta: str = "eta_c"
    prox_cost: int = 0
    subgrad_cost: int = 0
    uses_h: bool = False
    text: str = "x − η_c g"

    def __call__(self, x: Vec, g: Vec, hp: Any, ops: Ops) -> Vec:
        """One step."""
        return x - getattr(hp, self.eta) * g

    @property
    def reads(self) -> tuple[str, ...]:
        """The hyper-parameters this piece reads."""
        return (self.eta,)

    def compiled(self, h: Any, psi: Any, dim: int) -> MapSpec | None:
        """The identity map after x − η g (every h: the step ignores it)."""
        return MapSpec(IDENTITY, 0.0, dim)

    def weights(self, hp: Any) -> list[float]:
        """ψ-weights this step passes to a prox: none."""
        return []


@dataclass(frozen=True)
class Subgradient:
    """x ← x − η (g + s), s ∈ ∂ψ(x) (FedAvg(∂), FCO Fig. 1)."""

    eta: str = "eta_c"
    prox_cost: int = 0
    subgrad_cost: int = 1
    uses_h: bool = False
    text: str = "x − η_c (g + ∂ψ(x))"

    def __call__(self, x: Vec, g: Vec, hp: Any, ops: Ops) -> Vec:
        """One step."""
        return x - getattr(hp, self.eta) * (g + ops.subgrad(x))

    @property
    def reads(self) -> tuple[str, ...]:
        """The hyper-parameters this piece reads."""
        return (self.eta,)

    def compiled(self, h: Any, psi: Any, dim: int) -> MapSpec | None:
        """No compiled form (a subgradient of every ψ)."""
        return None

    def weights(self, hp: Any) -> list[float]:
        """None."""
        return []


@dataclass(frozen=True)
class Mirror:
    """x ← ∇(h + tψ)*(∇h(x) − η g) with t = η (``prox``, FedMiD, FCO Alg. 2) or ∇h* (FedMiD-OSP)."""

    prox: bool = True
    eta: str = "eta_c"
    uses_h: bool = True
    subgrad_cost: int = 0

    @property
    def prox_cost(self) -> int:
        """One map involving ψ per step when ``prox``."""
        return int(self.prox)

    @property
    def text(self) -> str:
        """The step in symbols."""
        return "∇(h + η_cψ)*(∇h(x) − η_c g)" if self.prox else "∇h*(∇h(x) − η_c g)"

    def __call__(self, x: Vec, g: Vec, hp: Any, ops: Ops) -> Vec:
        """One step."""
        eta = getattr(hp, self.eta)
        v = ops.mirror(x) - eta * g
        return ops.prox(v, eta) if self.prox else ops.conj(v)

    @property
    def reads(self) -> tuple[str, ...]:
        """The hyper-parameters this piece reads."""
        return (self.eta,)

    def compiled(self, h: Any, psi: Any, dim: int) -> MapSpec | None:
        """S_{η_cλ} (Euclidean h, ψ ∈ {0, λ‖·‖₁}) or the identity (Euclidean ∇h*), else None."""
        return map_spec(h, psi, dim) if self.prox else conj_spec(h, dim)

    def weights(self, hp: Any) -> list[float]:
        """η_c when the step applies ψ."""
        return [getattr(hp, self.eta)] if self.prox else []


# --- server transforms on the aggregated update: (u, state) ← update(u, state, hp) -----------------
@dataclass(frozen=True)
class Scale:
    """u ← η u (η the hyper-parameter ``by``; optax ``scale``)."""

    by: str = "eta_s"

    @property
    def reads(self) -> tuple[str, ...]:
        """The hyper-parameters this piece reads."""
        return (self.by,)

    @property
    def text(self) -> str:
        """In symbols."""
        return f"{_symbol(self.by)}·u"

    def update(self, u: Vec, state: Any, hp: Any) -> tuple[Vec, Any]:
        """Stateless."""
        return getattr(hp, self.by) * u, state


@dataclass(frozen=True)
class Trace:
    """v ← β v + u, then u ← v (heavy-ball momentum buffer, zero at the start; optax ``trace``)."""

    decay: str = "beta"

    @property
    def reads(self) -> tuple[str, ...]:
        """The hyper-parameters this piece reads."""
        return (self.decay,)

    @property
    def text(self) -> str:
        """In symbols."""
        return f"v ← {_symbol(self.decay)}v + u; u ← v"

    def update(self, u: Vec, v: Any, hp: Any) -> tuple[Vec, Any]:
        """The buffer is the transform's state."""
        v = u if v is None else getattr(hp, self.decay) * v + u
        return v, v


# --- server apply: w ← apply(w, u, hp, ops) --------------------------------------------------------
@dataclass(frozen=True)
class Add:
    """w ← w + u (FedAvg's server, FCO Alg. 1 line 10)."""

    prox_cost: int = 0
    uses_h: bool = False
    text: str = "w + u"
    reads: tuple[str, ...] = ()

    def __call__(self, w: Vec, u: Vec, hp: Any, ops: Ops) -> Vec:
        """One server step."""
        return w + u

    def weights(self, hp: Any) -> list[float]:
        """None."""
        return []


@dataclass(frozen=True)
class Weight:
    """A ψ-weight as a function of the hyper-parameters, with its symbols."""

    text: str
    fn: Callable[[Any], float]
    reads: tuple[str, ...] = ()

    def __call__(self, hp: Any) -> float:
        """Its value."""
        return self.fn(hp)


#: FedMiD's server weight η_s η_c K (FCO Alg. 2 line 10)
FEDMID_SERVER = Weight("η_s η_c K", lambda hp: hp.eta_s * hp.eta_c * hp.local_steps,
                       ("eta_s", "eta_c", "local_steps"))


@dataclass(frozen=True)
class MirrorAdd:
    """w ← ∇(h + tψ)*(∇h(w) + u), t = ``weight(hp)`` (None: ∇h*, no ψ at the server)."""

    weight: Weight | None = None
    uses_h: bool = True

    @property
    def reads(self) -> tuple[str, ...]:
        """The hyper-parameters this piece reads."""
        return () if self.weight is None else self.weight.reads

    @property
    def prox_cost(self) -> int:
        """One server map involving ψ when weighted."""
        return int(self.weight is not None)

    @property
    def text(self) -> str:
        """In symbols."""
        return "∇h*(∇h(w) + u)" if self.weight is None else f"∇(h + {self.weight.text} ψ)*(∇h(w) + u)"

    def __call__(self, w: Vec, u: Vec, hp: Any, ops: Ops) -> Vec:
        """One server step."""
        v = ops.mirror(w) + u
        return ops.conj(v) if self.weight is None else ops.prox(v, self.weight(hp))

    def weights(self, hp: Any) -> list[float]:
        """T when weighted."""
        return [] if self.weight is None else [self.weight(hp)]


_SYMBOLS = {"eta_s": "η_s", "eta_c": "η_c", "beta": "β", "eta": "η", "eta_g": "η_g"}


def _symbol(name: str) -> str:
    return _SYMBOLS.get(name, name)
