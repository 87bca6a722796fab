"""``gpusched results query``: flat columns, filters, CSV and JSON that round-trip the store."""

import csv
import io
import json

import pytest

from gpusched.experiment.executors import SerialExecutor
from gpusched.experiment.grid import Grid
from gpusched.experiment.store import ResultStore
from gpusched.experiment.sweep import run_sweep



@pytest.fixture
def db(tmp_path):
    path = tmp_path / "r.sqlite"
    grid = Grid(name="q", kind="toy", workloads=["alpha", "boom"], seeds=[0, 1],
                overrides={"sm.warp_sched": ["lrr", "gto"]})
    with ResultStore(path) as store:
        run_sweep("q", grid.check(), store, SerialExecutor(("toy_kinds",)), show_progress=False)
    return path


def stored(db):
    with ResultStore(db) as s:
        return {r.key: r for r in s.runs()}


def test_csv_has_one_flat_column_per_input_and_stat(cli, db, tmp_path):
    out = tmp_path / "out" / "runs.csv"
    r = cli("results", "query", "--db", db, "--format", "csv", "--output", out,
                 "--where", "status=done")
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    runs = stored(db)
    assert len(rows) == 4 and {row["workload"] for row in rows} == {"alpha"}
    for row in rows:
        run = runs[row["key"]]
        assert row["sm.warp_sched"] == run.point.overrides["sm.warp_sched"]
        assert int(row["cycles"]) == run.stats["cycles"]
        assert float(row["ipc"]) == run.stats["ipc"]                 # full precision
        assert float(row["l1.hit_rate"]) == run.stats["l1"]["hit_rate"]
        assert json.loads(row["samples"]) == run.stats["samples"]


def test_json_filters_by_any_column(cli, db):
    r = cli("results", "query", "--db", db, "--format", "json",
                 "--where", "sm.warp_sched=gto", "--where", "seed=1")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert {(row["workload"], row["status"]) for row in rows} == {("alpha", "done"),
                                                                  ("boom", "failed")}
    failed = next(row for row in rows if row["status"] == "failed")
    assert "toy workload boom exploded" in failed["error"] and failed.get("cycles") is None
    done = next(row for row in rows if row["status"] == "done")
    assert done["cycles"] == stored(db)[done["key"]].stats["cycles"]


def test_table_and_column_selection(cli, db):
    r = cli("results", "query", "--db", db, "--columns", "workload,sm.warp_sched,status",
                 "--where", "workload=boom")
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("failed") == 4 and "cycles" not in r.stdout


def test_where_compares_numbers(cli, db):
    """``cycles>=N`` keeps exactly the done runs at or above N (a failed run has no cycles and is
    outside every numeric range); ``!=`` is the complement of ``=``."""
    runs = [r for r in stored(db).values() if r.status == "done"]
    cycles = sorted(r.stats["cycles"] for r in runs)
    middle = cycles[len(cycles) // 2]

    def keys(*where):
        args = [a for w in where for a in ("--where", w)]
        r = cli("results", "query", "--db", db, "--format", "json", "--columns", "key", *args)
        assert r.returncode == 0, r.stderr
        return {row["key"] for row in json.loads(r.stdout)}

    assert keys(f"cycles>={middle}") == {r.key for r in runs if r.stats["cycles"] >= middle}
    assert keys(f"cycles<{middle}") == {r.key for r in runs if r.stats["cycles"] < middle}
    assert keys(f"cycles>{cycles[-1]}") == set()
    assert keys("seed!=0") == {k for k, r in stored(db).items() if r.point.seed != 0}
    assert keys("seed!=0", f"cycles<={cycles[-1]}") == {r.key for r in runs if r.point.seed != 0}


@pytest.mark.parametrize("args, fragment", [
    (("--where", "cycles>=many"), "is not a number"),
    (("--where", "cycles"), "numeric comparison"),
    (("--where", "nosuch=1"), "--where = 'nosuch'"),
    (("--format", "xml"), "--format = 'xml'"),
    (("--columns", "ipc,nosuch"), "--columns = 'nosuch'"),
])
def test_bad_query_input_is_one_line(cli, db, args, fragment):
    r = cli("results", "query", "--db", db, *args)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert fragment in r.stderr
