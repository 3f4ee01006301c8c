"""The bad-input audit as counts: the table of cases and the fuzzer's corpus, per command.

Runs every case of ``tests/reports/bad_inputs.py`` (the same table the test suite asserts on) in a
scratch directory and prints, per command, the number of cases, the clean refusals (exit 2, a message
matching the rule, no traceback, nothing written) and any other outcome.  Then it draws the fuzzer's
corpus — the Hypothesis strategies of ``tests/reports/test_fuzz_boundary.py`` (sweep files, instance
files, command lines), ``--examples`` of each, derandomized — and runs each through the CLI: an answer
(exit 0/1 with a result) or a named refusal (exit 2, nothing written) is clean; a traceback, a hang
(no answer within ``--hang`` seconds, SIGALRM) or a partial file is counted.  Last, the guarded
boundary's four surfaces (``tests/reports/fuzz_surfaces.py``: plugin modules, foreign stores, links
and special files under ``--out``, full and read-only file systems), ``--surfaces`` draws of each,
each outcome as its probe names it.

    python benchmarks/bad_inputs.py [--examples 200] [--surfaces 2000] [--hang 120] [--only SURFACE]
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import json
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.reports.bad_inputs import all_cases  # noqa: E402
from tests.reports.fuzz_surfaces import HangError, limit  # noqa: E402
from tests.reports.test_bad_inputs import listing, run_case  # noqa: E402


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


def surfaces(examples: int, hang: int, only: str | None) -> dict[str, collections.Counter]:
    """The four surfaces' strategies drawn ``examples`` times each (derandomized), each outcome counted."""
    import shutil

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from tests.reports import fuzz_surfaces as fz
    from tests.reports.stored import run_report

    by: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    cfg = settings(max_examples=examples, derandomize=True, database=None, deadline=None,
                   suppress_health_check=list(HealthCheck))
    keep = tempfile.TemporaryDirectory()
    base = Path(keep.name)
    stored = base / "stored.sqlite"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        run_report(base / "rep", stored)
    copy = shutil.copyfile(stored, base / "copy.sqlite")
    fz.cli(fz.commands(base, base / "listing", copy)["report"])  # the files a report writes
    report_files = sorted(k for k, v in fz.listing(base / "listing").items() if v != "dir")

    def scratch() -> tempfile.TemporaryDirectory:
        return tempfile.TemporaryDirectory()

    @cfg
    @given(source=fz.plugin_modules())
    def plugins(source: str) -> None:
        with scratch() as tmp:
            by["surface: plugin module"][fz.plugin_outcome(source, Path(tmp), hang)] += 1

    @cfg
    @given(spec=fz.foreign_stores(), command=st.sampled_from(fz.STORE_COMMANDS))
    def stores(spec: object, command: str) -> None:
        with scratch() as tmp:
            by["surface: foreign store"][fz.store_outcome(spec, command, Path(tmp), hang)] += 1

    @cfg
    @given(data=st.data())
    def links(data: st.DataObject) -> None:
        command = data.draw(st.sampled_from(fz.LINK_COMMANDS))
        rel = data.draw(st.sampled_from(fz.written_paths(command, report_files)))
        kind = data.draw(st.sampled_from(fz.PLANTS))
        with scratch() as tmp:
            root = Path(tmp)
            shutil.copyfile(stored, root / "s.sqlite")
            by["surface: link under --out"][fz.link_outcome(command, rel, kind, root, root / "s.sqlite",
                                                             report_files, hang)] += 1

    @cfg
    @given(command=st.sampled_from(fz.DISK_COMMANDS), kind=st.sampled_from(["full", "read-only"]),
           nbytes=st.one_of(st.integers(0, 4096), st.integers(0, 2_000_000)), pages=st.integers(0, 60))
    def disks(command: str, kind: str, nbytes: int, pages: int) -> None:
        with scratch() as tmp:
            outcome = fz.disk_outcome(command, kind, nbytes, pages, Path(tmp),
                                      stored if command == "report" else None, hang)
            by["surface: failing disk"][outcome] += 1

    for name, draw in (("plugins", plugins), ("stores", stores), ("links", links), ("disks", disks)):
        if only in (None, name):
            draw()
    keep.cleanup()
    return by


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=200, help="draws of each fuzzing strategy")
    ap.add_argument("--surfaces", type=int, default=200, help="draws of each guarded-boundary surface")
    ap.add_argument("--only", choices=("plugins", "stores", "links", "disks"),
                    help="only this surface (no table, no corpus)")
    ap.add_argument("--hang", type=int, default=120, help="seconds without an answer that count as a hang")
    args = ap.parse_args()
    by: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    if args.only is None:
        for case in all_cases():
            known = ("solve", "run", "validate", "check", "sweep", "report", "store", "theorems")
            command = case[1][0] if case[1][0] in known else "other"
            by[command][run(case, args.hang)] += 1
        by.update(corpus(args.examples, args.hang))
    by.update(surfaces(args.surfaces, args.hang, args.only))
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
