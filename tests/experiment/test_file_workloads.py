"""Accel-Sim traces and ``file.py:function`` workloads as sweep grid axes: each point runs what
``gpusched run`` runs on the same input, and editing the file changes the point's key (a stored
result of the old content is not reused)."""

import json

from gpusched.experiment.point import Point
from gpusched.experiment.store import ResultStore
from sim.workload.catalogue import get_workload
from sim.workload.tracegen import write_trace_dir

FACTORY = '''\
from sim.workload.catalogue import get_workload

def small(seed=0, scale=1.0):
    return get_workload("compute_only", seed=seed, scale=0.05 * scale)
'''


def test_trace_and_python_workloads_sweep_like_run(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("GPUSCHED_TRACE_CACHE", str(tmp_path / "cache"))
    trace = write_trace_dir(tmp_path / "trace", get_workload("cache_gto", seed=3, scale=0.05))
    py = tmp_path / "mine.py"
    py.write_text(FACTORY)
    grid = tmp_path / "g.toml"
    grid.write_text(f'[sweep]\nname = "files"\npreset = "tiny"\nseeds = [0]\n'
                    f'workloads = ["{trace}", "trace:{trace}", "{py}:small"]\n')
    db = tmp_path / "r.sqlite"
    r = cli("sweep", grid, "--db", db, "--jobs", "1", "-q")
    assert r.returncode == 0, r.stderr
    with ResultStore(db) as store:
        stats = {run.point.workload: run.stats for run in store.runs()}
    assert len(stats) == 3
    for name, args in ((str(trace), ["--trace", trace]), (f"{py}:small", ["--workload", f"{py}:small"])):
        alone = cli("run", "--preset", "tiny", "--json", *args)
        assert alone.returncode == 0, alone.stderr
        assert stats[name]["cycles"] == json.loads(alone.stdout)["cycles"] > 0
    assert stats[f"trace:{trace}"]["cycles"] == stats[str(trace)]["cycles"]

    point = Point(preset="tiny", workload=f"{py}:small")
    before = point.key
    py.write_text(FACTORY.replace("0.05", "0.06"))
    assert point.key != before
    trace_point = Point(preset="tiny", workload=str(trace))
    before = trace_point.key
    (trace / "kernelslist.g").write_text((trace / "kernelslist.g").read_text() + "\n")
    assert trace_point.key != before


def test_a_missing_trace_or_file_in_a_grid_is_one_line_before_the_sweep(cli, tmp_path):
    grid = tmp_path / "g.toml"
    grid.write_text('[sweep]\nname = "bad"\npreset = "tiny"\n'
                    f'workloads = ["trace:{tmp_path}/none", "{tmp_path}/none.py:f"]\n')
    r = cli("sweep", grid, "--db", tmp_path / "r.sqlite", "-q")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "none" in r.stderr
