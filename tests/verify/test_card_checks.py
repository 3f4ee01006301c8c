"""What a card gets from ``check``, and that it can fail.

A user's FedAvgM card (server momentum) with each realistic momentum bug — the sign flipped, the new
buffer never stored, the buffer storing Δ instead of v — vanishes at β = 0, where FedAvg and the simplest
hyper-parameters sit, and every generic relation is blind to it.  The card's reduction to heavy ball at
K = 1 (where β acts) must catch each; a card that only states the β = 0 reduction must be told that β
was never exercised.  The correct card passes everything (the legal side).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from fcocheck.solvers import algorithms
from fcocheck.solvers.card import Reduction, Scale, Trace
from fcocheck.solvers.methods.fedavgm import CARD as FEDAVGM
from fcocheck.verify.conformance import check_invariant
from fcocheck.verify.invariants import INVARIANTS


class SignFlipped(Trace):
    """v ← u − βv (the sign of the momentum term flipped)."""

    def update(self, u, v, hp):  # noqa: ANN001, D102
        v = u if v is None else u - getattr(hp, self.decay) * v
        return v, v


class NotStored(Trace):
    """v_new = βv + u is used but never stored (the buffer stays at its start)."""

    def update(self, u, v, hp):  # noqa: ANN001, D102
        new = u if v is None else getattr(hp, self.decay) * v + u
        return new, v


class StoresDelta(Trace):
    """The buffer stores Δ instead of v."""

    def update(self, u, v, hp):  # noqa: ANN001, D102
        new = u if v is None else getattr(hp, self.decay) * v + u
        return new, u


@pytest.fixture
def registered():
    names = []

    def add(card):  # noqa: ANN001
        algorithms.register_card(card)
        names.append(card.name)
        return card

    yield add
    for n in names:
        algorithms.unregister(n)


def _cells(name: str) -> dict[str, str]:
    return {k: check_invariant(inv, "quick", None, 0).outcome for k, inv in INVARIANTS.items()
            if name in inv.algorithms and (k.startswith(f"{name}=") or k.endswith(name))}


def test_the_correct_user_card_passes_every_check(registered):
    card = registered(dataclasses.replace(FEDAVGM, name="my-fedavgm"))
    cells = _cells(card.name)
    assert set(cells) == {"written-my-fedavgm", "counts-my-fedavgm", "my-fedavgm=fedavg",
                          "my-fedavgm=heavy-ball", "exercised-my-fedavgm"}
    assert set(cells.values()) == {"holds"}, cells


@pytest.mark.parametrize("bug", [SignFlipped, NotStored, StoresDelta])
def test_each_momentum_bug_is_caught_where_beta_acts(registered, bug):
    card = registered(dataclasses.replace(FEDAVGM, name=f"bug-{bug.__name__.lower()}",
                                          server=(bug("beta"), Scale("eta_s"))))
    cells = _cells(card.name)
    assert cells[f"{card.name}=heavy-ball"] == "fails", cells
    # invisible where β does nothing, and to the written-out reference (which repeats the card)
    assert cells[f"{card.name}=fedavg"] == "holds" and cells[f"written-{card.name}"] == "holds"


def test_a_card_whose_beta_is_only_checked_at_zero_is_told_so(registered):
    only_zero = (Reduction("fedavg", when={"beta": 0.0}),)
    registered(dataclasses.replace(FEDAVGM, name="half-checked", server=(StoresDelta("beta"),
                                                                               Scale("eta_s")),
                                          reduces_to=only_zero))
    cell = check_invariant(INVARIANTS["exercised-half-checked"], "quick", None, 0)
    assert cell.outcome == "fails" and "['beta'] never run away from their neutral value" in cell.detail
    # and with a grid that never leaves the neutral value, the reduction cannot act either
    card2 = registered(dataclasses.replace(
        FEDAVGM, name="grid-at-zero",
        params=tuple(dataclasses.replace(p, grid=(0.0,)) if p.name == "beta" else p for p in FEDAVGM.params)))
    assert check_invariant(INVARIANTS[f"exercised-{card2.name}"], "quick", None, 0).outcome == "fails"


class StaleLookAhead(Trace):
    """Nesterov momentum that looks ahead along the old buffer: u ← u + βv_r instead of u + βv_{r+1}."""

    def update(self, u, v, hp):  # noqa: ANN001, D102
        beta = getattr(hp, self.decay)
        new = u if v is None else beta * v + u
        return u + beta * (0 * u if v is None else v), new


def _nesterov_card(name: str, transform: Trace, target: str = "nesterov"):  # noqa: ANN202
    """FedAvg with the given server momentum, pinned to ``target`` where β acts (K = 1)."""
    at_k1 = dataclasses.replace(FEDAVGM.reduces_to[1], target=target)
    return dataclasses.replace(FEDAVGM, name=name, server=(transform, Scale("eta_s")),
                               reduces_to=(FEDAVGM.reduces_to[0], at_k1))


def test_server_nesterov_momentum_is_pinned_to_nesterov_s_method(registered):
    """Legal: optax-style Nesterov momentum (``Trace(nesterov=True)``) at K = 1 is Nesterov's method with
    step η_sη_c, and every other check of the card holds too."""
    card = registered(_nesterov_card("my-fedavgn", Trace("beta", nesterov=True)))
    cells = _cells(card.name)
    assert cells["my-fedavgn=nesterov"] == "holds" and set(cells.values()) == {"holds"}, cells


@pytest.mark.parametrize(("name", "transform", "target"), [
    ("stale-look-ahead", StaleLookAhead("beta", nesterov=True), "nesterov"),
    ("plain-as-nesterov", Trace("beta"), "nesterov"),  # heavy ball claimed as Nesterov
    ("nesterov-as-plain", Trace("beta", nesterov=True), "heavy-ball"),  # and the other way round
])
def test_a_wrong_momentum_is_caught_by_the_target_where_beta_acts(registered, name, transform, target):
    card = registered(_nesterov_card(name, transform, target))
    cells = _cells(card.name)
    assert cells[f"{name}={target}"] == "fails", cells
    assert cells[f"{name}=fedavg"] == "holds"  # invisible at β = 0


def test_an_engine_path_bug_is_caught_by_the_written_out_card(monkeypatch):
    """Power of ``written-NAME``: the compiled pass given the wrong map (FedMiD's prox dropped there only)."""
    from fcocheck.solvers.algorithms.fused_steps import IDENTITY, MapSpec
    from fcocheck.solvers.card import Mirror

    monkeypatch.setattr(Mirror, "compiled", lambda self, h, psi, dim: MapSpec(IDENTITY, 0.0, dim))
    cell = check_invariant(INVARIANTS["written-fedmid"], "quick", None, 0)
    assert cell.outcome == "fails" and "record round" in cell.detail  # the compiled schedule's example


def test_registering_refuses_built_in_names_and_second_cards():
    from fcocheck.solvers.errors import InvalidAlgorithmError

    with pytest.raises(InvalidAlgorithmError, match="built-in"):
        algorithms.register_card(FEDAVGM)
    card = dataclasses.replace(FEDAVGM, name="twice")
    algorithms.register_card(card)
    try:
        with pytest.raises(InvalidAlgorithmError, match="another card"):
            algorithms.register_card(dataclasses.replace(card))
    finally:
        algorithms.unregister("twice")
    assert "twice" not in algorithms.ALGORITHMS and "written-twice" not in INVARIANTS


def test_a_wrong_log_on_the_fast_schedule_is_caught_even_with_right_iterates(monkeypatch):
    """Power of the logged-ŵ/discrepancy comparison: the compiled pass returns a trajectory whose last
    state (hence every iterate) is right but whose intermediate states are off — only the logged
    discrepancy of the non-recording run shows it."""
    from fcocheck.solvers.algorithms import fused_steps
    from fcocheck.verify.invariants.cards import path_examples

    real = fused_steps.primal_trajectory

    def skewed(*args, **kwargs):  # noqa: ANN002, ANN003
        traj = real(*args, **kwargs)
        traj[:-1] *= 1.001
        return traj

    monkeypatch.setattr(fused_steps, "primal_trajectory", skewed)
    compiled = path_examples("fedmid")[0]  # no intercept, no per-step records: the compiled schedule
    ev = INVARIANTS["written-fedmid"].check(compiled)
    assert ev.outcome == "fails" and "logged ŵ and discrepancy" in ev.detail


def test_unregistering_a_card_drops_every_invariant_built_for_it():
    """A card registered before the invariant tables were built gets generic invariants too (client split,
    zero weight); unregistering it must drop them all, or a later report asks for an unknown algorithm."""
    import subprocess
    import sys

    code = (
        "import dataclasses\n"
        "from fcocheck.solvers import algorithms\n"
        "from fcocheck.solvers.methods.fedavgm import CARD\n"
        "algorithms.register_card(dataclasses.replace(CARD, name='early'))\n"
        "from fcocheck.verify.invariants import INVARIANTS\n"
        "built = sorted(k for k, v in INVARIANTS.items() if 'early' in v.algorithms)\n"
        "algorithms.unregister('early')\n"
        "left = sorted(k for k, v in INVARIANTS.items() if 'early' in v.algorithms)\n"
        "print(built, left)\n"
        "assert any(k.startswith('client-split') for k in built) and not left\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-2000:]


def test_a_diverging_run_is_compared_on_the_rounds_the_engine_ran(monkeypatch):
    """Legal: a step far beyond 2/L diverges; the engine's guard stops it early, the written-out card has
    no guard, and the rounds both ran are compared (they agree).  Power: a reference that differs on those
    rounds fails, and so does a run that stopped early without diverging (a reference one round longer)."""
    from fcocheck.verify.cases import InstanceSpec
    from fcocheck.verify.invariants import cards
    from fcocheck.verify.strategies import Case

    spec = InstanceSpec("general", 1, 1, 1, 0.0, "zero", 0.0, 0)
    case = cards.PathCase(Case(spec, {"eta_l": 14.3, "eta_g": 1.0, "local_steps": 3}), True, "round")
    ev = cards.written("scaffold", case)
    assert ev.outcome == "holds" and "stopped the run as diverged" in ev.detail, ev.detail
    real = cards.reference
    monkeypatch.setattr(cards, "reference", lambda *a: real(*a) * (1 + 1e-6))
    assert cards.written("scaffold", case).outcome == "fails"
    monkeypatch.setattr(cards, "reference", lambda *a: np.vstack([real(*a), real(*a)[-1:]]))
    small = cards.PathCase(Case(spec, {"eta_l": 0.01, "eta_g": 1.0, "local_steps": 3}), True, "round")
    assert cards.written("scaffold", small).outcome == "fails"


@pytest.mark.parametrize("steps", ["round", "step"])
def test_an_engine_that_blows_up_alone_fails(monkeypatch, steps):
    """Power: the engine's SCAFFOLD pass returns NaN (the written-out card does not): the engine stops the
    run as diverged in round 1, and the written-out card's finite round 1 says it should not have."""
    from fcocheck.solvers.algorithms import control
    from fcocheck.solvers.card import card as card_module
    from fcocheck.verify.cases import InstanceSpec
    from fcocheck.verify.invariants import cards
    from fcocheck.verify.strategies import Case

    def nan_pass(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        local = control.corrected_local(*args, **kwargs)
        return local._replace(final=local.final * np.nan)

    monkeypatch.setattr(card_module, "corrected_local", nan_pass)
    spec = InstanceSpec("general", 2, 2, 3, 0.5, "zero", 0.0, 0)
    case = cards.PathCase(Case(spec, {"eta_l": 0.01, "eta_g": 1.0, "local_steps": 2}), False, steps)
    ev = cards.written("scaffold", case)
    assert ev.outcome == "fails" and "finite" in ev.detail, ev.detail


def test_pieces_that_do_not_fit_are_refused():
    from fcocheck.solvers.card import Add, Controls, Corrected, DualAdd, DualStep, Gradient
    from fcocheck.solvers.errors import InvalidAlgorithmError

    for client, apply, memory in ((DualStep(), Add(), None), (Gradient(), DualAdd(), None),
                                  (Corrected(), Add(), None), (Gradient(), Add(), Controls())):
        with pytest.raises(InvalidAlgorithmError, match="the rule is"):
            dataclasses.replace(FEDAVGM, name="misfit", client=client, apply=apply, memory=memory)
