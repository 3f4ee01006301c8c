"""``fcocheck algorithms`` and ``fcocheck run``: outputs, trace files, exit codes."""

import json
import subprocess
import sys

import numpy as np
import pytest

from fcocheck.reports.cli import main
from fcocheck.solvers.algorithms import ALGORITHMS
from fcocheck.solvers.engine import Trace

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
    code = ("import sys; from fcocheck.reports.cli import main; sys.exit(main(sys.argv[1:]))")
    proc = subprocess.run([sys.executable, "-c", code, "run", "pgm", *SMALL, "--rounds", "2", "--eta", "0.1",
                           "--no-reference", "--out", str(out)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert np.load(out)["server_w"].shape == (3, 9)


RIDGE = ["--problem", "ridge", "--problem-param", "clients=3", "--problem-param", "samples=30",
         "--problem-param", "d=5"]
#: Every issue-4 entry with the paper's hyper-parameter names, through --param.
ISSUE4_RUNS = {
    "fedcanon": (SMALL, ["eta_l=0.05", "b=2"]), "fedcanon2": (SMALL, ["eta_l=0.05"]),
    "scaffold": (SMALL, ["eta_l=0.05", "eta_g=1"]), "proxskip": (SMALL, ["gamma=0.05", "p=0.5"]),
    "scaffnew": (SMALL, ["gamma=0.05", "p=0.5"]), "scaffnew-composite": (SMALL, ["gamma=0.05", "p=0.5"]),
    "za1": (SMALL, ["eta=0.05", "eta_g=1"]), "feddr": (SMALL, ["eta=0.5", "alpha=1.2"]),
    "fedadmm": (SMALL, ["eta=0.5"]), "gd": (RIDGE, ["h=0.1"]), "sgd": (RIDGE, ["h=0.01", "m=20"]),
    "svrg": (RIDGE, ["h=0.01", "m=20"]), "dane": (RIDGE, ["eta=1", "mu=0.1"]),
    "naive-fsvrg": (RIDGE, ["h=0.01", "m=5"]), "fsvrg": (RIDGE, ["h=0.5"]),
    "primal-method": (RIDGE, ["sigma=2"]), "dual-method": (RIDGE, ["sigma=2"]), "cocoa+": (RIDGE, []),
    "one-shot": (RIDGE, []),
}


@pytest.mark.parametrize("name", sorted(ISSUE4_RUNS))
def test_issue4_algorithms_run_from_the_cli(name, capsys):
    problem, params = ISSUE4_RUNS[name]
    argv = ["run", name, *problem, "--rounds", "3", "--local-steps", "2", "--json", "--no-reference"]
    if name in ("proxskip", "scaffnew", "scaffnew-composite", "gd", "sgd", "svrg", "dane", "naive-fsvrg",
                "fsvrg", "primal-method", "dual-method", "cocoa+", "one-shot"):
        argv.remove("--local-steps")
        argv.remove("2")
    for param in params:
        argv += ["--param", param]
    assert main(argv) == 0, capsys.readouterr().err
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "completed" and data["completed"] == 3


@pytest.mark.parametrize(("name", "params", "rule"), [
    ("scaffnew", ["gamma=0.1", "p=1.5"], "0 < p <= 1"),
    ("feddr", ["eta=0.5", "alpha=2"], "0 < alpha < 2"),
    ("fedcanon", ["eta_l=-1"], "eta_l > 0"),
])
def test_issue4_bad_hyperparameters_exit_2_naming_the_rule(name, params, rule, capsys):
    argv = ["run", name, *SMALL, "--rounds", "2", "--no-reference"]
    for param in params:
        argv += ["--param", param]
    assert main(argv) == 2
    assert rule in capsys.readouterr().err


def test_dane_without_an_exact_local_solver_exits_2(capsys):
    argv = ["run", "dane", "--problem", "sparse-logistic", "--problem-param", "clients=3", "--rounds", "2",
            "--no-reference"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "not quadratic" in err and "local_solver = gd" in err


def test_a_diverged_run_exits_1_and_keeps_its_trace(tmp_path, capsys):
    """Issue 20: a diverged run exited 0; it is a recorded result (trace written) and exit 1."""
    out = tmp_path / "t.npz"
    code = main(["run", "fedavg", "--problem", "quadratics", "--rounds", "50", "--eta-c", "50",
                 "--local-steps", "2", "--no-reference", "--out", str(out)])
    assert code == 1 and out.is_file()
    assert "diverged" in capsys.readouterr().err


def test_version_and_a_closed_pipe(tmp_path):
    """--version prints the package version; `| head` closing the pipe gives no traceback."""
    import subprocess
    import sys

    v = subprocess.run([sys.executable, "-m", "fcocheck.reports.cli", "--version"], capture_output=True,
                       text=True)
    assert v.returncode == 0 and v.stdout.startswith("fcocheck ")
    import fcntl

    p = subprocess.Popen([sys.executable, "-m", "fcocheck.reports.cli", "theorems", "--json",
                          "--samples", "50"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    fcntl.fcntl(p.stdout.fileno(), 1031, 4096)  # F_SETPIPE_SZ: 4 KiB, so the ~19 KB output blocks
    p.stdout.read(10)
    p.stdout.close()  # the reader goes away, like `| head -c 10`
    err = p.stderr.read().decode()
    p.wait(timeout=60)
    assert "Traceback" not in err and "BrokenPipeError" not in err
