"""Accel-Sim-style statistics of a run (``gpusched run --format accelsim`` and ``"accelsim"`` in
``--json``), named as GPGPU-Sim/Accel-Sim print them so the two outputs can be diffed.

Per kernel: ``gpu_sim_cycle`` (the kernel's cycles), ``gpu_sim_insn`` (thread instructions: the
active lanes of every warp instruction, EXIT included), ``gpu_ipc`` (their ratio) and the running
``gpu_tot_sim_cycle``/``gpu_tot_sim_insn``. Totals: those, ``gpgpu_n_tot_w_icount`` (warp
instructions) and the memory counters at 32-byte sector granularity, as Accel-Sim's sectored
caches count them: ``L2_total_cache_accesses`` = sectors read by or written to the L2 from the
SMs, ``L2_total_cache_misses`` = sectors the L2 read from DRAM, ``total dram reads/writes`` =
sectors read/written; ``L1D_total_cache_accesses/misses`` = line lookups and misses of global
loads in the L1 (0 when the preset's global loads bypass it, as Accel-Sim reports them). Memory
counters are whole-run only (the model does not split them per kernel). See docs/validation.md.
"""

from __future__ import annotations

from typing import Any

from .kernel import Kernel, Workload

SECTOR_BYTES = 32
TOTAL_KEYS = ("gpu_tot_sim_cycle", "gpu_tot_sim_insn", "gpu_tot_ipc", "gpgpu_n_tot_w_icount",
              "L1D_total_cache_accesses", "L1D_total_cache_misses", "L2_total_cache_accesses",
              "L2_total_cache_misses", "total dram reads", "total dram writes")


def thread_instructions(kernel: Kernel) -> int:
    """Active lanes summed over every instruction of every warp (a trace knows it already)."""
    if "thread_insts" in kernel.meta:
        return kernel.meta["thread_insts"]
    return sum(i.mask.bit_count() for c in range(kernel.n_ctas)
               for w in range(kernel.warps_per_cta()) for i in kernel.stream(c, w))


def accelsim_stats(result: dict[str, Any], workload: Workload, bypass_l1_loads: bool) -> dict:
    """Accel-Sim's statistics from a ``simulate`` result and the workload it ran."""
    kernels, tot_insn = [], 0
    for k, row in zip(workload.kernels, result["kernels"]):
        insn = thread_instructions(k)
        tot_insn += insn
        kernels.append({"kernel_name": row["name"], "kernel_launch_uid": row["index"] + 1,
                        "gpu_sim_cycle": row["cycles"], "gpu_sim_insn": insn,
                        "gpu_ipc": round(insn / row["cycles"], 4) if row["cycles"] else 0.0,
                        "gpu_tot_sim_cycle": row["end"] + 1, "gpu_tot_sim_insn": tot_insn})
    mem = result["memory"]

    def m(key: str) -> int:
        """A memory counter by dotted name, from the nested stats (or flat, older form)."""
        group, _, name = key.partition(".")
        return int(mem.get(group, {}).get(name, 0)) if isinstance(mem.get(group), dict) \
            else int(mem.get(key, 0))
    loads = 0 if bypass_l1_loads else m("l1.hits") + m("l1.misses") + m("l1.merges")
    cycles = result["cycles"]
    total = {"gpu_tot_sim_cycle": cycles, "gpu_tot_sim_insn": tot_insn,
             "gpu_tot_ipc": round(tot_insn / cycles, 4) if cycles else 0.0,
             "gpgpu_n_tot_w_icount": result["warp_insts"],
             "L1D_total_cache_accesses": loads,
             "L1D_total_cache_misses": 0 if bypass_l1_loads else m("l1.misses"),
             "L2_total_cache_accesses": (m("traffic.l2_to_l1_bytes")
                                         + m("traffic.l1_to_l2_bytes")) // SECTOR_BYTES,
             "L2_total_cache_misses": m("dram.bytes_read") // SECTOR_BYTES,
             "total dram reads": m("dram.bytes_read") // SECTOR_BYTES,
             "total dram writes": m("dram.bytes_written") // SECTOR_BYTES}
    return {"kernels": kernels, "total": total}


def format_accelsim(stats: dict) -> str:
    """Accel-Sim's ``key = value`` lines: one block per kernel, then the totals."""
    out = []
    for k in stats["kernels"]:
        out += [f"kernel_name = {k['kernel_name']} ", f"kernel_launch_uid = {k['kernel_launch_uid']} ",
                f"gpu_sim_cycle = {k['gpu_sim_cycle']}", f"gpu_sim_insn = {k['gpu_sim_insn']}",
                f"gpu_ipc = {k['gpu_ipc']:12.4f}", f"gpu_tot_sim_cycle = {k['gpu_tot_sim_cycle']}",
                f"gpu_tot_sim_insn = {k['gpu_tot_sim_insn']}", ""]
    for key in TOTAL_KEYS:
        value = stats["total"][key]
        out.append(f"{key} = {value:12.4f}" if isinstance(value, float) else f"{key} = {value}")
    return "\n".join(out)
