"""Accel-Sim-style statistics of a run (``gpusched run --format accelsim`` and ``"accelsim"`` in
``--json``), named as GPGPU-Sim/Accel-Sim print them, so that Accel-Sim's ``get_stats.py`` (its
default ``stats/example_stats.yml``) reads both outputs alike. docs/stats.md lists every key.

Per kernel, in the order kernels finish, as Accel-Sim prints them at each kernel's end: the
kernel's own ``gpu_sim_cycle``, ``gpu_sim_insn`` (thread instructions), ``gpu_ipc``,
``gpu_occupancy`` and ``L2_BW``, and the running totals (``gpu_tot_*``, ``gpgpu_n_tot_w_icount``,
the cache breakdowns, DRAM reads/writes), which get_stats.py diffs between kernels. Memory
counters are per 32-byte sector (``sim.memory.cache.count_access``): ``L2_cache_stats_breakdown``
and ``Total_core_cache_stats_breakdown`` (the L1D; nothing when global accesses bypass it, as
there) by access kind and status. The timing of the simulator itself (``gpgpu_simulation_time``,
rates, silicon slowdown) depends on the host: text output only, never in the JSON.
"""

from __future__ import annotations

from typing import Any

from sim.memory.cache import READ_AT, STATUSES, WRITE_AT

from .kernel import Kernel, Workload

SECTOR_BYTES = 32
KINDS = (("GLOBAL_ACC_R", READ_AT), ("GLOBAL_ACC_W", WRITE_AT))
CACHES = (("L2_cache_stats_breakdown", "l2"), ("Total_core_cache_stats_breakdown", "l1"))


def thread_instructions(kernel: Kernel) -> int:
    """Active lanes summed over every instruction of every warp (a trace knows it already)."""
    if "thread_insts" in kernel.meta:
        return kernel.meta["thread_insts"]
    return sum(i.mask.bit_count() for c in range(kernel.n_ctas)
               for w in range(kernel.warps_per_cta()) for i in kernel.stream(c, w))


def _breakdown(counts: list[int]) -> dict[str, int]:
    """One cache's ``[kind][status]`` keys: HIT, HIT_RESERVED, MISS, SECTOR_MISS, MSHR_HIT (a
    merge into a pending sector, counted with HIT_RESERVED as GPGPU-Sim does) and TOTAL_ACCESS."""
    out = {}
    for kind, at in KINDS:
        for i, status in enumerate(STATUSES):
            out[f"[{kind}][{status}]"] = counts[at + i]
        out[f"[{kind}][MSHR_HIT]"] = counts[at + 1]
        out[f"[{kind}][TOTAL_ACCESS]"] = sum(counts[at:at + 4])
    return out


def _memory_keys(snap: dict) -> dict[str, Any]:
    """The cumulative memory keys of one kernel-end snapshot (``sim.memory.hierarchy_stats.cumulative``)."""
    out: dict[str, Any] = {}
    for name, part in CACHES:
        for k, v in _breakdown(snap[part]).items():
            out[name + k] = v
    l1, l2 = snap["l1"], snap["l2"]
    out["L1D_total_cache_accesses"] = sum(l1)
    out["L1D_total_cache_misses"] = l1[2] + l1[3] + l1[6] + l1[7]
    out["L2_total_cache_accesses"] = sum(l2)
    out["L2_total_cache_misses"] = l2[2] + l2[3] + l2[6] + l2[7]
    out["total dram reads"] = snap["dram_reads"]
    out["total dram writes"] = snap["dram_writes"]
    return out


def _occupancy(result: dict, start: int, end: int) -> float:
    """Mean resident warps over the warp slots in the samples inside [start, end], in %."""
    occ = result.get("occupancy", {})
    rows = [s for s in occ.get("samples", []) if start <= s[0] <= end]
    slots = occ.get("warp_slots", 0)
    return round(100 * sum(r[1] for r in rows) / (len(rows) * slots), 4) if rows and slots else 0.0


def accelsim_stats(result: dict[str, Any], workload: Workload, bypass_l1_loads: bool = False,
                   core_clock_mhz: float | None = None) -> dict:
    """Accel-Sim's statistics from a ``simulate`` result and the workload it ran (per kernel in
    finishing order, and the totals). ``core_clock_mhz`` (from the result's preset when None)
    turns L2 traffic into ``L2_BW`` GB/s."""
    mem = result["memory"]
    snaps = sorted(mem.get("kernel_ends", []), key=lambda s: s["cycle"])
    rows = sorted(zip(workload.kernels, result["kernels"]), key=lambda kr: (kr[1]["end"], kr[1]["index"]))
    mhz = core_clock_mhz or result.get("core_clock_mhz") or 1000.0
    kernels, tot_insn, tot_warp = [], 0, 0
    for n, (k, row) in enumerate(rows):
        insn = thread_instructions(k)
        tot_insn += insn
        tot_warp += row["warp_insts"]
        cycles = row["cycles"]
        entry: dict[str, Any] = {
            "kernel_name": row["name"], "kernel_launch_uid": row["index"] + 1,
            "gpu_sim_cycle": cycles, "gpu_sim_insn": insn,
            "gpu_ipc": round(insn / cycles, 4) if cycles else 0.0,
            "gpu_tot_sim_cycle": row["end"] + 1, "gpu_tot_sim_insn": tot_insn,
            "gpu_tot_ipc": round(tot_insn / (row["end"] + 1), 4),
            "gpgpu_n_tot_w_icount": tot_warp,
            "gpu_occupancy": _occupancy(result, row["start"], row["end"])}
        if n < len(snaps):
            snap = snaps[n]
            before = snaps[n - 1] if n else None
            entry.update(_memory_keys(snap))
            moved = (sum(snap["l2"]) - (sum(before["l2"]) if before else 0)) * SECTOR_BYTES
            entry["L2_BW"] = round(moved * mhz * 1e6 / cycles / 1e9, 4) if cycles else 0.0
        kernels.append(entry)
    cycles = result["cycles"]
    total: dict[str, Any] = {
        "gpu_tot_sim_cycle": cycles, "gpu_tot_sim_insn": tot_insn,
        "gpu_tot_ipc": round(tot_insn / cycles, 4) if cycles else 0.0,
        "gpgpu_n_tot_w_icount": result["warp_insts"]}
    if snaps:
        total.update(_memory_keys(snaps[-1]))
    total["gpgpu_n_shmem_bkconflict"] = max(0, mem.get("smem", {}).get("cycles", 0)
                                            - mem.get("smem", {}).get("accesses", 0))
    issue = result.get("issue", {})
    total["Stall"] = issue.get("unit_busy", 0)
    total["W0_Idle"] = issue.get("idle", 0) + issue.get("fetch", 0) + issue.get("barrier", 0)
    total["W0_Scoreboard"] = issue.get("scoreboard", 0) + issue.get("memory", 0)
    total["gpu_stall_dramfull"] = mem.get("l2", {}).get("stalls", 0)
    return {"kernels": kernels, "total": total}


MEMORY_ORDER = ([name + k for name, _ in CACHES for k in _breakdown([0] * 8)]
                + ["L1D_total_cache_accesses", "L1D_total_cache_misses", "L2_total_cache_accesses",
                   "L2_total_cache_misses", "total dram reads", "total dram writes"])
# the order Accel-Sim prints them in (the JSON keeps them sorted by name)
KERNEL_ORDER = ["gpu_sim_cycle", "gpu_sim_insn", "gpu_ipc", "gpu_tot_sim_cycle", "gpu_tot_sim_insn",
                "gpu_tot_ipc", "gpgpu_n_tot_w_icount", "gpu_occupancy", *MEMORY_ORDER, "L2_BW"]
TOTAL_ORDER = ["gpu_tot_sim_cycle", "gpu_tot_sim_insn", "gpu_tot_ipc", "gpgpu_n_tot_w_icount",
               *MEMORY_ORDER, "gpgpu_n_shmem_bkconflict", "gpu_stall_dramfull", "Stall", "W0_Idle",
               "W0_Scoreboard"]


def _line(key: str, value: Any) -> str:
    return f"{key} = {value:12.4f}" if isinstance(value, float) else f"{key} = {value}"


def format_accelsim(stats: dict, host: dict | None = None) -> str:
    """Accel-Sim's ``key = value`` lines: one block per kernel, then the totals; ``host``:
    ``seconds`` of simulation and ``core_clock_mhz`` for the host-dependent rates."""
    out = []
    for k in stats["kernels"]:
        out += [f"kernel_name = {k['kernel_name']} ", f"kernel_launch_uid = {k['kernel_launch_uid']} "]
        for key in KERNEL_ORDER:
            if key not in k:
                continue
            v = k[key]
            out.append(f"gpu_occupancy = {v:.4f}% " if key == "gpu_occupancy" else
                       f"L2_BW  = {v:12.4f} GB/Sec" if key == "L2_BW" else _line(key, v))
        out.append("")
    t = stats["total"]
    for key in TOTAL_ORDER:
        if key in t:
            out.append(f"{key}:{t[key]}" if key in ("Stall", "W0_Idle", "W0_Scoreboard")
                       else _line(key, t[key]))
    if host and host.get("seconds"):
        secs, t = host["seconds"], stats["total"]
        out += [f"gpgpu_simulation_time = 0 days, 0 hrs, 0 min, {int(secs)} sec ({int(secs)} sec)",
                f"gpgpu_simulation_rate = {int(t['gpu_tot_sim_insn'] / secs)} (inst/sec)",
                f"gpgpu_simulation_rate = {int(t['gpu_tot_sim_cycle'] / secs)} (cycle/sec)",
                f"gpgpu_silicon_slowdown = {int(host['core_clock_mhz'] * 1e6 / max(1, t['gpu_tot_sim_cycle'] / secs))}x"]
    return "\n".join(out)
