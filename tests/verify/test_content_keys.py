"""An edited claim or card is never served its old result; an unchanged one is always reused (issue 52).

A stored result is keyed by the code version (fcocheck's own files) and, for a user's card or claim, by
``solvers.definition.definition_digest``: the object's value and the code it runs.  The unit tests show
which edits change the digest (what the object computes) and which do not (comments, docstrings, the
file's path); the command tests edit a plugin file between two runs of ``report``, ``sweep`` and
``worstcase``, as a user does, and read the store.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from fcocheck.solvers.definition import definition_digest

DOC = Path(__file__).parents[2] / "docs" / "tutorials" / "your-method-and-claim.md"
PLUGIN = re.search(r"```python\n(.*?)```", DOC.read_text(), re.S).group(1)

#: (what, old text, new text, does the card change, does the claim change)
EDITS = [
    ("transform", "hp.beta * v + u", "3 * hp.beta * v + u", True, True),
    ("card grid", "grid=(0.5, 0.9, 0.0)", "grid=(0.5, 0.8, 0.0)", True, True),
    ("claim bound", 'bound="1/R**2"', 'bound="1/R**0.05"', False, True),
    ("claim seeds", "seeds=10", "seeds=4", False, True),
    ("claim design", "[10, 20, 40, 80, 160, 320, 640]", "[10, 20, 40, 80, 160, 320]", False, True),
    ("claim problem", '"zeta": 1.0', '"zeta": 2.0', False, True),
    ("a comment", "MINE = Card(", "# the card\nMINE = Card(", False, False),
    ("a docstring", '"""v ← βv + u on the server', '"""The update v ← βv + u on the server', False, False),
    ("blank lines", "\n\nMINE = Card(", "\n\n\n\nMINE = Card(", False, False),
]


def _load(text: str):  # noqa: ANN202 - a module
    """``text`` as a module of its own (a fresh name: no registry, no module cache shared)."""
    name = f"plugin_{uuid.uuid4().hex}"
    path = Path(sys.modules[__name__].__file__).parent / f".{name}.py"
    path.write_text(text)
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    finally:
        path.unlink()
    return module


def _digests(text: str) -> tuple[str, str]:
    m = _load(text)
    return definition_digest(m.fcocheck_cards[0]), definition_digest(m.fcocheck_claims[0])


@pytest.mark.parametrize("what,old,new,card,claim", EDITS, ids=[e[0] for e in EDITS])
def test_an_edit_changes_the_digest_exactly_when_it_changes_what_runs(what, old, new, card, claim):
    assert old in PLUGIN, what
    before, after = _digests(PLUGIN), _digests(PLUGIN.replace(old, new, 1))
    assert (before[0] != after[0], before[1] != after[1]) == (card, claim), what


def test_the_code_a_method_calls_is_part_of_its_definition():
    """A helper function the transform calls, a module constant it reads, a value in its closure: each
    edit changes the card's digest (the method's own text is unchanged)."""
    helper = PLUGIN.replace("hp.beta * v + u", "combine(hp.beta, v, u)").replace(
        "class Momentum(Trace):", "SCALE = 1.0\n\n\ndef combine(b, v, u):\n    return SCALE * b * v + u\n\n\n"
        "class Momentum(Trace):")
    base = _digests(helper)[0]
    assert _digests(helper.replace("return SCALE * b * v + u", "return SCALE * b * v - u"))[0] != base
    assert _digests(helper.replace("SCALE = 1.0", "SCALE = 2.0"))[0] != base
    assert _digests(helper)[0] == base  # and loading it again changes nothing


def test_a_definition_has_one_digest_in_every_process(tmp_path):
    """The digest does not depend on the process, the module's name or the file's path (a worker of a
    pool computes the key the driver computed)."""
    code = ("import importlib.util, sys; from fcocheck.solvers.definition import definition_digest\n"
            "spec = importlib.util.spec_from_file_location(sys.argv[2], sys.argv[1])\n"
            "m = importlib.util.module_from_spec(spec); sys.modules[sys.argv[2]] = m\n"
            "spec.loader.exec_module(m)\n"
            "print(definition_digest(m.fcocheck_cards[0]), definition_digest(m.fcocheck_claims[0]))")
    seen = set()
    for i, name in enumerate(("one", "other")):
        path = tmp_path / f"d{i}" / "mine.py"
        path.parent.mkdir()
        path.write_text(PLUGIN)
        out = subprocess.run([sys.executable, "-c", code, str(path), name], capture_output=True, text=True,
                             check=True)
        seen.add(out.stdout.strip())
    assert len(seen) == 1 and seen == {" ".join(_digests(PLUGIN))}


def test_a_value_without_a_readable_state_is_never_recognised_again():
    """An object whose repr holds an address has no value to read: a fresh nonce each time, so a result
    keyed by it is recomputed, never served stale."""
    class Opaque:
        __slots__ = ()

    assert definition_digest((Opaque(),)) != definition_digest((Opaque(),))


# --- the commands, with the plugin file edited between two runs, as a user does ---------------------
def _fcocheck(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fcocheck.reports.cli", *args], capture_output=True,
                          text=True)


def _stored(store: Path) -> dict:
    return json.loads(_fcocheck("store", "info", "--store", str(store)).stdout)


REPORT = ["--experiment", "my-fedavgm-rate", "--algorithm", "none", "--reproduction", "none",
          "--no-worstcase", "--no-progress", "--workers", "1"]


def test_an_edited_claim_is_judged_again_and_an_unchanged_one_reused(tmp_path):
    plugin, store = tmp_path / "mine.py", tmp_path / "s.sqlite"
    small = PLUGIN.replace("seeds=10", "seeds=3")

    def report(text: str) -> dict:
        plugin.write_text(text)
        done = _fcocheck("--plugin", str(plugin), "report", "--out", str(tmp_path / "r"), "--store",
                         str(store), *REPORT)
        assert done.returncode in (0, 1), done.stderr
        return json.loads((tmp_path / "r" / "report.json").read_text())["provenance"]["jobs"]

    assert report(small)["run"] == {"experiment": 1}
    again = report(small)  # unchanged: reused
    assert again["run"] == {} and again["reused"]["experiment"] == 1
    assert report(small.replace('bound="1/R**2"', 'bound="1/R**0.05"'))["run"] == {"experiment": 1}
    assert "0.05" in (tmp_path / "r" / "report.md").read_text()  # the edited statement, not the old one
    assert report(small.replace("seeds=3", "seeds=4"))["run"] == {"experiment": 1}  # the design
    rows = [r for r in _stored(store)["user_definitions"] if r["kind"] == "experiment"]
    assert len({r["definition"] for r in rows}) == 3 and {r["name"] for r in rows} == {"my-fedavgm-rate"}
    assert report(small)["run"] == {}  # the first claim again: its result is still there


SWEEP = {"base": {"algorithm": "my-fedavgm", "problem": {"generator": "quadratics"},
                  "hp": {"eta_c": 0.1, "local_steps": 2, "beta": 0.5}, "rounds": 5},
         "axes": {"hp.eta_c": [0.05, 0.1, 0.2]}, "seeds": 1}


@pytest.mark.parametrize("what,old,new", [("transform", "hp.beta * v + u", "3 * hp.beta * v + u"),
                                          ("card grid", "grid=(0.5, 0.9, 0.0)", "grid=(0.5, 0.8, 0.0)")])
def test_an_edited_card_runs_again_and_an_unchanged_one_is_reused(tmp_path, what, old, new):
    plugin, store, sweep = tmp_path / "mine.py", tmp_path / "s.sqlite", tmp_path / "sweep.json"
    sweep.write_text(json.dumps(SWEEP))

    def run(text: str) -> str:
        plugin.write_text(text)
        done = _fcocheck("--plugin", str(plugin), "sweep", str(sweep), "--store", str(store), "--no-progress",
                         "--workers", "1")
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert "0 reused from the store, executed completed 3" in run(PLUGIN)
    noted = PLUGIN.replace("MINE = Card(", "# a note\nMINE = Card(")
    assert "3 reused from the store, executed none" in run(noted)
    assert "0 reused from the store, executed completed 3" in run(PLUGIN.replace(old, new))
    runs = [r for r in _stored(store)["user_definitions"] if r["kind"] == "runs"]
    assert [r["stored"] for r in runs] == [3, 3] and {r["name"] for r in runs} == {"my-fedavgm"}


def test_an_edited_card_s_worst_case_is_solved_again(tmp_path):
    plugin, store = tmp_path / "mine.py", tmp_path / "s.sqlite"
    grid = ["worstcase", "my-fedavgm", "--grid", "K=2", "R=2", "--store", str(store), "--json"]
    for text in (PLUGIN, PLUGIN, PLUGIN.replace("hp.beta * v + u", "3 * hp.beta * v + u")):
        plugin.write_text(text)
        assert _fcocheck("--plugin", str(plugin), *grid).returncode == 0
    rows = [r for r in _stored(store)["user_definitions"] if r["kind"] == "worstcase"]
    assert len(rows) == 2 and all(r["stored"] == 1 for r in rows), rows
