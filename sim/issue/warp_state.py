"""Per-warp model state and fetch of the SOCGPU glue (``sim.issue.socgpu``; spec/socgpu.md §2.7,
§6 item 3): ``WarpIssue`` (block, fetch position, pending barrier, write-back port use),
``SocgpuFetch`` (round-robin fetch of one SM) and ``MemReq`` (what ``SM.memory_op`` reads).
"""

from __future__ import annotations

from sim.warp import FETCH as W_FETCH
from sim.warp import Warp


class MemReq:
    """What ``SM.memory_op`` reads from an instruction; ``dst_mask`` is the entry's bit, so the
    SM's completion bookkeeping releases the IB entry."""

    __slots__ = ("op", "instr", "dst_mask", "long")

    def __init__(self, entry, bit: int):
        self.op, self.instr, self.dst_mask, self.long = entry.op, entry.instr, bit, entry.long


class WarpIssue:
    """Model-side SOCGPU state of one warp: its block, fetch position and bookkeeping."""

    __slots__ = ("blk", "mstate", "inflight", "fetch_pc", "wrong_path", "done", "bar",
                 "wb_cycle", "wb_used", "n_valid", "n_ready")

    def __init__(self, blk):
        self.blk, self.mstate = blk, W_FETCH
        self.inflight = 0           # entries whose write-back is scheduled or awaited
        self.fetch_pc = 0
        self.wrong_path = self.done = False
        self.bar = 0                # token of an issued BAR waiting for the CTA barrier
        self.wb_cycle = self.wb_used = 0
        self.n_valid = self.n_ready = 0

    def describe(self, w: Warp) -> str:
        blk = self.blk
        pend = blk.valid & ~blk.issued
        if w.at_barrier:
            return "waits at barrier (SOCGPU IB holds the BAR)"
        if not pend:
            return ("has no instruction: its stream ended without EXIT" if self.done
                    else f"waits for fetch ({bin(blk.valid).count('1')} entries in flight)")
        if not hasattr(blk, "dm"):
            return f"waits on the scoreboard before {blk.instr[0]!r}"
        oldest = min((i for i in range(blk.n) if pend >> i & 1), key=blk.seq.__getitem__)
        return (f"waits on its dependence matrix: oldest pending {blk.instr[oldest]!r}, "
                f"row {blk.dm[oldest]:#x}, {bin(w.pending).count('1')} entries await write-back")


class SocgpuFetch:
    """Fetch/decode of one SM for SOCGPU sub-cores (replaces ``SM.fetch``)."""

    def __init__(self, sm):
        self.sm = sm
        self.hold = 0               # warps flushed in cycle ``hold_at``: no fetch this cycle
        self.hold_at = -1

    def fetch(self, now: int) -> None:
        sm = self.sm
        skip = self.hold if self.hold_at == now else 0
        for _ in range(sm.fetch_per_cycle):
            m = sm.ib_empty & ~skip
            if not m:
                return
            upper = m >> (sm.fetch_last + 1)
            s = (sm.fetch_last + 1 + ((upper & -upper).bit_length() - 1) if upper
                 else (m & -m).bit_length() - 1)
            sm.fetch_last = s
            skip |= 1 << s                      # one fetch per warp per cycle
            sm.ib_empty &= ~(1 << s)
            w = sm.slots[s]
            w.subcore.fetch_into(w, now)
