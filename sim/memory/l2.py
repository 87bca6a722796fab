"""One L2 slice: sectored, LRU, write-back + write-allocate, MSHRs with merging.

Timing (choice, matching the preset comments "ROP latency ≈ icnt + slice + icnt"): a request that
arrives at cycle t reaches the tag stage at max(t + hit_latency, previous lookup + 1) (one lookup
per slice per cycle). A hit replies at once; a miss allocates (or merges into) an MSHR and sends
the missing sectors to DRAM; the fill replies to every merged requester.

Writes (L1 write-through or L1 write-backs) allocate the line and mark the written sectors valid
and dirty without fetching (sector-granular writes: choice). Atomics execute at the L2 (GPGPU-Sim):
a read of the sectors, then the line is dirty. Evicting a dirty line sends its dirty sectors to
DRAM. With every MSHR busy, or its DRAM channel's queue full (back-pressure: our choice where [OWL]
is silent), the slice stalls in order until a fill frees an MSHR or the channel takes a request.

The requests a stalled slice holds fill its input queue (``l2.input_queue`` sector requests;
GPGPU-Sim's icnt-to-L2 queue, ``memory_sub_partition``): while it lacks room for a whole line's
sectors, the slice refuses the interconnect (``refuse(now, index, True)``, wired to the request
crossbar's ``hold``), as ``gpgpu_sim::cycle`` pops no packet for a sub-partition whose
``full(SECTOR_CHUNCK_SIZE)`` is true; it accepts again once the drain has made room. (There the
check is made where a packet leaves the network, here where it would enter the slice's port,
``icnt.latency`` earlier: choice.)
"""

from __future__ import annotations

from collections import deque
from typing import Callable

from gpusched.config.schema import L2Config

from .cache import READ_AT, WRITE_AT, SectorCache, breakdown_stats, count_access
from .dram import AddressMap
from .events import EventQueue
from .request import ATOM, PREFETCH, READ, WRITEBACK, MemRequest


class _Mshr:
    __slots__ = ("pending", "waiters", "t_alloc", "merged")

    def __init__(self, pending: int, t_alloc: int):
        self.pending, self.t_alloc = pending, t_alloc
        self.waiters: list[MemRequest] = []
        # requests waiting on each sector (kept with l2.mshr_merge only: GPGPU-Sim's sectored
        # MSHRs are one entry per sector, each taking at most that many requests)
        self.merged: dict[int, int] = {}    # sector index → requests


class L2Slice:
    """Tag array + MSHRs of one slice. ``to_dram(cycle, req)`` and ``reply(cycle, req)`` are
    wired by the hierarchy."""

    def __init__(self, index: int, c: L2Config, line_map: AddressMap,
                 to_dram: Callable[[int, MemRequest], None], reply: Callable[[int, MemRequest], None],
                 ev: EventQueue, dram_input: deque[MemRequest], dram_input_size: int,
                 line_sectors: int = 4):
        self.index, self.ev = index, ev
        # the DRAM channel's input buffer: full at ``dram_input_size`` requests (back-pressure)
        self.dram_input, self.dram_input_size = dram_input, dram_input_size
        self.cache = SectorCache(c.sets, c.ways, c.line_bytes, line_map=line_map)
        self.hit_latency, self.n_mshrs = c.hit_latency, c.mshrs
        self.max_merge = c.mshr_merge
        self.merge_fails = 0            # times the slice stalled on a sector's full MSHR entry
        self.perfect = c.perfect
        self.to_dram, self.reply = to_dram, reply
        self._access_cb: Callable[[int, MemRequest], None] = self.access   # bound once (hot event)
        self.mshr: dict[int, _Mshr] = {}
        self.stalled: deque[MemRequest] = deque()
        # l2.input_queue: the slice refuses the interconnect while it holds this many sectors
        # (GPGPU-Sim's full(SECTOR_CHUNCK_SIZE): length + sectors of a line - 1 >= the queue)
        self.refuse_at = c.input_queue - line_sectors + 1 if c.input_queue else 0
        self.held = 0                   # sectors of the stalled requests
        self.refusing = False
        self.refuse: Callable[[int, int, bool], None] = lambda now, index, held: None
        # atomics come one sector per request (the hierarchy sets it with icnt.sector_requests):
        # a fill answers them sector by sector (_release_atomics)
        self.sector_atomics = False
        self.refused_since = 0
        self.refused_cycles = 0         # cycles the slice refused the interconnect
        self.next_lookup = 0
        self.hits = self.misses = self.sector_misses = self.merges = self.writes = 0
        self.atomics = self.writebacks = self.max_mshr = 0
        self.stall_events = 0           # times the slice stalled: MSHRs or DRAM input full
        self.prefetches = self.prefetch_hits = 0
        self.sector_accesses = 0        # sectors read or written in the data array (energy)
        self.breakdown = [0] * 8        # Accel-Sim's statuses per sector (cache.count_access)

    def arrive(self, arrival: int, req: MemRequest) -> None:
        """A packet will arrive at ``arrival``; reserve its tag-stage slot."""
        t = arrival + self.hit_latency
        if t < self.next_lookup:
            t = self.next_lookup
        self.next_lookup = t + 1
        self.ev.at(t, self._access_cb, req)

    def dram_full(self) -> bool:
        return len(self.dram_input) >= self.dram_input_size

    def access(self, now: int, req: MemRequest) -> None:
        if self.stalled or len(self.dram_input) >= self.dram_input_size:
            if not self.stalled:
                self.stall_events += 1
            self._hold(now, req)
            return
        self._access(now, req)

    def _hold(self, now: int, req: MemRequest) -> None:
        """Queue ``req`` behind the stall; a full input queue refuses the interconnect."""
        self.stalled.append(req)
        if self.refuse_at:
            self.held += req.mask.bit_count()
            if self.held >= self.refuse_at and not self.refusing:
                self.refusing, self.refused_since = True, now
                self.refuse(now, self.index, True)

    def drain(self, now: int) -> None:
        """Retry stalled requests in order (an MSHR or DRAM queue space was freed)."""
        stalled = self.stalled
        while stalled and len(self.dram_input) < self.dram_input_size:
            if not self._access(now, stalled[0]):
                break
            if self.refuse_at:
                self.held -= stalled[0].mask.bit_count()
            stalled.popleft()
        if self.refusing and self.held < self.refuse_at:
            self.refusing = False
            self.refused_cycles += now - self.refused_since
            self.refuse(now, self.index, False)

    def _access(self, now: int, req: MemRequest) -> bool:
        """Process one request; False (and nothing done) when it needs an MSHR and none is free."""
        kind, addr, mask = req.kind, req.line, req.mask
        if self.perfect:
            return self._perfect(now, req)
        if kind == READ or kind == ATOM or kind == PREFETCH:
            cache = self.cache          # cache.touch, inlined
            s = cache.sets[cache.index(addr)]
            line = s.get(addr)
            if line is not None:
                del s[addr]
                s[addr] = line
            missing = mask if line is None else mask & ~line.valid
            if kind == PREFETCH and (line is not None or addr in self.mshr):
                return True             # already here or on its way: nothing to fetch
            if not missing and line is not None:
                self.hits += 1
                if kind != PREFETCH:
                    count_access(self.breakdown, READ_AT, mask, line.valid, 0, True)
                self.sector_accesses += mask.bit_count()
                if line.prefetched:
                    self.prefetch_hits += 1
                    line.prefetched = False
                if kind == ATOM:
                    self.atomics += 1
                    line.dirty |= mask
                self.reply(now, req)
                return True
            entry = self.mshr.get(addr)
            if entry is None and len(self.mshr) >= self.n_mshrs:
                if not self.stalled:
                    self.stall_events += 1
                    self._hold(now, req)
                return False
            if (entry is not None and self.max_merge and kind != PREFETCH
                    and self._merge_full(entry, missing & entry.pending)):
                # l2.mshr_merge: a pending sector's entry holds as many requests as it may
                # (GPGPU-Sim's mshr_table::full, a reservation fail): the slice waits for its fill
                if not self.stalled:
                    self.stall_events += 1
                    self.merge_fails += 1
                    self._hold(now, req)
                return False
            if kind != PREFETCH:
                count_access(self.breakdown, READ_AT, mask, 0 if line is None else line.valid,
                             0 if entry is None else entry.pending, line is not None)
            if entry is None:
                entry = self.mshr[addr] = _Mshr(missing, now)
                if len(self.mshr) > self.max_mshr:
                    self.max_mshr = len(self.mshr)
                if kind == PREFETCH:
                    self.prefetches += 1
                else:
                    self.misses += 1
                    if line is not None:
                        self.sector_misses += 1
                self._fetch(now, addr, missing)
            else:
                self.merges += 1
                extra = missing & ~entry.pending
                if extra:
                    entry.pending |= extra
                    self._fetch(now, addr, extra)
            if kind != PREFETCH:
                entry.waiters.append(req)
                if self.max_merge:
                    self._count_merge(entry, missing)
            return True
        # WRITE / WRITEBACK from an L1: write-allocate without fetch
        self.writes += 1
        present = self.cache.probe(addr)
        entry = self.mshr.get(addr)
        count_access(self.breakdown, WRITE_AT, mask, 0 if present is None else present.valid,
                     0 if entry is None else entry.pending, present is not None)
        self._install(now, addr, mask, mask, False)
        if req.waiter is not None:      # a store waiting for its ack (l1.store_ack)
            self.reply(now, req)
        return True

    def _merge_full(self, entry: _Mshr, sectors: int) -> bool:
        """Is any of ``sectors`` (pending ones) at the l2.mshr_merge limit?"""
        merged, limit = entry.merged, self.max_merge
        while sectors:
            low = sectors & -sectors
            if merged.get(low.bit_length() - 1, 0) >= limit:
                return True
            sectors ^= low
        return False

    @staticmethod
    def _count_merge(entry: _Mshr, sectors: int) -> None:
        merged = entry.merged
        while sectors:
            low = sectors & -sectors
            i = low.bit_length() - 1
            merged[i] = merged.get(i, 0) + 1
            sectors ^= low

    def _perfect(self, now: int, req: MemRequest) -> bool:
        """Perfect-L2 mode (``l2.perfect``, the upper bound of [OWL §5]): reads and atomics hit,
        writes are absorbed, prefetches have nothing to do; no tag state, no DRAM traffic."""
        kind = req.kind
        if kind == PREFETCH:
            return True
        if kind == READ or kind == ATOM:
            self.hits += 1
            self.sector_accesses += req.mask.bit_count()
            count_access(self.breakdown, READ_AT, req.mask, req.mask, 0, True)
            if kind == ATOM:
                self.atomics += 1
            self.reply(now, req)
        else:
            self.writes += 1
            self.sector_accesses += req.mask.bit_count()
            count_access(self.breakdown, WRITE_AT, req.mask, req.mask, 0, True)
        return True

    def prefetch(self, now: int, req: MemRequest) -> bool:
        """Start a memory-side prefetch of ``req.line`` if the slice is not stalled and has a
        free MSHR; True when a DRAM fetch was started (not when the line is already here)."""
        if self.stalled or self.dram_full() or len(self.mshr) >= self.n_mshrs:
            return False
        before = self.prefetches
        self._access(now, req)
        return self.prefetches > before

    def _fetch(self, now: int, addr: int, mask: int) -> None:
        req = MemRequest(READ, -1, addr, mask, now)
        req.slice = self.index
        self.to_dram(now, req)

    def _install(self, now: int, addr: int, valid: int, dirty: int, prefetched: bool) -> None:
        self.sector_accesses += valid.bit_count()
        victim = self.cache.fill(addr, valid, dirty, 0, prefetched)
        if victim is not None and victim[1].dirty:
            self.writebacks += 1
            req = MemRequest(WRITEBACK, -1, victim[0], victim[1].dirty, now)
            req.slice = self.index
            self.to_dram(now, req)

    def fill(self, now: int, dreq: MemRequest) -> None:
        """DRAM returned ``dreq.mask`` of ``dreq.line``: install, reply to the merged requests."""
        addr = dreq.line
        entry = self.mshr.get(addr)
        if entry is None:
            self._install(now, addr, dreq.mask, 0, False)
            return
        entry.pending &= ~dreq.mask
        dirty = 0
        for w in entry.waiters:
            if w.kind == ATOM:
                dirty |= w.mask
        self._install(now, addr, dreq.mask, dirty, not entry.waiters)
        if entry.pending and self.sector_atomics:
            # one-sector atomics whose sector this fill brought are answered now
            ready = [w for w in entry.waiters if w.kind == ATOM and not w.mask & entry.pending]
            if ready:
                entry.waiters = [w for w in entry.waiters if w.kind != ATOM or w.mask & entry.pending]
                self.atomics += len(ready)
                self._release_atomics(now, ready)
        if entry.pending:
            if self.max_merge:          # the filled sectors' entries are free again
                entry.merged = {i: n for i, n in entry.merged.items() if not dreq.mask >> i & 1}
                if self.stalled:
                    self.drain(now)
            return
        del self.mshr[addr]
        atomics: list[MemRequest] = []
        for w in entry.waiters:
            if w.kind == ATOM:
                self.atomics += 1
                if self.sector_atomics:
                    atomics.append(w)
                    continue
            self.reply(now, w)
        if atomics:
            self._release_atomics(now, atomics)
        if self.stalled:
            self.drain(now)

    def _release_atomics(self, now: int, reqs: list[MemRequest]) -> None:
        """Answer one-sector atomics sector by sector, each sector's in arrival order.
        GPGPU-Sim's sectored MSHRs hold one entry per sector; a fill readies its sector's entry
        and ``mshr_table::next_access`` releases that entry's requests before the next
        sector's (``cache_config::mshr_addr``, ``mshr_table::mark_ready``), so a warp whose
        atomic merged into a hot line gets its last sector near the end of the whole release,
        not with its first."""
        for low in sorted({r.mask & -r.mask for r in reqs}):
            for r in reqs:
                if r.mask & -r.mask == low:
                    self.reply(now, r)

    def stats(self) -> dict:
        return {"hits": self.hits, "misses": self.misses, "sector_misses": self.sector_misses,
                "merges": self.merges, "writes": self.writes, "atomics": self.atomics,
                "writebacks": self.writebacks, "stalls": self.stall_events,
                "max_mshr": self.max_mshr, "prefetches": self.prefetches,
                "prefetch_hits": self.prefetch_hits, "sector_accesses": self.sector_accesses,
                "merge_fails": self.merge_fails, "refused_cycles": self.refused_cycles,
                **breakdown_stats(self.breakdown)}
