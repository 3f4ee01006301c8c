"""``search.simplest``: a probe's simplest example, shrunk, seeded, with no explain phase and no database."""

from __future__ import annotations

import hypothesis.internal.conjecture.shrinker as shrinker
from hypothesis import find
from hypothesis import strategies as st

from fcocheck.verify.search import simplest


def test_the_first_draw_is_shrunk_to_the_simplest():
    assert simplest(st.integers(3, 100)) == 3
    assert simplest(st.tuples(st.floats(0.5, 2.0), st.integers(1, 9))) == (1.0, 1)  # 1.0: simpler than 0.5
    strategy = st.lists(st.integers(-5, 5), min_size=2)
    assert simplest(strategy) == simplest(strategy) == [0, 0]


def test_no_explain_phase_and_nothing_written(tmp_path, monkeypatch):
    """The explanation of a failure is never read by a probe that always holds (it was 10% of check)."""
    monkeypatch.chdir(tmp_path)
    explained = []
    real = shrinker.Shrinker._explain
    monkeypatch.setattr(shrinker.Shrinker, "_explain", lambda self: explained.append(1) or real(self))
    strategy = st.dictionaries(st.sampled_from("abc"), st.floats(0, 1), min_size=1)
    simplest(strategy)
    assert explained == []
    assert list(tmp_path.iterdir()) == []  # no .hypothesis example database
    find(strategy, lambda _: True)  # Hypothesis's default phases, as the probes called it: it shows
    assert explained
