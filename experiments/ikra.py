"""IKRA ([IKRA]): thread-block schedulers Chunk / Reset / Flip / Steal against round-robin (G).

Execution time, a dynamic-energy proxy and network traffic of each policy, normalised to G, on
catalogue workloads that mimic the paper's regular and irregular iterative applications
(multi-kernel, buffers swapped between launches) plus its microbenchmarks, on ``ikra_15cu`` with
the full memory hierarchy and L1 data kept across kernel boundaries (the preset's DeNovo-style
default). G is the ``cta_sched`` twin's ``rr`` policy, so every policy runs through the same
block. Averages are arithmetic means of per-application ratios ([IKRA §6] item 15).

Energy proxy ([IKRA §6] item 12): dynamic energy only = the memory system's per-event energy
(L1, scratchpad, L2, interconnect, DRAM) + one ``energy.warp_inst_pj`` per warp instruction for
the core; static/idle energy excluded. Traffic: bytes injected into the interconnect in both
directions (reads, writes and write-backs together; flit-hop accounting is not modelled yet).
"""

from __future__ import annotations

from gpusched.config import get_preset
from gpusched.experiment.grid import Grid
from gpusched.experiment.query import ResultSet
from gpusched.experiment.registry import Experiment, Headline, Metric, Plot, Table

POLICIES = ["ikra_rr", "ikra_chunk", "ikra_reset", "ikra_flip", "ikra_steal"]
REGULAR = ["ikra_hotspot", "ikra_pathfinder", "ikra_srad", "ikra_stencil", "ikra_kmeans"]
IRREGULAR = ["ikra_graph_coloring", "ikra_graph_coloring_banded"]
MICRO = ["ikra_gpu_small", "ikra_gpu_medium", "ikra_gpu_large", "ikra_work_stealing"]
WARP_INST_PJ = get_preset("ikra_15cu").energy.warp_inst_pj


def energy_uj(stats: dict) -> float:
    """Dynamic energy proxy in µJ: memory events + core instructions (no static energy)."""
    return (stats["energy"]["memory_pj"] + stats["warp_insts"] * WARP_INST_PJ) / 1e6


def traffic_kb(stats: dict) -> float:
    icnt = stats["memory"]["icnt"]
    return (icnt["up"]["bytes"] + icnt["down"]["bytes"]) / 1024


def _vs_rr(metric: str, workloads: list[str], policy: str = "ikra_steal"):
    """Arithmetic mean over ``workloads`` of mean(metric | policy) / mean(metric | G)."""
    def ours(results: ResultSet) -> float:
        ratios = []
        for w in workloads:
            num = results.mean(metric, {"cta_scheduler": policy, "workload": w})
            den = results.mean(metric, {"cta_scheduler": "ikra_rr", "workload": w})
            if den and num == num and den == den:
                ratios.append(num / den)
        return sum(ratios) / len(ratios) if ratios else float("nan")
    return ours


def steals(stats: dict) -> float | None:
    """CTAs stolen in the run (Steal only: its scheduler's counters; None for the others)."""
    report = stats.get("policy_reports", {}).get("cta_scheduler", {})
    if report.get("policy") != "steal":
        return None
    counters = report.get("stats", {})
    return counters.get("steals_queue", 0) + counters.get("steals_chunk", 0)


def _steal_caveat(workloads: list[str]):
    """The headline's caveat: whether any steal fired in its workloads' Steal runs (without
    one, Steal places every CTA as Flip does and Steal/G is Flip/G)."""
    def caveat(results: ResultSet) -> str:
        runs = [v for w in workloads for v in results.select(
            {"cta_scheduler": "ikra_steal", "workload": w}).values("steals")]
        if not runs:
            return ""
        if sum(runs) == 0:
            which = "the Steal run" if len(runs) == 1 else f"any of the {len(runs)} Steal runs"
            return (f"no steal fired in {which} of these workloads: Steal acted as Flip, so "
                    "this is Flip/G")
        return f"{sum(runs):,.0f} CTAs stolen over {len(runs)} Steal runs"
    return caveat


def _grid(name: str, workloads: list[str], scale: float) -> Grid:
    return Grid(name=name, preset=["ikra_15cu"], workloads=workloads, seeds=[0],
                params={"cta_scheduler": POLICIES, "memory": ["hierarchy"], "scale": [scale]},
                source=__file__)


QUICK_REGULAR, QUICK_IRREGULAR = ["ikra_hotspot", "ikra_pathfinder"], ["ikra_graph_coloring"]
_NOTE = "Steal / G, arithmetic mean over the {} workloads of this grid ({})"
EXPERIMENT = Experiment(
    name="ikra",
    title="IKRA thread-block schedulers vs round-robin (ikra_15cu)",
    description=__doc__,
    grid=_grid("ikra", REGULAR + IRREGULAR + MICRO, 1.0),
    quick=_grid("ikra_quick", QUICK_REGULAR + QUICK_IRREGULAR + ["ikra_work_stealing"], 0.3),
    metrics=[
        Metric("cycles", "Execution time", "core cycles"),
        Metric("energy", "Dynamic energy (proxy)", "µJ", compute=energy_uj),
        Metric("traffic", "Network traffic", "KiB", compute=traffic_kb),
        Metric("l1_hit", "L1 hit rate", "%", stat="memory.l1.hit_rate", scale=100),
        Metric("prev_hits", "L1 hits on the previous kernel's data", "hits",
               stat="memory.l1.hits_prev_kernel"),
        Metric("dram_kb", "DRAM traffic", "KiB",
               compute=lambda s: (s["memory"]["traffic"]["dram_to_l2_bytes"]
                                  + s["memory"]["traffic"]["l2_to_dram_bytes"]) / 1024),
        Metric("steals", "Steals", "CTAs stolen", compute=steals),
    ],
    tables=[Table(m, columns="cta_scheduler") for m in
            ("cycles", "energy", "traffic", "l1_hit", "prev_hits", "dram_kb", "steals")],
    plots=[Plot("cycles", "time.png", series="cta_scheduler", title="Execution time per policy",
                normalize="ikra_rr", mean=("arith",)),
           Plot("energy", "energy.png", series="cta_scheduler",
                title="Dynamic energy (proxy) per policy", normalize="ikra_rr", mean=("arith",)),
           Plot("traffic", "traffic.png", series="cta_scheduler", title="Network traffic per policy",
                normalize="ikra_rr", mean=("arith",)),
           Plot("prev_hits", "reuse.png", series="cta_scheduler",
                title="L1 hits on data left by the previous kernel")],
    headline=[
        Headline("regular: time, Steal/G", "×", _vs_rr("cycles", REGULAR), paper=0.81,
                 note=_NOTE.format("regular", "paper: −19 %"), caveat=_steal_caveat(REGULAR)),
        Headline("regular: energy, Steal/G", "×", _vs_rr("energy", REGULAR), paper=0.89,
                 note=_NOTE.format("regular", "paper: −11 %"), caveat=_steal_caveat(REGULAR)),
        Headline("regular: network traffic, Steal/G", "×", _vs_rr("traffic", REGULAR), paper=0.58,
                 note=_NOTE.format("regular", "paper: −42 %"), caveat=_steal_caveat(REGULAR)),
        Headline("irregular: time, Steal/G", "×", _vs_rr("cycles", IRREGULAR), paper=0.90,
                 note=_NOTE.format("irregular", "paper: −10 %"), caveat=_steal_caveat(IRREGULAR)),
        Headline("irregular: energy, Steal/G", "×", _vs_rr("energy", IRREGULAR), paper=0.92,
                 note=_NOTE.format("irregular", "paper: −8 %"), caveat=_steal_caveat(IRREGULAR)),
        Headline("irregular: network traffic, Steal/G", "×", _vs_rr("traffic", IRREGULAR),
                 paper=0.84, note=_NOTE.format("irregular", "paper: −16 %"),
                 caveat=_steal_caveat(IRREGULAR)),
    ],
    labels={"cta_scheduler": "thread-block scheduler", "workload": "workload"},
    names={"cta_scheduler": {"ikra_rr": "G", "ikra_chunk": "Chunk", "ikra_reset": "Reset",
                             "ikra_flip": "Flip", "ikra_steal": "Steal"}},
)
