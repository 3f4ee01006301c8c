"""A client memory: state each client keeps between rounds, with its server-side counterpart.

A card with a memory (``Card(memory=...)``) corrects its client step by ``correction(c_i, c)`` (fixed
over the round), updates each sampled client's memory after its K local steps from x to y_i, and moves
the server's part by the clients' weighted change.  Every function works on numpy arrays (one row per
client, or one vector) and on PEPit points alike; a state of ``None`` is the zero vector (PEPit has no
zero point to start from), so each function accepts it where a state may still be zero.

    Controls("eta_l")   SCAFFOLD, option II (Karimireddy et al. 2020, Alg. 1): correction c − c_i;
                        c_i⁺ = c_i − c + (x − y_i)/(K η_l); c ← c + Σ_{i∈S} p_i (c_i⁺ − c_i)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

Vec = Any


def _minus(a: Vec | None, b: Vec | None) -> Vec | None:
    """A − b with ``None`` the zero vector."""
    if b is None:
        return a
    return -b if a is None else a - b


@dataclass(frozen=True)
class Controls:
    """SCAFFOLD's control variates (option II): each client's c_i and the server's c, zero at the start.

    Communication per sampled client: Δc_i up and c down, besides the model (``floats``: one more vector
    each way).  After every round c = Σ_i p_i c_i (p the clients' weights; uniform: the paper's
    (1/N) Σ_{i∈S}), also under client sampling: the engine logs the gap as ``control_gap``.
    """

    eta: str = "eta_l"
    floats: int = 1
    text: str = "c_i⁺ = c_i − c + (x − y_i)/(Kη_l); c ← c + Σ_{i∈S} p_i(c_i⁺ − c_i)"
    extra_key: str = "control_gap"

    @property
    def reads(self) -> tuple[str, ...]:
        """η_l and K (the control update divides by Kη_l)."""
        return (self.eta, "local_steps")

    def init(self, M: int, dim: int) -> tuple[np.ndarray, np.ndarray]:
        """(c_i for every client (M, dim), c): zero."""
        return np.zeros((M, dim)), np.zeros(dim)

    def correction(self, ci: Vec | None, c: Vec | None) -> Vec | None:
        """C − c_i, added to each local gradient of the round."""
        return _minus(c, ci)

    def update(self, ci: Vec | None, c: Vec | None, x: Vec, y: Vec, hp: Any) -> Vec:
        """c_i⁺ = c_i − c + (x − y_i)/(K η) after K local steps from x to y_i."""
        step = (x - y) / (hp.local_steps * getattr(hp, self.eta))
        base = _minus(ci, c)
        return step if base is None else base + step

    def server(self, c: Vec | None, change: Vec) -> Vec:
        """C + Σ_{i∈S} p_i (c_i⁺ − c_i) (``change``: that weighted sum)."""
        return change if c is None else c + change

    def at_optimum(self, client_grads: np.ndarray, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The fixed point at w*: c_i = ∇F_i(w*), c = ∇F(w*) (so c − c_i cancels client drift)."""
        return client_grads.copy(), grad.copy()

    def residual(self, C: np.ndarray, c: np.ndarray, weights: np.ndarray) -> float:
        """‖c − Σ_i p_i c_i‖ (zero after every round)."""
        return float(np.linalg.norm(c - weights @ C))
