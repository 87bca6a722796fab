"""The pandas example of docs/experiments.md runs on the CSV ``results query`` writes and gives
the per-workload, per-policy means of the stored runs (pandas is in the test and docs extras)."""

import os
import re
from pathlib import Path

import pytest

from gpusched.experiment.executors import SerialExecutor
from gpusched.experiment.grid import Grid
from gpusched.experiment.store import ResultStore
from gpusched.experiment.sweep import run_sweep

DOC = Path(__file__).parents[2] / "docs" / "experiments.md"


def test_the_docs_pandas_example_averages_the_stored_runs(tmp_path, cli):
    pytest.importorskip("pandas")
    db = tmp_path / "r.sqlite"
    grid = Grid(name="pd", kind="toy", workloads=["alpha", "beta"], seeds=[0, 1, 2],
                overrides={"sm.warp_sched": ["lrr", "gto"]})
    with ResultStore(db) as store:
        run_sweep("pd", grid.check(), store, SerialExecutor(("toy_kinds",)), show_progress=False)
        runs = store.runs()
    assert cli("results", "query", "--db", db, "--format", "csv", "-o",
               tmp_path / "runs.csv").returncode == 0
    code = re.search(r"```python\n(import pandas as pd.*?)```", DOC.read_text(), re.S)[1]
    *setup, last = code.strip().splitlines()
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        scope: dict = {}
        exec("\n".join(setup), scope)
        table = eval(last.split("#")[0], scope)
    finally:
        os.chdir(here)
    for workload in ("alpha", "beta"):
        for policy in ("lrr", "gto"):
            ipcs = [r.stats["ipc"] for r in runs if r.point.workload == workload
                    and r.point.overrides["sm.warp_sched"] == policy]
            assert table.loc[workload, policy] == pytest.approx(sum(ipcs) / len(ipcs))
