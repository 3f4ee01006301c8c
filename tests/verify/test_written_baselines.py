"""FedDR, DANE and FSVRG against their written-out definitions: they hold, and planted bugs fail."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from fcocheck.solvers import algorithms
from fcocheck.solvers.algorithms import svrg
from fcocheck.verify.evidence import FAILS, HOLDS
from fcocheck.verify.invariants import written_baselines as wb
from fcocheck.verify.search import search


def _with_hp(name: str, **fixed):
    """Registry entry ``name`` whose round silently uses ``fixed`` hyper-parameters."""
    alg = algorithms.get(name)

    def bad_round(state, hp, env, rng, clients):
        return alg.round(state, dataclasses.replace(hp, **fixed), env, rng, clients)

    return dataclasses.replace(alg, name=f"{name}-bad", round=bad_round)


@pytest.mark.parametrize(
    "cases, check",
    [
        (wb.feddr_cases, wb.feddr_residual),
        (wb.dane_cases, wb.dane_residual),
        (wb.fsvrg_cases, wb.fsvrg_residual),
    ],
)
def test_registry_equals_the_written_out_baselines(cases, check):
    found = search(cases(), check, 25)
    assert found.outcome == HOLDS, found.evidence


def test_feddr_ignoring_alpha_fails():
    found = search(wb.feddr_cases(), lambda c: wb.feddr_residual(c, _with_hp("feddr", alpha=1.0)), 25)
    assert found.outcome == FAILS and found.case.hp["alpha"] != 1.0


def test_dane_ignoring_eta_fails():
    found = search(wb.dane_cases(), lambda c: wb.dane_residual(c, _with_hp("dane", eta=1.0)), 25)
    assert found.outcome == FAILS and found.case.hp["eta"] != 1.0


@pytest.mark.parametrize("drop", ["A", "S"])
def test_fsvrg_without_its_scalings_fails(monkeypatch, drop):
    real = svrg.frequency_scaling

    def scaling(problem, view):
        s, a = real(problem, view)
        return (s, np.ones_like(a)) if drop == "A" else (np.ones_like(s), a)

    monkeypatch.setattr(svrg, "frequency_scaling", scaling)
    found = search(wb.fsvrg_cases(), wb.fsvrg_residual, 25)
    assert found.outcome == FAILS, found


def test_scalings_follow_their_definitions_on_disjoint_features():
    """Disjoint blocks, sizes n_m: A = M on every feature, S_m = n_m/n on client m's block."""
    from fcocheck.verify.cases import InstanceSpec, build, weighted

    p = weighted(build(InstanceSpec("disjoint", 3, 2, 6, 0.0, "zero", 0.0, 4)))
    S, A = wb._scalings(p)
    n = p.n.sum()
    assert np.array_equal(A, np.full(6, 3.0))
    for m in range(3):
        block = slice(2 * m, 2 * m + 2)
        assert np.allclose(S[m][block], p.n[m] / n, rtol=1e-15)


@pytest.mark.parametrize("name", ["scaffnew", "scaffnew-composite", "proxskip"])
def test_skip_methods_equal_their_written_out_form_and_a_half_control_step_fails(name, monkeypatch):
    found = search(wb.skip_cases(name), lambda c: wb.skip_residual(name, c), 20)
    assert found.outcome == HOLDS, found.evidence
    from fcocheck.solvers.algorithms import proxskip

    real = proxskip.SkipState

    def halved(w, X, H, r):  # every stored control variate h_i halved: the update's step is wrong
        return real(w, X, 0.5 * H, r)

    monkeypatch.setattr(proxskip, "SkipState", halved)
    bad = search(wb.skip_cases(name), lambda c: wb.skip_residual(name, c), 20)
    assert bad.outcome == FAILS, bad


def test_cocoa_limit_is_the_dual_method_and_an_inconsistent_local_sdca_fails(monkeypatch):
    from fcocheck.solvers.algorithms import perturbation
    from fcocheck.verify.invariants import reductions

    assert search(reductions._ridge(), reductions.cocoa_limit, 15).outcome == HOLDS
    real = perturbation._coordinate_block
    monkeypatch.setattr(perturbation, "_coordinate_block", lambda *a: 0.9 * real(*a))
    assert search(reductions._ridge(), reductions.cocoa_limit, 15).outcome == FAILS


def test_a_registry_run_stopped_as_diverged_is_compared_over_its_rounds():
    """A drawn DANE case (μ = 0, κ = 5.6e4) diverged in the engine after 2 rounds while the written-out
    method ran 3: the comparison raised a shape error.  The rounds both have are compared now."""
    from fcocheck.verify.cases import InstanceSpec
    from fcocheck.verify.invariants.written_baselines import dane_residual
    from fcocheck.verify.strategies import Case

    spec = InstanceSpec(layout="general", M=2, d=4, n=4, het=1.0, psi="zero", lam=0.0, data_seed=0)
    ev = dane_residual(Case(spec, {"eta": 0.5, "mu": 0.0, "local_solver": "exact"}))
    assert "stopped (diverged) after 2 rounds" in ev.detail and ev.residual < 1e-9
