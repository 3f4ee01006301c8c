"""A user's method card from one file: the pytest plugin (``fcocheck_cards``) and the CLI (``--plugin``).

The tutorial's own example — FedAvg with server momentum, written by a user in their own module — gets
every check a built-in card gets, by name in every command; the same file with the momentum sign
flipped fails its reduction to heavy ball, the one check that runs β where it acts.
"""

from __future__ import annotations

import json

import pytest

from fcocheck.reports.cli import main

CARD = '''
from fcocheck.solvers.card import Add, Card, Gradient, Param, Reduction, Scale, Trace
from fcocheck.solvers.card import eta_c, eta_s, local_steps, unit_interval


class Momentum(Trace):
    def update(self, u, v, hp):
        v = u if v is None else {expr}
        return v, v


MINE = Card(
    "{name}", "FedAvg with server momentum, mine", "my notes, eq. (3)",
    params=(eta_c(), eta_s(), local_steps(),
            Param("beta", 0.0, "momentum", unit_interval, neutral=0.0, grid=(0.5, 0.9, 0.0))),
    client=Gradient(), server=(Momentum("beta"), Scale("eta_s")), apply=Add(),
    reduces_to=(Reduction("fedavg", when={{"beta": 0.0}}),
                Reduction("heavy-ball", when={{"local_steps": 1}}, hp_map={{"eta": "eta_s*eta_c"}},
                          run={{"participation": None, "oracle": "exact"}})),
)
fcocheck_cards = [MINE]
'''
RIGHT, SIGN = "hp.beta * v + u", "u - hp.beta * v"


@pytest.fixture(autouse=True)
def _clean_registry(monkeypatch):
    """Every card a test registers is removed after it, and ``--plugin``'s exported variable restored."""
    from fcocheck.solvers import algorithms
    from fcocheck.solvers.card.plugins import ENV

    monkeypatch.setenv(ENV, "")  # recorded, so what --plugin exports is undone after the test
    before = set(algorithms.CARDS)
    yield
    for name in set(algorithms.CARDS) - before:
        algorithms.unregister(name)


@pytest.mark.parametrize("expr,name,failed", [(RIGHT, "mine-ok", set()),
                                               (SIGN, "mine-sign", {"mine-sign=heavy-ball"})])
def test_a_user_card_in_a_test_module_gets_every_check(pytester, expr, name, failed):
    pytester.makepyfile(**{f"{name.replace('-', '_')}_card": CARD.format(expr=expr, name=name)})
    pytester.makepyfile(test_card=f"from {name.replace('-', '_')}_card import fcocheck_cards  # noqa: F401\n")
    # a fresh process, as a user runs it (an in-process run would share this one's registry and modules)
    result = pytester.runpytest_subprocess("-p", "no:xdist", "-p", "no:cacheprovider", "-rA")
    outcomes = result.parseoutcomes()
    items = {line.split("fcocheck[")[1].rstrip("]") for line in result.outlines
             if line.startswith("FAILED") and "fcocheck[" in line}
    assert {i.split(" - ")[0].rstrip("]") for i in items} == failed, result.outlines[-15:]
    assert outcomes.get("passed", 0) >= 16  # 5 card invariants + the suite's 12 checks, less what failed


def test_a_user_card_is_known_to_every_command_through_plugin(tmp_path, capsys):
    plugin = tmp_path / "mine.py"
    plugin.write_text(CARD.format(expr=RIGHT, name="mine-cli"))
    args = ["--plugin", str(plugin)]
    assert main([*args, "run", "mine-cli", "--problem", "quadratics", "--rounds", "3", "--eta-c", "0.1",
                 "--param", "beta=0.5", "--json", "--no-reference"]) == 0
    assert json.loads(capsys.readouterr().out)["algorithm"] == "mine-cli"
    # a pool of two workers: they learn the card from the environment the command exports
    assert main([*args, "check", "--quick", "--algorithm", "mine-cli", "--workers", "2", "--json",
                 "--out", str(tmp_path / "chk")]) == 0
    cells = {c["column"]: c["outcome"] for c in json.loads(capsys.readouterr().out)["invariants"]}
    assert cells["mine-cli=heavy-ball"] == "holds" and cells["exercised-mine-cli"] == "holds"
    assert main([*args, "worstcase", "mine-cli", "--grid", "K=2", "R=2", "--store",
                 str(tmp_path / "w.sqlite"), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["status"] == "optimal"


@pytest.mark.parametrize("body,rule", [("x = 1", "lists no cards"), ("raise RuntimeError('boom')", "boom")])
def test_a_broken_plugin_is_a_clean_error(tmp_path, capsys, body, rule):
    plugin = tmp_path / "broken.py"
    plugin.write_text(body)
    assert main(["--plugin", str(plugin), "algorithms"]) == 2
    assert rule in capsys.readouterr().err


CLAIM = CARD + '''
from fcocheck.verify.claim import Claim

fcocheck_claims = [Claim("{name}-rate", method=MINE, bound="1/R**2",
                         along=("rounds", [10, 20, 40, 80, 160, 320, 640]),
                         problem=("quadratics", {{"mu": 0.1, "zeta": 1.0, "d": 10}}),
                         hp={{"eta_c": 0.1, "local_steps": 2, "beta": 0.5}}, seeds=10)]
'''


@pytest.mark.parametrize("expr,name,outcome", [(RIGHT, "rate-ok", "passed"), (SIGN, "rate-sign", "failed")])
def test_a_user_claim_on_a_user_card_is_a_pytest_item_with_its_power(pytester, expr, name, outcome):
    """The tutorial's claim, from one file: Φ(ŵ) − Φ* ≲ 1/R² over 10 instances of the quadratics class;
    the correct momentum is consistent with full power, the sign-flipped one converges more slowly and
    its claim is rejected (the ratio to 1/R² keeps growing)."""
    module = name.replace("-", "_") + "_claims"
    pytester.makepyfile(**{module: CLAIM.format(expr=expr, name=name)})
    pytester.makepyfile(test_claims=f"from {module} import fcocheck_claims  # noqa: F401\n")
    result = pytester.runpytest_subprocess("-p", "no:xdist", "-p", "no:cacheprovider", "-rA")
    assert result.parseoutcomes().get(outcome) == 1, result.outlines[-10:]
    text = "\\n".join(result.outlines)
    if outcome == "failed":
        assert "inconsistent" in text and "keeps growing" in text


def test_a_user_claim_is_judged_by_validate_through_plugin(tmp_path, capsys):
    plugin = tmp_path / "claims.py"
    plugin.write_text(CLAIM.format(expr=RIGHT, name="val-ok"))
    assert main(["--plugin", str(plugin), "validate", "val-ok-rate", "--json"]) == 0
    (res,) = json.loads(capsys.readouterr().out)
    check = res["checks"][0]
    assert res["status"] == "consistent" and res["theorem"] == "user claim"
    assert check["evidence"]["oc"]["size"] <= 0.01 and min(check["evidence"]["oc"]["power"].values()) >= 0.95
    assert len(res["measured"]["instances"]) == 10  # ten instances of the class, one per seed
