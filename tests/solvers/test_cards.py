"""Method cards: the registry entries derived from them, their costs against what their steps do, and
the one-file rule (a card dropped into ``fcocheck.solvers.methods`` is a registry entry)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from fcocheck.solvers.algorithms import ALGORITHMS, CARDS, get
from fcocheck.solvers.engine import run
from fcocheck.solvers.generators import generate
from fcocheck.solvers.regularizers import L2Squared

R, K, P = 3, 3, 2


def _rows(v) -> int:  # noqa: ANN001
    return int(np.prod(np.shape(v)[:-1], dtype=int)) if np.ndim(v) > 1 else 1


class CountingL2(L2Squared):
    """(λ/2)‖·‖² counting the rows of every subgradient (a subclass: numpy schedules, no compiled pass)."""

    def subgradient(self, w):  # noqa: ANN001
        CALLS["subgrad"] += _rows(w)
        return super().subgradient(w)


CALLS = {"prox": 0, "subgrad": 0}


@pytest.fixture(autouse=True)
def _counting_composite(monkeypatch):
    """Every row the algorithm sends through ∇(h + tψ)* (the engine's own metrics use ψ's prox directly)."""
    import importlib

    engine = importlib.import_module("fcocheck.solvers.engine.run")
    real = engine.make_composite

    def make(h, psi):  # noqa: ANN001
        fn = real(h, psi)

        def counted(z, t):  # noqa: ANN001
            CALLS["prox"] += _rows(z)
            return fn(z, t)

        return counted

    monkeypatch.setattr(engine, "make_composite", make)


@pytest.fixture(scope="module")
def counting():
    p = generate("quadratics", clients=4, d=6, zeta=1.0, lam=0.1)
    return dataclasses.replace(p, regularizer=CountingL2(0.1))


@pytest.mark.parametrize("name", sorted(CARDS))
def test_a_card_s_stated_costs_are_what_its_steps_do(name, counting):
    """Rows through ψ's prox and subgradient, counted inside ψ, against ``card.counts`` (which the
    engine logs): a step that declared the wrong cost, or an engine that miscounted, fails here."""
    card = CARDS[name]
    hp = {**{q.name: 0.05 for q in card.params if q.per}, "local_steps": K}  # η_c, or SCAFFOLD's η_l
    CALLS.update(prox=0, subgrad=0)
    t = run(name, counting, hp, rounds=R, oracle="exact", seed=0, participation=P, reference=False)
    c = card.counts(P, counting.M, K, counting.dim)
    tried = len(get(name).hyper(**hp).weights(R, False)) if get(name).uses_composite else 0  # before round 0
    # a dual card's ŵ (eq. 4.2) averages the primal images of the dual shadow, one per local step: an
    # analysis quantity the engine computes for the log, which no participant of the method computes
    shadow = R * K if card.dual else 0
    want = {"prox": R * (c.prox_client + c.prox_server) + tried + shadow, "subgrad": R * c.subgrad}
    assert CALLS == want, name
    assert t["prox_calls_client"][-1] == R * c.prox_client and t["prox_calls_server"][-1] == R * c.prox_server


def test_registry_entries_of_cards_are_derived_from_them():
    for name, card in CARDS.items():
        alg = get(name)
        assert alg.card is card and alg.hyper is card.hyper() and alg.doc == card.doc
        assert {f.name for f in dataclasses.fields(alg.hyper)} == {p.name for p in card.params}
    assert not ALGORITHMS["fedavg"].uses_prox and not ALGORITHMS["fedavg"].solves_composite
    assert ALGORITHMS["fedmid"].uses_prox and not ALGORITHMS["fedmid"].split_invariant
    assert ALGORITHMS["fedmid-osp"].split_invariant and ALGORITHMS["fedavg-subgrad"].solves_composite


def test_hyper_parameters_follow_their_rules(counting):
    from fcocheck.solvers.algorithms import make_hyper
    from fcocheck.solvers.errors import FcocheckError

    alg = get("fedavgm")
    assert make_hyper(alg, {"eta_c": 0.1, "beta": 0.9}).beta == 0.9
    for bad in ({"eta_c": 0.1, "beta": 1.0}, {"eta_c": 0.1, "beta": -0.1}, {"eta_c": -1.0}, {"beta": 0.5},
                {"eta_c": 0.1, "beta": True}):
        with pytest.raises(FcocheckError):
            make_hyper(alg, bad)


def test_server_momentum_is_carried_from_round_to_round(counting):
    """The buffer is state: two rounds of FedAvgM from one run equal a run of two rounds split in two."""
    hp = {"eta_c": 0.05, "local_steps": 2, "beta": 0.9}
    p = dataclasses.replace(counting, regularizer=L2Squared(0.0))
    whole = run("fedavgm", p, hp, rounds=4, oracle="exact", seed=0, reference=False)["server_w"]
    plain = run("fedavg", p, {k: v for k, v in hp.items() if k != "beta"}, rounds=4, oracle="exact",
                seed=0, reference=False)["server_w"]
    assert np.array_equal(whole[:2], plain[:2])  # round 1: v = Δ, the same step as FedAvg
    assert not np.allclose(whole[2:], plain[2:])  # from round 2 the buffer adds β v


def test_a_card_file_dropped_into_the_methods_package_is_a_registry_entry(tmp_path, monkeypatch):
    """The one-file rule, in a fresh process: a new card module appears in ``fcocheck algorithms``."""
    import shutil
    import subprocess
    import sys

    import fcocheck.solvers.methods as methods

    pkg = tmp_path / "fcocheck" / "solvers" / "methods"
    shutil.copytree(methods.__path__[0], pkg, ignore=shutil.ignore_patterns("__pycache__"))
    (pkg / "fedavg_half.py").write_text(
        '"""FedAvg with a halved server step (a test card)."""\n'
        "from fcocheck.solvers.card import Add, Card, Gradient, Scale, eta_c, eta_s, local_steps\n\n"
        'CARD = Card("fedavg-half", "test card", "a test", params=(eta_c(), eta_s(), local_steps()),\n'
        '            client=Gradient(), server=(Scale("eta_s"), Scale("eta_s")), apply=Add())\n')
    code = ("import fcocheck.solvers.methods as m, sys; m.__path__.insert(0, sys.argv[1]); "
            "from fcocheck.solvers import algorithms as A; print('fedavg-half' in A.ALGORITHMS)")
    r = subprocess.run([sys.executable, "-c", code, str(pkg)], capture_output=True, text=True)
    assert r.stdout.strip() == "True", r.stderr


def test_a_card_that_misstates_its_cost_is_caught(counting):
    """Power of the cost check: a client step that applies ψ but declares no cost."""
    from fcocheck.solvers.card import Mirror

    class Lying(Mirror):
        @property
        def prox_cost(self) -> int:
            return 0

    card = dataclasses.replace(CARDS["fedmid-avg"], name="fedmid-avg-lying", client=Lying(prox=True))
    CALLS.update(prox=0, subgrad=0)
    alg = card.algorithm()
    run(alg, counting, {"eta_c": 0.05, "local_steps": K}, rounds=R, oracle="exact", seed=0, participation=P,
        reference=False)
    stated = R * card.counts(P, counting.M, K, counting.dim).prox_client
    assert not alg.uses_composite  # derived from the (false) cost: no weight is tried before round 0
    assert CALLS["prox"] == R * P * K != stated


def test_a_dual_card_s_shadow_weight_is_checked_before_round_0():
    """ŵ's last shadow image uses η̃_{R−1,K} = η_sη_c(R−1)K + η_cK, above the server's η̃_{R,0} when η_s < 1.

    On MCP (ρ = 1/3) with η_s = ½, K = 4, R = 2: η_c = 0.5 gives η̃_{2,0} = 2 (legal) but η̃_{1,4} = 3 (tρ = 1),
    refused up front with the weight named; η_c = 0.2 (η̃_{1,4} = 1.2) runs.
    """
    from fcocheck.solvers.errors import InvalidStepSizeError
    from fcocheck.solvers.generators import generate

    p = generate("robust-penalized")
    for name in ("feddualavg", "feddualavg-osp"):
        with pytest.raises(InvalidStepSizeError, match="t = 3.0"):
            run(name, p, {"eta_c": 0.5, "eta_s": 0.5, "local_steps": 4}, rounds=2, reference=False)
        t = run(name, p, {"eta_c": 0.2, "eta_s": 0.5, "local_steps": 4}, rounds=2, reference=False)
        assert t.status == "completed"
