"""Per-warp model state and fetch of the SOCGPU glue (``sim.issue.socgpu``; [SOCGPU],
our parameter list, our choice): ``WarpIssue`` (block, fetch position, fetch in flight, pending
barrier, write-back port use), ``SocgpuFetch`` (round-robin fetch of one SM) and ``MemReq`` (what
``SM.memory_op`` reads).

Fetch timing (our parameter list gp102 "fetch-to-insert 2 cycles, I-cache always hits", our choice "no
fetch in flight"): a fetch started in the fetch stage of cycle t reads its two slots then and
inserts them in the fetch stage of cycle t + ``FETCH_TO_INSERT`` (the block's edge of
that cycle), so they can issue from t + 3. While a fetch is in flight the warp starts no other
fetch; a warp whose fetch is inserted in cycle t may start the next one in the same cycle if it
is still eligible (≥ 2 free entries for SOCGPU, an empty buffer for the baseline). A flush drops
the warp's in-flight fetch (our choice; it can only hold wrong-path placeholders, since fetch goes
past a redirect only as placeholders). Both ``socgpu`` and ``inorder_issue`` use this fetch.
"""

from __future__ import annotations

from collections import deque

from sim.warp import WS_FETCH
from sim.warp import Warp

FETCH_TO_INSERT = 2     # our parameter list: cycles from a fetch to the insert of its two instructions


class MemReq:
    """What ``SM.memory_op`` reads from an instruction; ``dst_mask`` is the entry's bit, so the
    SM's completion bookkeeping releases the IB entry."""

    __slots__ = ("op", "instr", "dst_mask", "long")

    def __init__(self, entry, bit: int):
        self.op, self.instr, self.dst_mask, self.long = entry.op, entry.instr, bit, entry.long


class WarpIssue:
    """Model-side SOCGPU state of one warp: its block, fetch position and bookkeeping."""

    __slots__ = ("blk", "mstate", "inflight", "fetch_pc", "wrong_path", "done", "bar",
                 "wb_cycle", "wb_used", "n_valid", "n_ready", "fetch_buf", "fetch_due")

    def __init__(self, blk):
        self.blk, self.mstate = blk, WS_FETCH
        self.inflight = 0           # entries whose write-back is scheduled or awaited
        self.fetch_pc = 0
        self.wrong_path = self.done = False
        self.bar = 0                # token of an issued BAR waiting for the CTA barrier
        self.wb_cycle = self.wb_used = 0
        self.n_valid = self.n_ready = 0
        self.fetch_buf = None       # entries of the fetch in flight (None: no fetch in flight)
        self.fetch_due = 0          # the cycle that fetch inserts them

    def describe(self, w: Warp) -> str:
        blk = self.blk
        pend = blk.valid & ~blk.issued
        if w.at_barrier:
            return "waits at barrier (SOCGPU IB holds the BAR)"
        if not pend:
            return ("has no instruction: its stream ended without EXIT"
                    if self.done and self.fetch_buf is None
                    else f"waits for fetch ({bin(blk.valid).count('1')} entries in flight)")
        if not hasattr(blk, "dm"):
            return f"waits on the scoreboard before {blk.instr[0]!r}"
        oldest = min((i for i in range(blk.n) if pend >> i & 1), key=blk.seq.__getitem__)
        return (f"waits on its dependence matrix: oldest pending {blk.instr[oldest]!r}, "
                f"row {blk.dm[oldest]:#x}, {bin(w.pending).count('1')} entries await write-back")


class SocgpuFetch:
    """Fetch/decode of one SM for the glue's sub-cores (replaces ``SM.fetch``): up to
    ``sm.fetch_per_cycle`` fetches per cycle, round-robin over eligible warps (``SM.ib_empty``:
    the sub-cores set a warp's bit while it may fetch or has a fetch in flight, which also keeps
    the SM stepping until the insert), one per warp per cycle, none into a warp flushed in this
    cycle or with a fetch in flight; inserts ``latency`` cycles later (module docstring)."""

    def __init__(self, sm, latency: int | None = None):
        self.sm = sm
        self.latency = FETCH_TO_INSERT if latency is None else latency
        self.hold = 0               # warps flushed in cycle ``hold_at``: no fetch this cycle
        self.hold_at = -1
        self.busy = 0               # slot bits of warps with a fetch in flight
        self.queue: deque = deque()  # (insert cycle, warp) of fetches in flight

    def drop(self, w: Warp) -> None:
        """A flush of ``w``: its in-flight fetch (wrong-path slots only) is discarded."""
        st = w.soc
        if st.fetch_buf is not None:
            st.fetch_buf = None
            self.busy &= ~(1 << w.slot)
            self.sm.ib_empty &= ~(1 << w.slot)  # the sub-core's refresh sets it if eligible

    def fetch(self, now: int) -> None:
        sm = self.sm
        q = self.queue
        while q and q[0][0] <= now:
            due, w = q.popleft()
            st = w.soc
            entries = st.fetch_buf
            if entries is None or st.fetch_due != due:   # dropped by a flush
                continue
            st.fetch_buf = None
            self.busy &= ~(1 << w.slot)
            sm.ib_empty &= ~(1 << w.slot)       # insert_fetched's refresh sets it if eligible
            w.subcore.insert_fetched(w, entries, now)
        skip = self.busy | (self.hold if self.hold_at == now else 0)
        for _ in range(sm.fetch_per_cycle):
            m = sm.ib_empty & ~skip
            if not m:
                break
            upper = m >> (sm.fetch_last + 1)
            s = (sm.fetch_last + 1 + ((upper & -upper).bit_length() - 1) if upper
                 else (m & -m).bit_length() - 1)
            sm.fetch_last = s
            skip |= 1 << s                      # one fetch per warp per cycle
            sm.ib_empty &= ~(1 << s)
            w = sm.slots[s]
            entries = w.subcore.fetch_slots(w)
            if self.latency <= 0 or not entries:
                w.subcore.insert_fetched(w, entries, now)
                continue
            st = w.soc
            st.fetch_buf, st.fetch_due = entries, now + self.latency
            self.busy |= 1 << s
            q.append((st.fetch_due, w))
        sm.ib_empty |= self.busy                # keeps the SM stepping until the inserts
