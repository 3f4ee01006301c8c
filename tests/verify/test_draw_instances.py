"""A study's instances: slot i is instance seed + i, a skipped draw replaced from the study seed's own stream.

A sequential search (seed, seed + 1, …) made neighbouring study seeds fall back on the same instances
(seeds 5, 6 and 7 of fedcanon-heterogeneity all measured instances 7, 8, 9); the replacement stream keeps
every study seed's set its own, and a search that keeps failing stops at its cap.
"""

from __future__ import annotations

from fcocheck.verify.experiments.base import REPLACEMENT_BASE, draw_instances

BAD = {3, 5, 6, 1_000_000 + 12 * 5}  # instances the class's condition rejects (one replacement too)


def accept(s: int) -> int | None:
    return None if s in BAD else s


def test_each_study_seed_draws_its_own_instances():
    sets = {}
    for seed in range(10):
        got, skipped = draw_instances(seed, 3, accept, cap=12)
        assert len(got) == 3 and all(s not in BAD for s, _ in got)
        kept = [seed + i for i in range(3) if seed + i not in BAD]  # slot i is seed + i when it is accepted
        assert [s for s, _ in got if s < REPLACEMENT_BASE] == kept
        sets[seed] = frozenset(s for s, _ in got)
    assert len(set(sets.values())) == 10  # no two study seeds measure the same instances
    assert draw_instances(5, 3, accept, 12) == draw_instances(5, 3, accept, 12)  # and the same seed the same
    got, skipped = draw_instances(5, 3, accept, 12)  # 5 skipped, its first replacement too, then 6
    assert skipped == [5, REPLACEMENT_BASE + 60, 6]
    assert [s for s, _ in got] == [REPLACEMENT_BASE + 61, REPLACEMENT_BASE + 62, 7]


def test_a_search_that_keeps_failing_stops_at_its_cap():
    got, skipped = draw_instances(0, 3, lambda s: None, cap=4)
    assert got == [] and len(skipped) == 4
