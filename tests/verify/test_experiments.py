import json

import pytest

from rates.catalog import THEOREMS
from reports.cli import main
from verify.experiments import EXPERIMENTS, select


def test_every_theorem_has_an_experiment_and_back():
    covered = {e.theorem for e in EXPERIMENTS.values()}
    assert covered == set(THEOREMS)
    for thm in THEOREMS.values():
        assert set(thm.experiments) <= set(EXPERIMENTS), thm.name
    with pytest.raises(KeyError, match="the rule is"):
        select("nope")


QUICK = ["fco-eq-4.5", "fco-lemma-4.4", "fco-lemma-4.5-K-hetero", "fedcanon-pl-linear"]


@pytest.mark.parametrize("name", QUICK)
def test_quick_experiments_give_verdicts_with_numbers(name):
    res = EXPERIMENTS[name](quick=True, seed=0)
    assert res.status == "consistent", [c.reason for c in res.checks]
    assert all(c.evidence for c in res.checks)
    json.dumps(res.as_dict())


def test_every_quick_experiment_runs_to_a_verdict():
    for exp in EXPERIMENTS.values():
        res = exp(quick=True, seed=0)
        assert all(c.rule != "error" for c in res.checks), (exp.name, [c.reason for c in res.checks])


def test_a_raising_experiment_is_recorded_not_fatal():
    from verify.experiments.base import Experiment

    def boom(quick, seed):
        raise ValueError("planted")

    res = Experiment("x", "fco-4.2", "planted failure", boom)(quick=True)
    assert res.status == "inconclusive" and "planted" in res.checks[0].reason


def test_fedmid_small_step_limit_is_pgm_on_twice_psi():
    res = EXPERIMENTS["fco-4.1-minibatch"](quick=True, seed=0)
    fm = res.measured["fedmid"]
    assert min(fm["relative_deviation"]) > 1e-2  # does not follow PGM on F + ψ
    assert fm["relative_deviation_from_pgm_on_F+2psi"] < 1e-3  # follows PGM on F + 2ψ
    assert res.status == "inconsistent"


def test_cli_theorems_and_validate(capsys, tmp_path):
    assert main(["theorems", "--json", "--samples", "50"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {t["name"] for t in data["theorems"]} == set(THEOREMS)
    assert data["checks"]["crossover"]["leading_matches_claim"] is True
    out = tmp_path / "v.jsonl"
    assert main(["validate", "fco-lemma-4.5", "--quick", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "CONSISTENT" in text and "3 experiments" in text
    assert len(out.read_text().splitlines()) == 3
    assert main(["validate", "fco-4.1", "--quick", "--strict"]) == 1
    assert main(["validate", "bogus"]) == 2
    assert "the rule is" in capsys.readouterr().err
