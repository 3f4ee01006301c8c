"""The command line: outputs, exit codes, nothing written on bad input."""

import json

from fcocheck.reports.cli import main


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


def test_solve_cache_reuses_cvxpy_and_constants_and_cannot_pass_a_bad_entry(tmp_path, capsys, monkeypatch):
    """The second solve of the same instance reuses cvxpy's answer and the constants (same numbers);
    the cached point is re-certified, so a tampered point is polished or rejected, never trusted; a
    corrupt file is a miss; constants are reused only for the bit-identical w*; --no-cache writes nothing."""
    import json as _json

    from fcocheck.reports import solve_cache

    monkeypatch.setenv("FCOCHECK_CACHE", str(tmp_path / "cache"))
    argv = ["solve", "quadratics", "--param", "d=8", "--seed", "2", "--json"]
    assert main(argv) == 0
    first = _json.loads(capsys.readouterr().out)
    assert first["cache"]["reused"] is False
    path = tmp_path / "cache" / "solve"
    (entry_file,) = path.glob("*.json")
    assert main(argv) == 0
    second = _json.loads(capsys.readouterr().out)
    assert second["cache"]["reused"] is True and second["objective"] == first["objective"]
    assert second["constants"] == first["constants"]
    assert any(r["name"].endswith("(cached)") for r in second["solvers"])
    # a tampered cvxpy point: certified afresh, so it is polished (agreement still ≤ 1e-9) or refused
    entry = _json.loads(entry_file.read_text())
    entry["cvx"]["w"] = [v + 0.5 for v in entry["cvx"]["w"]]
    entry["w_sha256"] = "0" * 64  # and the constants must be recomputed, not reused
    entry_file.write_text(_json.dumps(entry))
    assert main(argv) == 0
    third = _json.loads(capsys.readouterr().out)
    assert third["cache"]["reused"] is False and third["agreement"] <= 1e-9
    cvx_rec = next(r for r in third["solvers"] if r["name"].startswith("cvxpy"))
    assert cvx_rec["certificate"]["relative"] > 1e-9  # the bad point was seen as bad ...
    assert any(r["name"].startswith("fista-restart (polish") for r in third["solvers"])  # ... and polished
    # a corrupt file is a miss (recomputed and rewritten), not an error
    entry_file.write_text("{not json")
    assert main(argv) == 0
    assert _json.loads(capsys.readouterr().out)["cache"]["reused"] is False
    assert solve_cache.load(entry_file) is not None
    # --no-cache neither reads nor writes
    monkeypatch.setenv("FCOCHECK_CACHE", str(tmp_path / "other"))
    assert main([*argv, "--no-cache"]) == 0
    assert _json.loads(capsys.readouterr().out)["cache"] == {"path": None, "reused": False}
    assert not (tmp_path / "other").exists()
