"""One executor pass for jobs and declared runs (``Session.job_batches(..., runs=)``), the
``metrics_every`` field of a run configuration, and the studies' declared tuning grids."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fcocheck.verify.sweep import RunConfig, Store, grid
from fcocheck.verify.sweep.config import InvalidSweepError
from fcocheck.verify.sweep.executors import Pool, Serial
from fcocheck.verify.sweep.session import Job, Session
from fcocheck.verify.sweep.task import execute
from tests.verify.test_sweep import BASE, contents, small_grid


def _payload(x: int) -> dict:
    return {"status": "done", "x": x}


def _jobs() -> list[Job]:
    return [Job(f"j{i}", _payload, (i,)) for i in range(3)]


@pytest.mark.parametrize("executor", ["serial", "pool"])
def test_declared_runs_execute_in_the_jobs_pass_and_are_then_done(tmp_path, executor):
    """The runs land in the store exactly as ``Session.runs`` puts them (same bits as a plain sweep);
    the later ``runs`` call executes nothing and says so; jobs and runs are not counted as reused."""
    cfgs = small_grid()
    ex = Serial() if executor == "serial" else Pool(2)
    try:
        with Store(tmp_path / "a.sqlite") as st:
            s = Session(st, ex, progress=False)
            (out,) = s.job_batches([("kind", "quick", 0, _jobs())], runs=cfgs)
            assert out == {f"j{i}": {"status": "done", "x": i} for i in range(3)}
            label, first = s.summaries[-1]
            assert first.requested == len(cfgs) and first.reused == 0
            assert sum(first.executed.values()) == len(cfgs)
            stored = s.runs(cfgs, "later")
            _, later = s.summaries[-1]
            errored = sum(r.status == "error" for r in stored)  # scaffold has no eta_c: run again
            assert errored == 4 and later.reused == 0
            assert later.executed["declared ahead, run in the first pass"] == len(cfgs) - errored
            assert later.executed["error"] == errored
            s.job_batches([("kind", "quick", 0, _jobs())])
            assert s.jobs_run == {"kind": 3} and s.jobs_reused == {"kind": 0}
    finally:
        ex.close()
    with Store(tmp_path / "b.sqlite") as st:
        Session(st, Serial(), progress=False).runs(cfgs, "plain")
    assert contents(tmp_path / "a.sqlite") == contents(tmp_path / "b.sqlite")


def test_a_second_session_reuses_what_the_first_pass_stored(tmp_path):
    cfgs = small_grid()[:4]
    with Store(tmp_path / "s.sqlite") as st:
        Session(st, Serial(), progress=False).job_batches([("kind", "quick", 0, _jobs())], runs=cfgs)
        again = Session(st, Serial(), progress=False)
        again.job_batches([("kind", "quick", 0, _jobs())], runs=cfgs)
        _, summary = again.summaries[-1]
        assert summary.reused == len(cfgs) and not summary.executed
        assert again.jobs_reused == {"kind": 3} and again.jobs_run == {}
        again.job_batches([("kind", "quick", 0, _jobs())])  # the same jobs asked for again (as the report's
        assert again.jobs_reused == {"kind": 3}  # worst cases are): each counted once, not 6


def test_metrics_every_is_validated_and_keyed_only_when_not_one():
    plain = RunConfig.from_dict(BASE)
    assert "metrics_every" not in plain.as_dict()  # the keys of every earlier design are unchanged
    assert RunConfig.from_dict({**BASE, "metrics_every": 1}).key == plain.key
    five = RunConfig.from_dict({**BASE, "metrics_every": 5})
    assert five.key != plain.key and RunConfig.from_dict(json.loads(json.dumps(five.as_dict()))) == five
    for bad in (0, -3, 2.5, True, "5"):
        with pytest.raises(InvalidSweepError, match=r"metrics_every.*the rule is an integer >= 1"):
            RunConfig.from_dict({**BASE, "metrics_every": bad})
    with pytest.raises(InvalidSweepError, match=r"metrics_every = 0; the rule is an integer >= 1"):
        RunConfig(plain.algorithm, plain.problem, plain.hp, 5, metrics_every=0)


def test_a_run_scored_on_its_last_round_needs_only_the_last_evaluation():
    """metrics_every = R: the same iterates, the same final metrics, NaN before (FCO Fig. 3 tuning)."""
    base = grid({**BASE, "oracle": "exact", "rounds": 12}, {}, seeds=[0])[0]
    every = execute(base)
    last = execute(RunConfig(**{**base.__dict__, "metrics_every": 12}))
    assert every.status == last.status == "completed"
    for name, values in every.metrics.items():
        other = last.metrics[name]
        assert other[-1] == values[-1] or (np.isnan(other[-1]) and np.isnan(values[-1])), name
    assert np.isnan(last.metrics["objective"][1:-1]).all() and np.isfinite(every.metrics["objective"]).all()


def test_the_declared_tuning_grids_are_the_grids_the_figures_tune_on(monkeypatch):
    """``Study.ahead`` must declare exactly what the study asks for first, or the first pass is waste."""
    from fcocheck.verify.reproductions import fco
    from fcocheck.verify.studies import declared_runs, plan

    asked = []

    class StopError(Exception):
        pass

    def capture(session, configs, score, label):
        asked.append([c.key for c in configs])
        raise StopError

    monkeypatch.setattr(fco, "tune", capture)
    for quick in (True, False):
        asked.clear()
        for fig in (fco.fig3, fco.fig4):
            with pytest.raises(StopError):
                fig(None, quick, 7)
        studies = plan(["fco-fig3", "fco-fig4"])
        assert [c.key for c in declared_runs(studies, quick, 7)] == asked[0] + asked[1]
        assert all(c.metrics_every == c.rounds for c in declared_runs(studies, quick, 7))


def test_the_export_says_which_rounds_were_evaluated(tmp_path):
    """A default run exports metrics_every = 1 (its stored config omits it), a tuning run its k."""
    import csv

    base = grid({**BASE, "oracle": "exact", "rounds": 6}, {}, seeds=[0])[0]
    with Store(tmp_path / "s.sqlite") as st:
        Session(st, Serial(), progress=False).runs(
            [base, RunConfig(**{**base.__dict__, "metrics_every": 3})], "two")
        st.export(tmp_path / "m.csv")
    rows = list(csv.DictReader((tmp_path / "m.csv").open()))
    assert {r["metrics_every"] for r in rows} == {"1", "3"}
    assert {r["objective"] == "" for r in rows if r["metrics_every"] == "3"} == {True, False}
