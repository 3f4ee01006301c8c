"""Studies: one declaration per experiment and reproduction, dependencies closed and ordered."""

from __future__ import annotations

import pytest

from fcocheck.verify import studies
from fcocheck.verify.studies import REPRODUCTION, THEOREM, Study, plan


def test_every_experiment_and_reproduction_is_a_study():
    from fcocheck.verify.experiments import EXPERIMENTS

    reg = studies.registry()
    assert {n for n, s in reg.items() if s.kind == THEOREM} == set(EXPERIMENTS)
    assert set(studies.names(REPRODUCTION)) == {"fco-fig3", "fco-curse", "fco-fig4", "fedcanon-table3",
                                                "fedcanon-fig1"}
    for s in reg.values():
        assert set(s.depends_on) <= set(reg), s.name


def test_a_plan_runs_each_study_after_what_it_consumes():
    order = [s.name for s in plan(["fco-curse"])]
    assert order == ["fco-fig3", "fco-curse"]  # declared, not implicit in the report's code
    order = [s.name for s in plan(["fco-curse", "fco-fig3", "fedcanon-fig1"])]
    assert order.index("fco-fig3") < order.index("fco-curse") and len(order) == len(set(order)) == 3


def test_unknown_names_and_cycles_are_named_errors(monkeypatch):
    with pytest.raises(KeyError, match="the rule is one of"):
        plan(["nope"])
    loop = {"a": Study("a", REPRODUCTION, "", ("b",)), "b": Study("b", REPRODUCTION, "", ("a",))}
    monkeypatch.setattr(studies, "registry", lambda: loop)
    with pytest.raises(KeyError, match="a → b → a"):
        plan(["a"])


def test_a_failing_study_is_a_result_and_its_dependants_still_run(monkeypatch):
    seen = {}

    def boom(session, quick, seed, inputs):
        raise RuntimeError("planted")

    def after(session, quick, seed, inputs):
        seen.update(inputs)
        return "ran"

    reg = {"a": Study("a", REPRODUCTION, "", (), boom), "b": Study("b", REPRODUCTION, "", ("a",), after)}
    monkeypatch.setattr(studies, "registry", lambda: reg)
    out = studies.run_reproductions(None, plan(["b"]), True, 0, lambda n, m: f"error {n}: {m}")
    assert out == {"a": "error a: RuntimeError: planted", "b": "ran"} and seen == {"a": out["a"]}


def test_theorem_payloads_keep_every_run_and_its_curves():
    from fcocheck.verify.report_jobs import experiment

    payload = experiment("fco-lemma-4.5-eta", True, 0)
    runs = payload["runs"]
    assert runs and all(r["status"] in ("completed", "diverged") for r in runs)
    keys = {"algorithm", "hp", "oracle", "seed", "rounds", "problem_meta", "curves"}
    assert all(keys <= set(r) for r in runs)
    assert all(len(r["curves"]["gap"]) == r["rounds"] + 1 for r in runs if r["status"] == "completed")


def test_a_studys_runs_land_in_the_run_and_metric_tables_once(tmp_path):
    """Through the session, every run behind a theorem verdict becomes a row of ``runs`` (tagged with
    the study, keyed by its content digest) with its curves in ``metrics``; the stored payload keeps
    only keys and configurations; reusing the payload writes nothing; a scaled copy of the instance
    has another digest though its name and meta are the same."""
    import dataclasses

    import numpy as np

    from fcocheck.solvers.digest import instance_sha256
    from fcocheck.verify.experiments.instances import quadratics
    from fcocheck.verify.report_jobs import experiment, experiment_jobs
    from fcocheck.verify.sweep.session import Session
    from fcocheck.verify.sweep.store import Store

    direct = experiment("fco-eq-4.5", True, 0)["runs"]
    with Store(tmp_path / "s.sqlite") as store:
        session = Session(store)
        jobs = experiment_jobs(["fco-eq-4.5"], True, 0)
        payload = session.jobs("experiment", "quick", 0, jobs)["fco-eq-4.5"]
        rows = store.runs()
        # FedDualAvg and its control FedMiD on 3 instances at K = 2, 3, 5, 8
        assert len(rows) == len(direct) == len(payload["runs"]) == 2 * 3 * 4
        assert all("curves" not in r for r in payload["runs"])
        assert {r["key"] for r in rows} == {r["key"] for r in payload["runs"]}
        for row, want in zip(rows, direct, strict=True):
            assert row["tags"]["study"] == "fco-eq-4.5" and row["algorithm"] == want["algorithm"]
            assert row["config"]["problem"]["instance_sha256"] == want["instance_sha256"]
            got = store.metrics(row["id"])
            for name, curve in want["curves"].items():
                np.testing.assert_array_equal(got[name], curve)
        again = Session(store).jobs("experiment", "quick", 0, experiment_jobs(["fco-eq-4.5"], True, 0))
        assert again["fco-eq-4.5"]["runs"] == payload["runs"] and len(store.runs()) == 2 * 3 * 4
        out = store.export(tmp_path / "runs.csv")
        assert "tags.study" in out.read_text().splitlines()[0]
    p, _ = quadratics(1.0, lam=0.1)
    scaled = dataclasses.replace(p, Q=2.0 * p.Q)
    assert scaled.meta == p.meta and instance_sha256(scaled) != instance_sha256(p)


def test_one_vocabulary_for_theorems_reproductions_and_property_claims():
    from fcocheck.rates.verdict import CONSISTENT, INCONCLUSIVE, INCONSISTENT, KNOWN
    from fcocheck.verify import claims
    from fcocheck.verify.reproductions import base

    assert {base.REPRODUCED, base.NOT_REPRODUCED, base.INCONCLUSIVE} <= set(studies.VERDICTS)
    assert {claims.AGREES, claims.DISAGREES, claims.KNOWN, claims.UNVERIFIED} == {
        CONSISTENT, INCONSISTENT, KNOWN, INCONCLUSIVE}
