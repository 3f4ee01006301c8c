"""An invalid claim is an error everywhere, never a verdict (issue 52): exit 2 naming the rule, nothing run.

Each kind of invalid claim a user wrote (an along value that is NaN, 0, negative, a string or 10.5 for
rounds; an unknown axis, method, class or parameter; η_c = −1; an unknown statistic, sense, measure or
oracle; a bound that is negative, unparseable, huge or deep; a design past its size limits; a duplicate
name) is refused by ``validate``, ``validate --strict`` and ``report`` with exit 2 and the rule, before
any run and with no store or report written; pytest fails its item with the rule.  Hypothesis mutates a
valid claim's fields: admission answers with the claim or a named refusal, never another exception.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcocheck.reports.cli import main
from fcocheck.solvers.errors import FcocheckError
from fcocheck.verify.claim import Claim, InvalidClaimError
from fcocheck.verify.claim_admit import LIMITS, admit

BASE = {"method": '"fedavg"', "bound": '"1/R"', "along": '("rounds", [10, 20, 40, 80])',
        "problem": '("quadratics", {"mu": 0.5, "zeta": 1.0, "d": 5, "lam": 0.0})',
        "hp": '{"eta_c": 0.1, "local_steps": 2}', "seeds": "3"}

#: kind → (changes to the claim's source, a phrase of the refusal)
INVALID = {
    "along NaN": ({"along": '("rounds", [10, 20, float("nan"), 80])'}, "along rounds holds nan"),
    "along 0": ({"along": '("rounds", [0, 20, 40, 80])'}, "≥ 4 positive values"),
    "along negative": ({"along": '("rounds", [-10, 20, 40, 80])'}, "≥ 4 positive values"),
    "along strings": ({"along": '("rounds", ["a", "b", "c", "d"])'}, "along rounds holds 'a'"),
    "along 10.5 rounds": ({"along": '("rounds", [10.5, 20.5, 40.5, 80.5])'}, "along rounds holds 10.5"),
    "along 1.5 steps": ({"along": '("local_steps", [1.5, 2.5, 4.5, 8.5])', "bound": '"K"'},
                        "local_steps = 1.5 is invalid"),
    "unknown axis": ({"along": '("nosuch", [1, 2, 4, 8])', "bound": '"1/nosuch"'},
                     "has no hyper-parameter 'nosuch'"),
    "unknown class parameter axis": ({"along": '("problem.nosuch", [1, 2, 4, 8])', "bound": '"1/nosuch"'},
                                     "the rule is rounds, a hyper-parameter"),
    "unknown method": ({"method": '"nosuch"'}, "unknown algorithm 'nosuch'"),
    "unknown class": ({"problem": '("nosuch", {})'}, "unknown problem 'nosuch'"),
    "unknown class parameter": ({"problem": '("quadratics", {"nosuch": 1})'}, "has no parameter 'nosuch'"),
    "eta_c = -1": ({"hp": '{"eta_c": -1, "local_steps": 2}'}, "eta_c = -1 is invalid"),
    "eta_c NaN": ({"hp": '{"eta_c": float("nan"), "local_steps": 2}'}, "eta_c = nan is invalid"),
    "unknown hyper-parameter": ({"hp": '{"eta_c": 0.1, "nosuch": 2}'}, "no hyper-parameter 'nosuch'"),
    "hyper-parameter text": ({"hp": '{"eta_c": "abc", "local_steps": 2}'}, "is not a valid float"),
    "missing hyper-parameter": ({"hp": '{"local_steps": 2}'}, "'eta_c' is required"),
    "unknown statistic": ({"extra": 'statistic="nosuch"'}, "statistic 'nosuch'; the rule is one of"),
    "unknown sense": ({"extra": 'sense="nosuch"'}, "sense 'nosuch'; the rule is"),
    "unknown measure": ({"extra": 'measure="nosuch"'}, "measure 'nosuch'; the rule is a metric"),
    "unknown oracle": ({"extra": 'oracle="nosuch"'}, "oracle 'nosuch' is unknown"),
    "unknown direction": ({"extra": 'direction="sideways"'}, "direction 'sideways'"),
    "negative bound": ({"bound": '"-1/R"'}, "the rule is positive and finite"),
    "zero bound": ({"bound": '"0"'}, "the rule is positive and finite"),
    "unparseable bound": ({"bound": '"1/("'}, "does not parse"),
    "unknown name in bound": ({"bound": '"1/Qx"'}, "free symbols ['Qx']"),
    "huge exponent": ({"bound": '"R**(10**10)"'}, "holds the exponent 10 ** 10"),
    "exponential in exponent": ({"bound": '"exp(exp(R))"'}, "an exponential in the exponent"),
    "100 kB bound": ({"bound": '"+".join(["R"] * 20000)'}, "39999 characters"),
    "deep bound": ({"bound": '"(" * 3000 + "R" + ")" * 3000'}, "6001 characters"),
    "code in bound": ({"bound": '"__import__(\'os\').system(\'true\')"'}, "the call __import__"),
    "two seeds": ({"seeds": "2"}, "at least 3 instances"),
    "10^9 seeds": ({"seeds": "10**9"}, f"the rule is an integer from 1 to {LIMITS['seeds']}"),
    "10^9 repeats": ({"extra": "repeats=10**9"}, f"the rule is an integer from 1 to {LIMITS['repeats']}"),
    "10^6 points": ({"along": '("rounds", list(range(1, 10**6)))'}, f"at most {LIMITS['points']} values"),
    "zero rounds": ({"along": '("eta_c", [0.01, 0.02, 0.04, 0.08])', "bound": '"eta_c"', "extra": "rounds=0"},
                    "rounds = 0; the rule is an integer ≥ 1"),
    "10^9 rounds": ({"along": '("rounds", [10, 20, 40, 10**9])'}, f"at most {LIMITS['rounds']} rounds"),
    "too many runs": ({"seeds": "1000", "extra": "repeats=200"}, f"the rule is at most {LIMITS['runs']}"),
    "negative constant": ({"extra": 'constants={"L": -1.0}'}, "the rule is names → finite numbers ≥ 0"),
    "no client sampled": ({"extra": "participation=0"}, "participation = 0"),
    "unknown control field": ({"extra": 'controls={"x": {"nosuch": 1}}'}, "control 'x' changes ['nosuch']"),
    "invalid control": ({"extra": 'controls={"x": {"hp": {"eta_c": -1, "local_steps": 2}}}'},
                        "eta_c = -1 is invalid"),
    "invalid full design": ({"extra": 'full={"seeds": 10**9}'}, "seeds = 1000000000"),
    "name": ({"name": '"../x"'}, "claim name '../x'"),
    "duplicate": ({"duplicate": True}, "two different claims are named"),
}


def source(kind: str) -> str:
    """A plugin module holding the claim of ``kind`` (``INVALID``), or the valid base claim (``"valid"``)."""
    c = {**BASE, **(INVALID[kind][0] if kind != "valid" else {})}
    name = c.get("name", repr("c-" + kind.replace(" ", "-").replace("^", "").replace(".", "")))
    extra = f", {c['extra']}" if "extra" in c else ""
    one = (f"Claim({name}, method={c['method']}, bound={c['bound']}, along={c['along']}, "
           f"problem={c['problem']}, hp={c['hp']}, seeds={c['seeds']}{extra})")
    other = one.replace("bound=", 'label="another", bound=')
    claims = f"[{one}, {other}]" if c.get("duplicate") else f"[{one}]"
    return f"from fcocheck import Claim\nfcocheck_claims = {claims}\n"


def _name(kind: str) -> str:
    return "../x" if kind == "name" else "c-" + kind.replace(" ", "-").replace("^", "").replace(".", "")


@pytest.fixture(autouse=True)
def _clean_registry(monkeypatch):
    """Claims a test registers are removed after it, and ``--plugin``'s exported variable restored."""
    from fcocheck.solvers.card import plugins
    from fcocheck.verify import experiments

    monkeypatch.setenv(plugins.ENV, "")
    claims, names = list(plugins.CLAIMS), set(experiments.EXPERIMENTS)
    yield
    plugins.CLAIMS[:] = claims
    for name in set(experiments.EXPERIMENTS) - names:
        del experiments.EXPERIMENTS[name]


@pytest.mark.parametrize("kind", sorted(INVALID))
def test_an_invalid_claim_is_refused_by_every_command_with_its_rule(tmp_path, capsys, kind):
    plugin = tmp_path / f"p_{abs(hash(kind))}.py"
    plugin.write_text(source(kind))
    rule = INVALID[kind][1]
    report = ["report", "--out", str(tmp_path / "rep"), "--store", str(tmp_path / "s.sqlite"), "--experiment",
              _name(kind), "--algorithm", "none", "--reproduction", "none", "--no-progress"]
    for command in (["validate", _name(kind), "--quick"], ["validate", _name(kind), "--quick", "--strict"],
                    report, ["sweep", str(tmp_path / "none.json"), "--store", str(tmp_path / "s.sqlite")]):
        assert main(["--plugin", str(plugin), *command]) == 2, (kind, command)
        err = capsys.readouterr().err
        assert rule in err and "Traceback" not in err, (kind, command, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == [plugin.name]  # no store, no report, nothing


def test_the_valid_base_claim_is_admitted_and_judged(tmp_path, capsys):
    """The other side: the same module with the base claim loads and is judged (exit 0, a verdict)."""
    plugin = tmp_path / "valid.py"
    plugin.write_text(source("valid"))
    assert main(["--plugin", str(plugin), "validate", "c-valid", "--quick", "--json"]) in (0, 1)
    assert '"status"' in capsys.readouterr().out


def test_pytest_fails_an_invalid_claim_with_its_rule(pytester):
    for kind in ("eta_c = -1", "huge exponent", "10^9 seeds"):
        pytester.makepyfile(**{f"test_{abs(hash(kind))}": source(kind)})
    result = pytester.runpytest_subprocess("-p", "no:xdist", "-p", "no:cacheprovider")
    assert result.parseoutcomes().get("failed") == 3, result.outlines[-20:]
    text = "\n".join(result.outlines)
    for kind in ("eta_c = -1", "huge exponent", "10^9 seeds"):
        assert INVALID[kind][1] in text, kind


# --- Hypothesis over the Claim's fields: a claim or a named refusal, never another exception -----------
VALID = {"name": "fuzz", "method": "fedavg", "bound": "1/R", "along": ("rounds", [10, 20, 40, 80]),
         "problem": ("quadratics", {"mu": 0.5, "zeta": 1.0, "d": 5, "lam": 0.0}),
         "hp": {"eta_c": 0.1, "local_steps": 2}, "seeds": 3}
scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**12, 10**12), st.text(max_size=6),
                    st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from(["1/R", "R**(10**10)", "exp(exp(R))", "x.y", "-1", "rounds", "eta_c",
                                     "problem.d", "quadratics", "gaussian:1", "≲", "last", "gap"]))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=5) | st.tuples(inner, inner)
                      | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=10)
FIELDS = ["method", "bound", "along", "problem", "hp", "measure", "rounds", "oracle", "seeds", "direction",
          "constants", "repeats", "full", "sense", "statistic", "controls", "tail", "redraw", "twin",
          "participation", "start", "run_terms", "tested", "reference_tol", "vanishes", "constants_over"]


numbers = st.one_of(st.integers(-5, 10**7), st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from([0, 1, 2, 0.5, 1e-300, 1e300, 10**9]))
#: values that look like what the field holds (the generic ``values`` rarely pass its type rule)
PLAUSIBLE = {
    "along": st.tuples(st.sampled_from(["rounds", "eta_c", "local_steps", "eta_s", "problem.zeta",
                                        "problem.d",
                                        "problem.nosuch", "nosuch"]), st.lists(numbers, max_size=70)),
    "hp": st.dictionaries(st.sampled_from(["eta_c", "local_steps", "eta_s", "beta", "nosuch"]),
                          st.one_of(numbers, st.sampled_from(["1/(4*L)", "R", "x.y", "1/0", "eta_c", "gd"])),
                          max_size=3),
    "bound": st.one_of(st.sampled_from(["1/R", "R**(10**10)", "exp(-R)", "1/R**2 + eta_c", "L/R", "K", "0",
                                        "(K - 1)**2", "1/(R - 20)", "log(R)"]),
                       st.text(alphabet="R*/+-()0123456789.eKL", max_size=30)),
    "problem": st.tuples(st.sampled_from(["quadratics", "ridge", "nosuch"]),
                         st.dictionaries(st.sampled_from(["zeta", "d", "mu", "clients", "nosuch", "seed"]),
                                         numbers, max_size=3)),
    "rounds": st.one_of(numbers, st.sampled_from(["ceiling(8/eta_c)", "R", "1/0"])),
    "controls": st.dictionaries(st.text(max_size=3), st.dictionaries(st.sampled_from(FIELDS[:6]), values,
                                                                     max_size=2), max_size=2),
    "full": st.dictionaries(st.sampled_from(["seeds", "along", "repeats", "hp"]), values, max_size=2),
}


@st.composite
def field_changes(draw) -> dict:  # noqa: ANN001
    keys = draw(st.lists(st.sampled_from(FIELDS), min_size=1, max_size=3, unique=True))
    return {k: draw(st.one_of(PLAUSIBLE[k], values) if k in PLAUSIBLE else values) for k in keys}


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(changes=field_changes())
def test_admission_answers_a_claim_or_a_named_refusal(changes):
    try:
        claim = Claim(**{**VALID, **changes})
    except TypeError:  # the dataclass itself refuses (a field of the wrong arity): not admission's
        return
    try:
        admitted = admit(claim)
    except FcocheckError as exc:  # named: the claim, or what is not one
        assert "'fuzz'" in str(exc) or "the rule is Claim objects" in str(exc), str(exc)
        return
    d = admitted.design(False)
    assert len(d.along[1]) <= LIMITS["points"] and d.seeds <= LIMITS["seeds"]
    assert d.repeats <= LIMITS["repeats"]
    assert all(math.isfinite(v) for v in d.along[1])


def test_admission_refuses_before_it_allocates(monkeypatch):
    """A design past its limits is refused by its size alone: nothing of it is built or evaluated."""
    from fcocheck.verify import claim_admit

    monkeypatch.setattr(claim_admit, "check", lambda c: pytest.fail("a rule ran before the size check"))
    with pytest.raises(InvalidClaimError, match="the rule is an integer from 1 to"):
        admit(Claim(**{**VALID, "seeds": 10**9}))


def test_the_limits_the_docs_state_are_the_code_s():
    """The size rules and the expression rule, in the docs' words, equal the tables the code checks."""
    from pathlib import Path

    from fcocheck.verify import expression

    page = (Path(__file__).parents[2] / "docs" / "explanation" / "inputs.md").read_text()
    stated = {"points": "**64 points**", "seeds": "**1,024\n  instances**", "repeats": "**256 repetitions**",
              "rounds": "**10⁶ rounds**", "runs": "**100,000 runs**"}
    assert [LIMITS[k] for k in stated] == [64, 1024, 256, 10**6, 100_000]
    for key, words in stated.items():
        assert words in page, key
    assert (expression.MAX_CHARS, expression.MAX_DEPTH, expression.MAX_EXPONENT) == (2000, 100, 64)
    assert "at most 2,000 characters" in page and "nested at most 100 deep" in page
    assert "numeric exponents at most 64" in page and "numbers\n  at most 10¹⁵" in page
    assert expression.MAX_NUMBER == 1e15 and " ".join(sorted(expression.FUNCTIONS, key=str.lower)) in page


def test_the_input_caps_the_docs_state_are_the_code_s():
    """The byte caps of JSON inputs, as the inputs page states them, equal the code's."""
    from pathlib import Path

    from fcocheck.reports.cli_report import MAX_RUNS, MAX_SWEEP_BYTES
    from fcocheck.solvers.untrusted import MAX_JSON_BYTES

    page = (Path(__file__).parents[2] / "docs" / "explanation" / "inputs.md").read_text()
    assert (MAX_SWEEP_BYTES, MAX_JSON_BYTES, MAX_RUNS) == (4 * 2**20, 64 * 2**20, 100_000)
    assert "the file at most 4 MiB" in page and "at most 64 MiB" in page and "at most 100,000 runs" in page


def test_a_refused_plugin_leaves_the_process_as_it_found_it(tmp_path, capsys):
    """A module whose second claim is refused registered its card and its first claim before: both are
    undone, so a later command in the same process does not see them."""
    from fcocheck.solvers import algorithms
    from fcocheck.verify.experiments import EXPERIMENTS

    plugin = tmp_path / "half.py"
    plugin.write_text("import dataclasses\nfrom fcocheck import Claim\n"
                      "from fcocheck.solvers.methods.fedavgm import CARD\n"
                      "MINE = dataclasses.replace(CARD, name='half-card')\nfcocheck_cards = [MINE]\n"
                      "c = dict(method='fedavg', bound='1/R', along=('rounds', [10, 20, 40, 80]), "
                      "problem=('quadratics', {'d': 5}), hp={'eta_c': 0.1})\n"
                      "fcocheck_claims = [Claim('half-ok', **c), Claim('half-bad', **{**c, 'seeds': 2})]\n")
    assert main(["--plugin", str(plugin), "algorithms"]) == 2
    assert "seeds = 2" in capsys.readouterr().err
    assert "half-card" not in algorithms.CARDS and "half-ok" not in EXPERIMENTS
