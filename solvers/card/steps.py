"""The pieces a method card is made of: a client step, server transforms, and a server apply.

Each piece is written once, over abstract vectors, through an ``Ops`` that supplies the maps of the
problem: numpy arrays batched over clients in the engine, one client's vector in the written-out
reference, PEPit points in the worst-case program.  The same arithmetic therefore *is* each form of
the method; nothing is restated.

    client step   x ← step(x, g)          e.g. ``Mirror(prox=True)``: ∇(h + η_cψ)*(∇h(x) − η_c g)
                  z ← z − η_c g(x(z))     a dual step (``DualStep``): the client holds a dual point z and
                                          queries at x = ∇(h + η̃ψ)*(z) (FedDualAvg, FCO Alg. 3)
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

from fcocheck.solvers.algorithms.base import eta_tilde
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

    def weights(self, hp: Any, rounds: int) -> list[float]:
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

    def weights(self, hp: Any, rounds: int) -> list[float]:
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

    def weights(self, hp: Any, rounds: int) -> list[float]:
        """η_c when the step applies ψ."""
        return [getattr(hp, self.eta)] if self.prox else []


@dataclass(frozen=True)
class Corrected:
    """x ← x − η (g + e): a gradient step corrected by the client's memory (SCAFFOLD: e = c − c_i).

    e is fixed over the round (``memory.correction``; ``None`` while the memory is zero); g averages
    ``batch`` oracle queries at x (a minibatch of b; one query with the exact oracle is the same).
    """

    eta: str = "eta_l"
    batch: str = "b"
    prox_cost: int = 0
    subgrad_cost: int = 0
    uses_h: bool = False
    text: str = "x − η_l (g + c − c_i)"

    def __call__(self, x: Vec, g: Vec, hp: Any, ops: Ops, e: Vec | None = None) -> Vec:
        """One step."""
        return x - getattr(hp, self.eta) * (g if e is None else g + e)

    @property
    def reads(self) -> tuple[str, ...]:
        """The step and the batch."""
        return (self.eta, self.batch)

    def compiled(self, h: Any, psi: Any, dim: int) -> MapSpec | None:
        """No compiled form (the engine's corrected loop: ``control.corrected_local``)."""
        return None

    def weights(self, hp: Any, rounds: int) -> list[float]:
        """None."""
        return []


@dataclass(frozen=True)
class DualStep:
    """z ← z − η g at x = ∇(h + η̃_{r,k}ψ)*(z) (``prox``: FedDualAvg, FCO Alg. 3) or ∇h*(z) (FedDualAvg-OSP).

    The client's state is a dual point.  η̃_{r,k} = η_s η_c r K + η_c k (FCO Alg. 3 line 8) is the weight
    ψ has accumulated by local step k of round r: the clients' query points use it when ``prox``, the
    primal images of the dual shadow that make up ŵ (eq. 4.2) always do, and the server's primal point
    uses η̃_{r+1,0} (``DualAdd``).  A card with a dual step runs on the engine's dual local pass
    (``primitives.dual_local``), which takes exactly this step, z − η_c g, vectorised over clients.
    """

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
        return "z − η_c g(∇(h + η̃_{r,k}ψ)*(z))" if self.prox else "z − η_c g(∇h*(z))"

    @property
    def reads(self) -> tuple[str, ...]:
        """η_c, and η_s and K through η̃."""
        return (self.eta, "eta_s", "local_steps")

    def tilde(self, hp: Any, r: int, k: int) -> float:
        """η̃_{r,k} (``base.eta_tilde``: the engine's and every form's one schedule)."""
        return eta_tilde(hp.eta_s, getattr(hp, self.eta), r, hp.local_steps, k)

    def query(self, z: Vec, t: float, ops: Ops) -> Vec:
        """The point where the client's gradient is taken: ∇(h + tψ)*(z), or ∇h*(z) without ψ."""
        return ops.prox(z, t) if self.prox else ops.conj(z)

    def __call__(self, z: Vec, g: Vec, hp: Any, ops: Ops) -> Vec:
        """One step (g taken at ``query``)."""
        return z - getattr(hp, self.eta) * g

    def compiled(self, h: Any, psi: Any, dim: int) -> MapSpec | None:
        """``query``'s map: S_{η̃λ} (Euclidean h, ψ ∈ {0, λ‖·‖₁}) or ∇h* (Euclidean: identity), else None."""
        return map_spec(h, psi, dim) if self.prox else conj_spec(h, dim)

    def weights(self, hp: Any, rounds: int) -> list[float]:
        """The clients' largest ψ-weight η̃_{R−1,K−1} if the query applies ψ (ŵ's, the server's: the card)."""
        return [self.tilde(hp, max(rounds, 1) - 1, hp.local_steps - 1)] if self.prox else []


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
    """v ← β v + u, then u ← v (heavy-ball momentum buffer, zero at the start; optax ``trace``).

    ``nesterov``: u ← u + β v after the buffer's update instead (Nesterov momentum: the step looks ahead
    along the new buffer; optax ``trace(nesterov=True)``).  At K = 1 with every client and exact
    gradients, FedAvg with this server is Nesterov's accelerated gradient with step η_s η_c (the
    ``nesterov`` registry entry), as the plain buffer gives heavy ball.
    """

    decay: str = "beta"
    nesterov: bool = False

    @property
    def reads(self) -> tuple[str, ...]:
        """The hyper-parameters this piece reads."""
        return (self.decay,)

    @property
    def text(self) -> str:
        """In symbols."""
        b = _symbol(self.decay)
        return f"v ← {b}v + u; u ← u + {b}v" if self.nesterov else f"v ← {b}v + u; u ← v"

    def update(self, u: Vec, v: Any, hp: Any) -> tuple[Vec, Any]:
        """The buffer is the transform's state."""
        beta = getattr(hp, self.decay)
        v = u if v is None else beta * v + u
        return (u + beta * v if self.nesterov else v), v


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

    def weights(self, hp: Any, rounds: int) -> list[float]:
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

    def weights(self, hp: Any, rounds: int) -> list[float]:
        """T when weighted."""
        return [] if self.weight is None else [self.weight(hp)]


@dataclass(frozen=True)
class DualAdd:
    """z ← z + u, then w = ∇(h + tψ)*(z) with t = η̃_{r+1,0} = η_s η_c (r+1) K (FCO Alg. 3 lines 12–13).

    The server of a card with a ``DualStep``: its state is the dual point z, its output the primal w.
    """

    prox_cost: int = 1
    uses_h: bool = True
    text: str = "z + u; w = ∇(h + η_sη_c(r+1)Kψ)*(z)"
    reads: tuple[str, ...] = ("eta_s", "eta_c", "local_steps")

    def __call__(self, z: Vec, u: Vec, t: float, ops: Ops) -> tuple[Vec, Vec]:
        """(z_{r+1}, w_{r+1}) from z_r, the transformed update u and t = η̃_{r+1,0}."""
        z = z + u
        return z, ops.prox(z, t)

    def weights(self, hp: Any, rounds: int) -> list[float]:
        """None beyond the card's η̃_{R,0} (the card knows the schedule: ``Card.hyper``)."""
        return []


def _symbol(name: str) -> str:
    from fcocheck.solvers.readable import readable_name

    return readable_name(name)
