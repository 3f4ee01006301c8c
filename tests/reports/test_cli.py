"""The command line: outputs, exit codes, nothing written on bad input."""

import json

from reports.cli import main


def test_problems_json(capsys):
    assert main(["problems", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows["lasso-paper"]["parameters"]["clients"] == 64


def test_solve_writes_certified_json(tmp_path, capsys):
    out = tmp_path / "ref.json"
    assert main(["solve", "quadratics", "--param", "d=8", "--seed", "2", "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["certificate"]["kind"] == "duality-gap"
    assert data["certificate"]["relative"] <= 1e-10
    assert len(data["w"]) == 8 and data["constants"]["zeta_kind"].startswith("exact")
    assert "certified global optimum" in capsys.readouterr().out


def test_solve_instance_file(tmp_path, capsys):
    inst = tmp_path / "q.npz"
    assert main(["solve", "ridge", "--save-instance", str(inst)]) == 0
    capsys.readouterr()
    assert main(["solve", str(inst), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["label"] == "certified global optimum"


def test_bad_input_exits_2_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "ref.json"
    for argv in (["solve", "lasso-paper", "--param", "lam=-1"],
                 ["solve", "lasso-papr"],
                 ["solve", "quadratics", "--param", "mu=x"],
                 ["solve", "quadratics", "--param", "oops"],
                 ["solve", str(tmp_path / "missing.npz")]):
        assert main(argv + ["--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("fcocheck: error:") and "Traceback" not in err
    assert not out.exists()
