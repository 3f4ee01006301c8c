"""``fcocheck plot`` over the store, and the tidy views for notebooks (issue 34)."""

from __future__ import annotations

import numpy as np
import pytest

from fcocheck.reports.cli import main
from fcocheck.reports.cli_plot import groups, select
from fcocheck.solvers.engine import run
from fcocheck.solvers.generators import generate
from fcocheck.verify.sweep import Store, grid, run_sweep
from fcocheck.verify.sweep.executors import Serial

BASE = {"algorithm": "feddualavg", "problem": {"generator": "quadratics", "params": {"clients": 4, "d": 6}},
        "hp": {"eta_c": 0.1, "local_steps": 2}, "rounds": 8}


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "s.sqlite"
    with Store(path) as st:
        run_sweep(grid(BASE, {"algorithm": ["feddualavg", "fedmid"], "hp.eta_c": [0.05, 0.2]}, range(3)), st,
                  Serial(), progress=False)
    return path


def test_one_line_per_configuration_over_its_seeds(store, tmp_path, capsys):
    assert main(["plot", "--store", str(store), "--metric", "gap_avg", "--out", str(tmp_path / "p")]) == 0
    assert "4 line(s) from 12 run(s)" in capsys.readouterr().out
    assert sorted(p.name for p in (tmp_path / "p").iterdir()) == [".plot-gap_avg.drawn", "plot-gap_avg.png",
                                                                 "plot-gap_avg.svg"]  # and the key drawn from
    with Store(store) as st:
        chosen = select(st.runs(), {"algorithm": "fedmid"})
    assert len(chosen) == 6
    labels = groups(chosen)
    assert sorted(labels) == ["hp.eta_c=0.05", "hp.eta_c=0.2"] and all(len(v) == 3 for v in labels.values())


@pytest.mark.parametrize("args,rule", [
    (["--where", "garbage"], "the rule is FIELD=VALUE"),
    (["--where", "hp.eta_c=9"], "no run in"),
    (["--metric", "nope"], "the rule is one of ["),
])
def test_bad_requests_name_the_rule_and_write_nothing(store, tmp_path, capsys, args, rule):
    out = tmp_path / "p"
    assert main(["plot", "--store", str(store), "--out", str(out), *args]) == 2
    assert rule in capsys.readouterr().err and not out.exists()


def test_a_missing_store_is_refused(tmp_path, capsys):
    assert main(["plot", "--store", str(tmp_path / "none.sqlite"), "--out", str(tmp_path / "p")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_a_trace_as_columns_and_a_data_frame():
    t = run("feddualavg", generate("quadratics", clients=4, d=6), {"eta_c": 0.1, "local_steps": 2}, rounds=5)
    point, per_round = t.columns(), t.columns("round")
    assert list(point["round"]) == [0, 1, 2, 3, 4, 5] and np.array_equal(point["gap"], t["gap"])
    assert list(per_round["round"]) == [1, 2, 3, 4, 5] and np.array_equal(per_round["discrepancy"],
                                                                         t["discrepancy"])
    assert "discrepancy" not in point and "gap" not in per_round
    frame = t.to_frame()
    assert frame.shape[0] == 6 and np.array_equal(frame["gap_avg"].to_numpy(), t["gap_avg"])
    with pytest.raises(ValueError, match="the rule is 'point' or 'round'"):
        t.columns("step")


def test_the_store_as_a_data_frame(store):
    with Store(store) as st:
        frame = st.frame()
        header, rows = st.wide_rows()
        n = len(list(rows))
    assert list(frame.columns) == header and len(frame) == n == 12 * 9  # 12 runs × rounds 0…8
    assert set(frame["algorithm"]) == {"feddualavg", "fedmid"}


def test_two_selections_plotted_into_one_folder_keep_two_files(store, tmp_path, capsys):
    """The filters join the file name; without one it stays ``plot-METRIC`` (what the docs name)."""
    out = tmp_path / "p"
    for where in ("algorithm=fedmid", "algorithm=feddualavg"):
        args = ["plot", "--store", str(store), "--metric", "gap_avg", "--where", where, "--out", str(out)]
        assert main(args) == 0
    names = sorted(p.name for p in out.glob("*.png"))
    assert names == ["plot-gap_avg__algorithm=feddualavg.png", "plot-gap_avg__algorithm=fedmid.png"]
    assert (out / names[0]).read_bytes() != (out / names[1]).read_bytes()


def test_a_long_selection_gets_a_bounded_name_that_still_tells_two_apart():
    from fcocheck.reports.cli_plot import plot_stem
    from fcocheck.solvers.files import MAX_STEM, UnsafePathError, safe_stem

    with pytest.raises(UnsafePathError):
        safe_stem("a" * (MAX_STEM + 1))  # the bound the names are cut to is the one file names obey

    assert plot_stem("gap_avg", {}) == "plot-gap_avg"
    a, b = (plot_stem("gap_avg", {"problem": "x" * 300 + end}) for end in "ab")
    assert a != b and len(a) == len(b) == MAX_STEM and safe_stem(a) == a
    assert plot_stem("m", {"hp.eta_c": 0.1, "algorithm": "fedmid"}) == plot_stem(
        "m", {"algorithm": "fedmid", "hp.eta_c": 0.1})  # the filters' order does not matter
