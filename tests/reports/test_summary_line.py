"""The report's last line is words with units, not Python reprs."""

from fcocheck.reports.cli_report import summary_line


def test_the_summary_line_counts_in_words_and_labels_the_seconds():
    s = {"theorems": {"consistent": 8, "inconclusive": 1, "known disagreement": 1},
         "experiments": {"consistent": 19, "inconclusive": 0}, "invariants": {"proved": 96, "broken": 0},
         "reproductions": {}}
    line = summary_line(s, 104.63)
    assert line == ("10 theorems: 8 consistent, 1 inconclusive, 1 known disagreement; 19 experiments: 19 "
                    "consistent; 96 invariants: 96 proved; 0 reproductions — in 104.6 s")
    assert "{" not in line and "'" not in line
