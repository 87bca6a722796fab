"""Energy proxies: event counts × per-event energies from ``EnergyConfig`` (docs/energy.md).

``memory_energy`` prices the memory-side events the hierarchy counts; ``gpu_energy`` adds the core
(warp instructions) and static power ([THESIS §4.4]: static power linear in un-gated SMs plus an
uncore part; energy = power × time). All results in picojoules.
"""

from __future__ import annotations


def memory_energy(stats: dict, e, sector_bytes: int = 32) -> dict:
    """Dynamic memory energy (pJ) per component from a hierarchy ``stats()`` dict.

    L1 / L2: per sector read or written in the data array (hits, fills, stores); shared memory:
    per access cycle (bank conflicts replay); interconnect: per 32 bytes carried (headers
    included), either direction; DRAM: per 32-byte sector moved plus per row activation.
    """
    flits = (stats["icnt.up.bytes"] + stats["icnt.down.bytes"]) / 32
    sectors = (stats["dram.bytes_read"] + stats["dram.bytes_written"]) // sector_bytes
    parts = {
        "energy.l1_pj": stats["l1.sector_accesses"] * e.l1_access_pj,
        "energy.smem_pj": stats["smem.cycles"] * e.smem_access_pj,
        "energy.l2_pj": stats["l2.sector_accesses"] * e.l2_access_pj,
        "energy.icnt_pj": flits * e.icnt_flit_pj,
        "energy.dram_pj": sectors * e.dram_access_pj + stats["dram.activations"] * e.dram_activate_pj,
    }
    parts["energy.memory_pj"] = sum(parts.values())
    return parts


def gpu_energy(mem_stats: dict, e, warp_insts: int, cycles: int, core_clock_mhz: float,
               sm_ungated_cycles: int, sector_bytes: int = 32) -> dict:
    """Whole-GPU energy (pJ): core dynamic + memory dynamic + static.

    ``sm_ungated_cycles``: sum over SMs of the cycles each was not power-gated (paused SMs still
    count, [THESIS §4.4]). 1 mW × 1 cycle at f MHz = 1e3 / f pJ.
    """
    pj_per_mw_cycle = 1e3 / core_clock_mhz
    out = memory_energy(mem_stats, e, sector_bytes)
    out["energy.core_pj"] = warp_insts * e.warp_inst_pj
    out["energy.static_sm_pj"] = sm_ungated_cycles * e.sm_static_mw * pj_per_mw_cycle
    out["energy.static_uncore_pj"] = cycles * e.uncore_static_mw * pj_per_mw_cycle
    out["energy.total_pj"] = (out["energy.memory_pj"] + out["energy.core_pj"]
                              + out["energy.static_sm_pj"] + out["energy.static_uncore_pj"])
    return out
