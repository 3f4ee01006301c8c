"""The bad-input audit of issue 20 as counts: cases per command, and how many exit 2 cleanly.

Runs every case of ``tests/reports/bad_inputs.py`` (the same table the test suite asserts on) in
a scratch directory and prints, per command, the number of cases, the clean refusals (exit 2, a
message matching the rule, no traceback, nothing written) and any other outcome.

    python benchmarks/bad_inputs.py
"""

from __future__ import annotations

import collections
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.reports.bad_inputs import all_cases  # noqa: E402
from tests.reports.test_bad_inputs import listing, run_case  # noqa: E402


def run(case) -> str:  # noqa: ANN001
    """The audit's own runner (``run_case``), its outcome classified instead of asserted."""
    _, argv, setup, expected = case
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        subs = {"TMP": tmp, **(setup(root) if setup else {})}
        before = listing(root)
        try:
            code, text = run_case(argv, subs)
        except Exception as exc:  # noqa: BLE001 - counted, that is the point
            return f"traceback ({type(exc).__name__})"
        if code != 2:
            return f"exit {code}"
        if "Traceback" in text:
            return "traceback"
        if listing(root) != before:
            return "wrote files"
        return "clean" if re.search(expected, text) else "unclear message"


def main() -> None:
    by: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for case in all_cases():
        known = ("solve", "run", "validate", "check", "sweep", "report", "store", "theorems")
        command = case[1][0] if case[1][0] in known else "other"
        by[command][run(case)] += 1
    total = collections.Counter()
    print(f"{'command':<10} {'cases':>6} {'clean':>6}  other outcomes")
    for command, counts in sorted(by.items()):
        total.update(counts)
        others = ", ".join(f"{k}: {v}" for k, v in counts.items() if k != "clean") or "-"
        print(f"{command:<10} {sum(counts.values()):>6} {counts['clean']:>6}  {others}")
    print(f"{'total':<10} {sum(total.values()):>6} {total['clean']:>6}")


if __name__ == "__main__":
    main()
