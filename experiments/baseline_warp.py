"""Baseline warp schedulers: LRR vs GTO ([GPGPU-Sim scheduler_unit::cycle()]) on three kinds of
workload.

Why these three: GTO's greedy order keeps one warp's working set hot, so it should help most on
a cache-sensitive kernel, matter little on a memory-bound stream (DRAM bandwidth decides) and
nothing much on a compute-only kernel (latency hidden either way). Baselines have no paper
number, so every headline row has ``paper: null``.
"""

from __future__ import annotations

from gpusched.experiment.grid import Grid
from gpusched.experiment.query import ResultSet
from gpusched.experiment.registry import Experiment, Headline, Metric, Plot, Table

# sim/workload/catalogue.py: cache-sensitive (CCWS-style loop), memory-bound streaming (STREAM
# copy), compute-only (FFMA/SFU). The memory hierarchy is needed: L1 reuse is the point.
WORKLOADS = ["cache_gto", "mem_stream", "compute_only"]
POLICIES = ["lrr", "gto"]


def _speedup(workload: str | None):
    """GTO-over-LRR IPC ratio for one workload, or the geometric mean over all of them."""
    def ours(results: ResultSet) -> float:
        rs = results.select(workload=workload) if workload else results
        return rs.ratio("ipc", "sm.warp_sched", "gto", "lrr")
    return ours


EXPERIMENT = Experiment(
    name="baseline_warp",
    title="Baseline warp schedulers: LRR vs GTO",
    description=__doc__,
    grid=Grid(name="baseline_warp", preset=["gtx480"], workloads=WORKLOADS, seeds=[0, 1, 2],
              overrides={"sm.warp_sched": POLICIES}, params={"memory": ["hierarchy"]},
              source=__file__),
    # quick: same GPU (the workloads are sized for its 16 KB L1), half the work, one seed
    # (at 0.3 cache_gto still fits in L1 and says nothing about scheduling)
    quick=Grid(name="baseline_warp_quick", preset=["gtx480"], workloads=WORKLOADS, seeds=[0],
               overrides={"sm.warp_sched": POLICIES},
               params={"memory": ["hierarchy"], "scale": [0.5]}, source=__file__),
    metrics=[
        Metric("ipc", "warp IPC", "warp instructions/cycle"),
        Metric("cycles", "Run time", "core cycles"),
        Metric("l1_hit", "L1 hit rate", "%", stat="memory.l1.hit_rate", scale=100),
    ],
    tables=[Table("ipc"), Table("cycles"), Table("l1_hit")],
    plots=[Plot("ipc", "ipc.png", title="Warp IPC under LRR and GTO", normalize="lrr", mean=("geo",)),
           Plot("cycles", "cycles.png", title="Run time under LRR and GTO", normalize="lrr",
                mean=("geo",))],
    headline=[Headline("GTO/LRR IPC, geometric mean over workloads", "×", _speedup(None),
                       note="baseline (no paper number); > 1 means GTO is faster")]
    + [Headline(f"GTO/LRR IPC, {w}", "×", _speedup(w), note="baseline (no paper number)")
       for w in WORKLOADS],
    labels={"sm.warp_sched": "warp scheduler", "workload": "workload"},
    names={"sm.warp_sched": {"lrr": "LRR", "gto": "GTO"}},
)
