"""The reference of every key in a run's statistics (``gpusched run --json`` and ``--format
accelsim``; ``sim.stats.collect``).

``python -m sim.stats_reference`` writes docs/stats.md from ``STATS``;
tests/sim/test_stats_reference.py runs the CLI for a run of every kind (a table of command
lines) and checks that every key it prints is listed here, that every listed key is printed by
one of them, and that docs/stats.md is the current rendering.

Key paths: ``a.b`` is key ``b`` of object ``a``; ``a[]`` is every element of list ``a``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from sim.stats import ISSUE_SLOT_REASONS


@dataclass(frozen=True)
class Stat:
    key: str            # dotted path, [] for list elements
    unit: str
    definition: str     # formula or source (paper section, docs page)
    level: str          # which part of the model computes it


GPU, SM, SUB, KER = "GPU (sim/gpu.py)", "SM (sim/sm.py)", "sub-core (sim/subcore.py)", "kernel run (sim/gpu.py)"
L1, L2 = "L1 (sim/memory/l1.py)", "L2 slices (sim/memory/l2.py)"
ICNT, DRAM = "interconnect (sim/memory/hierarchy.py)", "DRAM (sim/memory/dram.py)"
HIER, FIXED = "memory hierarchy (sim/memory/hierarchy.py)", "fixed memory (sim/memory/fixed.py)"
ISSUE, ENERGY = "issue stage (sim/issue/)", "energy (sim/memory/energy.py, sim/stats.py)"
RUN = "run (sim/run.py)"
PREFETCH = "OWL prefetcher (sim/memory/prefetch.py)"
PROF = "warp-state profiler (sim/profile/warp_states.py)"
ACCEL = "Accel-Sim statistics (sim/workload/trace_stats.py)"
OWLPROF = "OWL metrics profiler (sim/profile/owl_metrics.py)"

_REASONS = {
    "issued": "slots in which the scheduler issued a warp instruction. A slot, not an instruction: "
              "with dual issue one slot issues two, so `warp_insts` ≥ `issue.issued`",
    "issue_interval": "the scheduler issued less than `sm.issue_interval` cycles ago",
    "unit_busy": "a warp was ready but its functional unit was busy (initiation interval, or the "
                 "LD/ST unit stalled on the memory system)",
    "memory": "a warp waits on a global-load destination (long-op register) or a fence",
    "scoreboard": "a warp waits on another pending register write",
    "barrier": "a warp waits at `bar.sync`",
    "fetch": "a warp has an empty instruction buffer",
    "idle": "no live warp on the scheduler",
    "paused": "the SM is paused or power-gated by the active-SM controller",
}
_REASON_NOTE = (" (first reason that holds, in the order of this table; "
                "the reasons sum to cycles × SMs × sub-cores)")


_STATUS = {
    "hit": "the sector was present",
    "hit_reserved": "the sector was on its way (merged into a pending miss; Accel-Sim's MSHR_HIT "
                    "counts the same accesses)",
    "miss": "the first missing sector of an access to an absent line",
    "sector_miss": "any other missing sector (the line present or just allocated)",
}


def _issue(prefix: str, scope: str, level: str) -> list[Stat]:
    return [Stat(f"{prefix}.{r}", "scheduler-cycles", f"{scope}: {_REASONS[r]}"
                 + (_REASON_NOTE if r == "idle" else ""), level) for r in ISSUE_SLOT_REASONS]



# Accel-Sim's names (the ACCELSIM table below says how each maps to ours): per kernel only,
# per kernel and in the totals, totals only
_ACCEL_KERNEL = (
    ("kernel_name", "", "kernel name"),
    ("kernel_launch_uid", "", "launch number, from 1"),
    ("gpu_sim_cycle", "core cycles", "the kernel's `cycles`"),
    ("gpu_sim_insn", "thread instructions", "active lanes of every warp instruction of the "
                                            "kernel, EXIT included"),
    ("gpu_ipc", "thread instructions / cycle", "`gpu_sim_insn / gpu_sim_cycle`, 4 decimals "
                                               "(thread IPC, not the warp IPC `ipc`)"),
    ("gpu_occupancy", "%", "resident warps / warp slots over the kernel's occupancy samples"),
    ("L2_BW", "GB/s", "sectors accessed in the L2 during the kernel × 32 B / its time"))
_ACCEL_STATUS = {"HIT": "hits", "HIT_RESERVED": "hits on a sector still being filled",
                 "MISS": "misses allocating the line",
                 "SECTOR_MISS": "misses of a sector of a present line",
                 "MSHR_HIT": "= HIT_RESERVED", "TOTAL_ACCESS": "the four statuses summed"}
_ACCEL_BOTH = (
    ("gpu_tot_sim_cycle", "core cycles", "cycles from the run's start"),
    ("gpu_tot_sim_insn", "thread instructions", "thread instructions, cumulative"),
    ("gpu_tot_ipc", "thread instructions / cycle", "`gpu_tot_sim_insn / gpu_tot_sim_cycle`"),
    ("gpgpu_n_tot_w_icount", "warp instructions", "warp instructions, cumulative"),
    *[(f"{cache}_stats_breakdown[GLOBAL_ACC_{rw}][{status}]", "sectors",
       f"{what} {'reads and atomics' if rw == 'R' else 'writes'} of 32 B sectors: "
       f"{_ACCEL_STATUS[status]}, cumulative")
      for cache, what in (("L2_cache", "L2"), ("Total_core_cache", "L1D"))
      for rw in "RW"
      for status in ("HIT", "HIT_RESERVED", "MISS", "SECTOR_MISS", "MSHR_HIT", "TOTAL_ACCESS")],
    ("L1D_total_cache_accesses", "sectors", "L1D TOTAL_ACCESS of reads + writes (0 when global "
                                            "accesses bypass the L1)"),
    ("L1D_total_cache_misses", "sectors", "L1D MISS + SECTOR_MISS"),
    ("L2_total_cache_accesses", "sectors", "L2 TOTAL_ACCESS of reads + writes"),
    ("L2_total_cache_misses", "sectors", "L2 MISS + SECTOR_MISS"),
    ("total dram reads", "sectors", "`dram.bytes_read / 32` (the name has spaces, as Accel-Sim "
                                    "prints it)"),
    ("total dram writes", "sectors", "`dram.bytes_written / 32`"))
_ACCEL_TOTAL = (
    ("gpgpu_n_shmem_bkconflict", "cycles", "extra shared-memory cycles from bank conflicts "
                                           "(`smem.cycles − smem.accesses`)"),
    ("gpu_stall_dramfull", "events", "`memory.l2.stalls`"),
    ("Stall", "scheduler-cycles", "`issue.unit_busy` (printed `Stall:N`, as Accel-Sim does)"),
    ("W0_Idle", "scheduler-cycles", "`issue.idle + fetch + barrier` (printed `W0_Idle:N`)"),
    ("W0_Scoreboard", "scheduler-cycles", "`issue.scoreboard + memory` (printed `W0_Scoreboard:N`)"))

STATS: list[Stat] = [
    # ---- run identity -------------------------------------------------------------------------
    Stat("preset", "", "configuration name (preset or .toml path)", RUN),
    Stat("workload", "", "workload name (catalogue entry, trace directory or factory)", RUN),
    Stat("seed", "", "the run's RNG seed: same inputs and seed → byte-identical JSON", RUN),
    Stat("warp_sched", "", "warp scheduler policy of every sub-core (`sm.warp_sched`: lrr, gto, …)", RUN),
    Stat("policies.cta_scheduler", "", "class of the CTA scheduler in force (`--cta-scheduler`)", RUN),
    Stat("policies.kernel_scheduler", "", "class of the kernel scheduler in force", RUN),
    Stat("policies.cta_limit", "", "class of the per-SM CTA-limit policy in force", RUN),
    Stat("policies.sm_controller", "", "class of the active-SM controller in force", RUN),
    Stat("policy_reports.cta_scheduler", "object", "IKRA schedulers: `policy`, counters (`stats`) "
         "and the CTA ids stolen per launch (`stolen`); absent for the baseline", "sim/policies/ikra_cta.py"),
    Stat("policy_reports.cta_limit", "object", "Perf-Sat: per SM and kernel the FSM's windows and "
         "chosen limit ([THESIS §4.3]); `ctas_N`: `n`; absent for the baseline", "sim/policies/"),
    Stat("policy_reports.sm_controller", "object", "ONAC / Seq-Det: `mode`, the detection `trace` per "
         "kernel (samples, estimates, `n_opt`, start and decision cycles) and CTA-eligibility "
         "`events` ([THESIS §4.4]); `active_N`: `n_active`; absent for the baseline", "sim/policies/"),
    Stat("policy_reports.kernel_scheduler", "object", "SRTF family (`srtf`, `adaptive`, `mpmax`, "
         "`srtf_fifo`): `policy`, `switches` (from, to, why: `sample` / `update` / `oracle`; kernel "
         "slots), `records` (predictor records read), Adaptive's `sharing` episodes (S, L, `enter` "
         "or why it ended); absent for `fifo` and `sm_partition`", "sim/policies/srtf.py"),
    # ---- whole GPU ----------------------------------------------------------------------------
    Stat("cycles", "core cycles", "cycle of the last completion + 1 (the run's length)", GPU),
    Stat("warp_insts", "warp instructions", "warp instructions issued, all SMs (dual issue counts 2)", GPU),
    Stat("ipc", "warp instructions / cycle", "warp IPC: `warp_insts / cycles` (whole GPU, not per SM; "
         "Accel-Sim's `accelsim.total.gpu_tot_ipc` counts thread instructions)", GPU),
    *_issue("issue", "all schedulers", SUB),
    # ---- per kernel ---------------------------------------------------------------------------
    Stat("kernels[].name", "", "kernel name", KER),
    Stat("kernels[].index", "", "launch order, from 0", KER),
    Stat("kernels[].launched", "core cycle", "cycle the kernel was handed to the kernel scheduler", KER),
    Stat("kernels[].start", "core cycle", "cycle its first CTA was placed", KER),
    Stat("kernels[].end", "core cycle", "cycle its last CTA finished (-1: never)", KER),
    Stat("kernels[].cycles", "core cycles", "`end - start + 1` (0 if it never finished); STP/ANTT use it", KER),
    Stat("kernels[].warp_insts", "warp instructions", "warp instructions of this kernel", KER),
    Stat("kernels[].ipc", "warp instructions / cycle", "`warp_insts / cycles` of this kernel", KER),
    Stat("kernels[].ctas", "CTAs", "CTAs in its grid", KER),
    Stat("kernels[].occupancy_limit", "CTAs per SM", "resident CTAs per SM allowed by the occupancy "
         "limits (threads, registers, shared memory, CTA slots)", KER),
    Stat("kernels[].occupancy_limiter", "", "which limit set `occupancy_limit`", KER),
    *_issue("kernels[].issue", "slots of the SMs holding this kernel's blocks (an SM without "
            "blocks: of every kernel in flight; sim/kernel_issue.py)", SUB),
    # ---- per SM -------------------------------------------------------------------------------
    Stat("sm.warp_insts", "warp instructions, one per SM", "warp instructions issued by each SM", SM),
    Stat("sm.ctas_launched", "CTAs, one per SM", "CTAs placed on each SM", SM),
    Stat("sm.paused_cycles", "core cycles, one per SM", "cycles each SM was paused (no new CTAs, "
         "draining; [THESIS §4.4])", SM),
    Stat("sm.gated_cycles", "core cycles, one per SM", "cycles each SM was power-gated ([THESIS §4.4])", SM),
    *_issue("sm.issue[]", "the SM's schedulers", SUB),
    Stat("ctas.fields", "", "column names of `ctas.rows`: kernel, cta, sm, start, end", GPU),
    Stat("ctas.rows", "rows", "one row per CTA: kernel index, CTA id, SM, start and end cycle", GPU),
    Stat("occupancy.interval", "core cycles", "sampling period of `occupancy.samples`", GPU),
    Stat("occupancy.fields", "", "column names of `occupancy.samples`: cycle, active_warps, active_ctas", GPU),
    Stat("occupancy.samples", "rows", "resident warps and CTAs on the whole GPU, every `interval` cycles", GPU),
    Stat("occupancy.warp_slots", "warps", "`sm.warps_per_sm × sm.count` (100 % occupancy)", GPU),
    # ---- issue stage --------------------------------------------------------------------------
    Stat("issue_stage.kind", "", "issue stage in force (`sm.issue`: inorder, socgpu, inorder_issue)", ISSUE),
    Stat("issue_stage.fetches", "fetches", "instruction-buffer fills, all sub-cores", ISSUE),
    Stat("issue_stage.dual_issues", "slots", "in-order stages: slots that issued two instructions", ISSUE),
    *[Stat(f"issue_stage.{k}", u, d + " (SOCGPU only, [SOCGPU])", ISSUE) for k, u, d in (
        ("fetched_slots", "instructions", "instructions brought into the instruction buffers"),
        ("flushes", "events", "IB flushes on a taken branch"),
        ("flushed_entries", "instructions", "IB entries discarded by flushes"),
        ("flushes_per_100", "per 100 warp instructions", "`100 × flushes / warp_insts`"),
        ("wrong_path_slots", "slots", "fetch slots spent on the wrong path"),
        ("dropped_slots", "slots", "fetch slots dropped because the IB was full"),
        ("serial_issued", "instructions", "instructions issued under the serial (in-order) rule"),
        ("serial_share", "fraction", "`serial_issued / warp_insts`"),
        ("ib_occupancy", "entries", "time-average of valid IB entries per warp"),
        ("ready_entries", "entries", "time-average of ready IB entries per warp"),
        ("candidates", "warps", "time-average of warps offering a candidate, per scheduler"))],
    # ---- memory: common -----------------------------------------------------------------------
    Stat("memory.kind", "", "memory system: hierarchy or fixed (`--memory`)", RUN),
    # ---- memory: hierarchy --------------------------------------------------------------------
    *[Stat(f"memory.l1.{k}", u, d, L1) for k, u, d in (
        ("hits", "line accesses", "load line accesses whose requested sectors were all present"),
        ("misses", "line accesses", "load line accesses that allocated an MSHR (a read to the L2): "
                                    "the line was absent, or present with a requested sector missing"),
        ("sector_misses", "line accesses", "the subset of `misses` where the line's tag was present "
                                           "but a requested sector was not (a partial-line miss). 0 on "
                                           "streaming kernels: every missing line is absent, so all "
                                           "misses are whole-line misses"),
        ("merges", "line accesses", "load line accesses merged into an outstanding MSHR"),
        ("hit_rate", "fraction", "`hits / (hits + misses + merges)` (loads only)"),
        ("hits_prev_kernel", "line accesses", "hits on lines filled during an earlier kernel ([IKRA DeNovo])"),
        ("store_hits", "line accesses", "store line accesses to a present line"),
        ("store_misses", "line accesses", "store line accesses to an absent line (write-through: no allocate)"),
        ("writebacks", "lines", "dirty lines written back (write-back L1 only)"),
        ("stalls", "events", "warp memory instructions refused (MSHRs or injection queue full)"),
        ("max_mshr", "entries", "most MSHRs in use at once, largest over SMs"),
        ("prefetches", "lines", "prefetches issued (OWL prefetcher)"),
        ("prefetch_hits", "line accesses", "first demand hits on prefetched lines"),
        ("sector_accesses", "sectors", "32 B sectors read or written in the data array (hits, fills, "
                                       "stores): what `energy.l1_pj` prices"),
        ("miss_latency_mean", "core cycles", "mean MSHR allocation → fill, over completed misses"))],
    *[Stat(f"memory.l2.{k}", u, d, L2) for k, u, d in (
        ("hits", "line accesses", "read line accesses whose sectors were all present"),
        ("misses", "line accesses", "read line accesses sent to DRAM (line absent or a sector missing)"),
        ("sector_misses", "line accesses", "the subset of `misses` with the line present but a sector "
                                           "missing (partial-line miss; see `l1.sector_misses`)"),
        ("merges", "line accesses", "reads merged into an outstanding MSHR"),
        ("hit_rate", "fraction", "`hits / (hits + misses + merges)` (reads only)"),
        ("writes", "line accesses", "write packets from the L1s"),
        ("atomics", "operations", "atomics executed at the L2"),
        ("writebacks", "lines", "dirty lines written to DRAM"),
        ("stalls", "events", "times a slice stopped accepting requests (MSHRs, a sector's MSHR merges (`l2.mshr_merge`) or DRAM input queue full)"),
        ("merge_fails", "events", "of those stalls, the ones on a sector's MSHR entry holding `l2.mshr_merge` requests (0 without the limit)"),
        ("refused_cycles", "slice-cycles", "cycles a slice refused the interconnect, its input queue (`l2.input_queue`) full of held-back requests (Accel-Sim's `gpu_stall_dramfull`; 0 without the bound)"),
        ("max_mshr", "entries", "most MSHRs in use at once, largest over slices"),
        ("prefetches", "lines", "prefetches issued into the L2"),
        ("prefetch_hits", "line accesses", "first demand hits on prefetched lines"),
        ("sector_accesses", "sectors", "32 B sectors read or written in the data array: what "
                                       "`energy.l2_pj` prices"))],
    *[Stat(f"memory.{c}.acc_{k}_{st}", "sectors",
           f"{'reads and atomics' if k == 'r' else 'writes'} of 32 B sectors in the "
           f"{c.upper()} with Accel-Sim's status {st.upper()}: {_STATUS[st]} "
           f"(`sim.memory.cache.count_access`{'; 0 when global accesses bypass the L1' if c == 'l1' else ''})",
           L1 if c == "l1" else L2)
      for c in ("l1", "l2") for k in ("r", "w") for st in _STATUS],
    Stat("memory.kernel_ends[].cycle", "core cycle", "a kernel's last cycle (one entry per kernel, in "
         "the order they finish)", HIER),
    Stat("memory.kernel_ends[].l1", "sectors", "the 8 `l1.acc_*` counters (reads: hit, hit_reserved, "
         "miss, sector_miss; then writes) summed over SMs, cumulative at that cycle", HIER),
    Stat("memory.kernel_ends[].l2", "sectors", "the same for the `l2.acc_*` counters over slices", HIER),
    Stat("memory.kernel_ends[].dram_reads", "sectors", "`dram.bytes_read / 32` at that cycle", HIER),
    Stat("memory.kernel_ends[].dram_writes", "sectors", "`dram.bytes_written / 32` at that cycle", HIER),
    *[Stat(f"memory.icnt.{d}.{k}", u, f"{'SM → L2' if d == 'up' else 'L2 → SM'}: {t}", ICNT)
      for d in ("up", "down") for k, u, t in (
        ("packets", "packets", "packets carried"),
        ("bytes", "bytes", "bytes carried, headers included"),
        ("flits", "flits", "flits carried"),
        ("max_waiting", "packets", "most packets waiting to enter at one source"),
        ("wait_mean", "core cycles", "mean wait before injection per packet"))],
    *[Stat(f"memory.dram.{k}", u, d, DRAM) for k, u, d in (
        ("reads", "requests", "read requests served"),
        ("writes", "requests", "write requests served"),
        ("bytes_read", "bytes", "bytes read from DRAM"),
        ("bytes_written", "bytes", "bytes written to DRAM"),
        ("row_hits", "accesses", "accesses to the open row of their bank"),
        ("row_closed", "accesses", "accesses to a bank with no open row (one ACT)"),
        ("row_conflicts", "accesses", "accesses to a bank with another row open (PRE + ACT)"),
        ("activations", "commands", "row activations (ACT), priced by `dram_activate_pj`"),
        ("row_hit_rate", "fraction", "`row_hits / (row_hits + row_closed + row_conflicts)` ([OWL §4.3] RBL)"),
        ("queue_latency_mean", "core cycles", "mean wait in the scheduler queue per access"),
        ("access_latency_mean", "core cycles", "mean queue entry → data done per request"),
        ("blp", "banks", "mean busy banks over the whole GPU while any is busy ([OWL §4.3] BLP)"),
        ("blp_per_channel", "banks", "mean over channels of busy banks while the channel is busy"),
        ("queue_mean", "requests", "time-average queue length per channel"),
        ("queue_max", "requests", "longest scheduler queue seen, largest over channels"),
        ("input_buffer_max", "requests", "most requests waiting for a full queue"),
        ("peak_bytes_per_cycle", "bytes / core cycle", "`channels × bus_bytes × data_rate × dram clock "
                                                       "/ core clock`: the bandwidth ceiling"),
        ("first_done", "core cycle", "first request completed (-1: none)"),
        ("last_done", "core cycle", "last request completed (-1: none)"))],
    *[Stat(f"memory.dram.{k}", u, d, DRAM) for k, u, d in (
        ("prefetch_reads", "requests", "OWL prefetch reads served (`dram.prefetch`; not in `reads`, "
                                       "the row counters, BLP or the latencies, which stay demand-only)"),
        ("prefetch_bytes", "bytes", "bytes of those prefetch reads (included in `bytes_read`)"),
        ("row_hit_rate_with_prefetch", "fraction", "`(row_hits + prefetch_reads) / (row_hits + "
         "row_closed + row_conflicts + prefetch_reads)`: RBL counting prefetches (every prefetch "
         "is a row hit; [OWL §4.3]), aggregate over banks"))],
    *[Stat(f"memory.prefetch.{k}", u, d + " (0 with `dram.prefetch = off`)", PREFETCH) for k, u, d in (
        ("issued", "lines", "prefetch reads the engines issued into open rows ([OWL §4.4])"),
        ("skipped_in_l2", "lines", "proposed lines skipped because the line was in its L2 slice "
                                   "or an MSHR was fetching it"),
        ("fills", "lines", "prefetched lines installed in an L2 slice (flag `prefetched`)"),
        ("late", "lines", "prefetches whose data arrived while a demand for the line waited in an "
                          "L2 MSHR (the prefetch serves it)"),
        ("redundant", "lines", "prefetches whose line was already in the slice on arrival"),
        ("used", "lines", "`l2.prefetch_hits + late`: prefetched lines a demand used"),
        ("held_slots", "command slots", "slots in which scheme B's row-hold kept a conflicting "
                                        "demand waiting and no other demand issued"),
        ("accuracy", "fraction", "`used / issued` (ours: [OWL] reports no prefetch accuracy)"),
        ("coverage", "fraction", "`l2.prefetch_hits / (l2.prefetch_hits + dram.reads)`: demand "
                                 "DRAM reads avoided over those a run without prefetching would "
                                 "make (ours: [OWL] reports no prefetch coverage)"),
        ("lateness", "fraction", "`late / used`: used prefetches that arrived after the demand"))],
    *[Stat(f"memory.mem.{k}", u, d, HIER) for k, u, d in (
        ("loads", "warp instructions", "global loads issued to the memory system"),
        ("stores", "warp instructions", "global stores issued to the memory system"),
        ("atomics", "warp instructions", "atomics issued to the memory system"),
        ("load_latency_mean", "core cycles", "mean issue → completion per global load"))],
    Stat("memory.smem.accesses", "warp instructions", "shared-memory instructions", HIER),
    Stat("memory.smem.cycles", "bank cycles", "shared-memory access cycles (bank conflicts add "
         "cycles): what `energy.smem_pj` prices", HIER),
    *[Stat(f"memory.traffic.{k}", "bytes", d, HIER) for k, d in (
        ("l1_to_l2_bytes", "data bytes sent from the L1s to the L2 (stores, write-backs)"),
        ("l2_to_l1_bytes", "data bytes returned from the L2 to the L1s (fills)"),
        ("l2_to_dram_bytes", "`dram.bytes_written`"),
        ("dram_to_l2_bytes", "`dram.bytes_read`"))],
    # ---- memory: fixed ------------------------------------------------------------------------
    *[Stat(f"memory.{k}", u, d + " (fixed memory only)", FIXED) for k, u, d in (
        ("loads", "warp instructions", "global loads"),
        ("stores", "warp instructions", "global stores"),
        ("atomics", "warp instructions", "atomics"),
        ("lines", "lines", "`l1.line_bytes` lines moved through the DRAM pipe"),
        ("bytes", "bytes", "`lines × l1.line_bytes`"),
        ("refused", "events", "instructions refused by the in-flight line cap"),
        ("avg_latency", "core cycles", "mean issue → completion per request"),
        ("bytes_per_cycle", "bytes / core cycle", "the DRAM pipe's bandwidth"),
        ("latency", "core cycles", "`dram.fixed_latency + 2 × icnt.latency`"))],
    # ---- warp-state profiler (--profile warp-states; [THESIS §5.3]) -------------------------
    Stat("warp_states.states", "", "the 8 warp states, in column order (`--profile warp-states` "
         "only; docs/mechanisms/concurrent-kernels.md)", PROF),
    Stat("warp_states.columns", "", "columns of `per_sm` rows (after the SM id) and `series` bins: "
         "the 8 states, then alu_load and mem_load", PROF),
    Stat("warp_states.bin_cycles", "core cycles", "width of one `series` bin (doubles as the run grows; "
         "at most 256 bins)", PROF),
    Stat("warp_states.cycles", "core cycles", "`cycles` of the run (the profiled span)", PROF),
    Stat("warp_states.sms", "SMs", "`sm.count` (÷ for per-SM means)", PROF),
    Stat("warp_states.kernels[].name", "", "kernel name", PROF),
    Stat("warp_states.kernels[].index", "", "launch order, from 0", PROF),
    Stat("warp_states.kernels[].warps_per_cta", "warps", "warps in one CTA of the kernel", PROF),
    *[Stat(f"warp_states.kernels[].warp_cycles.{k}", "warp-cycles", d + "; the 8 states sum to the "
           "kernel's resident warp-cycles" if k == "completed" else d, PROF) for k, d in (
        ("ib_empty", "resident warps with an empty instruction buffer (waiting on fetch)"),
        ("alu_scoreboard", "an operand waits on an earlier ALU-class write"),
        ("mem_scoreboard", "an operand waits on a global load (long-op register) or a fence"),
        ("alu_stall", "ready, but its non-memory unit (ALU, SFU, FP64, DIV) is busy"),
        ("mem_stall", "ready, but the LD/ST unit is busy or stalled by the memory system"),
        ("can_issue_alu", "ready and its non-memory unit free (issued or not)"),
        ("can_issue_mem", "ready and the LD/ST unit free (issued or not)"),
        ("completed", "exited or at `bar.sync`: waiting for the rest of its CTA"))],
    Stat("warp_states.kernels[].alu_load", "instructions", "mean over the run's cycles of the kernel's "
         "results waiting for write-back (ALU-class and shared-memory instructions with a destination), "
         "all SMs", PROF),
    Stat("warp_states.kernels[].mem_load", "instructions", "mean over the run's cycles of the kernel's "
         "global/atomic memory instructions in flight, all SMs", PROF),
    Stat("warp_states.kernels[].per_sm", "rows", "per SM that held the kernel: [sm, the 8 states in "
         "warp-cycles, alu_load and mem_load in load-cycles]", PROF),
    Stat("warp_states.kernels[].series", "rows", "per `bin_cycles` bin from cycle 0, all SMs: the 8 "
         "states in warp-cycles, then the two loads in load-cycles (÷ bin_cycles = mean warps)", PROF),
    # ---- OWL metrics profiler (--profile owl; [OWL]) ---------------------------------------
    Stat("owl.cycles", "core cycles", "`cycles` of the run (`--profile owl` only; "
         "docs/mechanisms/owl.md)", OWLPROF),
    Stat("owl.sms", "SMs", "`sm.count`; the fractions below divide by `sms × cycles`", OWLPROF),
    Stat("owl.columns", "", "columns of `per_sm` rows after the SM id: inactive, memory_block, no_warp, "
         "memory_stall", OWLPROF),
    Stat("owl.inactive_cycles", "SM-cycles", "cycles in which none of the SM's sub-cores issued or is "
         "inside the `sm.issue_interval` of its last issue (no warp instruction executing), all SMs",
         OWLPROF),
    Stat("owl.cinv", "fraction", "CINV [OWL Table 2]: `inactive_cycles / (sms × cycles)`", OWLPROF),
    Stat("owl.memory_block_cycles", "SM-cycles", "MemoryBlockCycles [OWL Fig. 3]: cycles in which the SM "
         "holds a CTA, ≥ 1 live warp waits on a global load or fence (wait state memory) and every "
         "other live warp waits on memory or at `bar.sync` (none ready, on the scoreboard or "
         "fetching); sampled at the issue stage; L1-hit waits count too", OWLPROF),
    Stat("owl.memory_block_fraction", "fraction", "`memory_block_cycles / (sms × cycles)` "
         "(Fig. 3's share; divide by RR's total for Fig. 8)", OWLPROF),
    Stat("owl.no_warp_cycles", "SM-cycles", "NoWarpCycles [OWL]: cycles in which the SM holds no "
         "CTA at its issue stage, over the whole run (until the last kernel finishes)", OWLPROF),
    Stat("owl.no_warp_fraction", "fraction", "`no_warp_cycles / (sms × cycles)`", OWLPROF),
    Stat("owl.memory_stall_cycles", "SM-cycles", "`memory_block_cycles` counting also the warps ready "
         "for a busy LD/ST unit (an access held for `units.ldst_ii`, or refused by the memory system: "
         "MSHRs full, back-pressure) as waiting on memory; ≥ `memory_block_cycles`", OWLPROF),
    Stat("owl.memory_stall_fraction", "fraction", "`memory_stall_cycles / (sms × cycles)`", OWLPROF),
    Stat("owl.per_sm", "rows", "per SM: [sm, inactive, memory_block, no_warp, memory_stall] in cycles",
         OWLPROF),
    Stat("owl.rbl.columns", "", "columns of `per_bank` rows after channel and bank: hits, accesses, "
         "prefetch_hits, prefetch_accesses (hierarchy memory only)", OWLPROF),
    Stat("owl.rbl.per_bank", "rows", "per DRAM bank: [channel, bank, demand row hits, demand column "
         "accesses, prefetch row hits, prefetch accesses], counted when the access issues", OWLPROF),
    Stat("owl.rbl.bank_mean", "fraction", "RBL averaged over banks [OWL §4.3]: mean of hits / accesses "
         "over the banks with ≥ 1 demand access", OWLPROF),
    Stat("owl.rbl.aggregate", "fraction", "Σ hits / Σ accesses (= `memory.dram.row_hit_rate`)", OWLPROF),
    Stat("owl.rbl.bank_mean_with_prefetch", "fraction", "`bank_mean` counting prefetches as accesses "
         "(and their hits)", OWLPROF),
    Stat("owl.rbl.aggregate_with_prefetch", "fraction", "`aggregate` counting prefetches, at issue "
         "(`memory.dram.row_hit_rate_with_prefetch` counts them when their data is done)", OWLPROF),
    *[Stat(f"warp_states.decomposition.{k}", "core cycles", d + " ([THESIS §3.5]; mean over all "
           "SMs; runtime = idle + compute + memory − overlap)", PROF) for k, d in (
        ("idle", "cycles of an SM with no ALU and no memory instruction in flight"),
        ("compute", "cycles with ≥ 1 ALU instruction in flight (ALU load > 0)"),
        ("memory", "cycles with ≥ 1 global memory instruction in flight (MEM load > 0)"),
        ("overlap", "cycles with both"))],
    Stat("warp_states.decomposition.per_sm", "rows", "per SM: [sm, idle, compute, memory, overlap] "
         "in core cycles", PROF),
    # ---- Accel-Sim's names (--json and --format accelsim; docs/validation.md) -----------------
    *[Stat(f"accelsim.kernels[].{k}", u, d + " (at the kernel's end)", ACCEL)
      for k, u, d in (*_ACCEL_KERNEL, *_ACCEL_BOTH)],
    *[Stat(f"accelsim.total.{k}", u, d + " (whole run)", ACCEL)
      for k, u, d in (*_ACCEL_BOTH, *_ACCEL_TOTAL)],
    # ---- energy -------------------------------------------------------------------------------
    *[Stat(f"energy.{k}", "pJ", d + " (hierarchy only; docs/energy.md)", ENERGY) for k, d in (
        ("l1_pj", "`l1.sector_accesses × l1_access_pj`"),
        ("smem_pj", "`smem.cycles × smem_access_pj`"),
        ("l2_pj", "`l2.sector_accesses × l2_access_pj`"),
        ("icnt_pj", "`(icnt.up.bytes + icnt.down.bytes) / 32 × icnt_flit_pj`"),
        ("dram_pj", "`(bytes_read + bytes_written) / 32 × dram_access_pj + activations × dram_activate_pj`"),
        ("memory_pj", "sum of the five memory parts above"))],
    Stat("energy.core_pj", "pJ", "`warp_insts × warp_inst_pj`", ENERGY),
    Stat("energy.static_sm_pj", "pJ", "`Σ_SM (cycles − gated_cycles) × sm_static_mw × 1000 / core_clock_mhz` "
         "(paused SMs still count; [THESIS §4.4])", ENERGY),
    Stat("energy.static_uncore_pj", "pJ", "`cycles × uncore_static_mw × 1000 / core_clock_mhz`", ENERGY),
    Stat("energy.total_pj", "pJ", "`memory_pj + core_pj + static_sm_pj + static_uncore_pj` (fixed "
         "memory: no memory part)", ENERGY),
]

HEADER = """# Run statistics reference

Every key of `gpusched run --json` (the dict `sim.run.simulate` returns, plus `accelsim`, whose
keys `--format accelsim` prints as `key = value` lines; the results store keeps the dict per run,
and `gpusched results query` flattens it to dotted column names such as `memory.l1.hit_rate`,
with `warp_sched` as the column `sm.warp_sched`). Generated from `sim/stats_reference.py` by
`python -m sim.stats_reference`; `tests/sim/test_stats_reference.py` runs `gpusched run` for a
run of every kind (catalogue, trace, CUDA program, fixed memory, issue stages, policies with reports,
profilers, `--json` and `--format accelsim`) and fails when a key it prints is missing here, a
key here is printed by none of them, or this file is stale.

Shape: nested JSON objects throughout. `a.b` below is key `b` of object `a`; `a[]` is each
element of list `a`. One *slot* is one scheduler in one cycle; `issue.issued` counts slots, so
with dual issue `warp_insts` can exceed it. Energy definitions and defaults: [energy.md](energy.md).

"""


def render() -> str:
    sections: dict[str, list[Stat]] = {}
    for s in STATS:
        head = s.key.split(".")[0].split("[")[0]
        sections.setdefault(head if "." in s.key or "[" in s.key else "top level", []).append(s)
    lines = [HEADER]
    for name, stats in sections.items():
        title = name if name == "top level" else f"`{name}`"
        lines.append(f"\n## {title}\n\n| key | unit | definition | computed by |\n|---|---|---|---|\n")
        for s in stats:
            unit = s.unit or "—"
            lines.append(f"| `{s.key}` | {unit} | {s.definition.replace('|', '/')} | {s.level} |\n")
    lines.append(ACCELSIM)
    return "".join(lines)


ACCELSIM = r"""
## `accelsim` (`--json`) and `--format accelsim`

Accel-Sim's names, so that its `util/job_launching/get_stats.py` with the default
`stats/example_stats.yml` reads a gpusched run (sim/workload/trace_stats.py). `accelsim.kernels[]`
is one block per kernel in the order kernels finish, as Accel-Sim prints one at each kernel's end;
`accelsim.total` holds the end-of-run values. Running totals (`gpu_tot_*`,
`gpgpu_n_tot_w_icount`, the breakdowns, DRAM) are cumulative, as get_stats.py expects (it diffs
them between kernels); when kernels overlap, a block holds what was done by its kernel's end.

| key | in | definition |
|---|---|---|
| `kernel_name`, `kernel_launch_uid` | kernels | the kernel and its launch number (1, 2, …) |
| `gpu_sim_cycle`, `gpu_sim_insn`, `gpu_ipc` | kernels | the kernel's cycles, thread instructions (active lanes of every warp instruction, EXIT included) and their ratio |
| `gpu_tot_sim_cycle`, `gpu_tot_sim_insn`, `gpu_tot_ipc` | both | up to the kernel's end (the run's end in `total`) |
| `gpgpu_n_tot_w_icount` | both | warp instructions, cumulative |
| `gpu_occupancy` | kernels | resident warps / warp slots over the kernel's occupancy samples, % |
| `L2_BW` | kernels | sectors accessed in the L2 during the kernel × 32 B / its time, GB/s |
| `L2_cache_stats_breakdown[GLOBAL_ACC_R\|W][HIT\|HIT_RESERVED\|MISS\|SECTOR_MISS\|MSHR_HIT\|TOTAL_ACCESS]` | both | `memory.l2.acc_*` (reads include atomics, as Accel-Sim counts them); MSHR_HIT = HIT_RESERVED; TOTAL_ACCESS = the four statuses |
| `Total_core_cache_stats_breakdown[…][…]` | both | the same for the L1D (`memory.l1.acc_*`; 0 when global accesses bypass it) |
| `L1D_total_cache_accesses`, `L1D_total_cache_misses`, `L2_total_cache_accesses`, `L2_total_cache_misses` | both | TOTAL_ACCESS of reads + writes; MISS + SECTOR_MISS |
| `total dram reads`, `total dram writes` | both | 32-byte sectors read from / written to DRAM |
| `gpgpu_n_shmem_bkconflict` | total | extra shared-memory cycles from bank conflicts (`smem.cycles − smem.accesses`) |
| `gpu_stall_dramfull` | total | `memory.l2.stalls`: times a slice stopped taking requests (MSHRs or its DRAM queue full) |
| `Stall`, `W0_Idle`, `W0_Scoreboard` | total | scheduler-cycles: `issue.unit_busy`; `issue.idle + fetch + barrier`; `issue.scoreboard + memory` |
| `gpgpu_simulation_time`, `gpgpu_simulation_rate` (inst/sec, cycle/sec), `gpgpu_silicon_slowdown` | text only | the host's time for the run (never in the JSON, which stays deterministic) |

Not available: `gpgpu_n_l1cache_bkconflict` (L1 banks are not modelled), the `W1`…`W32`
split of issued slots by active lanes, `RESERVATION_FAIL` (a refused access is retried, not
counted per retry), local, constant and texture access kinds.
"""


def keys_of(value, prefix: str = "") -> set[str]:
    """Documentable key paths of a run's stats: ``policy_reports.X`` objects are opaque,
    lists of objects become ``name[]``, other lists are leaves."""
    out: set[str] = set()
    for k, v in value.items():
        path = f"{prefix}{k}"
        if isinstance(v, dict) and not path.startswith("policy_reports."):
            out |= keys_of(v, path + ".")
        elif isinstance(v, list) and v and isinstance(v[0], dict):
            for item in v:
                out |= keys_of(item, path + "[].")
        else:
            out.add(path)
    return out


DOC = Path(__file__).resolve().parent.parent / "docs" / "stats.md"


if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        sys.exit(0 if DOC.read_text() == render() else 1)
    DOC.write_text(render())
    print(f"wrote {DOC}")
