"""A writer killed outright leaves its temporary file; the next write into that directory removes it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from fcocheck.solvers.files import TMP_SUFFIX, Writer, remove_stale_temporaries

KILLED_WRITER = """
import sys
from fcocheck.solvers.files import Writer
with Writer(sys.argv[1]).open("report.md", "w") as fh:
    fh.write("half a file")
    fh.flush()
    print("inside", flush=True)
    sys.stdin.readline()  # held open until the parent kills us
"""


def test_a_sigkilled_writers_temporary_file_is_removed_by_the_next_write(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(tmp_path)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "inside"  # the temporary file exists now
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    left = [p.name for p in tmp_path.iterdir()]
    assert len(left) == 1 and left[0].endswith(TMP_SUFFIX) and f".{proc.pid}." in left[0]
    Writer(tmp_path).write_text("index.html", "<p>next run</p>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index.html"]  # no report.md: nothing partial


def test_a_live_writers_temporary_file_links_and_other_files_are_kept(tmp_path: Path):
    mine = tmp_path / f".report.md.{os.getpid()}.abc123{TMP_SUFFIX}"  # this process: alive
    mine.write_text("in progress")
    other = tmp_path / "notes.fcocheck-tmp"  # not the writer's pattern
    other.write_text("user file")
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True)
    dead = int(done.stdout)
    (tmp_path / "target").write_text("keep")
    link = tmp_path / f".x.{dead}.zz{TMP_SUFFIX}"
    link.symlink_to(tmp_path / "target")  # a link is never removed through
    stale = tmp_path / f".fig.png.{dead}.q1w2e3{TMP_SUFFIX}"
    stale.write_bytes(b"\x89PNG half")
    assert remove_stale_temporaries(tmp_path) == [stale.name]
    assert mine.exists() and other.exists() and link.is_symlink() and (tmp_path / "target").exists()
