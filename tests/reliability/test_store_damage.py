"""A damaged results store (truncated, overwritten, emptied, schema broken) stops every command
with one line naming the file and the recovery command; ``gpusched results recover`` keeps
every intact row, and the next sweep recomputes exactly the lost ones."""

import json
import os
import sqlite3
import time

import pytest

from .conftest import one_line_error

GRID = """\
[sweep]
name = "toy"
kind = "toy"
preset = "tiny"
workloads = ["alpha", "beta", "gamma", "delta"]
seeds = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
"""
N_POINTS = 40


@pytest.fixture
def swept(cli, tmp_path):
    """(grid, store, its rows by key) after a clean 40-point toy sweep."""
    grid, db = tmp_path / "g.toml", tmp_path / "r.sqlite"
    grid.write_text(GRID)
    r = cli("sweep", grid, "--plugin", "toy_kinds", "--db", db, "--jobs", "1", "-q")
    assert r.returncode == 0, r.stderr
    assert not os.path.exists(f"{db}-wal")     # checkpointed: all rows are in the file
    return grid, db, all_rows(db)


def all_rows(db) -> dict:
    with sqlite3.connect(db) as c:
        return {r[0]: r for r in c.execute("SELECT * FROM runs")}


def varint(buf: bytes, i: int) -> tuple[int, int]:
    value = 0
    for k in range(9):
        b = buf[i + k]
        if k == 8:
            return (value << 8) | b, i + 9
        value = (value << 7) | (b & 0x7F)
        if b < 0x80:
            return value, i + k + 1
    raise AssertionError


def table_leaf_pages(db) -> dict[int, list[int]]:
    """page number → rowids of its cells, for every table-leaf page with 2+ rows (the runs
    table: meta has one row, claims none), read from the SQLite file format."""
    data = db.read_bytes()
    size = int.from_bytes(data[16:18], "big")
    pages = {}
    for n in range(1, len(data) // size):   # page 1 is the schema table
        base = 0
        page = data[n * size:(n + 1) * size]
        if page[base] != 0x0D:
            continue
        cells = int.from_bytes(page[base + 3:base + 5], "big")
        rowids = []
        for c in range(cells):
            ptr = int.from_bytes(page[base + 8 + 2 * c:base + 10 + 2 * c], "big")
            _, i = varint(page, ptr)
            rowids.append(varint(page, i)[0])
        if len(rowids) >= 2:
            pages[n + 1] = rowids
    return pages


def overwrite(db, offset, n):
    with open(db, "r+b") as f:
        f.seek(offset)
        f.write(bytes([0xAB]) * n)


def damage(kind, db):
    size = db.stat().st_size
    if kind == "garbage over a table page":
        page = sorted(table_leaf_pages(db))[1]
        page_size = int.from_bytes(db.read_bytes()[16:18], "big")
        overwrite(db, (page - 1) * page_size + 8, page_size - 8)
    elif kind == "truncated by a page and a byte":
        os.truncate(db, size - 4097)
    elif kind == "garbage header":
        overwrite(db, 0, 100)
    elif kind == "meta table dropped":
        with sqlite3.connect(db) as c:
            c.execute("DROP TABLE meta")
    elif kind == "schema_version deleted":
        with sqlite3.connect(db) as c:
            c.execute("DELETE FROM meta")


@pytest.mark.parametrize("kind", ["garbage over a table page", "truncated by a page and a byte",
                                  "meta table dropped", "schema_version deleted"])
def test_damaged_store_is_one_line_naming_file_and_recovery(cli, swept, kind):
    """Before: garbage or a truncation was a sqlite3.DatabaseError traceback."""
    grid, db, _ = swept
    damage(kind, db)
    for args in (("results", "query", "--db", db, "--format", "csv"),
                 ("sweep", grid, "--plugin", "toy_kinds", "--db", db, "--jobs", "1", "-q",
                  "--no-resume")):
        line = one_line_error(cli(*args))
        assert str(db) in line and f"gpusched results recover --db {db}" in line


def test_garbage_header_is_refused(cli, swept):
    _, db, _ = swept
    damage("garbage header", db)
    line = one_line_error(cli("results", "query", "--db", db))
    assert str(db) in line and "not a usable SQLite results store" in line


def test_an_old_empty_file_is_not_silently_made_a_new_store(cli, tmp_path):
    """Before: a 0-byte results file (a store cut to nothing) was recreated empty, silently."""
    db = tmp_path / "r.sqlite"
    db.write_bytes(b"")
    old = time.time() - 60
    os.utime(db, (old, old))
    line = one_line_error(cli("results", "query", "--db", db))
    assert "empty file (0 bytes)" in line and db.stat().st_size == 0


def test_recover_keeps_every_intact_row_and_resume_recomputes_the_lost(cli, swept):
    grid, db, before = swept
    leaves = table_leaf_pages(db)
    assert sum(map(len, leaves.values())) == N_POINTS
    page = sorted(leaves)[len(leaves) // 2]                 # one leaf in the middle of the table
    lost_rowids = set(leaves[page])
    page_size = int.from_bytes(db.read_bytes()[16:18], "big")
    overwrite(db, (page - 1) * page_size + 8, page_size - 8)  # keep the page header, kill cells
    r = cli("results", "recover", "--db", db)
    assert r.returncode == 0, r.stderr
    after = all_rows(db)
    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    by_rowid = {i + 1: k for i, k in enumerate(before)}  # rows were inserted in rowid order
    lost = {by_rowid[i] for i in lost_rowids}
    assert set(after) == set(before) - lost                   # every intact row, no other
    assert all(after[k] == before[k] for k in after)          # and each one unchanged
    assert f"recovered {N_POINTS - len(lost)} rows" in r.stdout
    assert len(list(db.parent.glob("r.sqlite.damaged-*"))) == 1
    again = cli("sweep", grid, "--plugin", "toy_kinds", "--db", db, "--jobs", "1", "-q")
    assert again.returncode == 0, again.stderr
    assert f"{N_POINTS - len(lost)} already stored, {len(lost)} run" in again.stdout
    final = all_rows(db)
    assert set(final) == set(before)
    for k, row in final.items():   # stats of the recomputed points equal the originals
        assert json.loads(row[7]) == json.loads(before[k][7])


def test_recover_of_a_truncated_store_keeps_rows_unchanged(cli, swept):
    _, db, before = swept
    damage("truncated by a page and a byte", db)
    r = cli("results", "recover", "--db", db)
    assert r.returncode == 0, r.stderr
    after = all_rows(db)
    assert 0 < len(after) < N_POINTS and all(after[k] == before[k] for k in after)
