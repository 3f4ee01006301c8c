"""A command's output staged, then moved into place: a refusal or a failure leaves ``--out`` as it was.

``Staging(out)`` makes a stage directory inside ``out`` (``.fcocheck-stage.PID.XXXX``: the same file
system, so every move is a rename), and the command writes everything there (``stage.writer``, or
``stage.dir`` handed to code that makes its own ``Writer``).  On a clean exit ``commit`` checks every
staged file's place in ``out`` first (``Writer.path``: no link, FIFO or non-directory on the way, no
directory where a file goes) and only then renames each file into place; on an exception or a refusal
the stage is removed, and so are ``out`` and its parents when this command created them.  Earlier
files in ``out`` that the command does not rewrite are left alone.  A stage whose process is gone
(SIGKILL) is removed by the next ``Staging`` of the same ``out``.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

from fcocheck.solvers.files import UnsafePathError, Writer, alive, write_error

STAGE = ".fcocheck-stage"
_STAGE = re.compile(rf"^{re.escape(STAGE)}\.(\d+)\.")


def remove_stale_stages(out: Path) -> list[str]:
    """Remove the stage directories in ``out`` whose process no longer runs; returns their names."""
    removed = []
    for e in os.scandir(out):
        m = _STAGE.match(e.name)
        if m and e.is_dir(follow_symlinks=False) and not alive(int(m.group(1))):
            shutil.rmtree(e.path, ignore_errors=True)
            removed.append(e.name)
    return removed


def staged_files(stage: Path) -> list[str]:
    """The files under ``stage``, as relative POSIX paths in a fixed order."""
    return sorted(p.relative_to(stage).as_posix() for p in stage.rglob("*") if not p.is_dir())


class Staging:
    """Output written to a stage inside ``out`` and moved into place at ``commit`` (module docstring)."""

    def __init__(self, out: str | os.PathLike) -> None:
        """Create the stage (and ``out``, removed again on ``abort`` when it did not exist)."""
        self.out = Path(out)
        if self.out.is_symlink() and not self.out.is_dir():
            raise UnsafePathError(f"output directory {str(self.out)!r} is a link to no directory")
        if self.out.exists() and not self.out.is_dir():
            raise UnsafePathError(f"output directory {str(self.out)!r} is not a directory")
        # the directories this staging creates (``out`` and missing parents), removed again on abort
        self._created = [p for p in (self.out, *self.out.parents) if not p.exists()]
        try:
            self.out.mkdir(parents=True, exist_ok=True)
            remove_stale_stages(self.out)
            self.dir = Path(tempfile.mkdtemp(prefix=f"{STAGE}.{os.getpid()}.", dir=self.out))
        except OSError as exc:  # a read-only file system, a full disk: nothing made is left
            self.dir = None
            self.abort()
            raise write_error(self.out, exc) from None
        self.writer = Writer(self.dir)
        self.final = Writer(self.out)

    def commit(self) -> list[Path]:
        """Check every staged file's place, then move each into it; returns the final paths."""
        rels = staged_files(self.dir)
        for rel in rels:  # every refusal before any move
            self.final.path(rel, make_dirs=False)
        moved = []
        for rel in rels:
            target = self.final.path(rel)
            try:
                os.replace(self.dir / rel, target)
            except OSError as exc:
                raise write_error(target, exc) from None
            moved.append(target)
        shutil.rmtree(self.dir, ignore_errors=True)
        return moved

    def abort(self) -> None:
        """Remove the stage, and the directories this staging created when they are empty again."""
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
        for p in self._created:  # innermost first
            try:
                p.rmdir()
            except OSError:
                return

    def __enter__(self) -> Staging:
        """Use as a context manager: commit on a clean exit, abort on any exception."""
        return self

    def __exit__(self, kind: type | None, *exc: object) -> None:
        """Commit, or abort (the exception goes on); a refused commit aborts and raises."""
        if kind is not None:
            self.abort()
            return
        try:
            self.commit()
        except BaseException:
            self.abort()
            raise
