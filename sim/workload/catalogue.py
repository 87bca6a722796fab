"""The workload catalogue: named synthetic workloads mimicking the benchmarks the specs use.

``get_workload(name, seed, scale)`` builds one; ``catalogue()`` lists name → description. Besides
the listed names, ``add_<x>_loops`` and ``stream_<x>_words`` accept any x ≥ 1 ([THESIS §5.3.1]).
``scale`` multiplies grid sizes and main loop trip counts (0 < scale; < 1 for quick runs).
"""

from __future__ import annotations

import re
from types import MappingProxyType
from typing import Callable, NamedTuple

from gpusched.config import ConfigError

from . import paper_kernels as pk
from . import recipes as rc
from .socgpu_suite import SUITE as SOCGPU_SUITE
from .ercbench import catalogue_entries as ercb_entries
from .kernel import Kernel, Workload


class Entry(NamedTuple):
    mimics: str                      # the benchmark(s) imitated
    traits: str                      # the characteristics reproduced
    build: Callable[[rc.Ctx], list[Kernel]]


def _e(mimics: str, traits: str, build) -> Entry:
    return Entry(mimics, traits, build)


_ENTRIES: dict[str, Entry] = {
    # required basics
    "mem_stream": _e("STREAM copy", "memory-bound: 8× load/2 ALU/store per thread, coalesced, "
                     "no reuse", rc.streaming),
    "cache_gto": _e("CCWS-style cache-sensitive loop", "each warp re-reads its own 1 KB 8×; all "
                    "warps' lines exceed a 16 KB L1, a few warps' fit: GTO beats LRR",
                    rc.cache_gto),
    "compute_only": _e("FFMA/SFU microbenchmark", "no memory; ILP≈4, 10 % SFU", rc.compute_only),
    # [SOCGPU] archetypes
    "gemm_like": _e("DeepBench gemm", "tiled: LDG→STS, BAR, 128 unrolled FFMA/LDS, BAR; high ILP, "
                    "64-reg pool, A rows shared by 4 CTAs", rc.gemm_like),
    "conv_like": _e("DeepBench conv", "implicit GEMM: halo tiles shared with neighbour CTAs, "
                    "broadcast filter, 96 FFMA/LDS per tile, one BAR per tile", rc.conv_like),
    "rnn_like": _e("DeepBench rnn-lstm/gru", "sequence of 8 small GEMV kernels; weights streamed, "
                   "latency/memory bound", rc.rnn_like),
    "stencil_like": _e("Rodinia hotspot/srad/pathfinder", "shared-memory tile with ghost lines, "
                       "frequent BAR, short loops and blocks, rare divergence", rc.stencil_like),
    "graph_like": _e("Rodinia bfs/b+tree", "frontier check, power-law per-thread neighbour loops, "
                     "dependent LDG gathers, divergent stores", rc.graph_like),
    "mixed_like": _e("Rodinia kmeans/gaussian/lavaMD/hybridsort", "streaming kernel, 6 tiny "
                     "kernels, compute+smem kernel, divergent atomics", rc.mixed_like),
    # [THESIS Table 3.2, Table 3.3] phase kernels (ours)
    "bp_k2_like": _e("Rodinia backprop K2 (ch.3 type A)", "5 phases, shortest (14 cyc) first, "
                     "then a 99-cycle one: GTO beats RR",
                     lambda c: pk.phase_kernel(c, "bpnn_adjust_weights", [14, 99, 60, 40, 30],
                                               regs=24)),
    "srad_like": _e("Rodinia SRAD (ch.3 type A)", "4 phases, two ~31-cycle phases between long "
                    "ones: GTO beats RR", lambda c: pk.phase_kernel(c, "srad", [218, 31, 31, 150], regs=20)),
    "btree_like": _e("Rodinia b+tree K1/K2 (ch.3 type A)", "many phases < 20 cycles with "
                     "branch-back loop: GTO beats RR",
                     lambda c: pk.phase_kernel(c, "findK", [20, 12, 8],
                                               loop=(3, [12, 4, 16, 8, 20]), regs=24)),
    "lud_like": _e("Rodinia LUD (ch.3 tail effect)", "3 phases ending in a 7-cycle phase",
                   lambda c: pk.phase_kernel(c, "lud_internal", [150, 60, 7], regs=20)),
    "cfd_like": _e("Rodinia CFD (ch.3 type B)", "9 phases averaging 290 cycles, 86 to 985, 3 CTAs "
                   "× 6 warps: RR beats GTO",
                   lambda c: pk.phase_kernel(c, "cuda_compute_flux",
                                             [290, 150, 985, 200, 350, 120, 300, 130, 86],
                                             threads=192, ctas=90, loads=4, regs=56)),
    "fwt_like": _e("SDK fastWalshTransform (ch.3 type B)", "2 phases of 45 and 174 cycles, "
                   "16-warp CTAs: RR beats GTO",
                   lambda c: pk.phase_kernel(c, "fwtBatch2", [45, 174], threads=512, ctas=90,
                                             loads=4, regs=20)),
    "heartwall_like": _e("Rodinia heartwall (ch.3 type B)", "45 phases of 41–212 cycles, 56 "
                         "CTAs: RR beats GTO",
                         lambda c: pk.phase_kernel(c, "heartwall", pk.heartwall_cycles(c.seed),
                                                   ctas=56)),
    # [THESIS Table 3.2, Table 3.3]: the remaining ch.3 kernels (phase lists: the
    # tables' count, longest and shortest; the middle phases and the order are our choice, short
    # phase first for the type A kernels whose shortest phase is at the start,
    # [THESIS Table 3.2, Table 3.3])
    "bp_k1_like": _e("Rodinia backprop K1 (ch.3 tail effect)", "5 phases, 206 longest, ending "
                     "in a 26-cycle phase; 6 CTAs/core",
                     lambda c: pk.phase_kernel(c, "bpnn_layerforward", [120, 206, 60, 40, 26],
                                               regs=20)),
    "km_like": _e("Rodinia kmeans (ch.3 tail effect)", "2 phases of 48 and 14 cycles; 6 "
                  "CTAs/core", lambda c: pk.phase_kernel(c, "kmeansPoint", [48, 14], regs=20)),
    "dwt_like": _e("SDK dwtHaar1D (ch.3 type A)", "2 phases, 44 then 144; 512-thread CTAs, 3 "
                   "CTAs/core", lambda c: pk.phase_kernel(c, "dwtHaar1D", [44, 144], threads=512,
                                                          ctas=90, regs=20)),
    "dxtc_like": _e("SDK DXTC compress (ch.3 type A)", "3 phases, 24 first, one of 1159; 4 "
                    "CTAs/core", lambda c: pk.phase_kernel(c, "compress", [24, 1159, 200],
                                                           regs=32)),
    "hist_like": _e("SDK histogram64 (ch.3 type A)", "2 phases, 24 then 44; 192-thread CTAs, 6 "
                    "CTAs/core", lambda c: pk.phase_kernel(c, "histogram64Kernel", [24, 44],
                                                           threads=192, regs=28)),
    "mco_like": _e("SDK MonteCarlo (ch.3 type A)", "2 phases, 38 then 284; 5 CTAs/core",
                   lambda c: pk.phase_kernel(c, "MonteCarloOneBlockPerOption", [38, 284],
                                             regs=24)),
    # ch.3 type B stand-ins whose CTAs run out of step ([THESIS §3.3.2]): CFD's and heartwall's
    # phases with a loop of per-CTA trip count (docs/mechanisms/phase-aware.md)
    "cfd_stagger_like": _e("Rodinia CFD, CTAs out of step (ch.3 type B)", "CFD's 9 phases, 3 of "
                           "them in a loop of 2 trips × a per-CTA lognormal factor; 3 CTAs × 6 warps",
                           lambda c: pk.staggered_phase_kernel(
                               c, "cuda_compute_flux", [290, 150], [985, 200, 350],
                               [120, 300, 130, 86], trips=2, spread=0.8, threads=192, ctas=90, loads=4, regs=56)),
    # [THESIS Table 4.4] ONAC
    "onac_tp_like": _e("SDK transpose (ONAC type A, N_opt≈8)", "bandwidth bound, r=6 ALU per "
                       "128-B load", lambda c: pk.onac(c, "transpose", 6, 4)),
    "onac_bp_k2_like": _e("Rodinia backprop K2 (ONAC type A, N_opt≈12)", "r=10 ALU per load",
                          lambda c: pk.onac(c, "bpnn_adjust_weights", 10, 4)),
    "onac_bt_k2_like": _e("Rodinia b+tree K2 (ONAC type A, N_opt≈31)", "r=28 ALU per load",
                          lambda c: pk.onac(c, "findRangeK", 28, 2)),
    "onac_compute": _e("Rodinia hotspot/pathfinder (ONAC type B)", "compute bound: r=48, "
                       "15 % SFU; scales to all cores",
                       lambda c: pk.onac(c, "hotspot", 48, 1, 0.15)),
    # [THESIS Table 4.2] Perf-Sat
    "perfsat_c_strong": _e("Rodinia b+tree / SRAD-6 (C-strong)", "dependent-load chains, low "
                           "bandwidth: more CTAs always help", pk.perfsat_c_strong),
    "perfsat_c_weak": _e("Rodinia pathfinder / BP-2 (C-weak)", "coalesced loads with 16 ALU "
                         "each: saturates near N_max−1", pk.perfsat_c_weak),
    "perfsat_mem": _e("Rodinia LUD / CFD (MEM)", "5 KB per-CTA tile re-read each iteration, "
                      "plus a fresh line: > 3 CTAs overflow a 16 KB L1", pk.perfsat_mem),
    "perfsat_gaussian": _e("Rodinia gaussian (MEM)", "16-thread CTAs: the CTA-slot limit binds",
                           pk.perfsat_gaussian),
    # [THESIS §5.3.1] ch.5 pairs
    "add_10_loops": _e("thesis ch.5 add_x_loops, x=10", "compute-intensive loop after 2 loads",
                       lambda c: pk.add_x_loops(c, 10)),
    "add_20_loops": _e("thesis ch.5 add_x_loops, x=20", "compute-intensive loop after 2 loads",
                       lambda c: pk.add_x_loops(c, 20)),
    **{f"stream_{x}_words": _e(f"thesis ch.5 stream_x_words, x={x}", f"memory-intensive: {x} "
                               "loads + stores per thread", (lambda x: lambda c:
                                                             pk.stream_x_words(c, x))(x))
       for x in (1, 2, 3, 4)},
    # [IKRA]
    "ikra_gpu_small": _e("IKRA GPU-small", "12 TBs × 8 KB in-place load-add-store, 16 launches",
                         lambda c: pk.ikra_micro(c, 12)),
    "ikra_gpu_medium": _e("IKRA GPU-medium", "24 TBs (192 KB), 16 launches",
                          lambda c: pk.ikra_micro(c, 24)),
    "ikra_gpu_large": _e("IKRA GPU-large", "128 TBs (1 MB), 16 launches: LRU thrashing",
                         lambda c: pk.ikra_micro(c, 128)),
    "ikra_work_stealing": _e("IKRA Work-Stealing", "128 TBs doing 1–64 load-add-stores rising "
                             "with TB id, 8 launches", lambda c: pk.ikra_micro(c, 128, 8, True)),
    "ikra_hotspot": _e("Rodinia hotspot (IKRA regular iterative)", "tile + N/S/E/W neighbours "
                       "(~5 % ghost), read-only power, buffers swapped per launch",
                       lambda c: pk.ikra_stencil(c, "hotspot", (4, 64), readonly_input=True)),
    "ikra_tile_ghost": _e("IKRA synthetic iterative stencil", "TB b reads [b·T−h, (b+1)·T+h), "
                          "writes [b·T, (b+1)·T), T=4 KB, h=256 B, buffers swapped, 8 launches",
                          pk.tile_ghost),
    "ikra_pathfinder": _e("Rodinia pathfinder (IKRA)", "100 % self dependence, read-only wall "
                          "row per launch, smem pyramid with BAR", pk.ikra_pathfinder),
    "ikra_srad": _e("Rodinia SRAD v1 (IKRA)", "2 kernels per iteration, neighbour reads, "
                    "data-dependent TB work", pk.ikra_srad),
    "ikra_stencil": _e("Parboil stencil (IKRA)", "7-point stencil, ~8 % ghost, buffers swapped",
                       lambda c: pk.ikra_stencil(c, "block2D_hybrid", (4, 32, 64), alu=14)),
    "ikra_kmeans": _e("Rodinia kmeans (IKRA)", "large read-only features reused each launch, "
                      "CPU-made centroids, data-dependent TB work", pk.ikra_kmeans),
    "ikra_graph_coloring": _e("Pannotia coloring on cond_mat (IKRA irregular)", "power-law CSR, "
                              "per-thread work ∝ degree, 2 kernels per iteration",
                              pk.ikra_graph_coloring),
    "ikra_graph_coloring_banded": _e("Pannotia coloring on olesnik0 (IKRA irregular)", "banded "
                                     "(balanced) degrees, 345 TBs",
                                     lambda c: pk.ikra_graph_coloring(c, "banded", 345)),
    # OWL archetypes (ours, toward [OWL Table 4])
    "owl_t_reuse": _e("MapReduce PVC/IIX (OWL T-REUSE)", "6-warp CTAs, private 8 KB tile re-read 3×: "
                      "5 CTAs per core overflow L1, 2–3 fit; each DRAM row shared by 2 CTAs "
                      "(~31 % consecutive)", rc.owl_reuse),
    "owl_t_stream_shared": _e("JPEG/SD2/BP/SPMV (OWL T-STREAM-SHARED)", "streaming, no L1 "
                              "reuse, 8 consecutive CTAs share DRAM rows",
                              lambda c: rc.owl_stream(c, 8, False)),
    "owl_t_stream_private": _e("SCP/FWT (OWL T-STREAM-PRIVATE)", "streaming, each CTA its own "
                               "rows (0 % sharing)", lambda c: rc.owl_stream(c, 1, True)),
    "owl_t_irregular": _e("SC/MUM/SSC/BFS (OWL T-IRREGULAR)", "hashed 8-line gathers over 64 MB, "
                          "moderate reuse, 12 ALU per load", rc.owl_irregular),
    "owl_t_mixed": _e("SAD/KMN (OWL T-MIXED)", "2-block windows of a 16-block image: ~32 "
                      "CTAs per DRAM row, each line read by 2 CTAs", rc.owl_mixed),
    "owl_t_small": _e("Weather Prediction (OWL T-SMALL)", "≤ 6 warps per core (2-warp CTAs, "
                      "16 KB smem)", rc.owl_small),
    "owl_t_compute": _e("Type-2 apps, e.g. MM/CP (OWL T-COMPUTE)", "PMEM < 1.4×: 40 ALU per "
                        "load", rc.owl_compute),
    # [SOCGPU] suite (sim/workload/socgpu_suite.py)
    **{name: _e(*entry) for name, entry in SOCGPU_SUITE.items()},
    # [SRTF ERCBench] ERCBench kernels (sim/workload/ercbench.py)
    **{name: _e(*entry) for name, entry in ercb_entries().items()},
}
ENTRIES = MappingProxyType(_ENTRIES)
_PARAMETRIC = re.compile(r"^(add|stream)_(\d+)_(loops|words)$")


def catalogue() -> dict[str, str]:
    """Name → one-line description: which benchmark it mimics and which characteristics."""
    return {name: f"mimics {e.mimics}: {e.traits}" for name, e in ENTRIES.items()}


def _entry(name: str) -> Entry:
    if name in ENTRIES:
        return ENTRIES[name]
    m = _PARAMETRIC.match(name)
    if m and int(m.group(2)) >= 1 and (m.group(1), m.group(3)) in (("add", "loops"),
                                                                   ("stream", "words")):
        x = int(m.group(2))
        if m.group(1) == "add":
            return _e(f"thesis ch.5 add_x_loops, x={x}", "compute loop",
                      lambda c: pk.add_x_loops(c, x))
        return _e(f"thesis ch.5 stream_x_words, x={x}", "memory stream",
                  lambda c: pk.stream_x_words(c, x))
    raise ConfigError("workload", name, "one of " + ", ".join(ENTRIES)
                      + ", add_<x>_loops, stream_<x>_words")


def get_workload(name: str, seed: int = 0, scale: float = 1.0) -> Workload:
    """Build catalogue entry ``name``; same (name, seed, scale) → identical streams."""
    if not isinstance(scale, (int, float)) or not 0 < scale <= 1000:
        raise ConfigError("scale", scale, "a number in (0, 1000]")
    entry = _entry(name)
    c = rc.Ctx(int(seed), float(scale))
    kernels = entry.build(c)
    for k in kernels:
        k.meta.setdefault("mimics", entry.mimics)
    return c.workload(name, kernels, f"mimics {entry.mimics}: {entry.traits}")


def estimate_warp_instructions(kernel: Kernel, sample_ctas: int = 4) -> int:
    """Approximate dynamic warp instructions: all warps of a few evenly spaced CTAs, scaled."""
    n = kernel.n_ctas
    picks = sorted({(i * (n - 1)) // max(1, sample_ctas - 1) for i in range(min(n, sample_ctas))})
    total = sum(1 for cta in picks for w in range(kernel.warps_per_cta())
                for _ in kernel.stream(cta, w))
    return round(total * n / len(picks))
