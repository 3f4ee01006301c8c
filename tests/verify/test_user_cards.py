"""A user's method card from one file: the pytest plugin (``fcocheck_cards``) and the CLI (``--plugin``).

The tutorial's own example — FedAvg with server momentum, written by a user in their own module — gets
every check a built-in card gets, by name in every command; the same file with the momentum sign
flipped fails its reduction to heavy ball, the one check that runs β where it acts.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fcocheck.reports.cli import main

#: the tutorial's file (docs/tutorials/your-method-and-claim.md): the tests run the code the docs show
DOC = Path(__file__).parents[2] / "docs" / "tutorials" / "your-method-and-claim.md"
TUTORIAL = re.search(r"```python\n(.*?)```", DOC.read_text(), re.S).group(1)
RIGHT, SIGN = "hp.beta * v + u", "u - hp.beta * v"


def tutorial(name: str, sign: bool = False, claims: bool = True) -> str:
    """The tutorial's module under another name; ``sign``: the momentum sign flipped; ``claims``: with
    its claim (else the card alone)."""
    assert RIGHT in TUTORIAL and '"my-fedavgm"' in TUTORIAL and "fcocheck_claims" in TUTORIAL
    text = TUTORIAL.replace('"my-fedavgm-rate"', f'"{name}-rate"').replace('"my-fedavgm"', f'"{name}"')
    text = text.replace(RIGHT, SIGN) if sign else text
    return text if claims else text.split("fcocheck_claims")[0]


@pytest.fixture(autouse=True)
def _clean_registry(monkeypatch):
    """Every card and claim a test registers is removed after it (a claim's experiment too: one test file
    run after this one in the same process saw a 'user claim' theorem), and ``--plugin``'s exported
    variable restored."""
    from fcocheck.solvers import algorithms
    from fcocheck.solvers.card import plugins
    from fcocheck.verify import experiments

    monkeypatch.setenv(plugins.ENV, "")  # recorded, so what --plugin exports is undone after the test
    before, claims, names = set(algorithms.CARDS), list(plugins.CLAIMS), set(experiments.EXPERIMENTS)
    yield
    for name in set(algorithms.CARDS) - before:
        algorithms.unregister(name)
    plugins.CLAIMS[:] = claims
    for name in set(experiments.EXPERIMENTS) - names:
        del experiments.EXPERIMENTS[name]


@pytest.mark.parametrize("sign,name,failed", [(False, "mine-ok", set()),
                                               (True, "mine-sign", {"mine-sign=heavy-ball"})])
def test_a_user_card_in_a_test_module_gets_every_check(pytester, sign, name, failed):
    pytester.makepyfile(**{f"{name.replace('-', '_')}_card": tutorial(name, sign, claims=False)})
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
    plugin.write_text(tutorial("mine-cli", claims=False))
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




@pytest.mark.parametrize("sign,name,outcome", [(False, "rate-ok", "passed"), (True, "rate-sign", "failed")])
def test_a_user_claim_on_a_user_card_is_a_pytest_item_with_its_power(pytester, sign, name, outcome):
    """The tutorial's claim, from one file: Φ(ŵ) − Φ* ≲ 1/R² over 10 instances of the quadratics class
    and over the whole class (its PEP, from the card).  The correct momentum is consistent on both, with
    full power.  With the sign flipped the averaged output still decays like 1/R² on these instances
    (both signs contract linearly; the measured check rightly cannot object), but its worst case over the
    class does not: the smallest constant keeps growing, and the claim fails — as the tutorial says."""
    module = name.replace("-", "_") + "_claims"
    pytester.makepyfile(**{module: tutorial(name, sign)})
    pytester.makepyfile(test_claims=f"from {module} import fcocheck_claims  # noqa: F401\n")
    result = pytester.runpytest_subprocess("-p", "no:xdist", "-p", "no:cacheprovider", "-rA")
    assert result.parseoutcomes().get(outcome) == 1, result.outlines[-10:]
    text = "\\n".join(result.outlines)
    if outcome == "passed":  # a passing claim shows its verdicts with their size and power under -rA
        assert f"{name}-rate: consistent" in text and "size" in text and "power" in text
    if outcome == "failed":
        assert "bounded ratio along R on each of 10 instances (calibrated): consistent" in text
        assert "worst case over the class (PEP): inconsistent: the smallest constant keeps growing" in text


def test_a_user_claim_is_judged_by_validate_through_plugin(tmp_path, capsys):
    plugin = tmp_path / "claims.py"
    plugin.write_text(tutorial("val-ok"))
    assert main(["--plugin", str(plugin), "validate", "val-ok-rate", "--json"]) == 0
    (res,) = json.loads(capsys.readouterr().out)
    check, worst = res["checks"]
    assert res["status"] == "consistent" and res["theorem"] == "user claim"
    assert check["evidence"]["oc"]["size"] <= 0.01 and min(check["evidence"]["oc"]["power"].values()) >= 0.95
    assert len(res["measured"]["instances"]) == 10  # ten instances of the class, one per seed
    # the worst case over the class, solved from the user's card: its smallest constant saturates in R
    assert worst["rule"] == "worst case over the class (PEP)" and worst["status"] == "consistent"
    assert [r["R"] for r in res["measured"]["worst_case"]] == [1, 2, 3, 4, 5, 6]


def test_a_user_claim_is_a_section_of_the_report_with_its_figure(tmp_path, capsys):
    plugin = tmp_path / "claims.py"
    plugin.write_text(tutorial("rep-ok"))
    out = tmp_path / "report"
    code = main(["--plugin", str(plugin), "report", "--out", str(out), "--store", str(tmp_path / "s.sqlite"),
                 "--experiment", "rep-ok-rate", "--algorithm", "fedavg", "--reproduction", "none",
                 "--budget", "quick", "--workers", "1", "--no-progress"])
    assert code == 0, capsys.readouterr().err
    md = (out / "report.md").read_text()
    assert "### claim-rep-ok-rate — your claim rep-ok-rate: ✅ consistent" in md
    assert "#### rep-ok-rate: ✅ consistent" in md
    page = (out / "gallery" / "claim-rep-ok-rate.html").read_text()  # its own page, its statement typeset
    assert '<p class="math"><math' in page and 'data-experiment="rep-ok-rate"' in page
    assert "worst case over the class (PEP)" in md
    assert re.search(r"size ≤ \d+(\.\d+)?% \(sum over instances\); power y ∝ bound\^0.5", md)
    assert (out / "figures" / "rep-ok-rate.png").stat().st_size > 0


def test_a_reduction_between_two_listed_cards_is_one_item(pytester):
    """Two user cards pinned to each other: each reduction A=B is collected once, under A (it was
    collected again under B, with the same item id)."""
    pytester.makepyfile(test_pair='''
import dataclasses
from fcocheck.solvers.card import Reduction
from fcocheck.solvers.methods.fedavgm import CARD

A = dataclasses.replace(CARD, name="pair-a", reduces_to=(Reduction("pair-b"),))
B = dataclasses.replace(CARD, name="pair-b", reduces_to=(Reduction("pair-a"),))
fcocheck_cards = [A, B]
''')
    result = pytester.runpytest_subprocess("-p", "no:xdist", "-p", "no:cacheprovider", "--collect-only", "-q")
    ids = [line for line in result.outlines if "fcocheck[" in line]
    assert len(ids) == len(set(ids)) and any("pair-a=pair-b" in i for i in ids), ids
    assert sum("pair-a=pair-b" in i for i in ids) == 1 and sum("pair-b=pair-a" in i for i in ids) == 1, ids


def test_a_claim_that_breaks_a_rule_fails_with_the_rule_not_a_traceback(pytester):
    """A user's claim with a bad field is one failed item whose report is the clean error (the value and
    the rule), not pages of fcocheck's internals."""
    pytester.makepyfile(test_bad='''
from fcocheck.verify.claim import Claim
fcocheck_claims = [Claim("bad-sense", method="feddualavg", bound="1/R", along=("rounds", [4, 8, 16, 32]),
                         hp={"eta_c": 0.1}, sense="~")]
''')
    result = pytester.runpytest_subprocess("-p", "no:xdist", "-p", "no:cacheprovider")
    assert result.parseoutcomes().get("failed") == 1
    text = "\n".join(result.outlines)
    assert "InvalidClaimError: claim 'bad-sense': sense '~'; the rule is ≲ | ≳ | Θ | =" in text
    assert "Traceback" not in text and not re.search(r"claim\w*\.py:", text)
