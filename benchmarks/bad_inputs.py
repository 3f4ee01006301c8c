"""The bad-input audit as counts: the table of cases and the fuzzer's corpus, per command.

Runs every case of ``tests/reports/bad_inputs.py`` (the same table the test suite asserts on) in a
scratch directory and prints, per command, the number of cases, the clean refusals (exit 2, a message
matching the rule, no traceback, nothing written) and any other outcome.  Then it draws the fuzzer's
corpus — the Hypothesis strategies of ``tests/reports/test_fuzz_boundary.py`` (sweep files, instance
files, command lines), ``--examples`` of each, derandomized — and runs each through the CLI: an answer
(exit 0/1 with a result) or a named refusal (exit 2, nothing written) is clean; a traceback, a hang
(no answer within ``--hang`` seconds, SIGALRM) or a partial file is counted.

    python benchmarks/bad_inputs.py [--examples 200] [--hang 120]
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import json
import re
import signal
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.reports.bad_inputs import all_cases  # noqa: E402
from tests.reports.test_bad_inputs import listing, run_case  # noqa: E402


class HangError(Exception):
    """No answer within the audit's limit."""


@contextlib.contextmanager
def limit(seconds: int):  # noqa: ANN201
    """Raise ``HangError`` in this thread after ``seconds`` (SIGALRM)."""
    def alarm(signum, frame):  # noqa: ANN001, ARG001
        raise HangError

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def run(case, hang: int) -> str:  # noqa: ANN001
    """The audit's own runner (``run_case``), its outcome classified instead of asserted."""
    _, argv, setup, expected = case
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        subs = {"TMP": tmp, **(setup(root) if setup else {})}
        before = listing(root)
        try:
            with limit(hang):
                code, text = run_case(argv, subs)
        except HangError:
            return "hang"
        except Exception as exc:  # noqa: BLE001 - counted, that is the point
            return f"traceback ({type(exc).__name__})"
        if code != 2:
            return f"exit {code}"
        if "Traceback" in text:
            return "traceback"
        if listing(root) != before:
            return "wrote files"
        return "clean" if re.search(expected, text) else "unclear message"


def answer(argv: list[str], root: Path, hang: int) -> str:
    """One fuzzed command line: clean (exit 0/1, or 2 with nothing new in ``root/out``) or what went wrong."""
    from fcocheck.reports.cli import main

    out = root / "out"
    out.mkdir(exist_ok=True)
    before = listing(out)
    err = io.StringIO()
    try:
        with limit(hang), contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            try:
                code = main(argv)
            except SystemExit as exc:
                code = exc.code
    except HangError:
        return "hang"
    except Exception as exc:  # noqa: BLE001
        return f"traceback ({type(exc).__name__})"
    if "Traceback" in err.getvalue():
        return "traceback"
    if code not in (0, 1, 2):
        return f"exit {code}"
    if any(p.name.endswith((".tmp", ".partial")) or ".tmp-" in p.name for p in out.rglob("*")):
        return "partial file"
    if code == 2 and listing(out) != before:
        return "wrote files"
    return "clean"


def corpus(examples: int, hang: int) -> dict[str, collections.Counter]:
    """The fuzzer's strategies drawn ``examples`` times each (derandomized) and run through the CLI."""
    import numpy as np
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from tests.reports.test_fuzz_boundary import instance_files, sweep_texts, tokens

    by: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    cfg = settings(max_examples=examples, derandomize=True, database=None, deadline=None,
                   suppress_health_check=list(HealthCheck))

    @cfg
    @given(text=sweep_texts())
    def sweeps(text: str) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            (root / "s.json").write_text(text)
            store = str(root / "out" / "s.sqlite")
            argv = ["sweep", str(root / "s.json"), "--store", store, "--workers", "1", "--quiet"]
            by["fuzz: sweep file"][answer(argv, root, hang)] += 1

    @cfg
    @given(case=instance_files())
    def instances(case: tuple[str, dict]) -> None:
        meta, arrays = case
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            np.savez(root / "i.npz", meta=np.array(meta), **arrays)
            by["fuzz: instance"][answer(["run", "fedavg", "--problem", str(root / "i.npz"), "--rounds", "2",
                                         "--eta-c", "0.1", "--no-reference", "--out",
                                         str(root / "out" / "t.npz")], root, hang)] += 1

    @cfg
    @given(argv=st.lists(tokens, max_size=10))
    def lines(argv: list[str]) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            args = ["run", "fedavg", "--problem", "quadratics", "--rounds", "2", "--eta-c", "0.1", *argv,
                    "--out", str(root / "out" / "t.npz"), "--no-reference"]
            by["fuzz: command line"][answer(args, root, hang)] += 1

    for draw in (sweeps, instances, lines):
        draw()
    return by


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=200, help="draws of each fuzzing strategy")
    ap.add_argument("--hang", type=int, default=120, help="seconds without an answer that count as a hang")
    args = ap.parse_args()
    by: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for case in all_cases():
        known = ("solve", "run", "validate", "check", "sweep", "report", "store", "theorems")
        command = case[1][0] if case[1][0] in known else "other"
        by[command][run(case, args.hang)] += 1
    by.update(corpus(args.examples, args.hang))
    total = collections.Counter()
    print(f"{'command':<20} {'cases':>6} {'clean':>6}  other outcomes")
    for command, counts in sorted(by.items()):
        total.update(counts)
        others = ", ".join(f"{k}: {v}" for k, v in counts.items() if k != "clean") or "-"
        print(f"{command:<20} {sum(counts.values()):>6} {counts['clean']:>6}  {others}")
    print(f"{'total':<20} {sum(total.values()):>6} {total['clean']:>6}")
    print(json.dumps({"cases": sum(total.values()), "clean": total["clean"],
                      "tracebacks": sum(v for k, v in total.items() if k.startswith("traceback")),
                      "hangs": total["hang"], "partial": total["partial file"] + total["wrote files"]}))


if __name__ == "__main__":
    main()
