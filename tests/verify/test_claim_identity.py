"""An identity as a claim (sense =): FCO eq. (4.5), FedDualAvg's dual shadow, with printed FedMiD as control.

The rule: the largest residual over every run and point within the tolerance.  Fed real runs (the identity
holds to rounding; FedMiD breaks it), a residual just above the tolerance and a non-finite one (rejected),
a control that keeps the identity (the control check fails), a tolerance that is not a number (refused),
and one fixed instance (a user's file) instead of drawn ones.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from fcocheck.verify.claim import InvalidClaimError
from fcocheck.verify.claim_judge import judge, judge_data
from fcocheck.verify.evidence import IDENTITY_TOL
from fcocheck.verify.paper_claims.fco_eq_4_5 import CLAIM


def test_the_shadow_identity_holds_to_rounding_and_printed_fedmid_breaks_it():
    verdicts, measured = judge(CLAIM, 1)
    claim, control = verdicts
    assert claim.status == "consistent" and claim.evidence["residual"] < 1e-14, claim.reason
    assert control.status == "consistent" and "negative control" in control.rule, control.reason
    assert min(np.max(v) for v in measured["controls"].values()) > 1e3 * IDENTITY_TOL


@pytest.mark.parametrize(("worst", "status"), [
    (0.0, "consistent"), (IDENTITY_TOL, "consistent"), (1.01 * IDENTITY_TOL, "inconsistent"),
    (np.inf, "inconsistent"), (np.nan, "inconsistent")])
def test_the_identity_rule_is_the_tolerance_exactly(worst, status):
    G3 = np.full((3, 1, 4), 1e-16)
    G3[1, 0, 2] = worst
    b = np.full((3, 4), IDENTITY_TOL)
    assert judge_data(CLAIM, G3, np.zeros((3, 4)), b)[0].status == status


def test_a_control_that_keeps_the_identity_fails_its_check():
    keeps = dataclasses.replace(CLAIM, controls={"FedDualAvg itself": {"method": "feddualavg"}})
    verdicts, _ = judge(keeps, 0)
    assert verdicts[1].status == "inconsistent", verdicts[1].reason


@pytest.mark.parametrize("bound", ["1/R", "-1e-11", "K*1e-11"])
def test_an_identity_needs_one_positive_tolerance(bound):
    with pytest.raises(InvalidClaimError, match="the rule is a tolerance, one positive number"):
        judge(dataclasses.replace(CLAIM, bound=bound))


def test_a_fixed_instance_runs_the_claim_and_its_control_on_it_alone():
    from fcocheck.verify.experiments.instances import drift_quadratics

    p, ref = drift_quadratics(4.0, seed=3)  # heterogeneous Hessians: not the claim's class
    verdicts, measured = judge(dataclasses.replace(CLAIM, instance=(p, ref)), 7)
    assert [v.status for v in verdicts] == ["consistent", "consistent"], [v.reason for v in verdicts]
    assert measured["seeds"] == [7] and len(measured["instances"]) == 1
    with pytest.raises(InvalidClaimError, match="one file cannot vary its class"):
        judge(dataclasses.replace(CLAIM, instance=(p, ref), along=("problem.zeta", (1, 2, 3, 4))))
