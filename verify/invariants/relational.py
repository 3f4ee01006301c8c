"""Relations of ``verify.relations`` as invariants of the registry's methods.

* client split: for every method whose round at K = 1 sees the clients only through
  ∇F = Σ p_m ∇F_m, splitting one client's rows into two clients with weights n_m/n leaves the
  iterates unchanged (on an instance with unequal client sizes, so uniform weights or an
  unweighted average fail);
* zero-weight client: for every federated method without client-indexed randomness, a client of
  weight 0 holding arbitrary data changes nothing.
"""

from __future__ import annotations

from hypothesis import strategies as st

import fcocheck.verify.relations as rel
from fcocheck.solvers import algorithms
from fcocheck.verify.invariants.base import Invariant, guarded
from fcocheck.verify.optimum import optimum
from fcocheck.verify.strategies import Case, instance_specs


@st.composite
def split_cases(draw, name: str) -> Case:
    """Instances with ≥ 2 clients of ≥ 2 rows, the method's hyper-parameters (K is set to 1)."""
    from fcocheck.solvers.smoothness import sample_smoothness
    from fcocheck.verify.cases import build
    from fcocheck.verify.hyper import hyper_strategy

    spec = draw(instance_specs("general", ("zero", "l2sq", "l1"), min_clients=2).filter(lambda s: s.n >= 2))
    alg = algorithms.get(name)
    hp = draw(hyper_strategy(alg, optimum(spec).L_max, sample_smoothness(build(spec))))
    return Case(spec, hp)


def _relation(relation: str, name: str, case: Case):
    return getattr(rel, relation)(algorithms.get(name), case)


def _invariants(prefix: str, citation: str, statement: str, relation: str, names: list[str]) -> tuple:
    """One invariant per registry method: ``verify.relations.<relation>`` on its own cases."""
    return tuple(
        Invariant(
            f"{prefix}-{name}",
            citation,
            statement.format(name=name),
            (name,),
            "holds",
            lambda n=name: split_cases(n),
            guarded(f"{prefix}-{name}", lambda c, n=name: _relation(relation, n, c)),
        )
        for name in names
    )


INVARIANTS = _invariants(
    "client-split", "FO16 eq. (8) (p_m = n_m/n)",
    "{name} at K = 1: one client split in two (weights n_m/n) leaves the iterates unchanged", "client_split",
    sorted(n for n, a in algorithms.ALGORITHMS.items() if a.split_invariant),
) + _invariants(
    "zero-weight", "FO16 eq. (8) (p_m = n_m/n); FCO eq. (1.1)",
    "{name}: a client of weight 0 with arbitrary data leaves the iterates unchanged", "zero_weight_client",
    sorted(n for n, a in algorithms.ALGORITHMS.items()
           if a.family == "federated" and not (a.client_randomness or a.counts_nodes)),
)
