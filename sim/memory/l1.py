"""Per-SM L1 data cache: sectored, LRU, MSHRs that merge requests to the same line.

Defaults follow GPGPU-Sim's Fermi L1D ([GPGPU-Sim gpu-cache.cc]): global stores are write-through
with no write-allocate (a store hit updates the line, a miss leaves the L1 untouched, every store
sends its sectors to the L2). ``write_policy="write_back"`` (IKRA; ours for OWL) marks written sectors
dirty, allocates on a store miss without fetching, and writes dirty sectors back on eviction and at a
kernel boundary that invalidates the L1.

Loads: a hit completes after ``hit_latency``; a miss allocates an MSHR (or merges into the one for
that line) and sends one read packet per line to the L2; the fill returns at the data's arrival and
completes every merged instruction whose other lines are done too. An instruction is all-or-nothing:
``issue`` refuses it (structural stall) when its new lines do not fit in the free MSHRs, unless the
L1 has no miss outstanding at all (so an instruction wider than the MSHR file cannot deadlock).
``bypass_global_loads`` sends loads to the L2 and does not fill the L1 (GP102); with
``bypass_unmerged`` such a load also skips the MSHRs: it sends its own packets even for a line
already requested, and each reply completes it directly (GPGPU-Sim pushes a bypassing access
straight into the interconnect, so repeated loads of a line all reach the L2). Atomics bypass the
L1 and execute at the L2; each occupies an MSHR until its reply.

Kernel boundary: the L1 is invalidated (baseline; a write-back L1 first writes its dirty data
through, "GPU coherence") unless ``keep_across_kernels`` ([IKRA DeNovo]), optionally with the DeNovo
self-invalidation of clean data at launch (``self_invalidate``). Hits on lines filled during an
earlier kernel are counted either way (``hits_prev_kernel``).
"""

from __future__ import annotations

from typing import Callable, Final

from gpusched.config.schema import L1Config

from .cache import READ_AT, WRITE_AT, Line, SectorCache, breakdown_stats, count_access
from .events import nothing
from .request import ATOM, READ, WRITE, WRITEBACK, MemRequest


LOAD: Final = 0     # access kinds for ``L1.blocked``
STORE: Final = 1
ATOMIC: Final = 2
LOCAL_LOAD: Final = 3   # a local load: cached even where global loads bypass the L1


class LoadRecord:
    """One warp load/atomic in flight: completes when ``remaining`` lines are back and not before
    ``ready`` (the hit latency of its hitting lines)."""

    __slots__ = ("token", "sm", "remaining", "ready", "t_issue")

    def __init__(self, token: object, sm: int, t_issue: int):
        self.token, self.sm, self.remaining = token, sm, 0
        self.ready = self.t_issue = t_issue


class _Mshr:
    __slots__ = ("pending", "waiters", "t_alloc", "prefetch", "install")

    def __init__(self, pending: int, t_alloc: int, prefetch: bool = False, install: bool = True):
        self.pending, self.t_alloc, self.prefetch = pending, t_alloc, prefetch
        self.install = install          # the fill goes into the cache (not a bypassing load's)
        self.waiters: list[LoadRecord] = []


class L1:
    """L1 of one SM. ``send(now, req)`` injects a packet towards the L2; ``complete(cycle, rec)``
    finishes a load record (the hierarchy schedules the SM callback). ``src_waiting[sm_id]``:
    this SM's packets waiting in the interconnect; a packet may join them while they are fewer
    than ``inject_queue`` after it (or none wait)."""

    def __init__(self, sm_id: int, c: L1Config, send: Callable[[int, MemRequest], None],
                 complete: Callable[[int, LoadRecord], None], src_waiting: list[int],
                 inject_queue: int):
        self.sm = sm_id
        self.cache = SectorCache(c.sets, c.ways, c.line_bytes)
        self.line_bytes, self.sector_bytes = c.line_bytes, c.sector_bytes
        self.hit_latency, self.n_mshrs = c.hit_latency, c.mshrs
        self.write_back = c.write_policy == "write_back"
        self.bypass, self.keep = c.bypass_global_loads, c.keep_across_kernels
        self.self_invalidate = c.self_invalidate
        self.unmerged = c.bypass_global_loads and c.bypass_unmerged
        self.sector_acks = c.store_ack and c.sector_acks
        self.send, self.complete = send, complete
        self.src_waiting, self.inject_queue = src_waiting, inject_queue
        self.mshr: dict[int, _Mshr] = {}
        self.atomics_inflight = 0
        self.frees = 0                  # MSHR entries released so far (cheap stall re-check)
        self.stall_changed: Callable[[], None] = nothing   # called after each free (the hierarchy wires it)
        self.epoch = 0
        self.hits = self.misses = self.sector_misses = self.merges = self.hits_prev_kernel = 0
        self.store_hits = self.store_misses = self.writebacks = 0
        self.stalls = 0                 # refused instructions (the hierarchy counts each once)
        self.refused_on_mshrs = False   # the last refusal: the MSHRs bind (else the queue only)
        self.prefetches = self.prefetch_hits = self.max_mshr = 0
        self.miss_latency_sum = self.miss_count = 0
        self.sector_accesses = 0        # sectors read or written in the data array (energy)
        self.breakdown = [0] * 8        # Accel-Sim's statuses per sector (cache.count_access);
                                        # nothing when global accesses bypass the L1, as there

    def mshrs_used(self) -> int:
        return len(self.mshr) + self.atomics_inflight

    def _room(self, new_entries: int, packets: int) -> bool:
        """The MSHRs and injection-queue slots fit; on a refusal ``refused_on_mshrs`` says
        whether the MSHRs bind (then only an MSHR free can change the answer)."""
        used = self.mshrs_used()
        if new_entries and used + new_entries > self.n_mshrs and used:
            self.refused_on_mshrs = True
            return False
        self.refused_on_mshrs = False
        return packets == 0 or self.queue_room(packets)

    def queue_room(self, packets: int) -> bool:
        """``packets`` more fit in the injection queue (always when nothing waits)."""
        waiting = self.src_waiting[self.sm]
        return waiting == 0 or waiting + packets <= self.inject_queue

    def blocked(self, kind: int, lines: dict[int, int]) -> bool:
        """Exactly when ``load`` / ``store`` / ``atomic`` (``kind``) would refuse ``lines`` now."""
        if kind == LOAD or kind == LOCAL_LOAD:
            return self._load_blocked(lines, kind == LOCAL_LOAD)
        if kind == STORE:
            return self._store_blocked(lines)
        return not self._room(len(lines), len(lines))

    def _store_blocked(self, lines: dict[int, int]) -> bool:
        """``store``'s check: its packets do not fit the injection queue (no MSHRs needed)."""
        waiting = self.src_waiting[self.sm]
        return bool(waiting and lines and waiting + len(lines) > self.inject_queue)

    # --- loads -----------------------------------------------------------------------------
    def _load_blocked(self, lines: dict[int, int], local: bool = False) -> bool:
        """``load``'s exact check: the MSHRs and packets the lines need do not fit."""
        bypass = self.bypass and not local
        if self.unmerged and not local:
            return not self._room(0, len(lines))
        cache, mshr = self.cache, self.mshr
        sets, n_sets, shift = cache.sets, cache.n_sets, cache.line_shift
        new = packets = 0
        for addr, mask in lines.items():
            line = None if bypass else sets[(addr >> shift) % n_sets].get(addr)
            missing = mask if line is None else mask & ~line.valid
            if missing:
                entry = mshr.get(addr)
                if entry is None:
                    new += 1
                    packets += 1
                elif missing & ~entry.pending:
                    packets += 1
        return not self._room(new, packets)

    def load(self, now: int, lines: dict[int, int], token: object, local: bool = False) -> bool:
        """Accept a warp load (all its lines) or refuse it whole (structural stall). A
        ``local`` load (LDL) uses the cache even where global loads bypass it, as GPGPU-Sim's
        ``-gmem_skip_L1D`` skips the L1 for global accesses only."""
        cache, mshr = self.cache, self.mshr
        n = len(lines)
        waiting = self.src_waiting[self.sm]
        if ((len(mshr) + self.atomics_inflight + n > self.n_mshrs
                or (waiting and waiting + n > self.inject_queue))
                and self._load_blocked(lines, local)):
            return False
        bypass = self.bypass and not local
        sets, n_sets, shift = cache.sets, cache.n_sets, cache.line_shift
        rec = LoadRecord(token, self.sm, now)
        if self.unmerged and not local:
            for addr, mask in lines.items():
                self.misses += 1
                rec.remaining += 1
                self.send(now, MemRequest(READ, self.sm, addr, mask, now, waiter=rec))
            if rec.remaining == 0:
                self.complete(now + 1, rec)
            return True
        for addr, mask in lines.items():
            line: Line | None = None
            if not bypass:              # cache.touch, inlined
                s = sets[(addr >> shift) % n_sets]
                line = s.get(addr)
                if line is not None:
                    del s[addr]
                    s[addr] = line
            missing = mask if line is None else mask & ~line.valid
            if not bypass:
                pend = mshr.get(addr)
                count_access(self.breakdown, READ_AT, mask, 0 if line is None else line.valid,
                             0 if pend is None else pend.pending, line is not None)
            if not missing and line is not None:
                self.hits += 1
                self.sector_accesses += mask.bit_count()
                if line.epoch < self.epoch:
                    self.hits_prev_kernel += 1
                if line.prefetched:
                    self.prefetch_hits += 1
                    line.prefetched = False
                rec.ready = now + self.hit_latency
                continue
            rec.remaining += 1
            entry = mshr.get(addr)
            if entry is None:
                self.misses += 1
                if line is not None:
                    self.sector_misses += 1
                entry = mshr[addr] = _Mshr(missing, now, install=not bypass)
                if len(mshr) > self.max_mshr:
                    self.max_mshr = len(mshr)
                self.send(now, MemRequest(READ, self.sm, addr, missing, now))
            else:
                self.merges += 1
                extra = missing & ~entry.pending
                if extra:
                    entry.pending |= extra
                    self.send(now, MemRequest(READ, self.sm, addr, extra, now))
            entry.waiters.append(rec)
        if rec.remaining == 0:
            self.complete(rec.ready, rec)
        return True

    def fill(self, now: int, req: MemRequest) -> None:
        """A read reply arrived: install the sectors, finish the waiting instructions."""
        rec = req.waiter
        if rec is not None:             # an unmerged bypassing load: its own reply
            rec.remaining -= 1
            if rec.remaining == 0:
                self.complete(now, rec)
            return
        addr = req.line
        entry = self.mshr.get(addr)
        if entry is None:
            return
        if entry.install:
            self.sector_accesses += req.mask.bit_count()
            self._install(now, addr, req.mask, 0, entry.prefetch)
        entry.pending &= ~req.mask
        if entry.pending:
            return
        del self.mshr[addr]
        self.frees += 1
        self.stall_changed()
        self.miss_latency_sum += now - entry.t_alloc
        self.miss_count += 1
        for rec in entry.waiters:
            rec.remaining -= 1
            if rec.remaining == 0:
                self.complete(max(now, rec.ready), rec)

    def _install(self, now: int, addr: int, valid: int, dirty: int, prefetched: bool) -> None:
        victim = self.cache.fill(addr, valid, dirty, self.epoch, prefetched)
        if victim is not None and victim[1].dirty:
            self.writebacks += 1
            self.send(now, MemRequest(WRITEBACK, self.sm, victim[0], victim[1].dirty, now))

    # --- stores and atomics ----------------------------------------------------------------
    def store(self, now: int, lines: dict[int, int], rec: LoadRecord | None = None) -> bool:
        """Write-through: one packet per line. Write-back: packets only for evicted dirty lines
        (at most one per line), so the room check is the same. ``rec`` (store acks): the
        write-through packets carry it and the store completes when the L2 has acked them all."""
        if self._store_blocked(lines):
            self.refused_on_mshrs = False
            return False
        cache = self.cache
        sets, n_sets, shift = cache.sets, cache.n_sets, cache.line_shift
        for addr, mask in lines.items():
            s = sets[(addr >> shift) % n_sets]      # cache.touch, inlined
            line = s.get(addr)
            if line is not None:
                del s[addr]
                s[addr] = line
            self.sector_accesses += mask.bit_count()
            if not self.bypass:
                count_access(self.breakdown, WRITE_AT, mask, 0 if line is None else line.valid,
                             0, line is not None)
            if line is not None:
                self.store_hits += 1
                line.valid |= mask
                if self.write_back:
                    line.dirty |= mask
            else:
                self.store_misses += 1
                if self.write_back:
                    self._install(now, addr, mask, mask, False)
            if not self.write_back:
                if rec is not None:     # acks to wait for: one per packet, or per sector
                    rec.remaining += mask.bit_count() if self.sector_acks else 1
                self.send(now, MemRequest(WRITE, self.sm, addr, mask, now, waiter=rec))
        return True

    def atomic(self, now: int, lines: dict[int, int], token: object) -> bool:
        if not self._room(len(lines), len(lines)):
            return False
        rec = LoadRecord(token, self.sm, now)
        if not lines:                   # no active thread: nothing to do
            self.complete(now + 1, rec)
        for addr, mask in lines.items():
            rec.remaining += 1
            self.atomics_inflight += 1
            self.send(now, MemRequest(ATOM, self.sm, addr, mask, now, waiter=rec))
        return True

    def atomic_done(self, now: int, req: MemRequest) -> None:
        self.atomics_inflight -= 1
        self.frees += 1
        self.stall_changed()
        rec = req.waiter
        rec.remaining -= 1
        if rec.remaining == 0:
            self.complete(max(now, rec.ready), rec)

    # --- prefetch port and kernel boundary -------------------------------------------------
    def prefetch(self, now: int, addr: int, mask: int) -> bool:
        """Fetch sectors of a line into this L1 with no instruction waiting (OWL-style hook).
        False when the line is present, already requested, or no MSHR / queue slot is free."""
        addr -= addr % self.line_bytes
        line = self.cache.probe(addr)
        missing = mask if line is None else mask & ~line.valid
        if self.bypass or not missing or addr in self.mshr or not self._room(1, 1) \
                or self.mshrs_used() >= self.n_mshrs:
            return False
        self.prefetches += 1
        self.mshr[addr] = _Mshr(missing, now, prefetch=True)
        self.send(now, MemRequest(READ, self.sm, addr, missing, now))
        return True

    def kernel_boundary(self, now: int, readonly: tuple | None = None) -> None:
        """``readonly``: the launching kernel's read-only regions (None when a kernel ends)."""
        self.epoch += 1
        if self.keep:
            if self.self_invalidate and readonly is not None:
                self._acquire(readonly)
            return
        if self.write_back:            # GPU coherence: write dirty data through, then invalidate
            for addr, line in list(self.cache.lines()):
                if line.dirty:
                    self.writebacks += 1
                    self.send(now, MemRequest(WRITEBACK, self.sm, addr, line.dirty, now))
        self.cache.clear()

    def _acquire(self, readonly: tuple) -> None:
        """DeNovo-style launch ([IKRA DeNovo]): owned (dirty) sectors stay, lines inside read-only
        regions stay, every other valid sector is dropped (words tracked per 32 B sector here)."""
        for s in self.cache.sets:
            for addr in list(s):
                if any(lo <= addr < hi for lo, hi in readonly):
                    continue
                line = s[addr]
                line.valid &= line.dirty
                if not line.valid:
                    del s[addr]

    def stats(self) -> dict:
        return {"hits": self.hits, "misses": self.misses, "sector_misses": self.sector_misses,
                "merges": self.merges, "hits_prev_kernel": self.hits_prev_kernel,
                "store_hits": self.store_hits, "store_misses": self.store_misses,
                "writebacks": self.writebacks, "stalls": self.stalls,
                "max_mshr": self.max_mshr, "prefetches": self.prefetches,
                "prefetch_hits": self.prefetch_hits, "sector_accesses": self.sector_accesses,
                "miss_latency_sum": self.miss_latency_sum,
                "miss_count": self.miss_count, **breakdown_stats(self.breakdown)}
