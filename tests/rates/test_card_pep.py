"""A card's PEP program is the card's own steps: run on numbers, it gives the engine's iterates.

The worst-case program (``rates.worstcase.cards.program``) is executed with numeric vector operations
on a concrete 2-client instance (exact gradients, uniform weights, Euclidean h) and its output — the
average of the server iterates — compared with the engine's ŵ on the same instance.  A program that
drifted from the engine (a wrong average, a missing step, a server transform skipped) fails here,
and a second test shows that it does.  Then each card's worst case bounds a run of the engine on an
instance of the class (soundness).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from fcocheck.rates.worstcase.cards import SHARED, PepOps, program
from fcocheck.rates.worstcase.spec import PepSpec
from fcocheck.solvers.algorithms import CARDS
from fcocheck.solvers.composite import composite_map
from fcocheck.solvers.engine import run
from fcocheck.verify.worstcase import measured_instance, start_at


@dataclasses.dataclass
class NumericSetting:
    """What a program reads of a ``Setting``, on numbers: w0, client gradients, ψ's prox."""

    problem: object
    w0: np.ndarray
    psi: object = True

    def grad(self, m: int, x: np.ndarray) -> np.ndarray:
        return self.problem.kernel.subset(np.array([m])).grads(x[None, :])[0]


class NumericOps(PepOps):
    def prox(self, v, t):  # noqa: ANN001
        return composite_map(self.s.problem.h, self.s.problem.psi, v, t)

    def subgrad(self, x):  # noqa: ANN001
        return self.s.problem.psi.subgradient(x)


def _instance(card):  # noqa: ANN001
    problem, ref = measured_instance(1.0)
    if not card.uses_psi:
        from fcocheck.solvers.regularizers import Zero

        problem = dataclasses.replace(problem, regularizer=Zero())
    return problem, start_at(ref.w, 0.5)


def _own(card) -> tuple:  # noqa: ANN001
    return tuple((p.name, next(v for v in p.grid if v != p.neutral)) for p in card.params
                 if p.name not in SHARED and len(p.grid) > 1)


def _hp(card, spec: PepSpec) -> dict:  # noqa: ANN001
    """The engine's hyper-parameters at ``spec`` (η_c or η_l = eta, η_s or η_g = eta_s, K, the card's own)."""
    shared = {p.name: getattr(spec, SHARED[p.name]) for p in card.params if p.name in SHARED}
    return {**shared, **dict(spec.extra)}


@pytest.mark.parametrize("name", sorted(CARDS))
@pytest.mark.parametrize("K,R,eta_s", [(1, 3, 1.0), (3, 2, 0.5), (3, 2, 1.0)])
def test_the_pep_program_run_on_numbers_is_the_engine(name, K, R, eta_s):
    """The output: the average of the server iterates, or for a dual card at η_s = 1 the ŵ of eq. (4.2)."""
    card = CARDS[name]
    problem, w0 = _instance(card)
    spec = PepSpec(name, M=2, K=K, R=R, eta=0.2, eta_s=eta_s, extra=_own(card))
    out = program(card, NumericOps)(NumericSetting(problem, w0), spec).out
    t = run(name, problem, _hp(card, spec), rounds=R, oracle="exact", reference=False, w0=w0)
    w_hat = np.asarray(t.meta["w_hat"]) if card.dual and eta_s == 1 else t["server_w"][1:].mean(axis=0)
    assert np.allclose(out, w_hat, rtol=1e-12, atol=1e-14), (name, out - w_hat)


def test_a_program_that_drifted_from_the_engine_is_seen():
    """Power: FedAvgM's program with the momentum transform dropped no longer gives the engine's ŵ."""
    card = CARDS["fedavgm"]
    problem, w0 = _instance(card)
    spec = PepSpec("fedavgm", M=2, K=2, R=3, eta=0.2, extra=(("beta", 0.9),))
    drifted = dataclasses.replace(card, server=card.server[1:])
    out = program(drifted, NumericOps)(NumericSetting(problem, w0), spec).out
    t = run("fedavgm", problem, {"eta_c": 0.2, "local_steps": 2, "beta": 0.9}, rounds=3, oracle="exact",
            reference=False, w0=w0)
    assert not np.allclose(out, t["server_w"][1:].mean(axis=0), rtol=1e-6)


@pytest.mark.parametrize("name", ["fedavg", "fedavgm", "fedmid-avg"])
def test_a_card_s_worst_case_bounds_a_run_on_an_instance_of_its_class(name):
    from fcocheck.rates.worstcase.solve import worst_case
    from fcocheck.rates.worstcase.tightness import ABS_TOL, SOLVER_TOL

    card = CARDS[name]
    problem, w0 = _instance(card)
    from fcocheck.solvers.reference import reference_solve

    ref = reference_solve(problem)
    spec = PepSpec(name, M=2, K=2, R=2, eta=0.2, zeta=float(problem.meta["zeta"]), L=float(problem.meta["L"]),
                   psi="convex" if card.uses_psi else "zero", extra=_own(card))
    wc = worst_case(spec)
    t = run(name, problem, _hp(card, spec), rounds=2, oracle="exact", reference=ref, w0=w0)
    assert wc.status == "optimal" and t["gap_avg"][-1] <= wc.value * (1 + SOLVER_TOL) + ABS_TOL
