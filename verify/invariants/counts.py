"""Oracle calls and floats communicated, per round, against each method's definition.

Written here from the algorithms' definitions (and FedCanon's Table III: FedCanon one
prox per round at the server, FedCanon II one per client), independently of
the code that counts them (a method card's counts are stated once, on its pieces, and checked against
the calls its steps make: ``verify.invariants.cards``).  S = clients sampled, M = all clients,
K = local steps, d = model size:

| method | gradients | client maps | server maps | floats up | floats down |
|---|---|---|---|---|---|
| fedcanon | SK | 0 | 1 | Sd | 2Sd (x and g) |
| fedcanon2 | SK | M | 0 | Sd | Md (g to every client) |
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from fcocheck.verify.cases import build
from fcocheck.verify.evidence import Evidence, bounded
from fcocheck.verify.invariants.base import Invariant, guarded, trace_of
from fcocheck.verify.optimum import optimum
from fcocheck.verify.strategies import Case, instance_specs

ROUNDS = 3
KEYS = ("grad_calls", "prox_calls_client", "prox_calls_server", "floats_up", "floats_down")
# per round: (gradients, client maps, server maps, floats up, floats down) as functions of (S, M, K, d)
EXPECTED = {
    "fedcanon": lambda S, M, K, d: (S * K, 0, 1, S * d, 2 * S * d),
    "fedcanon2": lambda S, M, K, d: (S * K, M, 0, S * d, M * d),
}
_STEP = {"fedcanon": "eta_l", "fedcanon2": "eta_l"}


@st.composite
def count_cases(draw, name: str) -> Case:
    """Any ψ, K ∈ 1..4, any sampling; a small safe step (counts do not depend on it)."""
    spec = draw(instance_specs("general", ("zero", "l1"), min_clients=1))
    L = optimum(spec).L_max
    K = draw(st.integers(1, 4))
    hp = {_STEP.get(name, "eta_c"): 0.1 / L, "local_steps": K}
    if name.startswith("fedcanon"):
        hp["eta_g"] = 0.1 * K / L
    S = draw(st.integers(1, spec.M))
    return Case(
        spec, hp, oracle="exact", seed=draw(st.integers(0, 50)), participation=None if S == spec.M else S
    )


def count_residual(name: str, case: Case) -> Evidence:
    """Max |logged − defined| per-round increment over the five counters."""
    t = trace_of(name, case, ROUNDS)
    p = build(case.spec)
    S = case.participation or p.M
    want = np.array(EXPECTED[name](S, p.M, case.hp["local_steps"], p.dim), dtype=float)
    got = np.array([np.diff(t[k]) for k in KEYS]).T  # (R, 5)
    bad = float(np.abs(got - want[None, :]).max())
    return bounded(
        f"counts-{name}",
        bad,
        0.0,
        f"{name}: per-round (grad, client maps, server maps, floats up, down) logged "
        f"{got[0].astype(int).tolist()} "
        f"vs defined {want.astype(int).tolist()} (rule: equal); {case.describe()}",
    )


INVARIANTS = tuple(
    Invariant(
        f"counts-{name}",
        "FCO Alg. 1–3; FedCanon Alg. 1–2 and Table III",
        f"{name}: gradient, prox/composite-map and communication counts per round as the method defines them",
        (name,),
        "holds",
        lambda n=name: count_cases(n),
        guarded(f"counts-{name}", lambda c, n=name: count_residual(n, c)),
    )
    for name in EXPECTED
)
