"""The full memory hierarchy behind the SMs: coalescer → L1 (+ MSHRs) → crossbar → L2 slices →
DRAM channels, implementing the ``MemorySystem`` protocol (interface.py).

Path of a global load that misses everywhere (unloaded), in core cycles:

    issue → (L1 miss, no extra delay) → request packet: ceil(header/bw) − 1 + icnt.latency
          → L2 tag stage: + l2.hit_latency → + dram.controller_latency
          → DRAM: next command edge + tRCD + tCL + data bursts
          → reply packet: ceil((header + data)/bw) − 1 + icnt.latency → data back

An L1 hit takes ``l1.hit_latency``; an L2 hit skips the DRAM term. Shared-memory accesses
(LDS/STS) take ``units.smem_latency`` plus one cycle per extra bank-conflict cycle, one access at
a time per SM. Stores are accepted (``on_complete``) one cycle after issue; their packets still
consume interconnect, L2 and DRAM bandwidth. With ``l1.store_ack`` a write-through store instead
completes when the L2 has acknowledged each of its packets (a header-only reply after the tag
stage; one per written sector with ``l1.sector_acks``), so the warp's exit and fences wait for
it. Everything is driven by one event queue, so an idle hierarchy has ``next_event() is None``
and ``tick`` costs nothing. A refused access is remembered with the state it waits on: MSHR
frees when the MSHRs bind, else also the SM's queued packets. Re-offered while that has not moved
it is refused at once without side effects, and ``watch_stalls`` tells the SM when it moves, so a
stalled SM need not retry every cycle.
``l1.stalls`` counts stall episodes: accesses refused at least once, however often re-offered.

Beyond the protocol: ``watch_stalls`` (optional hook, see interface.py), ``prefetch_l1`` /
``prefetch_l2`` (OWL-style prefetch ports), ``open_row``; with ``dram.prefetch`` on, OWL's
memory-side prefetcher (prefetch.py) fills the L2 slices from open DRAM rows;
SMs that model shared memory themselves can call ``coalescer.smem_conflict_cycles``. ``stats()``
keys: ``l1.*``, ``l2.*`` (summed over SMs / slices), ``icnt.{up,down}.*``, ``dram.*``,
``traffic.*`` (bytes L1↔L2, L2↔DRAM), ``prefetch.*``, ``mem.*`` (per-load latency), ``smem.*``, ``energy.*``.
"""

from __future__ import annotations

from typing import Any, Callable, Final

from gpusched.config import GPUConfig
from sim.workload.kernel import OP_ATOM as _ATOM
from sim.workload.kernel import OP_LDS as _LDS
from sim.workload.kernel import OP_STG as _STG
from sim.workload.kernel import OP_STS as _STS
from sim.workload.kernel import Instr, Kernel, LocalInstr

from .coalescer import coalesce, smem_conflict_cycles
from .dram import DRAM, AddressMap
from .energy import memory_energy
from .events import EventQueue, nothing
from .icnt import Crossbar
from .interface import CompletionCallback
from .l1 import ATOMIC, L1, LOAD, LOCAL_LOAD, STORE, LoadRecord
from .l2 import L2Slice
from .prefetch import OwlPrefetcher, prefetch_stats_off
from .request import ATOM, PREFETCH, READ, WRITE, MemRequest

_DATA_UP: Final = (False, True, True, True, False)    # request carries data: write, atom, writeback
_DATA_DOWN: Final = (True, False, True, False, True)  # reply carries data: read, atom, prefetch


class MemoryHierarchy:
    """Drop-in ``MemorySystem`` built from a validated ``GPUConfig``."""

    def __init__(self, cfg: GPUConfig, blocks: Any = None):
        """``blocks``: the run's block provider (sim/blocks/provider.py) for the prefetch
        engines; None: the twins."""
        self.cfg = cfg
        ev = self.ev = EventQueue()
        n_sm, n_slices = cfg.sm.count, cfg.l2.slices
        self.sector_bytes = cfg.l1.sector_bytes
        self.line_bytes = cfg.l1.line_bytes
        self.header = cfg.icnt.header_bytes
        self.inject_queue = cfg.icnt.inject_queue
        self.sector_requests = cfg.icnt.sector_requests
        self.map = AddressMap(cfg.dram, cfg.l2.line_bytes, n_slices)
        self.up = Crossbar(ev, n_sm, n_slices, cfg.icnt.latency, cfg.icnt.bytes_per_cycle,
                           self._at_slice, cfg.icnt.fifo_inputs)
        self.down = Crossbar(ev, n_slices, n_sm, cfg.icnt.latency, cfg.icnt.bytes_per_cycle,
                             self._at_sm, cfg.icnt.fifo_inputs)
        self.dram = DRAM(ev, cfg.dram, cfg.core_clock_mhz, self.sector_bytes, self._dram_done)
        spc = self.map.spc
        line_sectors = cfg.l2.line_bytes // self.sector_bytes
        self.slices = [L2Slice(i, cfg.l2, self.map, self._to_dram, self._l2_reply,
                               ev, self.dram.channels[i // spc].overflow, self.dram.queue_size,
                               line_sectors)
                       for i in range(n_slices)]
        for sl in self.slices:          # l2.input_queue: a full slice holds its request port
            sl.refuse = self.up.hold
            sl.sector_atomics = self.sector_requests
        self.dram.on_space = self._dram_space
        self.pf: OwlPrefetcher | None = None
        if cfg.dram.prefetch != "off":         # OWL opportunistic prefetcher (prefetch.py)
            self.pf = self.dram.pf = OwlPrefetcher(cfg.dram.prefetch, self.map, cfg.l2.line_bytes,
                                                   self.sector_bytes, self._in_l2, self.map.slice_of,
                                                   cfg.dram.scheduler,
                                                   cfg.dram.prefetch_priority, blocks)
        self.controller_latency = cfg.dram.controller_latency
        # l1.miss_after_lookup: a load's or store's packets leave after the L1's tag pipeline
        self.lookup = cfg.l1.hit_latency if cfg.l1.miss_after_lookup and not cfg.l1.bypass_global_loads else 0
        send = self._send_after_lookup if self.lookup else self._send
        self.l1s = [L1(i, cfg.l1, send, self._complete, self.up.src_waiting, self.inject_queue)
                    for i in range(n_sm)]
        self.callbacks: list[Any] = [None] * n_sm
        # bound methods looked up once (hot paths; compiled, binding one per event is costly)
        self._finish_token_cb: Callable[[int, tuple], None] = self._finish_token
        self._finish_load_cb: Callable[[int, LoadRecord], None] = self._finish_load
        self._slice_of, self._dram_enqueue = self.map.slice_of, self.dram.enqueue
        self._l1_fill = [l1.fill for l1 in self.l1s]
        self._l1_atomic_done = [l1.atomic_done for l1 in self.l1s]
        self.store_ack = cfg.l1.store_ack
        self.sector_acks = cfg.l1.store_ack and cfg.l1.sector_acks
        # a store is one request per sector (the acknowledgements count per sector, or none)
        self.sector_stores = self.sector_requests and (self.sector_acks or not cfg.l1.store_ack)
        # refused accesses per SM, by id(instr): (instr, lines, MSHR frees and queued packets at
        # the refusal, whether the MSHRs bound, access kind for L1.blocked)
        self._refused: list[dict[int, tuple[Any, dict[int, int], int, int, bool, int]]] = [
            {} for _ in range(n_sm)]
        self.smem_latency, self.smem_banks = cfg.units.smem_latency, cfg.units.smem_banks
        self.perfect_l1, self.l1_hit_latency = cfg.l1.perfect, cfg.l1.hit_latency
        from gpusched.config.validate import carveouts
        self.carveouts = carveouts(cfg.l1.carveouts)
        self.kernel_ends: list[dict] = []       # ``cumulative`` at each kernel's end
        self.smem_free = [0] * n_sm
        self.smem_accesses = self.smem_cycles = 0
        self.loads = self.load_latency_sum = self.stores = self.atomics = 0
        self.bytes_l1_to_l2 = self.bytes_l2_to_l1 = 0
        self.last_cycle = 0
        self._watchers = [nothing] * n_sm             # watch_stalls hooks

    # --- MemorySystem protocol -------------------------------------------------------------
    def connect(self, sm_id: int, on_complete: CompletionCallback) -> None:
        self.callbacks[sm_id] = on_complete

    def issue(self, now: int, sm_id: int, instr: Instr, token: object) -> bool:
        op: int = instr.op
        pending = self._refused[sm_id]
        refused = pending.get(id(instr)) if pending else None
        l1 = self.l1s[sm_id]
        if refused is not None and refused[0] is instr:     # an SM retrying a stalled access
            if refused[2] == l1.frees and (refused[4] or refused[3] == self.up.src_waiting[sm_id]):
                return False            # what it waits on has not moved: still stuck
            lines = refused[1]
        else:
            refused = None
            if op == _LDS or op == _STS:
                return self._smem(now, sm_id, instr, token)
            lines = coalesce(instr.addrs or (), instr.size, self.line_bytes, self.sector_bytes)
            if self.perfect_l1:
                return self._perfect_l1(now, sm_id, op, len(lines), token)
        if op == _STG:
            rec = LoadRecord(token, sm_id, now) if self.store_ack else None
            ok = l1.store(now, lines, rec)
            if ok:
                self.stores += 1
                if rec is None or rec.remaining == 0:   # accepted; else done at its last ack
                    self.ev.at(now + 1, self._finish_token_cb, (sm_id, token))
        elif op == _ATOM:
            ok = l1.atomic(now, lines, token)
            if ok:
                self.atomics += 1
        else:
            ok = l1.load(now, lines, token, type(instr) is LocalInstr)
        if not ok:
            if refused is None:
                l1.stalls += 1          # a stall episode, counted once however often retried
            self._refuse(sm_id, instr, lines, op)
        elif refused is not None:
            del pending[id(instr)]
            self._watch_queue(sm_id)
        return ok

    def _perfect_l1(self, now: int, sm_id: int, op: int, n_lines: int, token: object) -> bool:
        """Perfect-L1 mode (``l1.perfect``, PMEM of [OWL §3]): the access hits in every line; a load
        or atomic returns after ``l1.hit_latency``, a store is accepted the next cycle."""
        l1 = self.l1s[sm_id]
        if op == _STG:
            self.stores += 1
            l1.store_hits += n_lines
            self.ev.at(now + 1, self._finish_token_cb, (sm_id, token))
            return True
        l1.hits += n_lines
        if op == _ATOM:
            self.atomics += 1
        else:
            self.loads += 1
            self.load_latency_sum += self.l1_hit_latency
        self.ev.at(now + self.l1_hit_latency, self._finish_token_cb, (sm_id, token))
        return True

    def watch_stalls(self, sm_id: int, fn) -> None:
        """``fn()`` is called whenever what a refused access of ``sm_id`` waits on changes (an
        MSHR frees, its injection queue moves, a kernel boundary): until then re-offering it is
        refused again without side effects (see ``issue``), so the SM need not retry."""
        self._watchers[sm_id] = fn
        self.l1s[sm_id].stall_changed = lambda: self._mshr_freed(sm_id)
        self._watch_queue(sm_id)

    def _mshr_freed(self, sm_id: int) -> None:
        """An MSHR of ``sm_id`` freed: wake the SM if one of its refused accesses now fits (the
        L1's exact acceptance check); a retry of the others would be refused again. One that
        the MSHRs no longer bind but the injection queue still does now waits on the queue, so
        the queue's next move wakes the SM (else nothing would: its MSHRs may all be free)."""
        l1 = self.l1s[sm_id]
        refused = self._refused[sm_id]
        requeued = False
        for key, r in refused.items():
            if not l1.blocked(r[5], r[1]):
                self._watchers[sm_id]()
                return
            if r[4] and not l1.refused_on_mshrs:
                refused[key] = (r[0], r[1], r[2], self.up.src_waiting[sm_id], False, r[5])
                requeued = True
        if requeued:
            self._watch_queue(sm_id)

    def _refuse(self, sm_id: int, instr: Instr, lines: dict, op: int) -> None:
        """Remember a refused access with the state it waits on, so a retry is O(1) until an
        MSHR frees or (unless the MSHRs bind) the SM's injection queue moves."""
        l1 = self.l1s[sm_id]
        kind = (STORE if op == _STG else ATOMIC if op == _ATOM
                else LOCAL_LOAD if type(instr) is LocalInstr else LOAD)
        self._refused[sm_id][id(instr)] = (instr, lines, l1.frees, self.up.src_waiting[sm_id],
                                           l1.refused_on_mshrs, kind)
        self._watch_queue(sm_id)

    def _watch_queue(self, sm_id: int) -> None:
        """Wake the SM on its injection queue's moves only while one of its refused accesses
        waits on the queue alone (one waiting on MSHRs is woken by the MSHR free)."""
        fn = nothing
        for r in self._refused[sm_id].values():
            if not r[4]:
                fn = self._watchers[sm_id]
                break
        self.up.src_changed[sm_id] = fn

    def tick(self, now: int) -> None:
        self.ev.run_until(now)
        self.last_cycle = now

    def next_event(self) -> int | None:
        return self.ev.next_cycle()

    def kernel_boundary(self, now: int, finished: Kernel | None, next_kernel: Kernel | None) -> None:
        readonly = None if next_kernel is None else tuple(next_kernel.readonly_regions)
        for l1 in self.l1s:
            l1.kernel_boundary(now, readonly)
        if finished is not None:
            self.kernel_ends.append(self.cumulative(now))
        if next_kernel is not None and self.carveouts:
            ways = self.l1_ways(next_kernel)
            for l1 in self.l1s:
                l1.cache.ways = ways
        for sm_id, refused in enumerate(self._refused):
            refused.clear()
            self._watch_queue(sm_id)
        for fn in self._watchers:
            fn()

    def cumulative(self, now: int) -> dict:
        """The counters Accel-Sim prints, cumulative, at the end of each kernel: the L1 and L2
        access breakdowns (``cache.count_access``) and DRAM sectors read and written."""
        l1, l2 = [0] * 8, [0] * 8
        for sums, parts in ((l1, self.l1s), (l2, self.slices)):
            for p in parts:
                for i, v in enumerate(p.breakdown):
                    sums[i] += v
        return {"cycle": now, "l1": l1, "l2": l2,
                "dram_reads": self.dram.bytes_read // self.sector_bytes,
                "dram_writes": self.dram.bytes_written // self.sector_bytes}

    def l1_ways(self, kernel: Kernel) -> int:
        """``l1.carveouts`` (GPGPU-Sim's adaptive cache, ``shader_core_config::max_cta``): the
        smallest carve-out that holds the kernel's shared memory (per CTA × CTAs per SM) goes to
        shared memory, the L1 keeps the rest of the unified capacity, rounded to whole ways."""
        from sim.cta import occupancy_limit
        cfg = self.cfg
        total = kernel.smem_per_cta * occupancy_limit(cfg.sm, kernel, cfg.sm.count).limit
        cut = next((c for c in self.carveouts if c >= total), self.carveouts[-1])
        return max(1, int(cfg.l1.ways * (1 - cut / cfg.l1.size_bytes) + 0.5))

    def busy(self) -> bool:
        return len(self.ev) > 0

    # --- extra ports -----------------------------------------------------------------------
    def prefetch_l1(self, now: int, sm_id: int, addr: int, mask: int | None = None) -> bool:
        """Bring (sectors of) the line holding ``addr`` into one SM's L1; no warp waits on it."""
        full = (1 << (self.line_bytes // self.sector_bytes)) - 1
        return self.l1s[sm_id].prefetch(now, addr, full if mask is None else mask)

    def prefetch_l2(self, now: int, addr: int, mask: int | None = None) -> bool:
        """Memory-side prefetch ([OWL §4.4]): fetch a line into its own L2 slice from DRAM, no
        reply to any SM. False (nothing done) if present, already requested, or the slice has
        no free MSHR / is stalled: prefetches are opportunistic and never wait."""
        line = addr - addr % self.line_bytes
        full = (1 << (self.line_bytes // self.sector_bytes)) - 1
        req = MemRequest(PREFETCH, -1, line, full if mask is None else mask, now)
        req.slice = self.map.slice_of(line)
        return self.slices[req.slice].prefetch(now, req)

    def open_row(self, addr: int) -> tuple[int, int, int | None]:
        """(channel, bank, currently open row or None) of the bank holding ``addr`` (OWL)."""
        ch, bank, _ = self.map.locate(addr)
        return ch, bank, self.dram.open_row(ch, bank)

    # --- internal wiring -------------------------------------------------------------------
    def _smem(self, now: int, sm_id: int, instr: Instr, token: object) -> bool:
        cycles = smem_conflict_cycles(instr, self.smem_banks)
        start = max(now, self.smem_free[sm_id])
        self.smem_free[sm_id] = start + cycles
        self.smem_accesses += 1
        self.smem_cycles += cycles
        self.ev.at(start + cycles - 1 + self.smem_latency, self._finish_token_cb, (sm_id, token))
        return True

    def _send(self, now: int, req: MemRequest) -> None:
        """L1 → L2 request packet."""
        if req.kind == ATOM and self.sector_requests and req.mask & (req.mask - 1):
            self._send_atomic_sectors(now, req)
            return
        if req.kind == WRITE and self.sector_stores and req.mask & (req.mask - 1):
            self._send_store_sectors(now, req)
            return
        req.slice = dst = self._slice_of(req.line)
        nbytes = self.header
        if _DATA_UP[req.kind]:
            data = req.mask.bit_count() * self.sector_bytes
            nbytes += data
            self.bytes_l1_to_l2 += data
        elif req.kind == READ and self.sector_requests:
            # one packet per sector (icnt.sector_requests): the request travels with the last
            for _ in range(req.mask.bit_count() - 1):
                self.up.send(now, req.sm, dst, nbytes, None)
        self.up.send(now, req.sm, dst, nbytes, req)

    def _send_atomic_sectors(self, now: int, req: MemRequest) -> None:
        """``icnt.sector_requests``: an atomic on k sectors of a line is k one-sector requests,
        each its own packet (with its data), L2 access and reply, as GPGPU-Sim's atomic
        coalescer makes one 32-byte ``mem_fetch`` per sector for arch ≥ 40
        (``warp_inst_t::memory_coalescing_arch_atomic``); the atomic completes with the last
        sector's reply (``_at_sm``)."""
        mask = req.mask
        while mask:
            low = mask & -mask
            mask ^= low
            part = MemRequest(ATOM, req.sm, req.line, low, req.t_issue)
            part.parent = req
            self._send(now, part)

    def _send_store_sectors(self, now: int, req: MemRequest) -> None:
        """``icnt.sector_requests``: a store to k sectors of a line is k one-sector write
        requests, each its own packet (one flit with its data), L2 access and acknowledgement,
        as GPGPU-Sim's coalescer makes one 32-byte ``mem_fetch`` per sector for arch ≥ 40
        (``warp_inst_t::memory_coalescing_arch``). The store's record already counts one
        acknowledgement per sector (``l1.sector_acks``), so the parts share it."""
        mask = req.mask
        while mask:
            low = mask & -mask
            mask ^= low
            self._send(now, MemRequest(WRITE, req.sm, req.line, low, req.t_issue, waiter=req.waiter))

    def _send_after_lookup(self, now: int, req: MemRequest) -> None:
        """``l1.miss_after_lookup``: GPGPU-Sim's L1 takes every load and store through its
        ``l1_latency`` queue before the tag lookup, so a miss's or write-through store's packet
        leaves ``l1.hit_latency`` after the access (atomics bypass the L1: at once)."""
        if req.kind == READ or req.kind == WRITE:
            self.ev.at(now + self.lookup, self._send, req)
        else:
            self._send(now, req)

    def _at_slice(self, arrival: int, req: MemRequest) -> None:
        self.slices[req.slice].arrive(arrival, req)

    def _l2_reply(self, now: int, req: MemRequest) -> None:
        if req.sm < 0:
            return
        nbytes = self.header
        if _DATA_DOWN[req.kind]:
            data = req.mask.bit_count() * self.sector_bytes
            nbytes += data
            self.bytes_l2_to_l1 += data
        elif req.kind == WRITE and self.sector_acks:    # one ack packet per sector written
            for _ in range(req.mask.bit_count() - 1):
                self.down.send(now, req.slice, req.sm, nbytes, req)
        self.down.send(now, req.slice, req.sm, nbytes, req)

    def _at_sm(self, arrival: int, req: MemRequest) -> None:
        """The reply reaches its L1 at ``arrival``: an atomic's completion, a store's ack, else a
        fill."""
        kind = req.kind
        parent = req.parent
        if parent is not None:          # a sector of an atomic: done with the last one
            parent.mask &= ~req.mask
            if parent.mask:
                return
            req = parent
        if kind == WRITE:
            self.ev.at(arrival, self._store_acked, req)
        else:
            self.ev.at(arrival, (self._l1_atomic_done if kind == ATOM else self._l1_fill)[req.sm], req)

    def _store_acked(self, now: int, req: MemRequest) -> None:
        """The L2's acknowledgement of one write-through packet of a store (``l1.store_ack``):
        the store completes with its last one."""
        rec = req.waiter
        rec.remaining -= 1
        if rec.remaining == 0:
            self.callbacks[rec.sm](rec.token, now)

    def _to_dram(self, now: int, req: MemRequest) -> None:
        m, addr = self.map, req.line        # map.locate, inlined
        req.channel = (m.random_slice(addr) // m.spc if m.random
                       else (addr >> m.channel_bit) % m.channels)
        req.bank = (addr >> m.bank_bit) % m.banks
        req.row = addr >> m.row_bit
        if self.controller_latency:
            self.ev.at(now + self.controller_latency, self._dram_enqueue, req)
        else:
            self.dram.enqueue(now, req)

    def _dram_space(self, now: int, channel: int) -> None:
        spc = self.map.spc
        for sl in self.slices[channel * spc:(channel + 1) * spc]:
            if sl.stalled:
                sl.drain(now)

    def _dram_done(self, now: int, req: MemRequest) -> None:
        if req.kind == READ:
            self.slices[req.slice].fill(now, req)
        elif req.kind == PREFETCH and self.pf is not None:
            self._pf_install(now, req)

    def _in_l2(self, line: int) -> bool:
        """The line is in its L2 slice or on its way there (the prefetcher skips it)."""
        sl = self.slices[self.map.slice_of(line)]
        return line in sl.mshr or sl.cache.probe(line) is not None

    def _pf_install(self, now: int, req: MemRequest) -> None:
        """A memory-side prefetch's data reached its L2 slice: no reply to any SM. A demand
        that missed meanwhile (an MSHR waits) is served by it: a late prefetch."""
        sl, pf = self.slices[req.slice], self.pf
        assert pf is not None
        if req.line in sl.mshr:
            pf.late += 1
            sl.fill(now, req)
        elif sl.cache.probe(req.line) is not None:
            pf.redundant += 1
        else:
            pf.fills += 1
            sl._install(now, req.line, req.mask, 0, True)

    def _complete(self, cycle: int, rec: LoadRecord) -> None:
        ev = self.ev
        if cycle <= ev.now and ev.running:  # a fill finishing the load in this very cycle
            self.loads += 1
            self.load_latency_sum += cycle - rec.t_issue
            self.callbacks[rec.sm](rec.token, cycle)
        else:
            ev.at(cycle, self._finish_load_cb, rec)

    def _finish_load(self, now: int, rec: LoadRecord) -> None:
        self.loads += 1
        self.load_latency_sum += now - rec.t_issue
        self.callbacks[rec.sm](rec.token, now)

    def _finish_token(self, now: int, arg: tuple) -> None:
        sm_id, token = arg
        self.callbacks[sm_id](token, now)

    # --- statistics ------------------------------------------------------------------------
    def stats(self) -> dict:
        now = max(self.last_cycle, self.ev.now)
        out: dict = {}
        for prefix, parts in (("l1", self.l1s), ("l2", self.slices)):
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
        out["mem.loads"] = self.loads
        out["mem.load_latency_mean"] = self.load_latency_sum / self.loads if self.loads else 0.0
        out["mem.stores"], out["mem.atomics"] = self.stores, self.atomics
        out["smem.accesses"], out["smem.cycles"] = self.smem_accesses, self.smem_cycles
        out["traffic.l1_to_l2_bytes"] = self.bytes_l1_to_l2
        out["traffic.l2_to_l1_bytes"] = self.bytes_l2_to_l1
        for name, net in (("icnt.up", self.up), ("icnt.down", self.down)):
            out[f"{name}.packets"], out[f"{name}.bytes"] = net.packets, net.bytes
            out[f"{name}.flits"], out[f"{name}.max_waiting"] = net.flits, net.max_waiting
            out[f"{name}.wait_mean"] = net.wait_cycles / net.packets if net.packets else 0.0
        out.update(self.dram.stats(now))
        if self.pf is not None:
            out.update(self.pf.stats(out["l2.prefetch_hits"], out["dram.reads"]))
        else:
            out.update(prefetch_stats_off())
        out["traffic.l2_to_dram_bytes"] = out["dram.bytes_written"]
        out["traffic.dram_to_l2_bytes"] = out["dram.bytes_read"]
        out.update(memory_energy(out, self.cfg.energy, self.sector_bytes))
        out["kernel_ends"] = list(self.kernel_ends)
        return out
