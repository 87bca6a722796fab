"""Results store: schema versioning (create, migrate, refuse with what to do), one row per key."""

import sqlite3

import pytest

from gpusched.config import ConfigError
from gpusched.experiment import store as store_mod
from gpusched.experiment.point import Point
from gpusched.experiment.runners import Outcome
from gpusched.experiment.store import SCHEMA_VERSION, ResultStore

P = Point(preset="tiny", workload="alpha", kind="toy")


def outcome(status="done", stats=None, error=None):
    return Outcome(P.key, status, stats, error, 0.01, "host")


def schema_version(path):
    with sqlite3.connect(path) as c:
        return int(c.execute("SELECT value FROM meta WHERE name='schema_version'").fetchone()[0])


def test_new_store_has_meta_version_and_wal(tmp_path):
    path = tmp_path / "r.sqlite"
    with ResultStore(path) as s:
        assert s.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert schema_version(path) == SCHEMA_VERSION


def test_retry_replaces_the_failed_row(tmp_path):
    with ResultStore(tmp_path / "r.sqlite") as s:
        s.record(P, outcome("failed", error="boom"))
        s.record(P, outcome("done", stats={"cycles": 7}))
        runs = s.runs()
    assert len(runs) == 1
    assert runs[0].status == "done" and runs[0].stats == {"cycles": 7} and runs[0].error is None
    assert runs[0].point == P


def test_newer_schema_is_refused_with_what_to_do(tmp_path):
    path = tmp_path / "r.sqlite"
    ResultStore(path).close()
    with sqlite3.connect(path) as c:
        c.execute("UPDATE meta SET value=? WHERE name='schema_version'", (str(SCHEMA_VERSION + 1),))
    with pytest.raises(ConfigError, match="newer gpusched.*upgrade gpusched or pass another --db"):
        ResultStore(path)


def test_older_schema_is_migrated_when_a_migration_exists(tmp_path, monkeypatch):
    path = tmp_path / "r.sqlite"
    with ResultStore(path) as s:
        s.record(P, outcome(stats={"cycles": 1}))
    monkeypatch.setattr(store_mod, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    monkeypatch.setattr(store_mod, "MIGRATIONS",
                        {SCHEMA_VERSION: "ALTER TABLE runs ADD COLUMN note TEXT"})
    with ResultStore(path) as s:
        assert [r.stats for r in s.runs()] == [{"cycles": 1}]
        assert "note" in [row[1] for row in s.conn.execute("PRAGMA table_info(runs)")]
    assert schema_version(path) == SCHEMA_VERSION + 1


def test_older_schema_without_migration_says_what_to_do(tmp_path, monkeypatch):
    path = tmp_path / "r.sqlite"
    ResultStore(path).close()
    monkeypatch.setattr(store_mod, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with pytest.raises(ConfigError, match="no migration.*move the file away"):
        ResultStore(path)


def test_foreign_sqlite_and_garbage_files_are_refused(tmp_path):
    foreign = tmp_path / "other.sqlite"
    with sqlite3.connect(foreign) as c:
        c.execute("CREATE TABLE t (x)")
    with pytest.raises(ConfigError, match="not a gpusched results store"):
        ResultStore(foreign)
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"this is not a database, just text " * 100)
    with pytest.raises(ConfigError, match="not a usable SQLite results store"):
        ResultStore(garbage)


def test_default_store_is_found_from_any_directory_of_a_project(tmp_path, monkeypatch):
    """The store lives in the project's results/ whichever sub-directory a command runs from;
    $GPUSCHED_RESULTS and $GPUSCHED_DB override it."""
    from gpusched.experiment.store import default_db
    monkeypatch.delenv("GPUSCHED_DB", raising=False)
    monkeypatch.delenv("GPUSCHED_RESULTS", raising=False)
    project = tmp_path / "proj"
    deep = project / "a" / "b"
    deep.mkdir(parents=True)
    (project / "pyproject.toml").write_text("")
    assert default_db(deep) == str(project.resolve() / "results" / "gpusched.sqlite")
    (deep / "results").mkdir()
    (deep / "results" / "gpusched.sqlite").write_text("")  # an existing store nearer wins
    assert default_db(deep) == str(deep.resolve() / "results" / "gpusched.sqlite")
    assert default_db(project / "a") == str(project.resolve() / "results" / "gpusched.sqlite")
    monkeypatch.setenv("GPUSCHED_RESULTS", str(tmp_path / "elsewhere"))
    assert default_db(deep) == str(tmp_path / "elsewhere" / "gpusched.sqlite")
    monkeypatch.setenv("GPUSCHED_DB", str(tmp_path / "x.sqlite"))
    assert default_db(deep) == str(tmp_path / "x.sqlite")
