"""The guarded boundary's surfaces under Hypothesis (issue 54): plugin modules, foreign stores, links and
special files under ``--out``, full and read-only file systems (``tests/reports/fuzz_surfaces.py``).

Each property draws cases and asserts the probe's outcome is ``clean``.  The CI profile draws 6 per command of
a costly surface (the plugin modules, which run nothing, the profile's count); the thorough profile
(FCOCHECK_HYPOTHESIS_PROFILE=thorough) 2,000 per surface, and ``benchmarks/bad_inputs.py`` counts the
outcomes of as many draws.  Each probe is shown to see what it looks for: with a planted bug
(the loader letting ``SystemExit`` through, the store's schema check off, the writer following links,
a failed write's temporary file kept) the probe reports it.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.reports import fuzz_surfaces as fz

#: examples per surface and command: a few in CI (each runs a command that writes); in the thorough
#: profile 2,000 per surface, shared among its commands
THOROUGH = os.environ.get("FCOCHECK_HYPOTHESIS_PROFILE") == "thorough"


def per_command(commands: tuple[str, ...]) -> int:
    return -(-2000 // len(commands)) if THOROUGH else 6
SETTINGS = settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
                    deadline=None)


def _root(tmp_path: Path) -> Path:
    return Path(tempfile.mkdtemp(dir=tmp_path))  # one directory per example


@pytest.fixture(scope="module")
def report_files(stored, tmp_path_factory) -> list[str]:
    """The files a report from the stored results writes (the paths the link surface plants at)."""
    root = tmp_path_factory.mktemp("listing")
    store = root / "s.sqlite"
    store.write_bytes(stored.read_bytes())
    code, err = fz.cli(fz.commands(root, root / "out", store)["report"])
    assert code == 0, err
    return sorted(k for k, v in fz.listing(root / "out").items() if v != "dir")


# --- plugin modules ------------------------------------------------------------------------------------
@settings(SETTINGS, max_examples=2000 if THOROUGH else settings.default.max_examples)
@given(source=fz.plugin_modules())
@example(source="from fcocheck import Claim\nfcocheck_claims = 'abc'\n")
@example(source="fcocheck_cards = 5\n")
@example(source="raise SystemExit(0)\n")
def test_a_drawn_plugin_module_is_loaded_or_refused_leaving_the_process_clean(tmp_path, source):
    assert fz.plugin_outcome(source, _root(tmp_path)) == "clean", source


def test_the_plugin_probe_sees_a_loader_that_lets_an_exit_through(tmp_path, monkeypatch):
    from fcocheck.solvers.card import plugins

    real = plugins.import_plugin

    def leaky(spec):  # noqa: ANN001, ANN202 - the planted bug: the module's SystemExit escapes
        exec(compile(Path(spec).read_text(), spec, "exec"), {})
        return real(spec)

    monkeypatch.setattr(plugins, "import_plugin", leaky)
    assert fz.plugin_outcome("raise SystemExit(0)\n", _root(tmp_path)) != "clean"


def test_the_plugin_probe_sees_a_refusal_that_leaves_a_card_registered(tmp_path, monkeypatch):
    from fcocheck.solvers import algorithms

    monkeypatch.setattr(algorithms, "unregister", lambda name: None)  # the planted bug: no rollback
    source = ("import dataclasses\nfrom fcocheck import Claim\n"
              "from fcocheck.solvers.methods.fedavgm import CARD\n"
              "fcocheck_cards = [dataclasses.replace(CARD, name='fz-left')]\n"
              "fcocheck_claims = [Claim('fz-bad', method='fedavg', bound='1/R', "
              "along=('rounds', [10, 20, 40, 80]), problem=('quadratics', {'d': 4}), hp={'eta_c': 0.1}, "
              "seeds=2)]\n")
    try:
        assert fz.plugin_outcome(source, _root(tmp_path)) == "refused but left registered"
    finally:
        monkeypatch.undo()
        if "fz-left" in algorithms.CARDS:
            algorithms.unregister("fz-left")


# --- foreign stores ------------------------------------------------------------------------------------
@pytest.mark.parametrize("command", fz.STORE_COMMANDS)
@settings(SETTINGS, max_examples=per_command(fz.STORE_COMMANDS))
@given(spec=fz.foreign_stores())
def test_a_foreign_store_is_read_or_refused_and_left_as_it_was(tmp_path, command, spec):
    assert fz.store_outcome(spec, command, _root(tmp_path)) == "clean", (spec, command)


def test_the_store_probe_sees_an_unchecked_schema(tmp_path, monkeypatch):
    from fcocheck.verify.sweep import store as store_module

    monkeypatch.setattr(store_module, "_inspect", lambda path: False)  # the planted bug: no look first
    spec = [(s.replace(" config TEXT", " other TEXT", 1), a) for s, a in fz.ours()]
    assert fz.store_outcome(spec, "store info", _root(tmp_path)) == "traceback (OperationalError)"


# --- links and special files under --out ---------------------------------------------------------------
@pytest.mark.parametrize("command", fz.LINK_COMMANDS)
@settings(SETTINGS, max_examples=per_command(fz.LINK_COMMANDS))
@given(data=st.data())
def test_a_link_or_special_file_under_out_is_never_followed(tmp_path, stored, report_files, command, data):
    rel = data.draw(st.sampled_from(fz.written_paths(command, report_files)))
    kind = data.draw(st.sampled_from(fz.PLANTS))
    root = _root(tmp_path)
    store = root / "s.sqlite"
    store.write_bytes(stored.read_bytes())
    assert fz.link_outcome(command, rel, kind, root, store, report_files) == "clean", (command, rel, kind)


def test_the_link_probe_sees_a_writer_that_follows_links(tmp_path, stored, report_files, monkeypatch):
    from fcocheck.solvers import files

    follow = lambda path, what: path.stat() if path.exists() else None  # noqa: E731 - the planted bug
    monkeypatch.setattr(files, "_refuse_link", follow)
    root = _root(tmp_path)
    store = root / "s.sqlite"
    store.write_bytes(stored.read_bytes())
    outcome = fz.link_outcome("report", "figures", "link to a directory", root, store, report_files)
    assert outcome == "wrote outside --out"


# --- full and read-only file systems -------------------------------------------------------------------
@pytest.mark.parametrize("command", fz.DISK_COMMANDS)
@settings(SETTINGS, max_examples=per_command(fz.DISK_COMMANDS))
@given(kind=st.sampled_from(["full", "read-only"]),
       nbytes=st.one_of(st.integers(0, 4096), st.integers(0, 2_000_000)), pages=st.integers(0, 60))
@example(kind="full", nbytes=150_000, pages=60)  # a report fails late: its figures written, not its pages
@example(kind="full", nbytes=10**8, pages=10**4)  # room enough: each command succeeds
def test_a_full_or_read_only_disk_is_a_clean_failure_with_nothing_partial(tmp_path, stored, command, kind,
                                                                          nbytes, pages):
    store = stored if command == "report" else None
    outcome = fz.disk_outcome(command, kind, nbytes, pages, _root(tmp_path), store)
    assert outcome == "clean", (command, kind, nbytes, pages)


def test_the_disk_probe_sees_a_temporary_file_left_behind(tmp_path, monkeypatch):
    from fcocheck.solvers import files

    monkeypatch.setattr(files, "_remove", lambda tmp: None)  # the planted bug: a failed write's file stays
    assert fz.disk_outcome("run", "full", 100, 0, _root(tmp_path), None) == "partial file"


def test_the_disk_probe_sees_a_report_left_half_written(tmp_path, stored, monkeypatch):
    from fcocheck.solvers import staging

    monkeypatch.setattr(staging.Staging, "abort", lambda self: None)  # the planted bug: the stage stays
    assert fz.disk_outcome("report", "full", 5000, 60, _root(tmp_path), stored) != "clean"
