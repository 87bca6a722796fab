"""A sweep killed with SIGKILL (parent and workers) at several moments, then resumed, ends
with exactly one complete row per point: none lost, none duplicated, none half-written."""

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time

import toy_kinds
from gpusched.experiment.grid import load_grid
from gpusched.experiment.point import Point, canonical_json

from .conftest import cli_env, gpusched

N_POINTS = 40   # 4 workloads × 2 policies × 5 seeds


def stored_rows(db) -> int:
    try:
        with sqlite3.connect(db, timeout=5) as c:
            return c.execute("SELECT count(*) FROM runs").fetchone()[0]
    except sqlite3.OperationalError:  # not created yet
        return 0


def sweep_killed(grid, db, after_rows: int, jitter_s: float) -> int:
    """Start a sweep, SIGKILL its whole process group ``jitter_s`` after ``after_rows`` rows are
    stored (the jitter moves the kill across the ~25 ms write cadence: between writes, during
    one); return the rows stored after the kill."""
    proc = subprocess.Popen([sys.executable, "-c", "from gpusched.cli import main; main()",
                             "sweep", str(grid), "--plugin", "toy_kinds", "--db", str(db),
                             "--jobs", "2", "-q"], env=cli_env(), start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    start = time.monotonic()
    try:
        while proc.poll() is None and time.monotonic() - start < 30:
            if stored_rows(db) >= after_rows:
                time.sleep(jitter_s)
                break
            time.sleep(0.005)
        assert proc.poll() is None, "the sweep finished before it could be killed"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)   # our own child's process group only
        proc.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:         # the pool workers die with the group
        try:
            os.killpg(proc.pid, 0)
            time.sleep(0.05)
        except ProcessLookupError:
            break
    return stored_rows(db)


def test_sigkill_mid_sweep_then_resume_gives_exactly_one_row_per_point(tmp_path, toy_grid):
    grid = toy_grid(workloads=("alpha", "beta", "gamma", "delta"), seeds=(0, 1, 2, 3, 4),
                    delay=0.05)
    points = load_grid(grid).points()
    assert len(points) == N_POINTS
    db = tmp_path / "r.sqlite"

    counts = [sweep_killed(grid, db, n, jitter) for n, jitter in ((6, 0.0), (16, 0.013),
                                                                   (26, 0.031))]
    print("rows stored when killed:", counts)
    assert counts[0] >= 6 and counts == sorted(counts) and counts[-1] < N_POINTS

    r = gpusched("sweep", grid, "--plugin", "toy_kinds", "--db", db, "--jobs", "2", "-q")
    assert r.returncode == 0, r.stderr
    stored, ran = map(int, re.search(r"(\d+) already stored, (\d+) run", r.stdout).groups())
    assert (stored, ran) == (counts[-1], N_POINTS - counts[-1])

    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows = c.execute("SELECT key, status, stats, inputs FROM runs").fetchall()
    assert len(rows) == N_POINTS
    assert {k for k, *_ in rows} == {p.key for p in points}
    for key, status, stats, inputs in rows:
        assert status == "done"
        point = Point.from_inputs(json.loads(inputs))
        assert point.key == key
        # toy stats do not depend on params.delay: recompute without sleeping
        quick = Point(point.preset, point.workload, point.seed, point.overrides, {}, point.kind)
        expected = json.loads(json.dumps(toy_kinds.run_toy(quick), default=lambda a: a.tolist()))
        assert canonical_json(json.loads(stats)) == canonical_json(expected)
