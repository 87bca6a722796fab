"""The results store: one SQLite file (WAL mode), one row per run point, keyed by its hash.

Only the sweep's parent process writes, one transaction per point result, so a sweep killed at
any moment leaves complete rows only, and ``key`` being the primary key means a resumed sweep
can never duplicate a point (a retried point replaces its failed row).
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from gpusched.config import ConfigError

from .point import Point
from .runners import Outcome

SCHEMA_VERSION = 1
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
    sweep       TEXT,                       -- name of the sweep that last wrote the row
    finished_at TEXT NOT NULL               -- ISO-8601 UTC
);
CREATE INDEX runs_status ON runs (status);
"""

# from_version -> SQL that brings a store to from_version + 1 (none yet: schema 1 is the first).
MIGRATIONS: dict[int, str] = {}


def default_db() -> str:
    """``$GPUSCHED_DB`` or ``results/gpusched.sqlite`` (relative to the working directory)."""
    return os.environ.get("GPUSCHED_DB", DEFAULT_DB)


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


class ResultStore:
    """Open (creating if needed) a results file and check its schema version."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self._check_schema()
        except sqlite3.DatabaseError as e:
            raise ConfigError(str(self.path), "", f"not a usable SQLite results store ({e}): "
                              "pass another --db or move this file away") from None

    # ---- schema ---------------------------------------------------------------------------
    def _tables(self) -> set[str]:
        rows = self.conn.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall()
        return {r[0] for r in rows}

    def _check_schema(self) -> None:
        tables = self._tables()
        if not tables:
            with self._transaction():
                for stmt in filter(str.strip, _SCHEMA.split(";")):
                    self.conn.execute(stmt)
                self.conn.execute("INSERT INTO meta VALUES ('schema_version', ?)",
                                  (str(SCHEMA_VERSION),))
            return
        if "meta" not in tables:
            raise ConfigError(str(self.path), "", "not a gpusched results store (no meta table): "
                              "pass another --db or move this file away")
        row = self.conn.execute("SELECT value FROM meta WHERE name='schema_version'").fetchone()
        version = int(row[0]) if row and row[0].isdigit() else None
        if version is None:
            raise ConfigError(str(self.path), "", "results store without a schema_version: "
                              "pass another --db or move this file away")
        if version > SCHEMA_VERSION:
            raise ConfigError(str(self.path), f"schema {version}",
                              f"written by a newer gpusched (this one reads schema "
                              f"{SCHEMA_VERSION}): upgrade gpusched or pass another --db")
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
        return dict(self.conn.execute("SELECT key, status FROM runs").fetchall())

    def record(self, point: Point, outcome: Outcome, sweep: str | None = None) -> None:
        """Write one result atomically; a rerun of the same key replaces its row."""
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        stats = json.dumps(outcome.stats, sort_keys=True) if outcome.stats is not None else None
        with self._transaction():
            self.conn.execute(
                """INSERT INTO runs (key, kind, preset, workload, seed, inputs, status, stats,
                                     error, wall_s, host, version, sweep, finished_at)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                   ON CONFLICT (key) DO UPDATE SET
                     status=excluded.status, stats=excluded.stats, error=excluded.error,
                     wall_s=excluded.wall_s, host=excluded.host, version=excluded.version,
                     sweep=excluded.sweep, finished_at=excluded.finished_at""",
                (point.key, point.kind, point.preset, point.workload, point.seed,
                 json.dumps(point.inputs(), sort_keys=True), outcome.status, stats, outcome.error,
                 outcome.wall_s, outcome.host, _version(), sweep, now))

    def runs(self, keys: list[str] | None = None) -> list[Run]:
        """All rows (or the rows of ``keys``), oldest first."""
        sql = ("SELECT key, inputs, status, stats, error, wall_s, host, version, sweep, "
               "finished_at FROM runs")
        if keys is None:
            rows = self.conn.execute(sql + " ORDER BY rowid").fetchall()
        else:
            wanted = set(keys)
            rows = [r for r in self.conn.execute(sql + " ORDER BY rowid") if r[0] in wanted]
        return [Run(r[0], Point.from_inputs(json.loads(r[1])), r[2],
                    json.loads(r[3]) if r[3] is not None else None, r[4], r[5], r[6], r[7], r[8],
                    r[9]) for r in rows]

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
