"""The guarded boundary's four surfaces as Hypothesis strategies and outcome probes (issue 54).

Shared by the property tests (``test_fuzz_surfaces.py``, CI profile) and the audit
(``benchmarks/bad_inputs.py``, which counts outcomes over thousands of draws).  Each probe runs one
drawn case through the command line in-process and names what went wrong, or ``"clean"``:

* **plugin modules** — a ``.py`` file with cards and claims whose fields are drawn (names, parameters,
  reductions, claim fields, what the module does at import: raise, exit, fail to parse).  Clean: exit 0
  with its cards or claims registered, or exit 2 with a rule and the registries as they were before.
* **foreign stores** — an SQLite file with the store's tables missing, renamed, retyped or extended,
  its meta rows or its stored rows random, or not SQLite at all, given to ``store info``, ``store
  export``, ``sweep`` and ``report``.  Clean: an answer, or exit 2 naming the rule with the file's bytes
  unchanged and no ``-wal``/``-shm`` beside it.
* **links and special files under --out** — a link (to a file or directory outside, or dangling), a
  FIFO, a directory where a file goes or a file where a directory goes, planted at one of the paths a
  command writes.  Clean: nothing outside ``--out`` changed, and on a refusal ``--out`` as it was.
* **full and read-only file systems** — every write of the command's files fails with ``ENOSPC`` after a
  drawn number of bytes (the store: after a drawn number of pages), or every creation fails with
  ``EROFS`` (the store: read-only).  Clean: exit 0, or exit 1 saying what could not be written, with no
  temporary file, no stage, no partial report or trace, logs of whole lines and an intact store.

A traceback, a hang (no answer within the limit), an exit code other than these, or output left where
the rule says none is never clean.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import json
import os
import re
import shutil
import signal
import sqlite3
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import strategies as st

#: seconds without an answer that count as a hang (the audit's default; a FIFO read would never end)
HANG = 300


class HangError(Exception):
    """No answer within the limit."""


@contextlib.contextmanager
def limit(seconds: int) -> Iterator[None]:
    """Raise ``HangError`` in the main thread after ``seconds`` (SIGALRM)."""
    def alarm(signum, frame):  # noqa: ANN001, ARG001
        raise HangError

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def cli(argv: list[str], hang: int = HANG) -> tuple[int | str, str]:
    """``fcocheck argv`` in this process: (exit code, stderr), or ("hang"/"traceback (X)", text)."""
    from fcocheck.reports.cli import main

    err = io.StringIO()
    try:
        with limit(hang), contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            try:
                code = main(argv)
            except SystemExit as exc:  # argparse's own refusal
                code = exc.code
    except HangError:
        return "hang", err.getvalue()
    except Exception as exc:  # noqa: BLE001 - the probe names it
        return f"traceback ({type(exc).__name__})", err.getvalue()
    if "Traceback" in err.getvalue():
        return "traceback", err.getvalue()
    return code, err.getvalue()


ROOT = Path(__file__).resolve().parents[2]
#: a command run in a process of its own (``check`` runs Hypothesis, which cannot run inside a drawn
#: example): the same fault installed there
_BOOT = """
import contextlib, json, sys
sys.path.insert(0, {root!r})
spec = json.loads(sys.argv[1])
from tests.reports import fuzz_surfaces as fz
from fcocheck.reports.cli import main
with fz.faulty_disk(*spec["fault"]) if spec["fault"] else contextlib.nullcontext():
    code = main(spec["argv"])
sys.exit(code)
"""
#: the commands run in a process of their own
OWN_PROCESS = ("check",)


def cli_process(argv: list[str], fault: tuple | None = None, hang: int = HANG) -> tuple[int | str, str]:
    """``fcocheck argv`` in a new process (with ``faulty_disk(*fault)`` there): as ``cli``."""
    import subprocess
    import sys

    try:
        done = subprocess.run([sys.executable, "-c", _BOOT.format(root=str(ROOT)),
                               json.dumps({"argv": argv, "fault": fault})],
                              capture_output=True, text=True, timeout=hang, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return "hang", ""
    if "Traceback" in done.stderr:
        return "traceback", done.stderr
    return done.returncode, done.stderr


def command_outcome(command: str, argv: list[str], fault: tuple | None = None,
                    hang: int = HANG) -> tuple[int | str, str]:
    """Run ``argv`` (in this process, or its own for ``OWN_PROCESS``) with the disk fault, if any."""
    if command in OWN_PROCESS:
        return cli_process(argv, fault, hang)
    with faulty_disk(*fault) if fault else contextlib.nullcontext():
        return cli(argv, hang)


def listing(root: Path) -> dict[str, str]:
    """Every entry under ``root`` (links not followed): its kind and, for a file, its content's hash."""
    out = {}
    if not root.exists() and not root.is_symlink():
        return out
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            st_ = p.lstat()
            if stat.S_ISLNK(st_.st_mode):
                kind = "link " + os.readlink(p)
            elif stat.S_ISREG(st_.st_mode):
                kind = "file " + hashlib.sha256(p.read_bytes()).hexdigest()[:16]
            else:
                kind = "dir" if stat.S_ISDIR(st_.st_mode) else f"special {stat.S_IFMT(st_.st_mode)}"
            out[str(p.relative_to(root))] = kind
    return out


def leftovers(root: Path) -> list[str]:
    """Temporary files and stages a writer left under ``root``."""
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")
                  if p.name.endswith(".fcocheck-tmp") or p.name.startswith(".fcocheck-stage"))


# --- the commands, cheap enough to run thousands of times ------------------------------------------
def sweep_file(root: Path, runs: int = 2) -> Path:
    """A sweep of ``runs`` tiny FedAvg runs (one η_c per run)."""
    path = root / "sweep.json"
    path.write_text(json.dumps({
        "base": {"algorithm": "fedavg", "problem": {"generator": "quadratics", "params": {"d": 4}},
                 "hp": {"eta_c": 0.1, "local_steps": 2}, "rounds": 3},
        "axes": {"hp.eta_c": [0.05 * (i + 1) for i in range(runs)]}, "seeds": 1}))
    return path


def commands(root: Path, out: Path, store: Path) -> dict[str, list[str]]:
    """The commands the surfaces drive, writing under ``out`` (and to ``store``)."""
    from tests.reports.stored import REPORT

    return {
        "run": ["run", "fedavg", "--problem", "quadratics", "--rounds", "5", "--eta-c", "0.1",
                "--no-reference", "--out", str(out / "t.npz")],
        "validate": ["validate", "fco-eq-4.5", "--quick", "--out", str(out / "v.jsonl")],
        "check": ["check", "--quick", "--algorithm", "fedavg", "--workers", "1", "-q", "--out", str(out)],
        "sweep": ["sweep", str(sweep_file(root)), "--store", str(store), "--workers", "1", "--quiet"],
        "report": ["report", "--out", str(out), "--store", str(store), *REPORT],
        "store export": ["store", "export", "--store", str(store), "--out", str(out / "runs.csv")],
    }


# --- surface 1: plugin modules -----------------------------------------------------------------------
texts = st.one_of(st.sampled_from(["mine", "mine-2", "fedavg", "fedavgm", "../x", "<b>x</b>", "", "x" * 300,
                                   "a b", "é", "mine\n", "nosuch", "eta_c", "beta", "__import__('os')",
                                   "1/0", "eta_s*eta_c", "eta*2", "l1", "general", "rounds"]),
                  st.text(max_size=12))
scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**12, 10**12),
                    st.floats(allow_nan=True, allow_infinity=True), texts)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(texts, inner, max_size=3), max_leaves=8)


def lit(value: Any) -> str:
    """Python source for ``value`` (NaN and infinities as ``float(...)``)."""
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return f"float({str(value)!r})"
    if isinstance(value, list):
        return "[" + ", ".join(map(lit, value)) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{lit(k)}: {lit(v)}" for k, v in value.items()) + "}"
    return repr(value)


@st.composite
def params_source(draw) -> str:
    """A card's parameters: FedAvgM's, one of them changed, or a drawn tuple."""
    kind = draw(st.sampled_from(["same", "changed", "drawn", "duplicate"]))
    if kind == "same":
        return "CARD.params"
    if kind == "duplicate":
        return "CARD.params + (Param('beta', 0.5),)"
    fields = ["name", "default", "help", "neutral", "grid", "per"]
    one = ", ".join(f"{f}={lit(draw(values))}" for f in draw(st.lists(st.sampled_from(fields), max_size=3,
                                                                          unique=True)))
    name = lit(draw(texts))
    param = f"Param({name}{', ' + one if one else ''})" if "name" not in one else f"Param({one})"
    if kind == "changed":
        return f"CARD.params[:-1] + ({param},)"
    return f"({param},)"


@st.composite
def reduction_source(draw) -> str:
    fields = {"target": texts, "when": values, "hp_map": values, "run": values, "psi": texts,
              "layout": texts, "psi_scale": scalars, "where": texts}
    chosen = draw(st.lists(st.sampled_from(sorted(fields)), max_size=4, unique=True))
    target = "" if "target" in chosen else lit(draw(st.sampled_from(["fedavg", "heavy-ball", "nosuch"])))
    args = ([target] if target else []) + [f"{f}={lit(draw(fields[f]))}" for f in chosen]
    return f"Reduction({', '.join(args)})"


@st.composite
def card_source(draw, i: int) -> str:
    """``dataclasses.replace(CARD, name=…, field=…)`` with drawn fields."""
    name = draw(st.one_of(st.just(f"fz-card-{i}"), texts))
    changes = [f"name={lit(name)}"]
    for field in draw(st.lists(st.sampled_from(["params", "reduces_to", "summary", "citation", "family",
                                                 "claims", "doc"]), max_size=3, unique=True)):
        if field == "params":
            changes.append(f"params={draw(params_source())}")
        elif field == "reduces_to":
            reds = draw(st.lists(reduction_source(), max_size=2))
            changes.append(f"reduces_to=({''.join(r + ', ' for r in reds)})")
        else:
            changes.append(f"{field}={lit(draw(values))}")
    return f"dataclasses.replace(CARD, {', '.join(changes)})"


CLAIM_BASE = {"method": "fedavg", "bound": "1/R", "along": ("rounds", [10, 20, 40, 80]),
              "problem": ("quadratics", {"d": 4}), "hp": {"eta_c": 0.1, "local_steps": 2}, "seeds": 3}
CLAIM_FIELDS = ("name", "method", "bound", "along", "problem", "hp", "seeds", "statistic", "sense",
                "measure", "oracle", "repeats", "rounds", "constants", "controls", "full", "participation",
                "label", "direction")


@st.composite
def claim_source(draw, i: int) -> str:
    fields = {"name": f"fz-claim-{i}", **CLAIM_BASE}
    for f in draw(st.lists(st.sampled_from(CLAIM_FIELDS), max_size=3, unique=True)):
        fields[f] = draw(values)
    name = fields.pop("name")
    return f"Claim({lit(name)}, " + ", ".join(f"{k}={lit(v) if not isinstance(v, tuple) else repr(v)}"
                                              for k, v in fields.items()) + ")"


EVENTS = {"none": "", "raise": "raise ValueError('mine')", "exit 0": "raise SystemExit(0)",
          "exit 3": "raise SystemExit(3)", "ctrl-c": "raise KeyboardInterrupt", "syntax": "def (",
          "import": "import fcocheck_no_such_module", "name": "undefined_name",
          "cards not a list": "fcocheck_cards = 5", "claims not a list": "fcocheck_claims = 'abc'",
          "claims of other things": "fcocheck_claims = [1, 'x', None]", "nothing": "del fcocheck_cards"}


@st.composite
def plugin_modules(draw) -> str:
    """A plugin module's source: drawn cards and claims, and one drawn thing it does at import."""
    cards = [draw(card_source(i)) for i in range(draw(st.integers(0, 2)))]
    claims = [draw(claim_source(i)) for i in range(draw(st.integers(0, 2)))]
    event = EVENTS[draw(st.sampled_from(sorted(EVENTS)))]
    lines = ["import dataclasses", "from fcocheck import Claim",
             "from fcocheck.solvers.card import Param, Reduction",
             "from fcocheck.solvers.methods.fedavgm import CARD",
             f"fcocheck_cards = [{', '.join(cards)}]", f"fcocheck_claims = [{', '.join(claims)}]"]
    lines.insert(draw(st.integers(4, len(lines))), event)
    return "\n".join(lines) + "\n"


def registries() -> dict[str, Any]:
    """What a plugin may register: cards, algorithms, claims and experiments, by name."""
    from fcocheck.solvers import algorithms
    from fcocheck.solvers.card import plugins
    from fcocheck.verify import experiments

    return {"cards": set(algorithms.CARDS), "algorithms": set(algorithms.ALGORITHMS),
            "claims": [id(c) for c in plugins.CLAIMS], "experiments": set(experiments.EXPERIMENTS)}


def restore(before: dict[str, Any]) -> None:
    """Undo what a loaded plugin registered (the process then is as ``before``)."""
    from fcocheck.solvers import algorithms
    from fcocheck.solvers.card import plugins
    from fcocheck.verify import experiments

    for name in set(algorithms.CARDS) - before["cards"]:
        algorithms.unregister(name)
    plugins.CLAIMS[:] = [c for c in plugins.CLAIMS if id(c) in before["claims"]]
    for name in set(experiments.EXPERIMENTS) - before["experiments"]:
        del experiments.EXPERIMENTS[name]


#: a refusal that states its rule: in words, or as the allowed set (unknown names list the known ones)
NAMED = re.compile(r"\brule\b|; known: \[|hyper-parameters are \[")


def plugin_outcome(source: str, root: Path, hang: int = HANG) -> str:
    """Load the module with ``--plugin … algorithms``: clean, or what went wrong (module docstring)."""
    from fcocheck.solvers.card import plugins

    path = root / f"fz_{hashlib.sha256(source.encode()).hexdigest()[:16]}.py"
    path.write_text(source)
    before = registries()
    env = os.environ.get(plugins.ENV)
    try:
        code, err = cli(["--plugin", str(path), "algorithms"], hang)
        after = registries()
    finally:
        restore(before)
        if env is None:
            os.environ.pop(plugins.ENV, None)
        else:
            os.environ[plugins.ENV] = env
    if not isinstance(code, int):
        return str(code)
    if code == 2:
        if after != before:
            return "refused but left registered"
        return "clean" if NAMED.search(err) else "unclear message"
    if code == 0 and after == before:  # a module registers at least one card or claim, or is refused
        return "accepted but registered nothing"
    return "clean" if code == 0 else f"exit {code}"


# --- surface 2: foreign stores --------------------------------------------------------------------
def _ddl() -> list[str]:
    from fcocheck.verify.sweep.store import _DDL

    return [s.strip() for s in _DDL.split(";") if s.strip()]


def ours() -> list[tuple[str, tuple]]:
    """The statements that make an empty store of this schema: its tables and its meta rows."""
    from fcocheck.verify.sweep.store import APP, SCHEMA

    return [(s, ()) for s in _ddl()] + [("INSERT INTO meta VALUES (?, ?)", ("app", APP)),
                                         ("INSERT INTO meta VALUES (?, ?)", ("schema", SCHEMA))]


sql_values = st.one_of(st.none(), st.integers(-2**63, 2**63 - 1), st.floats(allow_nan=False),
                       st.text(max_size=20), st.binary(max_size=20),
                       st.sampled_from(["fcocheck", "1", "{}", "[]", '{"checks": 5}', "<script>x</script>"]))
identifiers = st.one_of(st.sampled_from(["runs", "results", "meta", "metrics", "key", "payload", "value",
                                         "name", "app", "schema", "status", "code_version", "x"]),
                        st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True))


@st.composite
def foreign_stores(draw) -> bytes | list[tuple[str, tuple]]:
    """SQL statements building a store that is not quite ours, or raw bytes that are not SQLite at all."""
    kind = draw(st.sampled_from(["edited schema", "random tables", "meta", "rows", "bytes"]))
    if kind == "bytes":
        head = draw(st.sampled_from([b"", b"SQLite format 3\x00"]))
        return head + draw(st.binary(max_size=200))
    stmts = ours()
    if kind == "edited schema":
        i = draw(st.integers(0, len(_ddl()) - 1))
        text = stmts[i][0]
        edit = draw(st.sampled_from(["drop", "rename column", "retype", "extra column", "rename table"]))
        if edit == "drop":
            del stmts[i]
        elif edit == "rename column" and "(" in text:
            head, body = text.split("(", 1)
            stmts[i] = (head + "(" + body.replace(body.split()[0], draw(identifiers), 1), ())
        elif edit == "retype":
            stmts[i] = (text.replace("TEXT", "BLOB", 1).replace("INTEGER", "TEXT", 1), ())
        elif edit == "extra column" and text.rstrip().endswith(")"):
            stmts[i] = (text.rstrip()[:-1] + f", {draw(identifiers)}_extra TEXT)", ())
        else:
            stmts[i] = (text.replace("TABLE IF NOT EXISTS ", "TABLE IF NOT EXISTS x_", 1)
                        .replace("TABLE ", "TABLE x_", 1), ())
    elif kind == "random tables":
        stmts = []
        for _ in range(draw(st.integers(1, 3))):
            cols = draw(st.lists(identifiers, min_size=1, max_size=4, unique=True))
            table = draw(identifiers)
            quoted = ", ".join(f'"{c}"' for c in cols)
            stmts.append((f'CREATE TABLE IF NOT EXISTS "{table}" ({quoted})', ()))
            for _ in range(draw(st.integers(0, 2))):
                marks = ", ".join("?" * len(cols))
                stmts.append((f'INSERT INTO "{table}" VALUES ({marks})',
                              tuple(draw(sql_values) for _ in cols)))
    elif kind == "meta":
        key = draw(st.sampled_from(["app", "schema", "x"]))
        stmts.append(("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, draw(sql_values))))
    else:
        table = draw(st.sampled_from(["runs", "results"]))
        stmts.append((f"__ROWS__ {table}", tuple(draw(sql_values) for _ in range(12))))
    return stmts


def build_store(path: Path, spec: bytes | list[tuple[str, tuple]]) -> None:
    """Write the drawn store to ``path``."""
    if isinstance(spec, bytes):
        path.write_bytes(spec)
        return
    con = sqlite3.connect(path)
    try:
        for sql, args in spec:
            if sql.startswith("__ROWS__ "):
                table = sql.split()[1]
                n = len(con.execute(f"PRAGMA table_info({table})").fetchall())
                con.execute(f"INSERT INTO {table} VALUES ({', '.join('?' * n)})", args[:n])
                continue
            with contextlib.suppress(sqlite3.Error):  # a drawn edit that SQLite refuses: the store without it
                con.execute(sql, args)
        con.commit()
    except sqlite3.Error:
        pass
    finally:
        con.close()


STORE_COMMANDS = ("store info", "store export", "sweep", "report")


def store_outcome(spec: Any, command: str, root: Path, hang: int = HANG) -> str:
    """``command`` on the drawn store: clean, or what went wrong (module docstring)."""
    store, out = root / "s.sqlite", root / "out"
    build_store(store, spec)
    out.mkdir()  # store export writes into an existing directory
    argv = (["store", "info", "--store", str(store)] if command == "store info"
            else commands(root, out, store)[command])
    before = store.read_bytes()
    code, err = cli(argv, hang)
    if not isinstance(code, int):
        return str(code)
    if leftovers(root):
        return "partial file"
    if code == 2:
        beside = any(store.with_name(store.name + s).exists() for s in ("-wal", "-shm"))
        if store.read_bytes() != before or beside:
            return "refused but the store changed"
        if listing(out):
            return "refused but wrote"
        return "clean" if "rule" in err or "untouched" in err else "unclear message"
    return "clean" if code in (0, 1) else f"exit {code}"


# --- surface 3: links and special files under --out ---------------------------------------------------
PLANTS = ("link to a file", "link to a directory", "dangling link", "fifo", "directory", "file")
LINK_COMMANDS = ("run", "validate", "check", "report", "store export")


def written_paths(command: str, report_files: list[str]) -> list[str]:
    """The paths under ``--out`` a command writes (and their folders)."""
    check = ["check.jsonl"] + [f"counterexamples/fedavg__{c}.{e}" for c in "ABCD" for e in ("json", "npz")]
    files = {"run": ["t.npz"], "validate": ["v.jsonl"], "check": check,
             "store export": ["runs.csv"], "report": report_files}[command]
    dirs = {str(Path(f).parent) for f in files if str(Path(f).parent) != "."}
    return sorted(set(files) | dirs)


def plant(out: Path, rel: str, kind: str, outside: Path) -> None:
    """Put a ``kind`` at ``out/rel`` (its parents made as directories)."""
    target = out / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    if kind == "link to a file":
        target.symlink_to(outside / "secret")
    elif kind == "link to a directory":
        target.symlink_to(outside / "d", target_is_directory=True)
    elif kind == "dangling link":
        target.symlink_to(outside / "nothing-here")
    elif kind == "fifo":
        os.mkfifo(target)
    elif kind == "directory":
        target.mkdir()
    else:
        target.write_text("a file where a directory may go")


def link_outcome(command: str, rel: str, kind: str, root: Path, store: Path, report_files: list[str],
                 hang: int = HANG) -> str:
    """``command`` with a ``kind`` planted at ``--out/rel``: clean, or what went wrong (module docstring)."""
    out, outside = root / "out", root / "outside"
    (outside / "d").mkdir(parents=True)
    (outside / "secret").write_text("secret")
    plant(out, rel, kind, outside)
    argv = commands(root, out, store)[command]
    before_out, before_outside = listing(out), listing(outside)
    code, err = command_outcome(command, argv, None, hang)
    if not isinstance(code, int):
        return str(code)
    if listing(outside) != before_outside:
        return "wrote outside --out"
    if leftovers(out):
        return "partial file"
    if code == 2:
        if listing(out) != before_out:
            return "refused but wrote"
        return "clean" if "rule" in err or "link" in err or "not a" in err else "unclear message"
    return "clean" if code in (0, 1) else f"exit {code}"


# --- surface 4: full and read-only file systems ---------------------------------------------------------
class _Budget:
    def __init__(self, nbytes: int, code: int) -> None:
        self.left, self.code = nbytes, code

    def take(self, n: int) -> None:
        if n > self.left:
            self.left = 0
            raise OSError(self.code, os.strerror(self.code))
        self.left -= n


class _FaultyFile:
    """A file object whose writes draw on a budget (and fail with its errno when it is spent)."""

    def __init__(self, inner: Any, budget: _Budget) -> None:
        self._inner, self._budget = inner, budget

    def write(self, data: Any) -> int:
        self._budget.take(len(data))
        return self._inner.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def __enter__(self) -> _FaultyFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self._inner.__exit__(*exc)


class _OsProxy:
    """``os`` as ``files.py`` and ``staging.py`` see it, with the writing calls going through the fault."""

    def __init__(self, fault: Callable[[str, Any], Any]) -> None:
        self._fault = fault

    def __getattr__(self, name: str) -> Any:
        real = getattr(os, name)
        if name in ("fdopen", "write", "replace", "open", "mkdir"):
            return lambda *a, **k: self._fault(name, real, *a, **k)
        return real


@contextlib.contextmanager
def faulty_disk(kind: str, nbytes: int, pages: int) -> Iterator[None]:
    """Every file write fails with ENOSPC after ``nbytes`` (the store after ``pages`` more pages), or, for
    ``kind == "read-only"``, every creation fails with EROFS and the store is read-only."""
    from fcocheck.solvers import files, staging
    from fcocheck.verify.sweep import store as store_module

    readonly = kind == "read-only"
    budget = _Budget(0 if readonly else nbytes, errno.EROFS if readonly else errno.ENOSPC)

    def fault(name: str, real: Callable[..., Any], *a: Any, **k: Any) -> Any:
        if name == "fdopen":
            return _FaultyFile(real(*a, **k), budget)
        if name == "write":
            budget.take(len(a[1]))
        if readonly and name in ("replace", "mkdir") or (readonly and name == "open" and len(a) > 1
                                                          and a[1] & (os.O_WRONLY | os.O_RDWR)):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS))
        return real(*a, **k)

    def mkstemp(*a: Any, **k: Any) -> Any:
        if readonly:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS))
        return real_mkstemp(*a, **k)

    def mkdtemp(*a: Any, **k: Any) -> Any:
        if readonly:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS))
        return real_mkdtemp(*a, **k)

    def mkdir(self: Path, *a: Any, **k: Any) -> None:
        if readonly and not self.is_dir():
            raise OSError(errno.EROFS, os.strerror(errno.EROFS))
        return real_path_mkdir(self, *a, **k)

    def set_wal(con: sqlite3.Connection, *a: Any, **k: Any) -> None:
        real_set_wal(con, *a, **k)
        if readonly:
            con.execute("PRAGMA query_only = 1")
        else:
            used = con.execute("PRAGMA page_count").fetchone()[0]
            con.execute(f"PRAGMA max_page_count = {used + pages}")

    import tempfile
    real_mkstemp, real_mkdtemp, real_path_mkdir = tempfile.mkstemp, tempfile.mkdtemp, Path.mkdir
    real_set_wal = store_module._set_wal
    proxy = _OsProxy(fault)
    temp = mock.Mock(wraps=tempfile, mkstemp=mkstemp, mkdtemp=mkdtemp)
    with mock.patch.object(files, "os", proxy), mock.patch.object(staging, "os", proxy), \
            mock.patch.object(files, "tempfile", temp), mock.patch.object(staging, "tempfile", temp), \
            mock.patch.object(Path, "mkdir", mkdir), mock.patch.object(store_module, "_set_wal", set_wal):
        yield


DISK_COMMANDS = ("run", "validate", "check", "sweep", "report")


def _whole_lines(path: Path) -> bool:
    if not path.exists():
        return True
    text = path.read_text()
    if text and not text.endswith("\n"):
        return False
    try:
        for line in text.splitlines():
            json.loads(line)
    except ValueError:
        return False
    return True


def disk_outcome(command: str, kind: str, nbytes: int, pages: int, root: Path, store: Path | None,
                 hang: int = HANG) -> str:
    """``command`` on a failing disk: clean, or what went wrong (module docstring).

    ``store`` is copied in first when given (a report reads its results from it).
    """
    out, db = root / "out", root / "s.sqlite"
    out.mkdir()  # run, validate and export write into an existing directory
    if store is not None:
        shutil.copyfile(store, db)
    argv = commands(root, out, db)[command]
    code, err = command_outcome(command, argv, (kind, nbytes, pages), hang)
    if not isinstance(code, int):
        return str(code)
    if leftovers(root):
        return "partial file"
    if not (_whole_lines(out / "v.jsonl") and _whole_lines(out / "check.jsonl")):
        return "partial log"
    if db.exists():
        con = sqlite3.connect(db)
        try:
            if con.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
                return "damaged store"
        finally:
            con.close()
    if code == 1:
        if "could not" not in err:
            return "unclear message"
        if command == "report" and [k for k in listing(out) if not k.startswith("check")]:
            return "partial report"
        if command == "run" and (out / "t.npz").exists():
            return "partial trace"
        return "clean"
    return "clean" if code == 0 else f"exit {code}"
