"""The results store: one SQLite file (WAL) holding runs, their per-round metrics and job results.

Tables (schema ``SCHEMA``):

* ``meta(key, value)``: ``app = fcocheck-results``, ``schema``, ``created`` — how a file is
  recognised as ours; anything else is refused, never overwritten.
* ``runs``: one row per (config key, code version): the configuration JSON, status (``completed``,
  ``diverged``, ``error``), error text, rounds done, ``diverged_at``, start time, seconds.
* ``metrics(run, metric, round, value)``: the long table, one row per run, round and
  scalar metric.
* ``arrays(run, name, npy)``: multi-dimensional arrays a configuration asked to keep.
* ``results(kind, name, mode, seed, code_version, …, payload)``: finished theorem experiments and
  conformance checks (JSON), so a report can reuse them.

A run and all its metrics are written in one transaction, by one writer (the sweep's driver
process): after ``kill -9`` a run is either entirely present or absent, so a resumed sweep neither
loses nor duplicates anything.  ``UNIQUE(key, code_version)`` makes a duplicate impossible.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np

from fcocheck.solvers.engine.trace import jsonable
from fcocheck.solvers.errors import FcocheckError
from fcocheck.solvers.files import WriteFailedError, Writer, write_error
from fcocheck.solvers.untrusted import loads, regular_file
from fcocheck.verify.sweep.task import RunRecord

APP = "fcocheck-results"
SCHEMA = "1"
_TABLES = {"meta", "runs", "metrics", "arrays", "results"}
_DDL = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs(
  id INTEGER PRIMARY KEY, key TEXT NOT NULL, code_version TEXT NOT NULL, config TEXT NOT NULL,
  algorithm TEXT NOT NULL, problem TEXT NOT NULL, seed INTEGER NOT NULL, tags TEXT NOT NULL,
  status TEXT NOT NULL, error TEXT, rounds_done INTEGER, diverged_at INTEGER,
  started TEXT, seconds REAL, meta TEXT, UNIQUE(key, code_version));
CREATE TABLE IF NOT EXISTS metrics(run INTEGER NOT NULL REFERENCES runs(id), metric TEXT NOT NULL,
  round INTEGER NOT NULL, value REAL, PRIMARY KEY(run, metric, round)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS arrays(run INTEGER NOT NULL REFERENCES runs(id), name TEXT NOT NULL,
  npy BLOB NOT NULL, PRIMARY KEY(run, name));
CREATE TABLE IF NOT EXISTS results(kind TEXT NOT NULL, name TEXT NOT NULL, mode TEXT NOT NULL,
  seed INTEGER NOT NULL, code_version TEXT NOT NULL, status TEXT NOT NULL, payload TEXT NOT NULL,
  seconds REAL, created TEXT, PRIMARY KEY(kind, name, mode, seed, code_version));
"""


class StoreError(FcocheckError):
    """A store file that is not an fcocheck results store, or of another schema."""


#: what joins a code version and a user definition's digest in the ``code_version`` column of ``results``
DEFINITION = "+definition:"


@lru_cache(maxsize=1)
def _columns() -> dict[str, tuple[tuple[str, str], ...]]:
    """Each table's columns (name, declared type) as ``_DDL`` creates them (read off an in-memory copy)."""
    con = sqlite3.connect(":memory:")
    try:
        for stmt in filter(str.strip, _DDL.split(";")):
            con.execute(stmt)
        return {t: tuple((r[1], r[2]) for r in con.execute(f"PRAGMA table_info({t})")) for t in _TABLES}
    finally:
        con.close()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _inspect(path: Path) -> bool:
    """Refuse a non-empty file unless it is an fcocheck store of this schema (read-only look).

    When no write-ahead log or rollback journal sits beside the file, the main file is the whole
    database and it is read with SQLite's ``immutable`` flag: no lock taken and no ``-wal``/``-shm``
    sidecar created, so a refused file is left exactly as it was found.  Otherwise (a WAL store in
    use) it is read through SQLite's normal read-only path, whose sidecars already exist.

    Returns:
        True when the file is an SQLite database without any table (one another process is
        creating this instant): it holds nobody's data and is initialised like a new file.

    """
    quiet = not any(path.with_name(path.name + s).exists() for s in ("-wal", "-journal"))
    try:
        con = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro{'&immutable=1' * quiet}",
                              uri=True)
        try:
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            columns = {t: tuple((r[1], r[2]) for r in con.execute(f"PRAGMA table_info({t})"))
                       for t in _TABLES & tables}
            meta = dict(con.execute("SELECT key, value FROM meta")) if "meta" in tables else {}
            check = con.execute("PRAGMA quick_check").fetchone()[0] if meta.get("app") == APP else "ok"
            mistyped = _mistyped(con, columns) if meta.get("app") == APP and columns == {
                t: _columns()[t] for t in columns} else None
        finally:
            con.close()
    except sqlite3.DatabaseError as exc:
        raise StoreError(
            f"store {str(path)!r} is not an fcocheck results store ({exc}); the rule is an "
            "SQLite file written by fcocheck — it was left untouched"
        ) from None
    if not tables and _one_empty_page(path):
        return True
    if meta.get("app") != APP:
        raise StoreError(
            f"store {str(path)!r} is a foreign SQLite file (tables {sorted(tables)}, no "
            f"meta app = {APP!r}); it was left untouched — pass another --store path"
        )
    if check != "ok":
        raise StoreError(
            f"store {str(path)!r} is damaged (SQLite quick_check: {check}); it was left untouched — "
            "the rule is an intact store: restore a copy or pass another --store path")
    if meta.get("schema") != SCHEMA or not _TABLES <= tables:
        raise StoreError(
            f"store {str(path)!r} has schema {meta.get('schema')!r} and tables "
            f"{sorted(tables)}; this fcocheck reads schema {SCHEMA!r} — it was left untouched"
        )
    other = sorted(t for t in _TABLES if columns.get(t) != _columns()[t])
    if other:
        raise StoreError(
            f"store {str(path)!r}: table {other[0]!r} has columns {[c for c, _ in columns[other[0]]]}, not "
            f"{[c for c, _ in _columns()[other[0]]]} (schema {SCHEMA!r}); it was left untouched — pass "
            "another --store path")
    if mistyped:
        table, column, kind, n = mistyped
        raise StoreError(
            f"store {str(path)!r}: column {table}.{column} holds {n} value(s) of type {kind}, not "
            f"{_ALLOWED[_declared(table, column)][0]}; it is not what this fcocheck writes — it was left "
            "untouched, the rule is a store written by fcocheck: pass another --store path")
    return False


#: SQLite's ``typeof`` values each declared column type may hold (the first is the type's own)
_ALLOWED = {"TEXT": ("text", "null"), "INTEGER": ("integer", "null"), "REAL": ("real", "integer", "null"),
            "BLOB": ("blob", "null")}
#: the tables whose every value is checked when a store opens (small: runs and results, not their metrics)
_TYPED = ("meta", "runs", "results")


def _declared(table: str, column: str) -> str:
    return dict(_columns()[table])[column]


def _mistyped(con: sqlite3.Connection, columns: dict[str, tuple]) -> tuple[str, str, str, int] | None:
    """The first (table, column, typeof, count) whose values are not of the column's declared type.

    SQLite stores any value in any column; a store edited by hand or by another program may hold a blob
    where fcocheck wrote text (``code_version`` as bytes made ``store info`` a traceback).
    """
    for table in _TYPED:
        for column, declared in columns.get(table, ()):
            allowed = _ALLOWED.get(declared)
            if allowed is None:
                continue
            marks = ", ".join("?" * len(allowed))
            row = con.execute(f'SELECT typeof("{column}"), COUNT(*) FROM {table} WHERE typeof("{column}") '
                              f"NOT IN ({marks}) GROUP BY 1 LIMIT 1", allowed).fetchone()
            if row:
                return table, column, row[0], row[1]
    return None


#: the byte of a WAL store's ``-shm`` file every open connection holds a shared lock on (SQLite's unix VFS:
#: the "DMS" slot after the 8 WAL locks at offset 120)
_DMS_BYTE = 128


def _unused(path: Path) -> bool:
    """Whether no connection (of any process) has the store open: its ``-shm`` unlocked, or absent."""
    import fcntl

    shm = path.with_name(path.name + "-shm")
    try:
        fd = os.open(shm, os.O_RDWR)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, _DMS_BYTE)
        return True
    except OSError:  # another connection holds it
        return False
    finally:
        os.close(fd)  # closing releases the lock


def _one_empty_page(path: Path) -> bool:
    """The file is exactly one SQLite page: a database created an instant ago, before its tables."""
    head = path.read_bytes()[:100]
    size = int.from_bytes(head[16:18], "big") if len(head) == 100 else 0
    size = 65536 if size == 1 else size
    return head.startswith(b"SQLite format 3\x00") and path.stat().st_size == size


class Store:
    """An open results store (see the module docstring)."""

    def __init__(self, path: str | Path) -> None:
        """Open ``path``, creating it if missing or empty; refuse anything that is not ours."""
        if Path(path).exists():  # a FIFO or a device would block or never end: regular files only
            regular_file(path, "store", StoreError)
        self.path = Path(path)
        self.created = not self.path.exists()  # by this Store: removed again at close if nothing was stored
        fresh = self.created or self.path.stat().st_size == 0 or _inspect(self.path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.con = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        except OSError as exc:
            raise write_error(self.path, exc) from None
        except sqlite3.OperationalError as exc:  # "unable to open database file": a read-only directory
            raise WriteFailedError(f"could not create or open the store {str(self.path)!r}: {exc}") from None
        try:
            self._open(fresh)
        except BaseException:  # a full disk while creating it: nothing of it is left
            self.close(discard_empty=True)
            raise

    def _open(self, fresh: bool) -> None:
        try:
            _set_wal(self.con)
            self.con.execute("PRAGMA synchronous=NORMAL")
            self.con.execute("PRAGMA foreign_keys=ON")
        except sqlite3.OperationalError as exc:
            raise write_failure(self.path, exc) or exc from None
        if fresh:  # idempotent: two processes creating the same new store both succeed
            with self.transaction():
                for stmt in filter(str.strip, _DDL.split(";")):
                    self.con.execute(stmt)
                self.con.executemany(
                    "INSERT OR IGNORE INTO meta VALUES (?, ?)",
                    [("app", APP), ("schema", SCHEMA), ("created", _now())],
                )

    def close(self, discard_empty: bool = False) -> None:
        """Close the connection (checkpointing the WAL).

        With ``discard_empty`` (the ``with`` block ended by an exception, or the store could not be set
        up: a full disk, say), a store this ``Store`` created and nothing was stored in is removed —
        unless another connection still has it open (its ``-wal``/``-shm`` files outlive ours), which may
        be about to write.
        """
        empty = False
        if discard_empty and self.created:
            try:
                empty = not self.con.execute(
                    "SELECT EXISTS(SELECT 1 FROM runs) OR EXISTS(SELECT 1 FROM results)").fetchone()[0]
            except sqlite3.Error:  # created but its tables never were (the disk filled): nothing in it either
                empty = True
        self.con.close()
        if empty and _unused(self.path):
            for suffix in ("", "-wal", "-shm"):
                self.path.with_name(self.path.name + suffix).unlink(missing_ok=True)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, typ: object, *exc: object) -> None:
        self.close(discard_empty=typ is not None)

    def transaction(self) -> _Transaction:
        """``with store.transaction():`` — BEGIN IMMEDIATE … COMMIT, ROLLBACK on error (``write_failure``)."""
        return _Transaction(self.con, self.path)

    # ---- runs -------------------------------------------------------------------------------
    def done(self, code_version: str) -> set[str]:
        """Keys of the runs recorded with this code version as a result (completed or diverged).

        Errored runs are not done: a resumed sweep executes them again (``put`` replaces the row).
        """
        rows = self.con.execute("SELECT key FROM runs WHERE code_version = ? AND status != 'error'",
                                (code_version,))
        return {r[0] for r in rows}

    def put(self, rec: RunRecord, code_version: str) -> bool:
        """Write one run and its metrics atomically; False (nothing written) if already present."""
        with self.transaction():
            return self._insert_run(rec, code_version)

    def _insert_run(self, rec: RunRecord, code_version: str) -> bool:
        """``put`` inside the caller's transaction."""
        cfg = rec.config
        self.con.execute("DELETE FROM runs WHERE key = ? AND code_version = ? AND status = 'error'",
                         (rec.key, code_version))  # an error row has no metrics or arrays
        cur = self.con.execute(
            "INSERT OR IGNORE INTO runs(key, code_version, config, algorithm, problem, seed, tags, "
            "status, error, rounds_done, diverged_at, started, seconds, meta) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                rec.key,
                code_version,
                json.dumps(cfg, sort_keys=True, default=jsonable),
                cfg["algorithm"],
                json.dumps(cfg["problem"], sort_keys=True, default=jsonable),
                cfg["seed"],
                json.dumps(cfg["tags"], sort_keys=True),
                rec.status,
                rec.error,
                rec.rounds_done,
                rec.diverged_at,
                rec.started,
                rec.seconds,
                json.dumps(rec.meta, default=float),
            ),
        )
        if cur.rowcount == 0:
            return False
        run = cur.lastrowid
        self.con.executemany(
            "INSERT INTO metrics VALUES (?,?,?,?)",
            ((run, name, i, v) for name, arr in rec.metrics.items() for i, v in enumerate(_reals(arr))),
        )
        self.con.executemany(
            "INSERT INTO arrays VALUES (?,?,?)", ((run, name, _npy(a)) for name, a in rec.arrays.items())
        )
        return True

    def runs(
        self, code_version: str | None = None, keys: Iterable[str] | None = None
    ) -> list[dict[str, Any]]:
        """Run rows (as dicts, ``config`` and ``tags`` parsed), optionally filtered."""
        sql, args = "SELECT * FROM runs", []
        if code_version is not None:
            sql, args = sql + " WHERE code_version = ?", [code_version]
        cur = self.con.execute(sql + " ORDER BY id", args)
        cols = [c[0] for c in cur.description]
        rows = [dict(zip(cols, r, strict=True)) for r in cur]
        wanted = None if keys is None else set(keys)
        out = []
        for r in rows:
            if wanted is None or r["key"] in wanted:
                r["config"] = loads(r["config"], f"run {r['id']}'s config", StoreError, constants=True)
                r["tags"] = loads(r["tags"], f"run {r['id']}'s tags", StoreError, constants=True)
                r["meta"] = (loads(r["meta"], f"run {r['id']}'s meta", StoreError, constants=True)
                             if r["meta"] else {})
                out.append(r)
        return out

    def metrics(self, run_id: int) -> dict[str, np.ndarray]:
        """Metric name → values by round for one run (NULL, i.e. NaN, restored)."""
        out: dict[str, list[float]] = {}
        for name, _, value in self.con.execute(
            "SELECT metric, round, value FROM metrics WHERE run = ? ORDER BY metric, round", (run_id,)
        ):
            if not isinstance(value, int | float | type(None)) or not isinstance(name, str):
                raise StoreError(f"run {run_id}'s metric {str(name)[:40]!r} holds {type(value).__name__} "
                                 f"{str(value)[:40]!r}; the rule is a number per round, as fcocheck writes")
            out.setdefault(name, []).append(np.nan if value is None else value)
        return {k: np.array(v, dtype=float) for k, v in out.items()}

    def arrays(self, run_id: int) -> dict[str, np.ndarray]:
        """The kept multi-dimensional arrays of one run."""
        return {
            name: np.load(io.BytesIO(blob), allow_pickle=False)
            for name, blob in self.con.execute("SELECT name, npy FROM arrays WHERE run = ?", (run_id,))
        }

    # ---- job results (experiments, conformance) ---------------------------------------------
    def put_result(
        self,
        kind: str,
        name: str,
        mode: str,
        seed: int,
        code_version: str,
        status: str,
        payload: dict[str, Any],
        seconds: float,
        records: Sequence[RunRecord] = (),
    ) -> None:
        """Record a finished experiment or check (replacing an older copy of the same key).

        ``records``: the runs behind it (a study's runs), written in the same transaction, so an
        interrupted job leaves either its payload and all its runs, or nothing.
        """
        with self.transaction():
            for rec in records:
                self._insert_run(rec, code_version)
            self.con.execute(
                "INSERT OR REPLACE INTO results VALUES (?,?,?,?,?,?,?,?,?)",
                (
                    kind,
                    name,
                    mode,
                    seed,
                    code_version,
                    status,
                    json.dumps(payload, default=jsonable),
                    seconds,
                    _now(),
                ),
            )

    def get_result(self, kind: str, name: str, mode: str, seed: int, code_version: str) -> dict | None:
        """The stored payload, or None."""
        row = self.con.execute(
            "SELECT payload FROM results WHERE kind=? AND name=? AND mode=? AND seed=? AND code_version=? "
            "AND status != 'error'",  # a job that failed is computed again, never reused
            (kind, name, mode, seed, code_version),
        ).fetchone()
        return None if row is None else loads(row[0], f"stored {kind} {name!r}", StoreError, constants=True)

    def definitions(self) -> list[dict[str, Any]]:
        """The stored results and runs keyed by a user's definition (a claim's or a card's digest).

        A result's is in its ``code_version`` after ``DEFINITION``; a run's in its configuration
        (``RunConfig.as_dict``).  One row per (kind, name, definition), with how many are stored.
        """
        out = [{"kind": kind, "name": name, "definition": version.split(DEFINITION, 1)[1], "stored": n}
               for kind, name, version, n in self.con.execute(
                   "SELECT kind, name, code_version, COUNT(*) FROM results WHERE instr(code_version, ?) > 0 "
                   "GROUP BY kind, name, code_version ORDER BY kind, name", (DEFINITION,))]
        runs: dict[tuple[str, str], int] = {}
        for algorithm, config in self.con.execute(
                "SELECT algorithm, config FROM runs WHERE instr(config, ?) > 0", ('"definition"',)):
            definition = loads(config, "a stored run configuration", StoreError).get("definition")
            if isinstance(definition, str):
                runs[(algorithm, definition)] = runs.get((algorithm, definition), 0) + 1
        return out + [{"kind": "runs", "name": a, "definition": d, "stored": n}
                      for (a, d), n in sorted(runs.items())]

    def code_versions(self) -> dict[str, int]:
        """Code version → number of runs and results recorded with it."""
        out: dict[str, int] = {}
        for table in ("runs", "results"):
            for v, n in self.con.execute(f"SELECT code_version, COUNT(*) FROM {table} GROUP BY code_version"):
                out[v] = out.get(v, 0) + n
        return out

    # ---- export -----------------------------------------------------------------------------
    def _config_columns(self, runs: list[dict[str, Any]]) -> list[str]:
        """Every configuration field of these runs, flattened (``hp.eta_c``, ``problem.zeta``)."""
        cols: dict[str, None] = {}
        for r in runs:
            cols.update(dict.fromkeys(flat_config(r["config"])))
        return list(cols)

    def frame(self, code_version: str | None = None) -> Any:
        """The export's table (``wide_rows``) as a pandas DataFrame: one row per (run, round)."""
        import pandas as pd

        header, rows = self.wide_rows(code_version)
        return pd.DataFrame(list(rows), columns=header)

    def wide_rows(self, code_version: str | None = None) -> tuple[list[str], Iterator[list[Any]]]:
        """Header and rows of the export: one row per (run, round).

        Every configuration field and every metric is a column (a metric a run lacks, or lacks at
        that round, is empty); an errored run has one row with no round.
        """
        runs = self.runs(code_version)
        cfg_cols = self._config_columns(runs)
        metrics = [m for (m,) in self.con.execute("SELECT DISTINCT metric FROM metrics ORDER BY metric")]
        header = ["key", "code_version", *cfg_cols, "status", "error", "diverged_at", "round", *metrics]

        def rows() -> Iterator[list[Any]]:
            for r in runs:
                flat = flat_config(r["config"])
                fixed = [r["key"], r["code_version"], *(flat.get(c) for c in cfg_cols),
                         r["status"], r["error"], r["diverged_at"]]
                by_round: dict[int, dict[str, float | None]] = {}
                for name, rnd, value in self.con.execute(
                        "SELECT metric, round, value FROM metrics WHERE run = ?", (r["id"],)):
                    by_round.setdefault(rnd, {})[name] = value
                if not by_round:  # an errored run still gets its row
                    yield [*fixed, None, *(None for _ in metrics)]
                for rnd in sorted(by_round):
                    vals = by_round[rnd]
                    yield [*fixed, rnd, *(vals.get(m) for m in metrics)]

        return header, rows()

    def export(self, path: str | Path, fmt: str | None = None) -> Path:
        """Write ``wide_rows`` as CSV or Parquet (by suffix or ``fmt``)."""
        path = Path(path)
        fmt = fmt or path.suffix.lstrip(".").lower()
        if fmt not in ("csv", "parquet"):
            raise StoreError(f"export format {fmt!r} ({str(path)!r}); the rule is a .csv or .parquet file")
        header, rows = self.wide_rows()
        writer = Writer(path.parent)
        if fmt == "csv":
            with writer.open(path.name, "w", encoding="utf-8", newline="") as fh:
                w = csv.writer(fh)
                w.writerow(header)
                w.writerows(rows)
            return path
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise StoreError(
                f"export to {str(path)!r} needs pyarrow; the rule is `pip install pyarrow` (or export .csv)"
            ) from None
        data = list(rows)
        columns = {c: [_arrow_scalar(r[i]) for r in data] for i, c in enumerate(header)}
        with writer.open(path.name) as fh:
            pq.write_table(pa.table(columns), fh)
        return path


def flat_config(cfg: dict[str, Any]) -> dict[str, Any]:
    """``{'hp': {'eta_c': 0.1}, 'problem': {'generator': g, 'params': {...}}}`` → flat columns.

    ``metrics_every`` is stored only when it is not 1 (the key of every default run is unchanged),
    and exported always, as the value the run used.
    """
    out: dict[str, Any] = {}
    for k, v in {**cfg, "metrics_every": cfg.get("metrics_every", 1)}.items():
        if k == "problem":
            out["problem"] = v.get("generator") or v.get("file")
            for pk, pv in (v.get("params") or {}).items():
                out[f"problem.{pk}"] = pv
            if "sha256" in v:
                out["problem.sha256"] = v["sha256"]
        elif isinstance(v, dict):
            for sk, sv in v.items():
                out[f"{k}.{sk}"] = sv
        else:
            out[k] = json.dumps(v) if isinstance(v, list) else v
    return out


def _arrow_scalar(v: Any) -> Any:
    """Parquet columns need one type: keep numbers and strings, render anything else as JSON."""
    return v if v is None or isinstance(v, bool | int | float | str) else json.dumps(v)


#: SQLite's words for a write the file system refused, and the cause each is printed as
_REFUSED = {"disk is full": "the disk is full", "disk i/o error": "a disk I/O error",
            "readonly": "the file system or the store is read-only"}


def write_failure(path: Path, exc: sqlite3.OperationalError) -> WriteFailedError | None:
    """A refused write (full disk, I/O error, read-only) as ``WriteFailedError``; None for other errors."""
    why = next((cause for words, cause in _REFUSED.items() if words in str(exc).lower()), None)
    if why is None:
        return None
    return WriteFailedError(f"could not write the store {str(path)!r}: {why}; the transaction was rolled "
                            "back (what was stored before it is kept)")


class _Transaction:
    def __init__(self, con: sqlite3.Connection, path: Path) -> None:
        self.con, self.path = con, path

    def __enter__(self) -> None:
        try:
            self.con.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise write_failure(self.path, exc) or exc from None

    def __exit__(self, typ: object, value: object, tb: object) -> None:
        try:
            if typ is None:
                self.con.execute("COMMIT")
            elif self.con.in_transaction:  # SQLite ends a transaction itself on some errors (a full disk)
                self.con.execute("ROLLBACK")
        except sqlite3.OperationalError as exc:
            if typ is None and self.con.in_transaction:  # a failed COMMIT may leave it open, or end it
                self.con.execute("ROLLBACK")
            failure = write_failure(self.path, exc)
            if failure is None:
                raise
            raise failure from None
        if isinstance(value, sqlite3.OperationalError):
            failure = write_failure(self.path, value)
            if failure is not None:
                raise failure from None


def _set_wal(con: sqlite3.Connection, seconds: float = 30.0) -> None:
    """Switch to WAL, waiting for another process that holds the file.

    The busy timeout does not apply to a journal-mode change, so two processes opening one new
    store would otherwise race.
    """
    deadline = time.monotonic() + seconds
    while True:
        try:
            con.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _reals(a: Any) -> list[float | None]:
    """The values as Python floats, NaN as None (SQL NULL): one ``tolist``, then v != v tests NaN."""
    return [None if v != v else v for v in np.asarray(a, dtype=float).tolist()]


def _npy(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.asarray(a), allow_pickle=False)
    return buf.getvalue()
