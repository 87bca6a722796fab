"""Sweeps: resume skips stored points, failures are recorded without stopping the sweep and are
rerun only with retry_failed; the CLI reports them and exits 1."""

from gpusched.experiment.executors import SerialExecutor
from gpusched.experiment.grid import Grid, load_grid
from gpusched.experiment.store import ResultStore
from gpusched.experiment.sweep import run_sweep


class Counting(SerialExecutor):
    """In-process executor that remembers which points it was asked to run."""

    def __init__(self):
        super().__init__(("toy_kinds",))
        self.seen = []

    def run(self, points):
        points = list(points)   # a sweep passes a lazy iterable (it claims points as pulled)
        self.seen += [p.key for p in points]
        yield from super().run(points)


def grid(workloads, seeds=(0, 1)):
    return Grid(name="t", kind="toy", workloads=list(workloads), seeds=list(seeds),
                overrides={"sm.warp_sched": ["lrr", "gto"]})


def test_resume_runs_only_missing_points(tmp_path):
    with ResultStore(tmp_path / "r.sqlite") as store:
        first = grid(["alpha"]).check()                     # 4 points
        run_sweep("t", first, store, Counting(), show_progress=False)
        full = grid(["alpha", "beta", "gamma"]).check()     # 12 points, 4 of them stored
        ex = Counting()
        summary = run_sweep("t", full, store, ex, show_progress=False)
        assert (summary.stored, summary.ran) == (4, 8)
        assert set(ex.seen) == {p.key for p in full} - {p.key for p in first}
        again = Counting()
        assert run_sweep("t", full, store, again, show_progress=False).ran == 0
        assert again.seen == []
        rerun = Counting()
        assert run_sweep("t", full, store, rerun, resume=False, show_progress=False).ran == 12
        assert len(store.runs()) == 12


def test_failed_points_are_recorded_then_retried(tmp_path, monkeypatch):
    points = grid(["alpha", "boom", "flaky"]).check()       # 12 points: 4 boom, 4 flaky
    monkeypatch.setenv("TOY_FLAKY_FAILS", "1")
    with ResultStore(tmp_path / "r.sqlite") as store:
        s1 = run_sweep("t", points, store, Counting(), show_progress=False)
        assert (s1.ran, s1.failed, len(s1.failures)) == (12, 8, 8)
        by_workload = {}
        for r in store.runs():
            by_workload.setdefault(r.point.workload, set()).add(r.status)
        assert by_workload == {"alpha": {"done"}, "boom": {"failed"}, "flaky": {"failed"}}
        assert all("RuntimeError: toy workload" in r.error for r in store.runs()
                   if r.status == "failed")

        monkeypatch.delenv("TOY_FLAKY_FAILS")
        s2 = run_sweep("t", points, store, Counting(), show_progress=False)
        assert s2.ran == 0 and len(s2.failures) == 8        # failed points are not rerun …
        ex = Counting()
        s3 = run_sweep("t", points, store, ex, retry_failed=True, show_progress=False)
        assert s3.ran == 8 and s3.failed == 4               # … unless asked; flaky now passes
        assert len(ex.seen) == 8
        runs = store.runs()
        assert len(runs) == 12 and len({r.key for r in runs}) == 12
        assert sum(r.status == "failed" for r in runs) == 4


def test_a_dying_worker_fails_only_points_in_flight_and_the_pool_recovers(tmp_path):
    from gpusched.experiment.executors import PoolExecutor
    points = grid(["alpha", "crash", "beta", "gamma"], seeds=(0, 1, 2)).check()  # 24 points
    with ResultStore(tmp_path / "r.sqlite") as store:
        summary = run_sweep("t", points, store, PoolExecutor(2, ("toy_kinds",)),
                            show_progress=False)
        runs = store.runs()
    assert summary.ran == 24 and len(runs) == 24
    crashed = [r for r in runs if r.point.workload == "crash"]
    assert crashed and all(r.status == "failed" and "worker process died" in r.error
                           for r in crashed)
    innocent = [r for r in runs if r.point.workload != "crash"]
    lost = [r for r in innocent if r.status == "failed"]
    assert all("worker process died" in r.error for r in lost)
    # at most 2 × jobs points are in flight when a worker dies; the rebuilt pool runs the rest
    assert len([r for r in innocent if r.status == "done"]) >= len(innocent) - 4 * len(crashed)
    assert any(r.status == "done" for r in innocent[-6:])


def test_cli_sweep_summary_and_exit_status(cli, tmp_path, toy_grid):
    path = toy_grid(workloads=("alpha", "boom"))
    db = tmp_path / "r.sqlite"
    r = cli("sweep", path, "--plugin", "toy_kinds", "--db", db, "--jobs", "2", "-q")
    assert r.returncode == 1, r.stderr
    assert "8 points, 0 already stored, 8 run (4 failed)" in r.stdout
    assert "failed: toy tiny boom" in r.stderr and "--retry-failed" in r.stdout
    assert len(load_grid(path).points()) == 8
    r = cli("sweep", path, "--plugin", "toy_kinds", "--db", db, "-q", "--jobs", "1")
    assert "8 already stored, 0 run" in r.stdout


def test_plugins_from_the_environment(cli, tmp_path, toy_grid, monkeypatch):
    monkeypatch.setenv("GPUSCHED_PLUGINS", "toy_kinds")
    monkeypatch.setenv("GPUSCHED_DB", str(tmp_path / "env.sqlite"))
    r = cli("sweep", toy_grid(workloads=("alpha",), seeds=(0,)), "--jobs", "1", "-q")
    assert r.returncode == 0, r.stderr
    assert "2 points, 0 already stored, 2 run (0 failed)" in r.stdout
    with ResultStore(tmp_path / "env.sqlite") as store:
        assert [r.status for r in store.runs()] == ["done", "done"]
