"""OWL ([OWL]): CTA-aware, locality- and BLP-aware warp scheduling plus opportunistic prefetch.

Every point runs one *scheme* (``SCHEMES``: a set of config overrides) of one ``owl_t_*``
archetype ([OWL §13.2]) on the ``owl`` preset (Table 1: 28 cores, 8 MCs × 4 banks) with the
full memory hierarchy. IPC is normalised per workload to RR (``lrr``) and averaged over the
Type-1 archetypes with the arithmetic (the paper's default), harmonic and geometric means.

- RR = ``lrr``; TL = ``tl_narasiman`` (8-warp groups by warp id, [OWL §12] A15); CTA-Aware,
  +Locality, +BLP = ``owl_cta``, ``owl_locality``, ``owl_blp`` (g_size = 8, A3 (a)
  slot-static groups); OWL = ``owl_blp`` + the opportunistic prefetcher, scheme B
  (``dram.prefetch = owl_b``, §12 A11 default) when the model has it, otherwise ``owl_blp``
  alone (the headline note then says so); prefetch ablations (with the prefetcher): OWL with
  scheme A (``owl_a``) and OWL with [OWL §7.6]'s order (``owl_b_hi``: prefetches above row-miss
  demands, ``dram.prefetch_priority = above_misses``); Perfect-L2 and Perfect-L1 = RR with ``l2.perfect`` /
  ``l1.perfect`` (Perfect-L1 only for PMEM = IPC(Perfect-L1) / IPC(RR), the Type-1 test);
  [OWL §12] A3 (b) ablations: +Locality and +BLP with the rotating head (``owl_locality_rot``,
  ``owl_blp_rot``: refilled CTAs join the lowest-priority group).
- Type-1 = the memory-bound archetypes (``TYPE1``); Type-2 (do-no-harm, §12 A16) = ``TYPE2``
  (compute-bound, ≤ 6 warps per core); they are reported apart and never enter the means.
- Metrics (§10): L1 miss rate (loads, ``1 − memory.l1.hit_rate``), BLP (per MC, averaged over
  MCs: ``memory.dram.blp_per_channel``; the GPU-wide figure beside it), RBL (aggregate row-hit
  rate of demand column accesses, ``memory.dram.row_hit_rate``), and from the OWL metrics
  profiler (``--profile owl``, attached to every point) the exact §10 counters: CINV,
  MemoryBlockCycles (strict [OWL §12] A5, and ``memory_stall`` also counting warps held at a
  busy LD/ST unit), NoWarpCycles and RBL as a mean over banks (demand, and with prefetches).
  Prefetch accuracy and coverage for the OWL variants. The Table 4 row profile (consecutive-CTA
  row sharing, CTAs per row) of each archetype is a property of its addresses, not of a run:
  ``row_table`` (sim/workload/row_profile.py). The runner kind lives in experiments/owl_runs.py.
"""

from __future__ import annotations

import math

from experiments.owl_runs import (KIND, SCHEMES, check_point,  # noqa: F401 (registers the kind)
                                  run_point)
from gpusched.experiment.grid import Grid
from gpusched.experiment.query import ResultSet, geomean
from gpusched.experiment.registry import Experiment, Headline, Metric, Plot, Table

PRESET = "owl"
TYPE1 = ["owl_t_reuse", "owl_t_stream_shared", "owl_t_stream_private", "owl_t_irregular",
         "owl_t_mixed"]
TYPE2 = ["owl_t_compute", "owl_t_small"]
IRREGULAR = ["owl_t_irregular"]


LABELS = {"rr": "RR", "tl": "TL", "cta": "CTA-Aware", "locality": "+Locality", "blp": "+BLP",
          "owl": "OWL", "owl_a": "OWL (scheme A)", "owl_b_hi": "OWL (§7.6 order)",
          "perfect_l2": "Perfect-L2", "perfect_l1": "Perfect-L1",
          "locality_rot": "+Locality (A3 b)", "blp_rot": "+BLP (A3 b)"}


# ---- metrics -----------------------------------------------------------------------------------

SCHEDULING = ["rr", "tl", "cta", "locality", "blp", "owl", "owl_a", "owl_b_hi", "locality_rot",
              "blp_rot"]
PREFETCHING = ["owl", "owl_a", "owl_b_hi"]
PLOTTED = ["rr", "tl", "cta", "locality", "blp", "owl", "owl_a"]    # ≤ 8 series: one colour each
ROTATING = ["rr", "locality", "blp", "locality_rot", "blp_rot", "owl"]


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


def _percent(stat: str):
    return lambda stats: Metric("_", "_", stat=stat, scale=100).value(stats)


def _owl_stat(key: str):
    """``owl.<key>`` of the OWL metrics profiler × 100 (a fraction); None on a run without it
    (never a proxy: the §10 counters are exact or absent)."""
    def value(stats: dict) -> float | None:
        node = stats.get("owl")
        for part in key.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        return 100.0 * node if isinstance(node, (int, float)) else None
    return value


def dram_busy_pct(stats: dict) -> float | None:
    """% of the DRAM data buses' peak the run used (``bytes_read``, which includes the
    prefetches, and ``bytes_written`` over ``peak_bytes_per_cycle`` × cycles): how
    bandwidth-bound the archetype is."""
    dram = stats.get("memory", {}).get("dram", {})
    peak, cycles = dram.get("peak_bytes_per_cycle"), stats.get("cycles")
    if not peak or not cycles:
        return None
    return 100.0 * (dram.get("bytes_read", 0) + dram.get("bytes_written", 0)) / (peak * cycles)


def l1_miss_pct(stats: dict) -> float | None:
    rate = stats.get("memory", {}).get("l1", {}).get("hit_rate")
    return None if rate is None else 100.0 * (1.0 - rate)


# ---- headline ----------------------------------------------------------------------------------

def per_workload(results: ResultSet, scheme: str, base: str, workloads: list[str],
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


def gain(scheme: str, base: str = "rr", kind: str = "arith", workloads: list[str] = TYPE1):
    """Headline value: (mean over workloads of IPC(scheme)/IPC(base)) − 1, in %."""
    def ours(results: ResultSet) -> float:
        return 100.0 * (mean_of(per_workload(results, scheme, base, workloads), kind) - 1.0)
    return ours


def gap_to_perfect_l2(results: ResultSet) -> float:
    """How far OWL is below Perfect-L2, in % of Perfect-L2 (arithmetic mean of RR-normalised
    IPCs, as the paper compares its bars)."""
    owl = mean_of(per_workload(results, "owl", "rr", TYPE1), "arith")
    perfect = mean_of(per_workload(results, "perfect_l2", "rr", TYPE1), "arith")
    return 100.0 * (1.0 - owl / perfect)


def type2_worst(results: ResultSet) -> float:
    """The worst Type-2 IPC change of OWL over RR, in % (paper: no Type-2 app is harmed)."""
    ratios = per_workload(results, "owl", "rr", TYPE2)
    return 100.0 * (min(ratios) - 1.0) if ratios else float("nan")


def pmem_min(results: ResultSet) -> float:
    """The smallest PMEM = IPC(Perfect-L1)/IPC(RR) over the Type-1 archetypes (≥ 1.4×)."""
    ratios = per_workload(results, "perfect_l1", "rr", TYPE1)
    return min(ratios) if ratios else float("nan")


def _plotted() -> list[Metric]:
    """The per-scheme plots' metrics: the schemes of ``PLOTTED`` only (the tables keep all)."""
    return [Metric("l1_miss_p", "L1 miss rate (loads)", "%", compute=only(l1_miss_pct, PLOTTED)),
            Metric("blp_p", "BLP per MC", "banks",
                   compute=only("memory.dram.blp_per_channel", PLOTTED)),
            Metric("rbl_p", "RBL (row-buffer hit rate)", "%",
                   compute=only(_percent("memory.dram.row_hit_rate"), PLOTTED)),
            Metric("mem_stall_p", "Memory-blocked cycles", "%",
                   compute=only(_owl_stat("memory_stall_fraction"), PLOTTED))]


# The quick grid's machine: a quarter of the owl GPU (7 cores, 2 MCs, 2 L2 slices; cores per
# MC, per-core L1 and per-MC L2 as Table 1) with a quarter of each grid, so a core still holds
# as many CTAs and every CTA does its full work. The 2-channel map moves bank and row down.
QUARTER = {"sm.count": 7, "dram.channels": 2, "l2.slices": 2, "dram.bank_bit": 12,
           "dram.row_bit": 14}


def _grid(name: str, workloads: list[str], schemes: list[str], scale: float,
          overrides: dict | None = None) -> Grid:
    return Grid(name=name, kind=KIND, preset=[PRESET], workloads=workloads, seeds=[0],
                overrides={k: [v] for k, v in (overrides or {}).items()},
                params={"scheme": schemes, "scale": [scale], "memory": ["hierarchy"]},
                source=__file__)


_MAIN = ["rr", "tl", "cta", "locality", "blp", "owl", "perfect_l2"]
_ABLATION = ["owl_a", "owl_b_hi", "locality_rot", "blp_rot"]
_AR = "IPC / RR IPC, arithmetic mean over the Type-1 archetypes, − 1"
EXPERIMENT = Experiment(
    name="owl",
    title="OWL: CTA-aware warp scheduling and opportunistic prefetching vs RR (owl preset)",
    description=__doc__,
    grid=_grid("owl", TYPE1 + TYPE2, _MAIN + _ABLATION + ["perfect_l1"], 1.0),
    quick=_grid("owl_quick", TYPE1 + TYPE2, _MAIN + _ABLATION + ["perfect_l1"], 0.25,
                QUARTER),
    metrics=[
        *_plotted(),
        Metric("ipc", "IPC", "warp instructions/cycle"),
        Metric("ipc_t1", "IPC, Type-1", "warp instructions/cycle",
               compute=only("ipc", PLOTTED, TYPE1)),
        Metric("ipc_rot", "IPC, Type-1, A3 (a) vs (b)", "warp instructions/cycle",
               compute=only("ipc", ROTATING, TYPE1)),
        Metric("ipc_bound", "IPC, Type-1", "warp instructions/cycle",
               compute=only("ipc", ["rr", "owl", "perfect_l2"], TYPE1)),
        Metric("ipc_t2", "IPC, Type-2", "warp instructions/cycle",
               compute=only("ipc", workloads=TYPE2)),
        Metric("ipc_pf", "IPC, prefetch ablation", "warp instructions/cycle",
               compute=only("ipc", ["rr", "blp"] + PREFETCHING)),
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
               compute=only(_owl_stat("memory_block_fraction"))),
        Metric("mem_stall", "MemoryBlockCycles incl. LD/ST-held warps", "%",
               compute=only(_owl_stat("memory_stall_fraction"))),
        Metric("no_warp", "NoWarpCycles", "%",
               compute=only(_owl_stat("no_warp_fraction"))),
        Metric("cinv", "CINV (inactive core cycles)", "%", compute=only(_owl_stat("cinv"))),
        Metric("rbl_bank", "RBL, mean over banks", "%",
               compute=only(_owl_stat("rbl.bank_mean"))),
        Metric("rbl_pf", "RBL with prefetches, mean over banks", "%",
               compute=only(_owl_stat("rbl.bank_mean_with_prefetch"), PREFETCHING)),
        Metric("row_sharing", "Consecutive-CTA row sharing (Table 4)", "%",
               compute=only(_percent("row_profile.cons_cta_row_sharing"), ["rr"])),
        Metric("ctas_per_row", "CTAs per DRAM row (Table 4)", "CTAs",
               compute=only("row_profile.ctas_per_row", ["rr"])),
        Metric("pf_accuracy", "Prefetch accuracy", "%",
               compute=only(_percent("memory.prefetch.accuracy"), PREFETCHING)),
        Metric("pf_coverage", "Prefetch coverage", "%",
               compute=only(_percent("memory.prefetch.coverage"), PREFETCHING)),
    ],
    tables=[Table(m, columns="scheme") for m in
            ("ipc", "l1_miss", "l2_hit", "blp", "blp_gpu", "rbl", "dram_busy", "dram_queue",
             "fetch_latency", "mem_block", "mem_stall",
             "no_warp",
             "pf_accuracy", "pf_coverage", "row_sharing", "ctas_per_row")
            + ("rbl_bank", "rbl_pf", "cinv")],
    plots=[Plot("ipc_t1", "ipc.png", series="scheme", normalize="rr", mean=("arith", "geo"),
                title="Type-1: IPC normalised to RR"),
           Plot("ipc_bound", "perfect_l2.png", series="scheme", normalize="rr",
                mean=("arith", "geo"), title="Type-1: OWL and Perfect-L2, IPC normalised to RR"),
           Plot("ipc_t2", "type2.png", series="scheme", normalize="rr",
                title="Type-2 (do no harm): IPC normalised to RR"),
           Plot("ipc_pf", "prefetch.png", series="scheme", normalize="rr",
                title="Prefetch ablation: scheme B, A, B with §7.6 order; IPC / RR"),
           Plot("pf_accuracy", "pf_accuracy.png", series="scheme",
                title="Prefetch accuracy per variant"),
           Plot("ipc_rot", "a3b.png", series="scheme", normalize="rr", mean=("arith", "geo"),
                title="[OWL §12] A3: slot-static groups (a) vs rotating head (b); IPC / RR"),
           Plot("l1_miss_p", "l1_miss.png", series="scheme", title="L1 miss rate per scheme"),
           Plot("blp_p", "blp.png", series="scheme", title="Bank-level parallelism per MC"),
           Plot("rbl_p", "rbl.png", series="scheme", title="Row-buffer locality (hit rate)"),
           Plot("mem_stall_p", "mem_block.png", series="scheme",
                title="Memory-blocked core cycles incl. warps held at the LD/ST unit")],
    headline=[
        Headline("OWL over RR, IPC (arithmetic mean)", "%", gain("owl"), paper=33.0,
                 note=_AR),
        Headline("OWL over RR, IPC (harmonic mean)", "%", gain("owl", kind="harm"), paper=23.0,
                 note="harmonic mean of the same ratios"),
        Headline("OWL over RR, IPC (geometric mean)", "%", gain("owl", kind="geo"), paper=28.0,
                 note="geometric mean of the same ratios"),
        Headline("CTA-Aware over RR", "%", gain("cta"), paper=14.0, note=_AR),
        Headline("+Locality over RR", "%", gain("locality"), paper=25.0, note=_AR),
        Headline("+BLP over RR", "%", gain("blp"), paper=31.0, note=_AR),
        Headline("OWL over CTA-Aware", "%", gain("owl", "cta"), paper=19.0,
                 note="IPC(OWL)/IPC(CTA-Aware), arithmetic mean, − 1"),
        Headline("OWL over two-level (TL)", "%", gain("owl", "tl"), paper=19.0,
                 note="IPC(OWL)/IPC(TL), arithmetic mean, − 1"),
        Headline("TL over RR", "%", gain("tl"), note="no paper number"),
        Headline("OWL with scheme A over RR", "%", gain("owl_a"),
                 note="ablation: stop prefetching at a conflicting demand; " + _AR),
        Headline("OWL with the §7.6 order over RR", "%", gain("owl_b_hi"),
                 note="ablation: scheme B, prefetch above row-miss demands; " + _AR),
        Headline("+Locality, A3 (b) rotating head, over RR", "%", gain("locality_rot"),
                 note="ablation: refilled CTAs join the lowest-priority group; " + _AR),
        Headline("+BLP, A3 (b) rotating head, over RR", "%", gain("blp_rot"),
                 note="ablation: refilled CTAs join the lowest-priority group; " + _AR),
        Headline("OWL over RR without owl_t_irregular", "%",
                 gain("owl", workloads=[w for w in TYPE1 if w not in IRREGULAR]),
                 note="arithmetic mean over the other Type-1 archetypes (scheme B's cost on "
                      "random rows left out)"),
        Headline("Irregular: OWL over +BLP", "%", gain("owl", "blp", workloads=IRREGULAR),
                 note="owl_t_irregular, IPC(OWL)/IPC(+BLP) − 1 (the prefetcher's effect alone)"),
        Headline("Irregular: OWL scheme A over +BLP", "%",
                 gain("owl_a", "blp", workloads=IRREGULAR),
                 note="owl_t_irregular, IPC(OWL, scheme A)/IPC(+BLP) − 1"),
        Headline("OWL below Perfect-L2", "%", gap_to_perfect_l2, paper=11.0,
                 note="1 − mean(OWL/RR) / mean(Perfect-L2/RR); paper: within 11 %"),
        Headline("Type-2: worst OWL change over RR", "%", type2_worst, paper=0.0,
                 note="min over " + ", ".join(TYPE2) + " of IPC(OWL)/IPC(RR) − 1; paper: "
                      "Type-2 unharmed (not evaluated there)"),
        Headline("Type-1: smallest PMEM", "×", pmem_min, paper=1.4,
                 note="min over the Type-1 archetypes of IPC(Perfect-L1)/IPC(RR); Type-1 "
                      "means ≥ 1.4×"),
    ],
    labels={"scheme": "scheme", "workload": "workload"},
    names={"scheme": LABELS},
)
