"""The memory hierarchy's counters: ``MemoryHierarchy.stats()`` at the end of a run and the
cumulative snapshot Accel-Sim prints at each kernel's end.

``stats()`` keys: ``l1.*``, ``l2.*`` (summed over SMs / slices; ``l1.stalls`` counts stall
episodes, accesses refused at least once however often re-offered), ``icnt.{up,down}.*``,
``dram.*``, ``traffic.*`` (bytes L1↔L2, L2↔DRAM), ``prefetch.*``, ``mem.*`` (per-load latency),
``smem.*``, ``energy.*``, ``kernel_ends`` (``cumulative`` at each kernel's end).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .energy import memory_energy
from .prefetch import prefetch_stats_off

if TYPE_CHECKING:
    from .hierarchy import MemoryHierarchy


def cumulative(h: MemoryHierarchy, now: int) -> dict:
    """The counters Accel-Sim prints, cumulative, at the end of each kernel: the L1 and L2
    access breakdowns (``cache.count_access``) and DRAM sectors read and written."""
    l1, l2 = [0] * 8, [0] * 8
    for sums, parts in ((l1, h.l1s), (l2, h.slices)):
        for p in parts:
            for i, v in enumerate(p.breakdown):
                sums[i] += v
    return {"cycle": now, "l1": l1, "l2": l2,
            "dram_reads": h.dram.bytes_read // h.sector_bytes,
            "dram_writes": h.dram.bytes_written // h.sector_bytes}


def hierarchy_stats(h: MemoryHierarchy) -> dict:
    """``MemoryHierarchy.stats()``: the keys above."""
    now = max(h.last_cycle, h.ev.now)
    out: dict = {}
    for prefix, parts in (("l1", h.l1s), ("l2", h.slices)):
        total: dict = {}
        for p in parts:
            for k, v in p.stats().items():
                total[k] = max(total.get(k, 0), v) if k.startswith("max") else total.get(k, 0) + v
        for k, v in total.items():
            out[f"{prefix}.{k}"] = v
    l1_miss, l1_miss_cycles = out.pop("l1.miss_count"), out.pop("l1.miss_latency_sum")
    out["l1.miss_latency_mean"] = l1_miss_cycles / l1_miss if l1_miss else 0.0
    for name in ("l1", "l2"):
        acc = out[f"{name}.hits"] + out[f"{name}.misses"] + out[f"{name}.merges"]
        out[f"{name}.hit_rate"] = out[f"{name}.hits"] / acc if acc else 0.0
    out["mem.loads"] = h.loads
    out["mem.load_latency_mean"] = h.load_latency_sum / h.loads if h.loads else 0.0
    out["mem.stores"], out["mem.atomics"] = h.stores, h.atomics
    out["smem.accesses"], out["smem.cycles"] = h.smem_accesses, h.smem_cycles
    out["traffic.l1_to_l2_bytes"] = h.bytes_l1_to_l2
    out["traffic.l2_to_l1_bytes"] = h.bytes_l2_to_l1
    for name, net in (("icnt.up", h.up), ("icnt.down", h.down)):
        out[f"{name}.packets"], out[f"{name}.bytes"] = net.packets, net.bytes
        out[f"{name}.flits"], out[f"{name}.max_waiting"] = net.flits, net.max_waiting
        out[f"{name}.wait_mean"] = net.wait_cycles / net.packets if net.packets else 0.0
    out.update(h.dram.stats(now))
    if h.pf is not None:
        out.update(h.pf.stats(out["l2.prefetch_hits"], out["dram.reads"]))
    else:
        out.update(prefetch_stats_off())
    out["traffic.l2_to_dram_bytes"] = out["dram.bytes_written"]
    out["traffic.dram_to_l2_bytes"] = out["dram.bytes_read"]
    out.update(memory_energy(out, h.cfg.energy, h.sector_bytes))
    out["kernel_ends"] = list(h.kernel_ends)
    return out
