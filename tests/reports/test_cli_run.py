"""``fcocheck algorithms`` and ``fcocheck run``: outputs, trace files, exit codes."""

import json
import subprocess
import sys

import numpy as np
import pytest

from reports.cli import main
from solvers.algorithms import ALGORITHMS
from solvers.engine import Trace

SMALL = ["--problem", "lasso-paper", "--problem-param", "clients=4", "--problem-param", "samples=10",
         "--problem-param", "d=8", "--problem-param", "nnz=3"]


def test_algorithms_lists_every_entry_with_its_hyperparameters(capsys):
    assert main(["algorithms", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["algorithms"]) == set(ALGORITHMS)
    assert data["algorithms"]["feddualavg"]["hyperparameters"]["eta_s"]["default"] == 1.0
    assert data["aliases"]["minibatch-pgm"] == "mirror-descent"
    assert main(["algorithms"]) == 0
    assert "fedmid-osp" in capsys.readouterr().out


def test_run_writes_the_trace_and_a_summary(tmp_path, capsys):
    out = tmp_path / "fda.npz"
    argv = ["run", "feddualavg", *SMALL, "--rounds", "5", "--local-steps", "3", "--eta-c", "0.05",
            "--oracle", "minibatch:4", "--seed", "3", "--clients-per-round", "2", "--out", str(out)]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "status    completed after 5/5 rounds" in text and "certified global optimum" in text
    t = Trace.load(out)
    assert t["server_w"].shape == (6, 9)
    for key in ("gap", "gap_avg", "prox_grad_norm", "discrepancy", "density", "f1", "floats_up"):
        assert key in t
    assert t.meta["hyper"] == {"eta_c": 0.05, "eta_s": 1.0, "local_steps": 3}
    assert main([*argv[:-2], "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["final"]["gap"] == pytest.approx(float(t["gap"][-1]), rel=0, abs=0)


def test_sequential_methods_take_eta_and_params(tmp_path, capsys):
    assert main(["run", "local", *SMALL, "--rounds", "3", "--eta", "0.1", "--param", "client=2",
                 "--no-reference"]) == 0
    assert "gap" not in capsys.readouterr().out.split("objective")[1].split("\n")[0]


@pytest.mark.parametrize("argv", [
    ["run", "fedmd", "--rounds", "3", "--eta-c", "0.1"],
    ["run", "fedmid", "--rounds", "3", "--eta-c", "0"],
    ["run", "fedmid", "--rounds", "3", "--eta-c", "0.1", "--local-steps", "0"],
    ["run", "fedmid", "--rounds", "-1", "--eta-c", "0.1"],
    ["run", "fedmid", "--rounds", "3", "--eta-c", "0.1", "--clients-per-round", "5"],
    ["run", "fedmid", "--rounds", "3", "--eta", "0.1"],
    ["run", "fedmid", "--rounds", "3", "--eta-c", "0.1", "--param", "eta_c=0.2"],
    ["run", "fedmid", "--rounds", "3", "--eta-c", "0.1", "--oracle", "minibatch:0"],
    ["run", "fedmid", "--rounds", "3", "--eta-c", "0.1", "--problem-param", "nnz=99"],
])
def test_bad_input_exits_2_and_writes_nothing(tmp_path, capsys, argv):
    out = tmp_path / "t.npz"
    assert main([*argv[:2], *SMALL, *argv[2:], "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fcocheck: error:") and "Traceback" not in err
    assert not out.exists() and not list(tmp_path.iterdir())


def test_out_must_be_npz(tmp_path, capsys):
    out = str(tmp_path / "t.csv")
    assert main(["run", "fedmid", *SMALL, "--rounds", "1", "--eta-c", "0.1", "--out", out]) == 2
    assert ".npz" in capsys.readouterr().err


def test_console_script_runs_from_python(tmp_path):
    out = tmp_path / "x.npz"
    code = ("import sys; from reports.cli import main; sys.exit(main(sys.argv[1:]))")
    proc = subprocess.run([sys.executable, "-c", code, "run", "pgm", *SMALL, "--rounds", "2", "--eta", "0.1",
                           "--no-reference", "--out", str(out)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert np.load(out)["server_w"].shape == (3, 9)
