"""CUDA programs as workloads of a sweep grid: a point runs what ``gpusched run --program``
runs, and editing the program's files changes the point's key."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from gpusched.experiment.point import Point
from gpusched.experiment.store import ResultStore

EXAMPLE = Path(__file__).parents[2] / "docs" / "example"
GPUSCHED = str(Path(sys.executable).with_name("gpusched"))


def _cli(*args, env):
    return subprocess.run([GPUSCHED, *map(str, args)], capture_output=True, text=True, env=env)


def test_program_workload_in_a_sweep_equals_run(tmp_path):
    prog = tmp_path / "prog"
    shutil.copytree(EXAMPLE, prog)
    host = prog / "vecadd.py"
    env = {"GPUSCHED_TRACE_CACHE": str(tmp_path / "cache"), "PATH": ""}
    grid = tmp_path / "g.toml"
    grid.write_text(f'[sweep]\nname = "prog"\npreset = "tiny"\nseeds = [0]\n'
                    f'workloads = ["program:{host}"]\n[sweep.params]\nscale = [0.01]\n')
    db = tmp_path / "r.sqlite"
    r = _cli("sweep", grid, "--db", db, "--jobs", "1", "-q", env=env)
    assert r.returncode == 0, r.stderr
    with ResultStore(db) as store:
        (run,) = list(store.runs())
    alone = _cli("run", "--preset", "tiny", "--program", host, "--scale", "0.01", "--json", env=env)
    assert alone.returncode == 0, alone.stderr
    assert run.stats["cycles"] == json.loads(alone.stdout)["cycles"] > 0
    point = Point(preset="tiny", workload=f"program:{host}")
    before = point.key
    host.write_text(host.read_text() + "\n# edited\n")
    assert Point(preset="tiny", workload=f"program:{host}").key != before
