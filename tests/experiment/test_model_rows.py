"""Rows keyed by the model they ran on: each row records its model fingerprint; ``results query``
shows the current model's rows unless ``--all-models``; ``results prune`` drops the others; a
store of schema 1 is migrated and its rows, made by the older key formula, count as other
models' rows."""

import csv
import io
import sqlite3

import pytest

import gpusched
from gpusched.experiment.executors import SerialExecutor
from gpusched.experiment.grid import Grid
from gpusched.experiment.point import Point
from gpusched.experiment.query import current_keys
from gpusched.experiment.runners import Outcome
from gpusched.experiment.store import SCHEMA_VERSION, ResultStore
from gpusched.experiment.sweep import run_sweep

GRID = Grid(name="m", kind="toy", workloads=["alpha", "beta"], seeds=[0],
            overrides={"sm.warp_sched": ["lrr", "gto"]})


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "r.sqlite"
    with ResultStore(path) as store:
        run_sweep("m", GRID.check(), store, SerialExecutor(("toy_kinds",)), show_progress=False)
    return path


def rows(cli, *args):
    r = cli("results", "query", *args, "--format", "csv")
    assert r.returncode == 0, r.stderr
    return list(csv.DictReader(io.StringIO(r.stdout))), r.stderr


def test_every_row_records_the_model_fingerprint_of_its_point(db):
    with ResultStore(db) as store:
        runs = store.runs()
    assert len(runs) == 4
    assert all(r.model == r.point.model and len(r.model) == 16 for r in runs)


def test_query_shows_the_current_models_rows_and_all_models_shows_every_row(cli, db,
                                                                            monkeypatch):
    now, note = rows(cli, "--db", db)
    assert len(now) == 4 and note == ""
    old = gpusched.__version__
    monkeypatch.setattr(gpusched, "__version__", "9.9.9")     # another release: other keys
    with ResultStore(db) as store:
        run_sweep("m", GRID.check(), store, SerialExecutor(("toy_kinds",)), show_progress=False)
    now, note = rows(cli, "--db", db)
    assert len(now) == 4 and {r["version"] for r in now} == {"9.9.9"}
    assert "4 rows of other models left out (--all-models" in note
    every, _ = rows(cli, "--db", db, "--all-models")
    assert sorted((r["version"], r["current"]) for r in every) == \
        [(old, "false")] * 4 + [("9.9.9", "true")] * 4
    assert len({r["model"] for r in every}) == 1, "same code: the version alone differs"


def test_prune_drops_the_other_models_rows_only(cli, db, monkeypatch):
    monkeypatch.setattr(gpusched, "__version__", "9.9.9")
    with ResultStore(db) as store:
        run_sweep("m", GRID.check(), store, SerialExecutor(("toy_kinds",)), show_progress=False)
    dry = cli("results", "prune", "--db", db, "--dry-run")
    assert dry.stdout.startswith("would drop 4 rows of other models; 4 rows")
    assert len(rows(cli, "--db", db, "--all-models")[0]) == 8
    assert cli("results", "prune", "--db", db).stdout.startswith("dropped 4 rows")
    left, note = rows(cli, "--db", db, "--all-models")
    assert len(left) == 4 and {r["current"] for r in left} == {"true"} and note == ""


def test_rows_of_a_kind_nothing_registers_are_kept_and_named(cli, db):
    with ResultStore(db) as store:
        store.conn.execute("UPDATE runs SET kind='gone', inputs=replace(inputs, "
                           "'\"kind\": \"toy\"', '\"kind\": \"gone\"') WHERE rowid=1")
    shown, note = rows(cli, "--db", db)
    assert len(shown) == 3 and "runner kinds no module registers here (gone)" in note
    out = cli("results", "prune", "--db", db).stdout
    assert "dropped 0 rows" in out and "1 rows of unknown kinds (gone) kept" in out


def test_one_warp_scheduler_column_holds_the_policy_in_force(tmp_path, cli):
    """The stat ``warp_sched`` (in force even when not overridden) is the column sm.warp_sched."""
    path = tmp_path / "w.sqlite"
    point = Point(preset="tiny", workload="alpha", kind="toy")
    with ResultStore(path) as store:
        store.record(point, Outcome(point.key, "done", {"cycles": 1, "warp_sched": "gto"}, None,
                                    0.1, "h"))
    (row,), _ = rows(cli, "--db", path)
    assert row["sm.warp_sched"] == "gto" and "warp_sched" not in row


def test_a_schema_1_store_is_migrated_and_its_rows_are_other_models(tmp_path, cli):
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE runs (key TEXT PRIMARY KEY, kind TEXT NOT NULL, preset TEXT NOT NULL,
            workload TEXT NOT NULL, seed INTEGER NOT NULL, inputs TEXT NOT NULL,
            status TEXT NOT NULL, stats TEXT, error TEXT, wall_s REAL NOT NULL,
            host TEXT NOT NULL, version TEXT NOT NULL, sweep TEXT, finished_at TEXT NOT NULL);
        INSERT INTO meta VALUES ('schema_version', '1');
        INSERT INTO runs VALUES ('k1', 'toy', 'tiny', 'alpha', 0,
            '{"kind": "toy", "preset": "tiny", "workload": "alpha", "seed": 0,
              "overrides": {}, "params": {}}', 'done', '{"cycles": 5}', NULL, 0.1, 'h', '0.1.0',
            's', '2024-01-01T00:00:00+00:00');
    """)
    conn.commit()
    conn.close()
    with ResultStore(path) as store:
        (run,) = store.runs()
        assert run.model is None and run.stats == {"cycles": 5}
        assert current_keys([run]) == (set(), set())
    version = sqlite3.connect(path).execute(
        "SELECT value FROM meta WHERE name='schema_version'").fetchone()[0]
    assert int(version) == SCHEMA_VERSION == 2
    shown, note = rows(cli, "--db", path)
    assert shown == [] and "1 rows of other models left out" in note
