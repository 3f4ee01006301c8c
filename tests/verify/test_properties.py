"""Properties (A)–(D): outcomes the theory predicts, discovered by the checks (not assumed)."""

from __future__ import annotations

import json

import pytest

from fcocheck.solvers.algorithms import get
from fcocheck.verify.cases import InstanceSpec
from fcocheck.verify.conformance import conformance
from fcocheck.verify.evidence import FAILS, HOLDS
from fcocheck.verify.properties import check_property, fixed_point
from fcocheck.verify.search import search
from fcocheck.verify.strategies import Case, cases

HETERO = InstanceSpec("general", 3, 2, 4, 1.0, "zero", 0.0, 5)
HETERO_L1 = InstanceSpec("general", 3, 2, 4, 1.0, "l1", 0.1, 5)


def test_client_drift_breaks_the_fixed_point_and_control_variates_restore_it():
    """FCO §3 / Karimireddy et al.: K > 1 on heterogeneous clients moves FedAvg off w*; SCAFFOLD stays."""
    assert fixed_point(get("fedavg"), Case(HETERO, {"eta_c": 0.05, "local_steps": 4})).outcome == FAILS
    assert fixed_point(get("fedavg"), Case(HETERO, {"eta_c": 0.05, "local_steps": 1})).outcome == HOLDS
    assert fixed_point(get("scaffold"), Case(HETERO, {"eta_l": 0.05, "local_steps": 4})).outcome == HOLDS


def test_fedcanon_server_only_prox_leaves_a_bias_exactly_when_the_gradient_at_the_optimum_is_nonzero():
    hp = {"eta_l": 0.05, "local_steps": 4}
    assert fixed_point(get("fedcanon"), Case(HETERO, hp)).outcome == HOLDS  # ψ = 0: ∇F(w*) = 0
    assert fixed_point(get("fedcanon"), Case(HETERO_L1, hp)).outcome == FAILS
    assert fixed_point(get("fedcanon"), Case(HETERO_L1, {**hp, "local_steps": 1})).outcome == HOLDS


def test_exact_local_solvers_have_property_d():
    """Seed 004 §3.4: DANE (μ = 0, η = 1), one-shot averaging and the Primal Method on identical data."""
    same = InstanceSpec("identical", 3, 3, 5, 0.0, "l2sq", 0.1, 2)
    for name, hp in (("dane", {"mu": 0.0}), ("one-shot", {}), ("primal-method", {})):
        assert check_property(get(name), "D", Case(same, hp)).outcome == HOLDS, name
    assert check_property(get("dane"), "D", Case(same, {"mu": 0.5})).outcome == FAILS  # μ > 0 loses it


def test_dane_fixed_point_is_repelling_without_mu():
    """Seed 004 claims (A) for DANE; in floating point the μ = 0 fixed point can be unstable."""
    alg = get("dane")
    found = search(cases(alg, "general", ("zero",)), lambda c: check_property(alg, "A", c), 30)
    assert found.outcome == FAILS
    assert found.evidence.numbers["growth"] > 1.5 and found.evidence.numbers["first_round"] < 1e-12


@pytest.fixture(scope="module")
def matrix(tmp_path_factory):
    out = tmp_path_factory.mktemp("check")
    return conformance(["fedcanon", "scaffold", "fedmid", "feddr"], budget=15, out=out), out


def test_every_fails_cell_has_a_counterexample_that_reproduces(matrix):
    res, _ = matrix
    assert res.broken == []
    failing = [c for c in res.properties if c.outcome == FAILS]
    assert failing
    for cell in failing:
        record = json.loads(open(cell.counterexample).read())
        case = Case(InstanceSpec(**record["spec"]), record["hp"])
        assert check_property(get(cell.algorithm), cell.column, case).outcome == FAILS, cell
        assert case.spec.M <= 3 and case.spec.dim <= 4  # shrunk to a readable size


def test_algorithms_that_ignore_psi_are_checked_on_psi_zero(matrix):
    res, _ = matrix
    a = next(c for c in res.properties if c.algorithm == "scaffold" and c.column == "A")
    assert a.outcome == HOLDS and "ignores ψ" in a.detail


def test_o1_rule_rejects_any_linear_rate_however_fast():
    """B–D: a linear rate passes 1e-8 within 5 rounds when fast enough, but not rounding level.

    PGM with step 0.9/L on identical well-conditioned data contracts fast (the old rule — gap ≤ 1e-8
    after 5 rounds — accepted it); r(ε) still grows with log(1/ε), so O(1) fails.  DANE solves the
    same instance in one round: the ladder is flat.
    """
    from fcocheck.verify.optimum import optimum

    same = InstanceSpec("identical", 2, 2, 6, 0.0, "l2sq", 1.0, 3)
    L = optimum(same).L_max
    pgm = check_property(get("pgm"), "D", Case(same, {"eta": 0.9 / L, "local_steps": 1}))
    ladder = pgm.numbers["ladder"]
    assert pgm.outcome == FAILS and ladder["1e-08"] is not None and ladder["1e-08"] <= 12
    assert ladder["1e-12"] is None or ladder["1e-12"] > ladder["1e-08"]
    dane = check_property(get("dane"), "D", Case(same, {"mu": 0.0, "eta": 1.0}))
    assert dane.outcome == HOLDS and set(dane.numbers["ladder"].values()) == {1}


def test_claims_fix_the_hyperparameters_they_are_made_under():
    """DANE's D claim (μ = 0, η = 1) is searched with those values only, and agrees."""
    from fcocheck.verify.conformance import check_properties

    cells = {c.column: c for c in check_properties(get("dane"), 10, None)}
    from fcocheck.verify.claims import AGREES, KNOWN

    assert cells["D"].outcome == HOLDS and cells["D"].verdict == AGREES == "consistent"
    assert cells["B"].verdict == AGREES and cells["C"].verdict == AGREES
    assert cells["A"].verdict == KNOWN == "known disagreement" and "unstable" in cells["A"].claim
