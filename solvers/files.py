"""The one way fcocheck writes a file: inside its output directory, through no symlink, atomically.

Every file the tool writes (report pages, figures, counterexamples, exports, traces, instance files,
logs) goes through ``Writer(root)``:

* **inside**: the name is relative, without ``..``, NUL or a drive, and every component from ``root``
  down to the file is a plain directory or (last) a regular file — a symbolic link anywhere below
  ``root`` is refused, never followed (a link planted as ``out/report.md → ../elsewhere`` cannot
  redirect a write), and so is a FIFO, socket or device in the file's place;
* **names from data** (a figure's stem taken from a results store) must also be a single safe
  component (``safe_stem``): letters, digits, ``. _ - + =``, not starting with a dot — the names
  ``plain_name`` makes of algorithm and check names (``cocoa+``, ``beta=0.5``);
* **atomic**: bytes go to a temporary file in the same directory, then ``os.replace`` puts them in
  place; on any failure the temporary file is removed, so a reader never sees half a file and a
  full disk leaves nothing partial.  A process killed outright (SIGKILL, power loss) cannot remove
  its temporary file, so each carries its writer's pid (``.NAME.PID.XXXX.fcocheck-tmp``) and the
  next write into that directory removes those whose process is gone;
* **failures are results**: a full disk, a read-only directory or an over-long name raise
  ``WriteFailedError`` (the CLI prints it and exits 1), naming the file and the cause.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import IO

from fcocheck.solvers.errors import FcocheckError

#: the characters of a plain file name (no separator, no scheme, nothing a shell or a URL reads)
_CHARS = r"A-Za-z0-9_.+=\-"
#: the longest plain file name (a figure's stem; ``.png``, ``.svg`` and a hidden key file fit beside it)
MAX_STEM = 151
_STEM = re.compile(rf"[A-Za-z0-9_+=\-][{_CHARS}]{{0,{MAX_STEM - 1}}}")


class UnsafePathError(FcocheckError):
    """A file name that would leave the output directory, pass through a symlink, or is not a file."""


class WriteFailedError(RuntimeError):
    """The file system refused a write (full disk, read-only, name too long); nothing partial is left."""


#: the rule of a plain name, in words (for the errors of names that name files: claims, cards)
PLAIN_RULE = (f"letters, digits, '.', '_', '-', '+', '=' (at most {MAX_STEM}, not starting with '.'): "
              "it names files")


def is_plain_name(name: object) -> bool:
    """Whether ``name`` is one plain file-name component (``safe_stem``'s rule)."""
    return isinstance(name, str) and bool(_STEM.fullmatch(name)) and name not in (".", "..")


def safe_stem(name: str) -> str:
    """``name`` if it is one safe file-name component (for names taken from stored data)."""
    if not isinstance(name, str) or not _STEM.fullmatch(name) or name in (".", ".."):
        raise UnsafePathError(f"file name {name!r} from stored data is not a plain file name; the rule is "
                              f"letters, digits, '.', '_', '-', '+', '=' (at most {MAX_STEM}, not starting "
                              "with '.')")
    return name


def plain_name(*parts: str) -> str:
    """One plain file name from ``parts`` (joined by ``__``; other characters and a leading dot → ``_``)."""
    name = "__".join(re.sub(f"[^{_CHARS}]", "_", p) for p in parts)
    return "_" + name[1:] if name.startswith(".") else name


def _parts(rel: str | os.PathLike) -> tuple[str, ...]:
    text = str(rel)
    parts = PurePosixPath(text).parts
    if not text or "\x00" in text or PurePosixPath(text).is_absolute() or Path(text).is_absolute() \
            or ".." in parts or "\\" in text:
        raise UnsafePathError(f"file name {text!r} leaves the output directory; the rule is a relative "
                              "path without '..', '\\' or NUL")
    return tuple(p for p in parts if p != ".")


def _refuse_link(path: Path, what: str) -> os.stat_result | None:
    try:
        st = path.lstat()
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        raise UnsafePathError(f"{what} {str(path)!r} is a symbolic link; the rule is that nothing under the "
                              "output directory is followed through a link")
    return st


class Writer:
    """Writes under ``root`` only (module docstring).  ``root`` itself may be given through a link.

    ``within(sub)`` is a writer for ``root/sub`` that checks ``sub`` too: a link planted at
    ``root/figures`` is refused, not taken as the root of the figures' writer.
    """

    def __init__(self, root: str | os.PathLike, prefix: tuple[str, ...] = ()) -> None:
        self.top = Path(root)
        self.prefix = prefix
        self.root = self.top.joinpath(*prefix)
        self._swept: set[Path] = set()

    def within(self, sub: str | os.PathLike) -> Writer:
        """A writer for ``root/sub`` whose checks start at this writer's root (``sub`` checked too)."""
        return Writer(self.top, self.prefix + _parts(sub))

    def path(self, rel: str | os.PathLike, make_dirs: bool = True) -> Path:
        """The checked target ``root/rel``; its directories are created (never through a link)."""
        parts = _parts(rel)
        if not parts:
            raise UnsafePathError(f"file name {str(rel)!r} names the output directory itself; "
                                  "the rule is a file")
        parts = self.prefix + parts
        base = self.top
        if base.exists() and not base.is_dir():
            raise UnsafePathError(f"output directory {str(base)!r} is not a directory")
        if make_dirs:
            _mkdir(base)
        cur = base
        for part in parts[:-1]:
            cur = cur / part
            st = _refuse_link(cur, "directory")
            if st is None:
                if make_dirs:
                    _mkdir(cur)
            elif not stat.S_ISDIR(st.st_mode):
                raise UnsafePathError(f"{str(cur)!r} is not a directory; the rule is a directory there")
        target = cur / parts[-1]
        st = _refuse_link(target, "file")
        if st is not None and not stat.S_ISREG(st.st_mode):
            raise UnsafePathError(f"{str(target)!r} exists and is not a regular file (a directory, FIFO, "
                                  "socket or device); the rule is a regular file or nothing")
        return target

    @contextmanager
    def open(self, rel: str | os.PathLike, mode: str = "wb", encoding: str | None = None,
             newline: str | None = None) -> Iterator[IO]:
        """A file object on a temporary file that replaces ``root/rel`` when the block ends cleanly."""
        if mode not in ("wb", "w"):
            raise ValueError(f"mode {mode!r}; the rule is 'w' or 'wb' (a whole file, replaced atomically)")
        target = self.path(rel)
        if target.parent not in self._swept:
            remove_stale_temporaries(target.parent)
            self._swept.add(target.parent)
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name[:40]}.{os.getpid()}.", suffix=TMP_SUFFIX,
                                       dir=target.parent)
        except OSError as exc:
            raise write_error(target, exc) from None
        try:
            os.fchmod(fd, FILE_MODE)  # mkstemp makes 0600; a file is made as open() would make it
            with os.fdopen(fd, mode, encoding=encoding if "b" not in mode else None,
                           newline=newline if "b" not in mode else None) as fh:
                yield fh
            os.replace(tmp, target)
        except OSError as exc:
            _remove(tmp)
            raise write_error(target, exc) from None
        except BaseException:
            _remove(tmp)
            raise

    def write_bytes(self, rel: str | os.PathLike, data: bytes) -> Path:
        """``root/rel`` ← ``data`` (atomic); returns the path."""
        with self.open(rel, "wb") as fh:
            fh.write(data)
        return self.root.joinpath(*_parts(rel))

    def write_text(self, rel: str | os.PathLike, text: str) -> Path:
        """``root/rel`` ← ``text`` in UTF-8 (atomic); returns the path."""
        return self.write_bytes(rel, text.encode("utf-8"))


#: the report's folder of counterexample files (the only files a report links to by name)
COUNTEREXAMPLES = "counterexamples"


def is_counterexample_link(rel: object) -> bool:
    """Whether ``rel`` is ``counterexamples/NAME`` with NAME a plain file name.

    Such a link has no URL scheme (no ``:``, so no ``javascript:``), no ``..`` and no query; it is the
    only form a link taken from stored data may take in the report (HTML ``href`` or Markdown).
    """
    if not isinstance(rel, str) or ":" in rel or "?" in rel or "#" in rel:
        return False
    try:
        parts = _parts(rel)
        return len(parts) == 2 and parts[0] == COUNTEREXAMPLES and safe_stem(parts[1]) == parts[1]
    except UnsafePathError:
        return False


def write_file(path: str | os.PathLike, data: bytes | str) -> Path:
    """Write one named file (``--out FILE``): ``path``'s directory is the root, the name its only part."""
    p = Path(path)
    w = Writer(p.parent if str(p.parent) else ".")
    return w.write_bytes(p.name, data.encode("utf-8") if isinstance(data, str) else data)


def append_lines(path: str | os.PathLike, lines: list[str]) -> None:
    """Append ``lines`` (each ended by a newline) to the log ``path`` made by ``write_file``: all or none.

    A full disk or a read-only file system mid-write truncates the file back to its length before, so a
    log holds only whole groups of lines; the failure is ``WriteFailedError``.  A link is not followed.
    """
    p = Path(path)
    data = "".join(line + "\n" for line in lines).encode("utf-8")
    try:
        fd = os.open(p, os.O_WRONLY | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        raise write_error(p, exc) from None
    try:
        start = os.fstat(fd).st_size
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        except OSError as exc:
            try:
                os.ftruncate(fd, start)
            except OSError:
                pass
            raise write_error(p, exc) from None
    finally:
        os.close(fd)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


#: a written file's mode: 0666 less the process's umask at import (0644 under 022), as ``open`` makes it
FILE_MODE = 0o666 & ~_umask()

#: the suffix of a writer's temporary file; its name carries the writer's pid before a random part
TMP_SUFFIX = ".fcocheck-tmp"
_TMP = re.compile(r"^\..*\.(\d+)\.[^.]+" + re.escape(TMP_SUFFIX) + "$")


def alive(pid: int) -> bool:
    """Whether process ``pid`` may still run (its temporary files and stages are then kept)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # another user's process, or a number no pid can be: leave its file alone
    return True


def remove_stale_temporaries(directory: Path) -> list[str]:
    """Remove temporary files in ``directory`` left by writers that no longer run; returns their names.

    Only regular files (never a link) whose name is ``.NAME.PID.XXXX.fcocheck-tmp`` with PID not a
    running process; a live process's file (its write in progress) is kept.
    """
    removed = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for e in entries:
        m = _TMP.match(e.name)
        if m and e.is_file(follow_symlinks=False) and not alive(int(m.group(1))):
            _remove(e.path)
            removed.append(e.name)
    return removed


def _mkdir(path: Path) -> None:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise UnsafePathError(f"{str(path)!r} exists and is not a directory") from None
    except OSError as exc:
        raise write_error(path, exc) from None


def _remove(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except OSError:
        pass


def write_error(target: Path, exc: OSError) -> WriteFailedError:
    """The refusal of a write to ``target`` the file system failed with ``exc``, its cause in words."""
    why = {errno.ENOSPC: "the disk is full", errno.EROFS: "the file system is read-only",
           errno.ENAMETOOLONG: "the name is too long", errno.EACCES: "permission denied",
           errno.EDQUOT: "the disk quota is exceeded"}.get(exc.errno, exc.strerror or str(exc))
    return WriteFailedError(f"could not write {str(target)!r}: {why}; nothing partial was left")
