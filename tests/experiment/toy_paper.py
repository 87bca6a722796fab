"""A toy experiment on the ``toy`` runner kind, to test reports without the GPU model."""

from gpusched.experiment.grid import Grid
from gpusched.experiment.registry import Experiment, Headline, Metric, Plot, Table

import toy_kinds  # noqa: F401  (registers the toy kind)

WORKLOADS = ["alpha", "beta", "gamma"]

EXPERIMENT = Experiment(
    name="toy_paper",
    title="Toy paper",
    description="Deterministic fake stats: exercises grids, tables, plots and headline rows.",
    grid=Grid(name="toy_full", kind="toy", workloads=WORKLOADS, seeds=[0, 1, 2],
              overrides={"sm.warp_sched": ["lrr", "gto"]}, source=__file__),
    quick=Grid(name="toy_quick", kind="toy", workloads=WORKLOADS, seeds=[0, 1],
               overrides={"sm.warp_sched": ["lrr", "gto"]}, source=__file__),
    metrics=[Metric("ipc", "IPC", "warp instructions/cycle"),
             Metric("hit", "L1 hit rate", "%", compute=lambda s: 100 * s["l1"]["hit_rate"])],
    tables=[Table("ipc"), Table("hit")],
    plots=[Plot("ipc", "ipc.png"), Plot("hit", "hit.png", style="line")],
    headline=[Headline("GTO/LRR IPC", "×", lambda r: r.ratio("ipc", "sm.warp_sched", "gto", "lrr"),
                       paper=1.5, note="toy"),
              Headline("mean IPC of alpha", "warp instructions/cycle",
                       lambda r: r.mean("ipc", {"workload": "alpha"}))],
    labels={"sm.warp_sched": "warp scheduler"},
)
