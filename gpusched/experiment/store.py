"""The results store: one SQLite file (WAL mode), one row per run point, keyed by its hash.

Only the sweep's parent process writes, one transaction per point result, so a sweep killed at
any moment leaves complete rows only, and ``key`` being the primary key means a resumed sweep
can never duplicate a point (a retried point replaces its failed row).

Claims: a sweep claims a point (table ``claims``: key, owner, pid, host) before it runs it and
drops the claim with the point's row, so two sweeps on one store never compute the same point
twice; a claim whose process is gone (same host) or older than ``CLAIM_TTL_S`` (other hosts) is
stale and may be taken over. The table is created on open and is not part of the schema version:
older gpusched versions ignore it.

A damaged file (truncated, overwritten, schema broken) raises ``StoreDamaged``, one line naming
the file and the recovery command (``gpusched results recover``, :func:`recover`), which copies
every row that still reads back whole into a fresh store. A store on a read-only or full
filesystem is not damaged: that is an ``OSError`` naming the file and the reason (exit 1), and
``read_only=True`` (``results query``) reads a store where nothing can be written.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sqlite3
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from gpusched.config import ConfigError

from .point import Point
from .runners import Outcome

SCHEMA_VERSION = 2
DEFAULT_DB = "results/gpusched.sqlite"

_SCHEMA = """
CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs (
    key         TEXT PRIMARY KEY,
    kind        TEXT NOT NULL,
    preset      TEXT NOT NULL,
    workload    TEXT NOT NULL,
    seed        INTEGER NOT NULL,
    inputs      TEXT NOT NULL,              -- Point.inputs() as JSON
    status      TEXT NOT NULL CHECK (status IN ('done', 'failed')),
    stats       TEXT,                       -- runner stats as JSON (done only)
    error       TEXT,                       -- error text (failed only)
    wall_s      REAL NOT NULL,
    host        TEXT NOT NULL,
    version     TEXT NOT NULL,              -- gpusched.__version__ of the run
    model       TEXT,                       -- the point's model fingerprint (fingerprint.py)
    sweep       TEXT,                       -- name of the sweep that last wrote the row
    finished_at TEXT NOT NULL               -- ISO-8601 UTC
);
CREATE INDEX runs_status ON runs (status);
"""

# from_version -> SQL that brings a store to from_version + 1. Rows of schema 1 keep model NULL:
# their keys were made by the older key formula, so no sweep reuses them and queries hide them.
MIGRATIONS: dict[int, str] = {1: "ALTER TABLE runs ADD COLUMN model TEXT"}

_CLAIMS = """CREATE TABLE IF NOT EXISTS claims (key TEXT PRIMARY KEY, owner TEXT NOT NULL,
    pid INTEGER NOT NULL, host TEXT NOT NULL, claimed_at REAL NOT NULL)"""
CLAIM_TTL_S = 6 * 3600.0   # a claim from another host older than this is stale (choice)
RUN_COLUMNS = ("key", "kind", "preset", "workload", "seed", "inputs", "status", "stats", "error",
               "wall_s", "host", "version", "sweep", "finished_at", "model")


class StoreDamaged(ConfigError):
    """The results file cannot be read or written as a store: one line naming it and the fix."""

    def __init__(self, path: Path, why: str):
        super().__init__(str(path), "", f"damaged results store ({why}); keep its intact rows "
                                        f"with: gpusched results recover --db {path}")


def _is_busy(e: sqlite3.Error) -> bool:
    return isinstance(e, sqlite3.OperationalError) and ("locked" in str(e) or "busy" in str(e))


def make_owner() -> tuple[str, int, str]:
    """(owner id, pid, host) of this process, for claims."""
    host, pid = socket.gethostname(), os.getpid()
    return f"{host}:{pid}:{time.time_ns()}", pid, host


EMPTY_GRACE_S = 10.0


def _empty_for_a_while(path: Path) -> bool:
    """A 0-byte file, untouched for EMPTY_GRACE_S, with no WAL beside it."""
    try:
        st = path.stat()
    except OSError:
        return False
    return (st.st_size == 0 and time.time() - st.st_mtime > EMPTY_GRACE_S
            and not Path(f"{path}-wal").exists())


def _claim_alive(pid: int, host: str, claimed_at: float) -> bool:
    if host != socket.gethostname():
        return time.time() - claimed_at < CLAIM_TTL_S
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def default_db(cwd: str | Path | None = None) -> str:
    """Where the results store is when ``--db`` is not given, the same from any directory of a
    project: ``$GPUSCHED_DB`` (a file); else ``$GPUSCHED_RESULTS/gpusched.sqlite``; else the
    nearest enclosing directory that already has ``results/gpusched.sqlite``; else ``results/``
    of the project root (the nearest enclosing directory with ``pyproject.toml`` or ``.git``);
    else ``results/`` of the working directory."""
    if os.environ.get("GPUSCHED_DB"):
        return os.environ["GPUSCHED_DB"]
    if os.environ.get("GPUSCHED_RESULTS"):
        return str(Path(os.environ["GPUSCHED_RESULTS"]) / Path(DEFAULT_DB).name)
    here = Path(cwd or os.getcwd()).resolve()
    chain = [here, *here.parents]
    for d in chain:
        if (d / DEFAULT_DB).is_file():
            return str(d / DEFAULT_DB)
    for d in chain:
        if (d / "pyproject.toml").is_file() or (d / ".git").exists():
            return str(d / DEFAULT_DB)
    return str(here / DEFAULT_DB)


@dataclass(frozen=True)
class Run:
    """One stored row."""
    key: str
    point: Point
    status: str
    stats: dict | None
    error: str | None
    wall_s: float
    host: str
    version: str
    sweep: str | None
    finished_at: str
    model: str | None = None      # the model fingerprint it ran on (None: schema-1 rows)


def resource_problem(path: Path) -> OSError | None:
    """Why the filesystem of ``path`` cannot take a write (read-only, full, not writable), as an
    OSError naming ``path``; None when it can: an sqlite error there is then the file's own."""
    import errno
    folder = path.parent
    try:
        st = os.statvfs(folder)
    except OSError as e:
        return OSError(e.errno, e.strerror, str(path))
    if st.f_flag & os.ST_RDONLY:
        return OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
    if st.f_bavail == 0 and st.f_blocks > 0:
        return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        return OSError(errno.EACCES, os.strerror(errno.EACCES), str(path))
    return None


class ResultStore:
    """Open (creating if needed) a results file and check its schema version; ``read_only``
    opens an existing store without writing anything (it may be on a read-only filesystem)."""

    def __init__(self, path: str | Path, read_only: bool = False):
        self.path = Path(path)
        if not read_only:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        if _empty_for_a_while(self.path):
            # sqlite would silently make a new empty store of it: it may be a store cut to
            # nothing (a file only just created is another sweep or query setting it up)
            raise ConfigError(str(self.path), "", "empty file (0 bytes), not a results store: "
                              "delete it to start a new store there, or pass another --db")
        try:
            if read_only:
                self.conn = self._connect_read_only()
            else:
                self.conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
                self.conn.execute("PRAGMA journal_mode=WAL")
                self.conn.execute("PRAGMA synchronous=NORMAL")
            self._check_schema(read_only)
            if not read_only:
                self.conn.execute(_CLAIMS)
        except sqlite3.DatabaseError as e:
            if _is_busy(e):
                raise
            problem = None if read_only else resource_problem(self.path)
            if problem is not None:
                raise problem from None
            raise ConfigError(str(self.path), "", f"not a usable SQLite results store ({e}): "
                              "pass another --db, move this file away, or keep its intact rows "
                              f"with: gpusched results recover --db {self.path}") from None

    def _connect_read_only(self) -> sqlite3.Connection:
        """A connection that writes nothing: a plain one where the filesystem takes writes
        (SQLite removes its WAL files when it closes), else ``mode=ro``, and where SQLite cannot
        even create the shared-memory file of a WAL store (a read-only filesystem)
        ``immutable=1``: nothing writes there."""
        from urllib.parse import quote
        if resource_problem(self.path) is None:
            return sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        uri = f"file:{quote(str(self.path.resolve()))}?mode=ro"
        try:
            conn = sqlite3.connect(uri, uri=True, timeout=30.0, isolation_level=None)
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.OperationalError:
            return sqlite3.connect(uri + "&immutable=1", uri=True, timeout=30.0,
                                   isolation_level=None)

    @contextlib.contextmanager
    def _guard(self):
        """sqlite errors of a damaged file → StoreDamaged (a busy store stays an sqlite error)."""
        try:
            yield
        except sqlite3.DatabaseError as e:
            if _is_busy(e):
                raise
            problem = resource_problem(self.path)
            if problem is not None:
                raise problem from None
            raise StoreDamaged(self.path, str(e)) from None
        except (json.JSONDecodeError, KeyError, TypeError) as e:
            raise StoreDamaged(self.path, f"a row does not decode: {type(e).__name__}: {e}") from None

    # ---- schema ---------------------------------------------------------------------------
    def _tables(self) -> set[str]:
        rows = self.conn.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall()
        return {r[0] for r in rows}

    def _check_schema(self, read_only: bool = False) -> None:
        tables = self._tables()
        if not tables and read_only:
            raise ConfigError(str(self.path), "", "not a gpusched results store (no tables): "
                              "pass another --db")
        if not tables:
            with self._transaction():
                for stmt in filter(str.strip, _SCHEMA.split(";")):
                    self.conn.execute(stmt)
                self.conn.execute("INSERT INTO meta VALUES ('schema_version', ?)",
                                  (str(SCHEMA_VERSION),))
            return
        if "meta" not in tables:
            if "runs" in tables:
                raise StoreDamaged(self.path, "no meta table")
            raise ConfigError(str(self.path), "", "not a gpusched results store (no meta table): "
                              "pass another --db or move this file away")
        row = self.conn.execute("SELECT value FROM meta WHERE name='schema_version'").fetchone()
        version = int(row[0]) if row and str(row[0]).isdigit() else None
        if version is None:
            raise StoreDamaged(self.path, "no schema_version in its meta table")
        if version > SCHEMA_VERSION:
            raise ConfigError(str(self.path), f"schema {version}",
                              f"written by a newer gpusched (this one reads schema "
                              f"{SCHEMA_VERSION}): upgrade gpusched or pass another --db")
        if version < SCHEMA_VERSION and read_only:
            raise ConfigError(str(self.path), f"schema {version}", "an older store: a sweep "
                              f"on it migrates it to schema {SCHEMA_VERSION}")
        while version < SCHEMA_VERSION:
            if version not in MIGRATIONS:
                raise ConfigError(str(self.path), f"schema {version}",
                                  f"no migration to schema {SCHEMA_VERSION}: move the file away "
                                  "and re-run the sweep (results are recomputed), "
                                  "or pass another --db")
            with self._transaction():
                for stmt in filter(str.strip, MIGRATIONS[version].split(";")):
                    self.conn.execute(stmt)
                version += 1
                self.conn.execute("UPDATE meta SET value=? WHERE name='schema_version'",
                                  (str(version),))

    def _transaction(self):
        return _Transaction(self.conn)

    # ---- reads and writes -----------------------------------------------------------------
    def statuses(self) -> dict[str, str]:
        """key → status of every stored run."""
        with self._guard():
            return dict(self.conn.execute("SELECT key, status FROM runs").fetchall())

    # ---- claims -----------------------------------------------------------------------------
    def versions(self) -> dict[str, tuple]:
        """key → (status, finished_at, wall_s) of every stored run: a row rewritten by another
        sweep has another version."""
        with self._guard():
            return {k: tuple(v) for k, *v in
                    self.conn.execute("SELECT key, status, finished_at, wall_s FROM runs")}

    def claim(self, key: str, owner: tuple[str, int, str], seen: tuple | None = None) -> str:
        """Claim ``key`` for ``owner`` (see make_owner): "claimed"; "held" when a live other
        owner holds it; "recorded" when its row is no longer the version ``seen`` when the sweep
        was planned (another sweep computed it meanwhile)."""
        with self._guard(), self._transaction():
            row = self.conn.execute("SELECT status, finished_at, wall_s FROM runs WHERE key=?",
                                    (key,)).fetchone()
            if (tuple(row) if row else None) != seen:
                return "recorded"
            row = self.conn.execute("SELECT owner, pid, host, claimed_at FROM claims WHERE key=?",
                                    (key,)).fetchone()
            if row and row[0] != owner[0] and _claim_alive(row[1], row[2], row[3]):
                return "held"
            self.conn.execute("INSERT OR REPLACE INTO claims VALUES (?, ?, ?, ?, ?)",
                              (key, owner[0], owner[1], owner[2], time.time()))
            return "claimed"

    def claimed_elsewhere(self, keys: set[str], owner: tuple[str, int, str]) -> set[str]:
        """The keys among ``keys`` that a live other owner holds."""
        with self._guard():
            rows = self.conn.execute("SELECT key, owner, pid, host, claimed_at FROM claims").fetchall()
        return {k for k, o, pid, host, at in rows
                if k in keys and o != owner[0] and _claim_alive(pid, host, at)}

    def release_all(self, owner: tuple[str, int, str]) -> None:
        """Drop every claim of ``owner`` (a sweep that stops early)."""
        with self._guard(), self._transaction():
            self.conn.execute("DELETE FROM claims WHERE owner=?", (owner[0],))

    def record(self, point: Point, outcome: Outcome, sweep: str | None = None,
               owner: tuple[str, int, str] | None = None) -> None:
        """Write one result atomically (and drop ``owner``'s claim on it); a rerun of the same
        key replaces its row."""
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        stats = json.dumps(outcome.stats, sort_keys=True) if outcome.stats is not None else None
        with self._guard(), self._transaction():
            if owner is not None:
                self.conn.execute("DELETE FROM claims WHERE key=? AND owner=?", (point.key, owner[0]))
            self.conn.execute(
                """INSERT INTO runs (key, kind, preset, workload, seed, inputs, status, stats,
                                     error, wall_s, host, version, sweep, finished_at, model)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                   ON CONFLICT (key) DO UPDATE SET
                     status=excluded.status, stats=excluded.stats, error=excluded.error,
                     wall_s=excluded.wall_s, host=excluded.host, version=excluded.version,
                     sweep=excluded.sweep, finished_at=excluded.finished_at,
                     model=excluded.model""",
                (point.key, point.kind, point.preset, point.workload, point.seed,
                 json.dumps(point.inputs(), sort_keys=True), outcome.status, stats, outcome.error,
                 outcome.wall_s, outcome.host, _version(), sweep, now, point.model))

    def runs(self, keys: list[str] | None = None) -> list[Run]:
        """All rows (or the rows of ``keys``), oldest first."""
        sql = ("SELECT key, inputs, status, stats, error, wall_s, host, version, sweep, "
               "finished_at, model FROM runs")
        with self._guard():
            if keys is None:
                rows = self.conn.execute(sql + " ORDER BY rowid").fetchall()
            else:
                wanted = set(keys)
                rows = [r for r in self.conn.execute(sql + " ORDER BY rowid") if r[0] in wanted]
            return [Run(r[0], Point.from_inputs(json.loads(r[1])), r[2],
                        json.loads(r[3]) if r[3] is not None else None, r[4], r[5], r[6], r[7],
                        r[8], r[9], r[10]) for r in rows]

    def delete(self, keys: list[str]) -> int:
        """Drop the rows of ``keys`` (``gpusched results prune``); the number dropped."""
        with self._guard(), self._transaction():
            return sum(self.conn.execute("DELETE FROM runs WHERE key=?", (k,)).rowcount
                       for k in keys)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "ResultStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class _Transaction:
    """``BEGIN IMMEDIATE`` … ``COMMIT`` (rollback on error): one atomic write."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def __enter__(self):
        self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type, *_):
        self.conn.execute("ROLLBACK" if exc_type else "COMMIT")


def _version() -> str:
    import gpusched
    return gpusched.__version__
