"""The FCO methods written out from FCO Alg. 1–3, one client at a time, against the registry's iterates.

The registry composes shared primitives (vectorised over clients); a slip in one of them (a server
weight, a composite-map step, η̃) moves every method that uses it, and the reductions at ψ = 0 cannot
see ψ's bookkeeping.  Here each method is written again from its definition, with a Python loop over
clients and local steps, exact gradients and full participation, at any ψ, K and η_s:

(The methods written as cards — FedAvg, FedMiD and their variants — get their written-out reference from
the card itself: ``verify.invariants.cards``.)

* FedDualAvg (Alg. 3): w^m_{r,k} = ∇(h + η̃_{r,k}ψ)*(z^m_{r,k}), z ← z − η_c g,
  z_{r+1} = z_r + η_s Σ_m p_m(z^m_K − z_r),
  w_{r+1} = ∇(h + η_sη_c(r+1)Kψ)*(z_{r+1}).
"""

from __future__ import annotations

import numpy as np

from fcocheck.solvers.composite import composite_map
from fcocheck.verify.cases import build
from fcocheck.verify.evidence import Evidence, bounded
from fcocheck.verify.invariants.base import IDENTITY_TOL, Invariant, guarded, relative, trace_of
from fcocheck.verify.invariants.logged import dual_cases
from fcocheck.verify.strategies import Case

ROUNDS = 3


def written_cases():
    """Any ψ, η_c ≤ 1/(2L), η_s ∈ {1, ½, 2}, K ∈ 1..4, exact gradients, every client."""
    return dual_cases(exact=True)


def _client_grads(p) -> list:
    """One gradient function per client (its own kernel, built once): w ↦ ∇F_m(w)."""
    kernels = [p.kernel.subset(np.array([m])) for m in range(p.M)]
    return [lambda w, k=k: k.grads(w[None, :])[0] for k in kernels]


def dual_reference(p, hp: dict, rounds: int) -> np.ndarray:
    """Server iterates of FedDualAvg, written out (η̃_{r,k} = η_sη_c rK + η_c k)."""
    h, psi, eta, eta_s, K = p.h, p.psi, hp["eta_c"], hp["eta_s"], hp["local_steps"]
    grad = _client_grads(p)
    z = h.grad(p.zero())
    out = [composite_map(h, psi, z, 0.0)]
    for r in range(rounds):
        delta = np.zeros_like(z)
        for m in range(p.M):
            zm = z.copy()
            for k in range(K):
                x = composite_map(h, psi, zm, eta_s * eta * r * K + eta * k)
                zm = zm - eta * grad[m](x)
            delta += p.weights[m] * (zm - z)
        z = z + eta_s * delta
        out.append(composite_map(h, psi, z, eta_s * eta * (r + 1) * K))
    return np.array(out)


def compare(name: str, got: np.ndarray, ref: np.ndarray, what: str) -> Evidence:
    """``written-NAME``: the registry's server iterates against the written-out ones (relative).

    A registry run that the engine stopped as diverged (‖w‖ beyond its explosion guard) has fewer
    rows than the written-out method, which has no guard: the rounds both have are compared, and
    the detail says so.
    """
    got, ref = np.asarray(got), np.asarray(ref)
    note = ""
    if got.shape[0] < ref.shape[0]:
        note = f"; the registry run stopped (diverged) after {got.shape[0] - 1} rounds: those compared"
        ref = ref[: got.shape[0]]
    resid = relative(got - ref, ref)
    return bounded(
        f"written-{name}",
        resid,
        IDENTITY_TOL,
        f"{name}: max relative difference from the method written out {resid:.2e} "
        f"(rule ≤ {IDENTITY_TOL:g}); {what}{note}",
    )


def written_residual(name: str, case: Case) -> Evidence:
    """FedDualAvg against its reference written out client by client."""
    p = build(case.spec)
    t = trace_of(name, case, ROUNDS)
    return compare(name, t["server_w"], dual_reference(p, case.hp, ROUNDS), case.describe())


INVARIANTS = tuple(
    Invariant(
        f"written-{name}",
        "FCO Alg. 2–3",
        f"{name}: the registry's iterates equal the method written out client by client, at any ψ, K, η_s",
        (name,),
        "holds",
        written_cases,
        guarded(f"written-{name}", lambda c, n=name: written_residual(n, c)),
    )
    for name in ("feddualavg",)
)
