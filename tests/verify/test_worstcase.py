"""Tightness studies: grids, caching, soundness against measured runs, documented disagreements."""

from __future__ import annotations

import json

import pytest

from fcocheck.rates.verdict import CONSISTENT, INCONSISTENT, KNOWN
from fcocheck.rates.worstcase.spec import InvalidWorstCaseError
from fcocheck.reports.cli import main
from fcocheck.verify.sweep import Store
from fcocheck.verify.sweep.executors import Serial
from fcocheck.verify.sweep.session import Session
from fcocheck.verify.worstcase import TARGETS, confirm_known, plan, target_specs, tightness


def test_every_quick_grid_stays_under_its_cap_and_every_target_has_a_catalog_theorem():
    from fcocheck.rates.catalog import get
    from fcocheck.verify.worstcase import QUICK_STEPS

    for name, t in TARGETS.items():
        get(t.theorem)
        specs = target_specs(t, quick=True)
        assert specs, name
        assert all(s.M * s.K * s.R <= QUICK_STEPS for s in specs)


def test_lemma_4_4_holds_with_constant_one_over_the_whole_class():
    out = tightness("fco-lemma-4.4", overrides={"K": [1, 2, 3], "R": [1, 2]})
    assert out["status"] == CONSISTENT
    assert max(r["ratio"] for r in out["rows"]) <= 1 + 1e-5


def test_measured_runs_never_beat_the_worst_case_and_the_heterogeneity_constant_is_small():
    out = tightness("fco-4.3", overrides={"K": [2], "R": [1, 2, 4]})
    v = out["verdicts"]["soundness"]
    assert v["status"] == CONSISTENT and v["evidence"]["points"] == 3
    assert all(r["measured"] <= r["worst"] for r in out["rows"])
    # the drift penalty is real (positive) but far below η²LK²ζ² with constant 1
    assert all(0 < r["c_heterogeneity"] < 0.1 for r in out["rows"])


def test_printed_fedmid_is_a_documented_disagreement_confirmed_by_its_averaging_twin():
    out = tightness("fco-4.3/fedmid", overrides={"K": [1], "R": [1, 2]})
    assert out["status"] == KNOWN
    assert all(r["status"] == "unbounded" for r in out["rows"])


def test_a_documented_cause_that_its_diagnostic_does_not_confirm_stays_inconsistent():
    rows = [{"status": "unbounded", "worst": None}, {"status": "unbounded", "worst": None}]
    assert confirm_known(rows, [{"status": "optimal", "value": 1.0}] * 2)
    twins = [{"status": "optimal", "value": 1.0}, {"status": "unbounded", "value": None}]
    assert not confirm_known(rows, twins)
    bounded = [{"status": "optimal", "worst": 2.0}, {"status": "unbounded", "worst": None}]
    assert not confirm_known(bounded, [{"status": "optimal", "value": 1.0}] * 2)


def test_a_user_grid_past_the_size_limit_is_refused_not_trimmed():
    with pytest.raises(InvalidWorstCaseError, match="the rule is ≤ 24"):
        plan("fco-4.3", overrides={"K": [4], "R": [8]})
    with pytest.raises(InvalidWorstCaseError, match="unknown"):
        plan("fco-9.9")
    with pytest.raises(InvalidWorstCaseError, match="fields of PepSpec"):
        plan("fco-4.3", overrides={"bogus": [1]})


def test_points_are_cached_in_the_results_store(tmp_path):
    with Store(tmp_path / "s.sqlite") as store:
        first = Session(store, Serial(), progress=False)
        a = tightness("fco-lemma-4.5", overrides={"K": [1, 2], "R": [1]}, session=first)
        assert first.jobs_run["worstcase"] == 2
        second = Session(store, Serial(), progress=False)
        b = tightness("fco-lemma-4.5", overrides={"K": [1, 2], "R": [1]}, session=second)
        assert second.jobs_reused["worstcase"] == 2 and "worstcase" not in second.jobs_run
        assert [r["worst"] for r in a["rows"]] == [r["worst"] for r in b["rows"]]


def test_cli_prints_the_table_and_exits_by_the_verdict(tmp_path, capsys):
    store = str(tmp_path / "s.sqlite")
    args = ["worstcase", "fco-lemma-4.5", "--grid", "K=1,2,3,4", "R=1", "--store", store, "--workers", "1"]
    rc = main(args)
    out = capsys.readouterr().out
    assert "bound" in out and "worst" in out and "fco-lemma-4.5:" in out
    # one R value: judged along K only, and said so (Lemma 4.5 in its own norm: constant 1 at every K)
    assert rc == 0 and "judged along ['K'] only" in out
    assert main([*args[:3], "K=1", "R=1", *args[5:]]) == 1  # nothing varied: no power, inconclusive
    capsys.readouterr()
    # three values of K: the rule rejects x^0.3 in only 25% of its violations — no power, not consistent
    assert main([*args[:3], "K=1,2,3", "R=1", *args[5:]]) == 1
    assert "no power along" in capsys.readouterr().out
    rc = main([*args[:3], "K=1,2,3,4", "R=1,2", *args[5:], "--json"])
    data = json.loads(capsys.readouterr().out)
    assert rc == 0 and data["status"] == CONSISTENT
    assert main(["worstcase", "pgm", "--grid", "R=1,2", "--store", store, "--workers", "1"]) == 0
    assert "0.125" in capsys.readouterr().out  # L/(4N) at N = 2


@pytest.mark.parametrize(
    ("grid", "needle"),
    [(["K=x"], "is not an integer"), (["nope=1"], "FIELD=V1,V2"), (["eta=inf"], "finite"),
     (["K=1", "K=2"], "given twice"), (["K=30"], "the rule is ≤ 24")],
)
def test_cli_bad_grid_exits_2_naming_the_rule(tmp_path, capsys, grid, needle):
    store = str(tmp_path / "s.sqlite")
    rc = main(["worstcase", "fco-4.3", "--grid", *grid, "--store", store, "--workers", "1"])
    assert rc == 2
    assert needle in capsys.readouterr().err


def test_cli_unknown_target_exits_2(tmp_path, capsys):
    assert main(["worstcase", "fco-9", "--store", str(tmp_path / "s.sqlite")]) == 2
    assert "the rule is a theorem target" in capsys.readouterr().err


def test_inconsistent_targets_are_not_filed_as_known_without_a_cause():
    assert all(t.twin for t in TARGETS.values() if t.known)
    assert INCONSISTENT != KNOWN


def test_a_grid_sets_every_field_the_target_reads_eta_s_included(tmp_path, capsys):
    """fco-4.1 solves at Thm 4.1's η_s = 1/(4η_cKL) unless the grid names η_s: then at the grid's (it was
    silently replaced by the theorem's)."""
    store = str(tmp_path / "s.sqlite")
    base = ["worstcase", "fco-4.1", "--grid", "K=1", "R=1,2", "--store", store, "--workers", "1", "--json"]
    main(base)
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert {round(r["eta_s"], 12) for r in rows} == {round(1 / (4 * r["eta_c"] * r["K"]), 12) for r in rows}
    main([*base[:5], "eta_s=0.5", *base[5:]])
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert {r["eta_s"] for r in rows} == {0.5}
