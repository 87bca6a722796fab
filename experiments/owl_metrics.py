"""What experiments/owl.py reports of each run, shared by the paper's two reproductions (the
catalogue archetypes and the program suite): per-run metrics of [OWL Table 2, §4.3, §5] and the
headline arithmetic (IPC ratios to a base scheme per workload, then a mean over workloads)."""

from __future__ import annotations

import math
from typing import Callable, Iterable

from gpusched.experiment.query import ResultSet, geomean
from gpusched.experiment.registry import Metric

LABELS = {"rr": "RR", "tl": "TL", "cta": "CTA-Aware", "locality": "+Locality", "blp": "+BLP",
          "owl": "OWL", "owl_a": "OWL (scheme A)", "owl_b_hi": "OWL (above-misses order)",
          "perfect_l2": "Perfect-L2", "perfect_l1": "Perfect-L1",
          "locality_static": "+Locality (A3 a)", "blp_static": "+BLP (A3 a)"}
SCHEDULING = ["rr", "tl", "cta", "locality", "blp", "owl", "owl_a", "owl_b_hi",
              "locality_static", "blp_static"]
PREFETCHING = ["owl", "owl_a", "owl_b_hi"]
PLOTTED = ["rr", "tl", "cta", "locality", "blp", "owl", "owl_a"]    # ≤ 8 series: one colour each

# a workload set: a list of names, or a function of the results (e.g. the measured Type-1 set)
Workloads = list[str] | Callable[[ResultSet], Iterable[str]]


def only(stat, schemes: list[str] = SCHEDULING, workloads: list[str] | None = None):
    """A metric defined only on runs of ``schemes`` (and ``workloads``): plots then show the
    scheduling schemes without the Perfect modes' DRAM-less zeros or their far taller bars."""
    def compute(stats: dict) -> float | None:
        if stats.get("scheme") not in schemes:
            return None
        if workloads is not None and stats.get("workload") not in workloads:
            return None
        return stat(stats) if callable(stat) else Metric("_", "_", stat=stat).value(stats)
    return compute


def percent(stat: str):
    return lambda stats: Metric("_", "_", stat=stat, scale=100).value(stats)


def owl_stat(key: str):
    """``owl.<key>`` of the OWL metrics profiler × 100 (a fraction); None on a run without it
    (never a proxy: the OWL metric counters are exact or absent)."""
    def value(stats: dict) -> float | None:
        node = stats.get("owl")
        for part in key.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        return 100.0 * node if isinstance(node, (int, float)) else None
    return value


def dram_busy_pct(stats: dict) -> float | None:
    """% of the DRAM data buses' peak the run used (``bytes_read``, which includes the
    prefetches, and ``bytes_written`` over ``peak_bytes_per_cycle`` × cycles): how
    bandwidth-bound the workload is."""
    dram = stats.get("memory", {}).get("dram", {})
    peak, cycles = dram.get("peak_bytes_per_cycle"), stats.get("cycles")
    if not peak or not cycles:
        return None
    return 100.0 * (dram.get("bytes_read", 0) + dram.get("bytes_written", 0)) / (peak * cycles)


def l1_miss_pct(stats: dict) -> float | None:
    rate = stats.get("memory", {}).get("l1", {}).get("hit_rate")
    return None if rate is None else 100.0 * (1.0 - rate)


def per_run_metrics() -> list[Metric]:
    """The metric columns every OWL reproduction tabulates per scheme (defined on every
    workload)."""
    return [
        Metric("ipc", "IPC", "warp instructions/cycle"),
        Metric("cycles", "Run time", "core cycles"),
        Metric("l1_miss", "L1 miss rate (loads)", "%", compute=only(l1_miss_pct)),
        Metric("l2_hit", "L2 hit rate", "%",
               compute=only(lambda s: 100 * s["memory"]["l2"]["hit_rate"])),
        Metric("blp", "BLP per MC", "banks", compute=only("memory.dram.blp_per_channel")),
        Metric("blp_gpu", "BLP, GPU-wide", "banks", compute=only("memory.dram.blp")),
        Metric("rbl", "RBL (row-buffer hit rate)", "%",
               compute=only(lambda s: 100 * s["memory"]["dram"]["row_hit_rate"])),
        Metric("dram_busy", "DRAM data-bus use (of peak)", "%", compute=only(dram_busy_pct)),
        Metric("dram_queue", "DRAM queueing latency (demand)", "core cycles",
               compute=only("memory.dram.queue_latency_mean")),
        Metric("fetch_latency", "Memory fetch latency (L1 miss to data)", "core cycles",
               compute=only("memory.l1.miss_latency_mean")),
        Metric("mem_block", "MemoryBlockCycles", "%",
               compute=only(owl_stat("memory_block_fraction"))),
        Metric("mem_stall", "MemoryBlockCycles incl. LD/ST-held warps", "%",
               compute=only(owl_stat("memory_stall_fraction"))),
        Metric("no_warp", "NoWarpCycles", "%", compute=only(owl_stat("no_warp_fraction"))),
        Metric("cinv", "CINV (inactive core cycles)", "%", compute=only(owl_stat("cinv"))),
        Metric("rbl_bank", "RBL, mean over banks", "%", compute=only(owl_stat("rbl.bank_mean"))),
        Metric("rbl_pf", "RBL with prefetches, mean over banks", "%",
               compute=only(owl_stat("rbl.bank_mean_with_prefetch"), PREFETCHING)),
        Metric("row_sharing", "Consecutive-CTA row sharing (Table 4)", "%",
               compute=only(percent("row_profile.cons_cta_row_sharing"), ["rr"])),
        Metric("ctas_per_row", "CTAs per DRAM row (Table 4)", "CTAs",
               compute=only("row_profile.ctas_per_row", ["rr"])),
        Metric("pf_accuracy", "Prefetch accuracy", "%",
               compute=only(percent("memory.prefetch.accuracy"), PREFETCHING)),
        Metric("pf_coverage", "Prefetch coverage", "%",
               compute=only(percent("memory.prefetch.coverage"), PREFETCHING)),
    ]


def plotted_metrics() -> list[Metric]:
    """The per-scheme plots' metrics: the schemes of ``PLOTTED`` only (the tables keep all)."""
    return [Metric("l1_miss_p", "L1 miss rate (loads)", "%", compute=only(l1_miss_pct, PLOTTED)),
            Metric("blp_p", "BLP per MC", "banks",
                   compute=only("memory.dram.blp_per_channel", PLOTTED)),
            Metric("rbl_p", "RBL (row-buffer hit rate)", "%",
                   compute=only(percent("memory.dram.row_hit_rate"), PLOTTED)),
            Metric("mem_stall_p", "Memory-blocked cycles", "%",
                   compute=only(owl_stat("memory_stall_fraction"), PLOTTED))]


# ---- headline arithmetic -----------------------------------------------------------------------

def per_workload(results: ResultSet, scheme: str, base: str, workloads: Iterable[str],
                 column: str = "ipc") -> list[float]:
    """mean(column | scheme) / mean(column | base) for each workload that has both."""
    out = []
    for w in workloads:
        num = results.mean(column, {"scheme": scheme, "workload": w})
        den = results.mean(column, {"scheme": base, "workload": w})
        if den and not math.isnan(num) and not math.isnan(den):
            out.append(num / den)
    return out


def mean_of(values: list[float], kind: str) -> float:
    if not values:
        return float("nan")
    if kind == "geo":
        return geomean(values)
    if kind == "harm":
        return len(values) / sum(1.0 / v for v in values) if all(v > 0 for v in values) \
            else float("nan")
    return sum(values) / len(values)


def members(workloads: Workloads, results: ResultSet) -> list[str]:
    return list(workloads(results)) if callable(workloads) else list(workloads)


def gain(scheme: str, base: str = "rr", kind: str = "arith", workloads: Workloads = ()):
    """Headline value: (mean over workloads of IPC(scheme)/IPC(base)) − 1, in %."""
    def ours(results: ResultSet) -> float:
        ratios = per_workload(results, scheme, base, members(workloads, results))
        return 100.0 * (mean_of(ratios, kind) - 1.0)
    return ours


def ratio(scheme: str, base: str = "rr", kind: str = "arith", workloads: Workloads = ()):
    """Headline value: mean over workloads of IPC(scheme)/IPC(base), as a factor (×)."""
    def ours(results: ResultSet) -> float:
        return mean_of(per_workload(results, scheme, base, members(workloads, results)), kind)
    return ours


def gap_to_perfect_l2(workloads: Workloads):
    """How far OWL is below Perfect-L2, in % of Perfect-L2 (arithmetic mean of RR-normalised
    IPCs, as the paper compares its bars)."""
    def ours(results: ResultSet) -> float:
        names = members(workloads, results)
        owl = mean_of(per_workload(results, "owl", "rr", names), "arith")
        perfect = mean_of(per_workload(results, "perfect_l2", "rr", names), "arith")
        return 100.0 * (1.0 - owl / perfect)
    return ours


def worst(scheme: str, workloads: Workloads, base: str = "rr"):
    """The worst IPC change of ``scheme`` over ``base`` among ``workloads``, in %."""
    def ours(results: ResultSet) -> float:
        ratios = per_workload(results, scheme, base, members(workloads, results))
        return 100.0 * (min(ratios) - 1.0) if ratios else float("nan")
    return ours
