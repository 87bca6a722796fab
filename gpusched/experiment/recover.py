"""``gpusched results recover``: rebuild a damaged results store from the rows that still read
back whole. The damaged file is kept beside it (``NAME.damaged-<UTC time>``), never deleted.

Rows are read from a copy of the file (with its WAL), padded back to the page count its header
records when it was truncated (SQLite refuses a short file outright). They are read in rowid
order; a read that fails (a damaged page) is retried past it with a step that doubles while
reads keep failing, then each rowid skipped is looked up on its own, so a damaged region costs
only its own rows. A row is kept when its columns are present and its JSON (inputs, stats)
decodes.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from gpusched.config import ConfigError

from .store import RUN_COLUMNS, ResultStore

_SIDE_FILES = ("-wal", "-shm")


@dataclass(frozen=True)
class Recovery:
    recovered: int       # rows copied into the new store
    dropped: int         # rows read back but not whole (bad JSON, missing columns)
    failed_reads: int    # reads that failed on a damaged page (each may hide several rows)
    path: Path           # the rebuilt store
    damaged: Path        # where the damaged file was moved


def _whole(row: tuple) -> bool:
    """Every column present and decodable. A row cut by a truncation reads back with zero
    bytes from the padding; finished_at, its last column, then holds a NUL."""
    rec = dict(zip(RUN_COLUMNS, row))
    if any(isinstance(v, str) and "\0" in v for v in row):
        return False
    try:
        inputs = json.loads(rec["inputs"])
        if rec["stats"] is not None:
            json.loads(rec["stats"])
        datetime.fromisoformat(rec["finished_at"])
    except (TypeError, ValueError):
        return False
    return (isinstance(inputs, dict) and {"preset", "workload", "seed"} <= set(inputs)
            and rec["status"] in ("done", "failed") and isinstance(rec["key"], str)
            and all(rec[c] is not None for c in ("kind", "preset", "workload", "seed", "wall_s",
                                                 "host", "version", "finished_at")))


def _readable_copy(src: Path, copy: Path) -> None:
    """``src`` (and its WAL) copied to ``copy``, zero-padded to the header's page count."""
    shutil.copyfile(src, copy)
    if Path(f"{src}-wal").exists():
        shutil.copyfile(f"{src}-wal", f"{copy}-wal")
    head = copy.read_bytes()[:100]
    if len(head) < 100 or not head.startswith(b"SQLite format 3\0"):
        return
    page_size = int.from_bytes(head[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(head[28:32], "big")
    if 512 <= page_size <= 65536 and copy.stat().st_size < pages * page_size <= 1 << 40:
        os.truncate(copy, pages * page_size)


def read_intact_rows(path: Path) -> tuple[list[tuple], int, int]:
    """(whole rows, rows dropped, failed reads) of ``path``'s runs table."""
    copy = path.with_name(f"{path.name}.recover-copy")
    try:
        _readable_copy(path, copy)
        return _read_rows(copy)
    finally:
        for p in (copy, *(Path(f"{copy}{s}") for s in _SIDE_FILES)):
            p.unlink(missing_ok=True)


def _read_rows(path: Path) -> tuple[list[tuple], int, int]:
    conn = sqlite3.connect(path, timeout=30.0)
    present = _columns(conn)            # an older schema lacks the later columns (model)
    cols = ", ".join(present)
    found: dict[int, tuple] = {}
    dropped, failed, skipped = 0, 0, []

    def take(r: tuple) -> None:
        nonlocal dropped
        row = dict(zip(present, r[1:]))
        whole = tuple(row.get(c) for c in RUN_COLUMNS)
        if _whole(whole):
            found[r[0]] = whole
        else:
            dropped += 1
    try:
        try:
            top = conn.execute("SELECT max(rowid) FROM runs").fetchone()[0] or 0
        except sqlite3.DatabaseError:
            top = max(1, path.stat().st_size // 64)   # no row is smaller than this
        last, step = 0, 1
        while last < top:       # scan, hopping over damaged pages with a doubling step
            try:
                for r in conn.execute(f"SELECT rowid, {cols} FROM runs WHERE rowid > ? "
                                      "ORDER BY rowid", (last,)):
                    last, step = r[0], 1
                    take(r)
                break
            except sqlite3.DatabaseError:
                failed += 1
                skipped.append((last + 1, last + step))
                last, step = last + step, step * 2
        for lo, hi in skipped:  # then look up each hopped-over rowid on its own
            for rowid in range(lo, min(hi, top) + 1):
                if rowid in found:
                    continue
                try:
                    r = conn.execute(f"SELECT rowid, {cols} FROM runs WHERE rowid = ?",
                                     (rowid,)).fetchone()
                except sqlite3.DatabaseError:
                    continue
                if r is not None:
                    take(r)
    finally:
        conn.close()
    return [found[k] for k in sorted(found)], dropped, failed


def _columns(conn: sqlite3.Connection) -> list[str]:
    """The columns of RUN_COLUMNS the file's runs table has (all of them if unreadable)."""
    try:
        have = {r[1] for r in conn.execute("PRAGMA table_info(runs)")}
    except sqlite3.DatabaseError:
        return list(RUN_COLUMNS)
    return [c for c in RUN_COLUMNS if c in have] if have else list(RUN_COLUMNS)


def recover(path: str | Path) -> Recovery:
    """Copy the whole rows of ``path`` into a fresh store that takes its place."""
    src = Path(path)
    if not src.is_file():
        raise ConfigError("--db", str(src), "no such file")
    rows, dropped, failed = read_intact_rows(src)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    damaged = src.with_name(f"{src.name}.damaged-{stamp}")
    fresh = src.with_name(f"{src.name}.recovering")
    for p in (fresh, *(Path(f"{fresh}{s}") for s in _SIDE_FILES)):
        p.unlink(missing_ok=True)
    store = ResultStore(fresh)
    try:
        with store._transaction():
            store.conn.executemany(f"INSERT OR IGNORE INTO runs ({', '.join(RUN_COLUMNS)}) "
                                   f"VALUES ({', '.join('?' * len(RUN_COLUMNS))})", rows)
        recovered = store.conn.execute("SELECT count(*) FROM runs").fetchone()[0]
    finally:
        store.close()
    os.replace(src, damaged)
    for s in _SIDE_FILES:        # the damaged file's WAL belongs to it, not to the new store
        if Path(f"{src}{s}").exists():
            os.replace(f"{src}{s}", f"{damaged}{s}")
    os.replace(fresh, src)
    return Recovery(recovered, dropped, failed, src, damaged)
