"""The same points give identical stats alone (in process), on the local pool and on a Dask
LocalCluster; with the GPU model too, once it is importable."""

import importlib.util

import pytest

from gpusched.experiment.executors import DaskExecutor, PoolExecutor, SerialExecutor
from gpusched.experiment.grid import Grid
from gpusched.experiment.point import canonical_json

GRID = Grid(name="det", kind="toy", workloads=["alpha", "beta", "gamma"], seeds=[0, 1],
            overrides={"sm.warp_sched": ["lrr", "gto"]})


def stats_by_key(executor, points) -> dict[str, str]:
    out = {}
    for point, outcome in executor.run(points):
        assert outcome.status == "done", outcome.error
        out[point.key] = canonical_json(outcome.stats)
    return out


@pytest.fixture(scope="module")
def dask_client():
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        yield client


def test_pool_dask_and_alone_give_identical_stats(dask_client):
    points = GRID.check()
    alone = stats_by_key(SerialExecutor(("toy_kinds",)), points)
    pool = stats_by_key(PoolExecutor(2, ("toy_kinds",)), points)
    dask = stats_by_key(DaskExecutor(client=dask_client, plugins=("toy_kinds",)), points)
    assert len(alone) == len(points) == 12
    assert pool == alone
    assert dask == alone
    assert len(set(alone.values())) == 12  # the points really differ


def _model_available() -> bool:
    modules = ("sim", "sim.run", "sim.workload.catalogue")
    return all(importlib.util.find_spec(m) is not None for m in modules)


@pytest.mark.skipif(not _model_available(), reason="the GPU model (sim.run) has not landed yet")
def test_model_points_identical_alone_on_the_pool_and_on_dask(dask_client):
    points = Grid(name="det_model", preset=["tiny"], workloads=["mem_stream", "cache_gto"],
                  overrides={"sm.warp_sched": ["lrr", "gto"]},
                  params={"memory": ["hierarchy"], "scale": [0.05]}).check()
    alone = stats_by_key(SerialExecutor(), points)
    pool = stats_by_key(PoolExecutor(2), points)
    dask = stats_by_key(DaskExecutor(client=dask_client), points)
    assert pool == alone and dask == alone and len(alone) == 4
