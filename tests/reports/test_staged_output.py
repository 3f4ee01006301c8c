"""A report is written whole or not at all (issue 54): a refusal, a full disk or a Ctrl-C leaves ``--out``
as it was; no write goes through a link anywhere under ``--out``; files are made with the umask's mode.
"""

from __future__ import annotations

import errno
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fcocheck.reports.cli import main
from fcocheck.solvers.files import UnsafePathError, Writer
from fcocheck.solvers.staging import STAGE, Staging
from tests.reports.stored import REPORT, run_report


def _tree(root: Path) -> dict[str, str]:
    """Every entry under ``root``: a file by its bytes' digest, a link by its target, a folder by 'dir'."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        if p.is_symlink():
            out[rel] = "-> " + os.readlink(p)
        elif p.is_dir():
            out[rel] = "dir"
        else:
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


@pytest.fixture
def earlier(stored, tmp_path):
    """An ``--out`` holding an earlier report (its files, figures and their keys)."""
    out = tmp_path / "rep"
    assert run_report(out, stored) == 0
    return out


def test_a_link_planted_at_out_figures_is_refused_and_its_target_untouched(stored, tmp_path, capsys):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "rep"
    out.mkdir()
    (out / "figures").symlink_to(elsewhere, target_is_directory=True)
    before = _tree(tmp_path)
    assert run_report(out, stored) == 2
    assert "symbolic link" in capsys.readouterr().err
    assert _tree(tmp_path) == before  # nothing in the link's target, nothing new in --out


def test_the_figures_writer_checks_its_own_folder(tmp_path):
    """``Writer.within``: the sub-folder is checked like any component (the old ``Writer(out/figures)``
    took the link as its root and wrote through it)."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "figures").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(UnsafePathError, match="symbolic link"):
        Writer(tmp_path / "out").within("figures").write_text("f.png", "x")
    assert list(elsewhere.iterdir()) == []
    assert Writer(tmp_path / "ok").within("figures").write_text("f.png", "x").read_text() == "x"


@pytest.mark.parametrize("planted", ["report.md", "index.html", "gallery", "counterexamples"])
def test_a_refused_place_leaves_an_earlier_report_as_it_was(stored, earlier, tmp_path, capsys, planted):
    """A link where the report writes is refused before any file moves: every earlier file keeps its bytes
    (the refusal used to come after figures, the gallery, index.html and report.json were rewritten)."""
    precious = tmp_path / "precious"
    precious.mkdir()
    target = earlier / planted
    if target.is_dir():
        os.rename(target, tmp_path / "moved")
    elif target.exists():
        target.unlink()
    target.symlink_to(precious)
    before = _tree(tmp_path)
    assert run_report(earlier, stored, "--seed", "1") == 2  # another seed: every file would be new
    assert "symbolic link" in capsys.readouterr().err
    assert _tree(tmp_path) == before


def test_a_full_disk_while_writing_the_report_leaves_out_as_it_was(stored, earlier, tmp_path, monkeypatch,
                                                                   capsys):
    """ENOSPC at the report's last file: exit 1 naming it, and no file of --out changed."""
    import tempfile

    real = tempfile.mkstemp

    def full(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        if kwargs.get("prefix", "").startswith(".report.md."):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(*args, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", full)
    before = _tree(tmp_path)
    assert run_report(earlier, stored, "--seed", "1") == 1
    assert "the disk is full" in capsys.readouterr().err
    assert _tree(tmp_path) == before


def test_a_new_out_is_removed_again_when_the_report_is_refused(stored, tmp_path, monkeypatch):
    from fcocheck.reports import cli_report

    def refused(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise UnsafePathError("refused for the test")

    monkeypatch.setattr(cli_report, "render_md", refused)
    assert run_report(tmp_path / "new" / "rep", stored) == 2
    assert list(tmp_path.iterdir()) == []  # neither rep nor the parent it created


def test_ctrl_c_while_rendering_leaves_out_as_it_was(stored, earlier, tmp_path, monkeypatch):
    from fcocheck.reports import cli_report

    def interrupted(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_report, "render_md", interrupted)
    before = _tree(tmp_path)
    with pytest.raises(KeyboardInterrupt):  # main ends an interrupted command by SIGINT (reports.cli)
        run_report(earlier, stored, "--seed", "1")
    assert _tree(tmp_path) == before


def test_a_rerun_keeps_the_earlier_figures_and_leaves_no_stage(stored, earlier, capsys):
    capsys.readouterr()
    figures = _tree(earlier / "figures")
    assert run_report(earlier, stored) == 0
    assert " 0 drawn," in capsys.readouterr().out
    assert _tree(earlier / "figures") == figures
    assert not [p for p in earlier.iterdir() if p.name.startswith(STAGE)]


def test_a_stage_whose_process_is_gone_is_removed_and_a_live_one_kept(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    stale = tmp_path / f"{STAGE}.{int(dead.stdout)}.abcd"
    live = tmp_path / f"{STAGE}.{os.getpid()}.efgh"
    for d in (stale, live):
        d.mkdir()
        (d / "half.png").write_bytes(b"x")
    with Staging(tmp_path) as stage:
        stage.writer.write_text("a/b.txt", "b")
    assert not stale.exists() and live.exists() and (tmp_path / "a" / "b.txt").read_text() == "b"


def test_staging_commits_only_what_it_checked(tmp_path):
    """A file whose place is a directory is refused at commit, before anything moves."""
    (tmp_path / "b.txt").mkdir()
    with pytest.raises(UnsafePathError, match="not a regular file"), Staging(tmp_path) as stage:
        stage.writer.write_text("a.txt", "a")
        stage.writer.write_text("b.txt", "b")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.txt"]


@pytest.mark.parametrize("umask,mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_report_files_are_made_with_the_umask(stored, tmp_path, umask, mode):
    """Every file of the report has the mode ``open`` would give it (the writer used to make 0600)."""
    out = tmp_path / "rep"
    code = (f"import os, sys; os.umask({umask}); from fcocheck.reports.cli import main; "
            "sys.exit(main(sys.argv[1:]))")
    done = subprocess.run([sys.executable, "-c", code, "report", "--out", str(out), "--store", str(stored),
                           *REPORT], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    files = [p for p in out.rglob("*") if p.is_file()]
    assert len(files) > 5 and {oct(p.stat().st_mode & 0o777) for p in files} == {oct(mode)}


def test_several_refusals_leave_no_out(tmp_path, capsys):
    for bad in (["--experiment", "no-such"], ["--budget", "0"], ["--reproduction", "x"]):
        assert main(["report", "--out", str(tmp_path / "rep"), "--store", str(tmp_path / "s.sqlite"),
                     *bad]) == 2
    assert list(tmp_path.iterdir()) == []
