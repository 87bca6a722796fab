"""One SM: warp slots, sub-cores, fetch/decode, write-back, shared memory, CTA slots, pause state.

Stage order inside one SM cycle ([GPGPU-Sim scoreboard.cc]): write-back (register releases), LD/ST
retries, issue (sub-cores in index order), then fetch/decode. So a register released at
write-back can be used by an issue the same cycle, and an instruction decoded in cycle t issues
at t+1 at the earliest. Memory completions are delivered by the memory system's ``tick`` before
the SMs run, i.e. also before issue.

Fetch ([GPGPU-Sim scoreboard.cc]): ``sm.fetch_per_cycle`` times per cycle, round-robin over the SM's
slots starting after the last warp fetched, serve the first live warp with an empty instruction
buffer; one fetch decodes up to ``sm.ib_entries`` instructions. There is no instruction cache (a
choice: fetch always hits).

Shared memory (LDS/STS) stays in the SM: ``units.smem_latency`` plus one LD/ST pass per extra
bank conflict (``units.smem_banks`` 4-byte banks; distinct words in one bank serialise).

Compiled: this module, ``sim.sm_cta``, ``sim.sm_memory``, ``sim.subcore`` and ``sim.warp`` are
built with mypyc when ``sim.accel`` has built them (same source, same results). Their classes
declare every field with its type at class level: that is what makes field access native, and an
undeclared field cannot be set on an instance.

Power states (active-SM controller): PWR_ACTIVE; PWR_PAUSING (schedulers stop issuing, CTAs stay, no new
CTAs, waits for in-flight instructions to drain); PWR_PAUSED (drained, acknowledged); PWR_GATED
(paused and power-gated). ``resume`` returns to PWR_ACTIVE.
"""

from __future__ import annotations

import heapq
from typing import Any, Final

from sim.cta import KernelRun
from sim.stats import ISSUE_SLOT_REASONS, add_counts
from sim.issue import build_subcores
from sim.sm_cta import SMResidency
from sim.sm_memory import PWR_ACTIVE, PWR_GATED, PWR_PAUSED, PWR_PAUSING  # noqa: F401 (re-exported)
from sim.subcore import NEVER, Unit
from sim.warp import LDST, WS_MEMORY, WS_SCOREBOARD, Decoded, Warp
from sim.workload.kernel import OP_EXIT as _EXIT
from sim.workload.kernel import Instr

SM_STATE_NAMES = ("active", "pausing", "paused", "gated")
DECODE_CACHE_LIMIT: Final = 1 << 16   # decoded static instructions kept (shared Instr objects)


class SM(SMResidency):
    """A streaming multiprocessor. ``gpu`` receives CTA/warp events (finish, drain ack). The
    memory paths (LD/ST issue, retries, completions) are in ``sim.sm_memory``, CTA residency
    (launch, barriers, exit, finish) in ``sim.sm_cta``."""

    fetch_per_cycle: int
    ib_entries: int
    ldst_units: list[Unit]
    fetch_last: int
    wb_at: dict[int, list[Any]]
    wb_cycles: list[int]
    wb_last: int
    wb_last_entries: list[Any]
    wb_free: list[list[Any]]
    decode_cache: dict[Instr, Decoded]
    bound: KernelRun | None
    paused_cycles: int
    gated_cycles: int
    fetcher: Any        # SOCGPU's fetch (sim.issue.socgpu.SocgpuFetch), None: in-order fetch
    tick_sched: bool    # the warp schedulers move every cycle (sim.subcore ``tick_always``)

    def __init__(self, sm_id: int, cfg: Any, memory: Any, blocks: Any, gpu: Any,
                 decode_cache: dict[Instr, Decoded]):
        s = cfg.sm
        self.sm_id, self.gpu, self.memory = sm_id, gpu, memory
        self.n_slots, self.n_sub = s.warps_per_sm, s.subcores
        self.fetch_per_cycle, self.ib_entries = s.fetch_per_cycle, s.ib_entries
        self.smem_latency, self.smem_banks = cfg.units.smem_latency, cfg.units.smem_banks
        self.ldst_sector_cycles = cfg.units.ldst_sector_cycles
        self.block_atomics = cfg.sm.blocking_atomics
        self.sector_shift = cfg.l1.sector_bytes.bit_length() - 1
        self.max_ctas, self.threads_cap = s.max_ctas_per_sm, s.threads_per_sm
        self.regs_cap, self.smem_cap = s.regs_per_sm, s.smem_per_sm
        shared = Unit(LDST, cfg.units.smem_latency, cfg.units.ldst_ii) if cfg.units.ldst_shared else None
        self.fetcher = None
        self.subcores = build_subcores(self, cfg, blocks, shared)  # sm.issue; socgpu sets fetcher
        self.tick_sched = self.subcores[0].tick_always
        self.ldst_units = []            # distinct LD/ST units (shared by all sub-cores or one each)
        for sc in self.subcores:
            u = sc.units[LDST]
            if u is not None and u not in self.ldst_units:
                self.ldst_units.append(u)
        self.slots = [None] * s.warps_per_sm
        self.ctas = [None] * s.max_ctas_per_sm
        self.n_ctas = self.n_warps = 0
        self.threads_used = self.regs_used = self.smem_used = 0
        self.warp_used = 0                  # bitmask of allocated warp slots
        self.ib_empty = 0                   # live warps with an empty instruction buffer
        self.fetch_last = s.warps_per_sm - 1
        # dynamic warp id, never reset ([GPGPU-Sim scheduler_unit::cycle()])
        self.next_dyn_id = 0
        # pending register write-backs: per cycle, warp, dst mask, warp, dst mask, … in the
        # order they were scheduled, and a heap of the cycles that have some (a calendar: no
        # per-entry heap); the cycle scheduled last and its list (most write-backs of a cycle
        # land on the same cycle)
        self.wb_at = {}
        self.wb_cycles = []
        self.wb_last = -1
        self.wb_last_entries = []
        self.wb_free = []                   # emptied lists, reused (no allocation per cycle)
        self.deferred = []
        self.decode_cache = decode_cache
        self.state = PWR_ACTIVE
        self.bound = None   # kernel binding (owned by the kernel scheduler)
        self.profiler = None    # warp-state profiler (sim/profile/warp_states.py), off
        self.wake = self.core_wake = NEVER
        self.accounted = 0                  # first cycle whose issue slots are not yet counted
        self.ctas_launched = self.paused_cycles = self.gated_cycles = 0
        self.init_memory(memory)            # sim.sm_memory: retries, completions

    # -- statistics -------------------------------------------------------------------------
    def warp_insts(self) -> int:
        n = 0
        for sc in self.subcores:
            n += sc.n_insts
        return n

    def issue_counts(self) -> list[int]:
        total = [0] * len(ISSUE_SLOT_REASONS)
        for sc in self.subcores:
            add_counts(total, sc.counts)
        return total

    def catch_up(self, upto: int) -> None:
        """Charge the cycles [accounted, upto) that were skipped while nothing changed."""
        start = self.accounted
        if upto <= start:
            return
        if self.profiler is not None:
            self.profiler.skipped(self, start, upto)
        n = upto - start
        paused = self.state != PWR_ACTIVE
        for sc in self.subcores:        # the issue interval first, then the reason that held
            if paused:
                sc.slot_paused += n
                continue
            k = (upto if upto < sc.next_issue else sc.next_issue) - start
            if k > 0:
                sc.slot_interval += k
                if k == n:
                    continue
                sc.charge(sc.reason(), n - k)
            else:
                sc.charge(sc.reason(), n)
        if paused:
            self.paused_cycles += upto - start
            if self.state == PWR_GATED:
                self.gated_cycles += upto - start
        self.accounted = upto

    # -- one cycle --------------------------------------------------------------------------
    def cycle(self, now: int) -> None:
        """Write-back, LD/ST retries, issue, fetch/decode of cycle ``now``; then the next wake.

        While only a refused memory request is pending (``now < core_wake``) just the retry runs:
        nothing else can change, and the skipped issue slots are charged later by catch_up. A
        retry that gets an access accepted sets core_wake to now, so the cycle runs in full."""
        if self.retry:
            if self.stalled_on is None:     # else nothing changed since all were refused
                self.retry_memory(now)
            if self.retry and now < self.core_wake:
                self.wake = now + 1 if self.stalled_on is None else self.core_wake
                return
        if self.accounted < now:
            self.catch_up(now)
        self.accounted = now + 1    # this cycle's slots are counted directly below
        wbc = self.wb_cycles
        while wbc and wbc[0] <= now:
            self.wb_last = -1
            entries = self.wb_at.pop(heapq.heappop(wbc))
            for i in range(0, len(entries), 2):
                w: Warp = entries[i]
                dst: int = entries[i + 1]
                w.pending &= ~dst
                st = w.state
                if st == WS_SCOREBOARD or st == WS_MEMORY:
                    w.subcore.update(w)
                elif w.exited and not w.pending and not w.mem_out:
                    self.finish_warp(w, now)
            entries.clear()
            self.wb_free.append(entries)
        if self.profiler is not None:
            self.profiler.sample(self, now)
        if self.state == PWR_ACTIVE:
            for sc in self.subcores:
                if sc.wake <= now and (sc.mask_ready or sc.launch_bits) or sc.tick_always and self.n_ctas:
                    sc.issue(now)
                elif now < sc.next_issue:
                    sc.slot_interval += 1
                else:
                    sc.charge(sc.reason(), 1)
        else:
            self.stay_paused(now)
        if self.ib_empty:
            if self.fetcher is None:
                self.fetch(now)
            else:
                self.fetcher.fetch(now)
        if self.deferred:
            for w in self.deferred:
                if not w.finished:
                    w.subcore.update(w)
            self.deferred.clear()
        # next wake: the next cycle at which the SM (apart from memory retries) can change by
        # itself: a fetch, a write-back, or a scheduler's ``wake`` (a lower bound on its issue)
        n1 = now + 1
        if self.ib_empty or self.tick_sched and self.n_ctas:
            t = n1      # a fetch to do, or a scheduler that moves every cycle (sim.subcore)
        else:
            t = wbc[0] if wbc else NEVER
            if self.state == PWR_ACTIVE:
                for sc in self.subcores:
                    if sc.mask_ready or sc.launch_bits:
                        s = sc.wake
                        if s <= n1:
                            t = n1
                            break
                        if s < t:
                            t = s
        self.core_wake = t
        self.wake = n1 if self.retry and self.stalled_on is None else t

    def after_release(self, w: Warp, now: int) -> None:
        if w.state == WS_SCOREBOARD or w.state == WS_MEMORY:
            w.subcore.update(w)
        elif w.exited and not w.pending and not w.mem_out:
            self.finish_warp(w, now)

    def schedule_writeback(self, cycle: int, w: Warp, dst: int) -> None:
        """Release ``dst`` of ``w`` at ``cycle`` (after those scheduled earlier for that cycle)."""
        if cycle == self.wb_last:
            entries = self.wb_last_entries
        else:
            found = self.wb_at.get(cycle)
            if found is None:
                entries = self.wb_free.pop() if self.wb_free else []
                self.wb_at[cycle] = entries
                heapq.heappush(self.wb_cycles, cycle)
            else:
                entries = found
            self.wb_last, self.wb_last_entries = cycle, entries
        entries.append(w)
        entries.append(dst)

    @property
    def wb(self) -> list[tuple[int, int, Warp, int]]:
        """The pending write-backs in release order as (cycle, order, warp, dst mask), for the
        profilers and controllers that look at them."""
        out: list[tuple[int, int, Warp, int]] = []
        for c in sorted(self.wb_cycles):
            entries = self.wb_at[c]
            for i in range(0, len(entries), 2):
                out.append((c, len(out), entries[i], entries[i + 1]))
        return out

    def fetch(self, now: int) -> None:
        """Round-robin fetch/decode into empty instruction buffers ([GPGPU-Sim scoreboard.cc])."""
        cache = self.decode_cache
        get = cache.get
        n_ib = self.ib_entries
        for _ in range(self.fetch_per_cycle):
            m = self.ib_empty
            if not m:
                return
            upper = m >> (self.fetch_last + 1)
            s = (self.fetch_last + 1 + ((upper & -upper).bit_length() - 1) if upper
                 else (m & -m).bit_length() - 1)
            self.fetch_last = s
            self.ib_empty = m & ~(1 << s)
            w = self.slots[s]
            assert w is not None
            ib = w.ib
            stream = w.stream
            room = n_ib
            for instr in stream:        # up to n_ib instructions, stopping after EXIT
                d = get(instr)          # memory instructions (per-instance addresses, never
                if d is None:           # seen again) are never cached
                    d = Decoded(instr)
                    if not instr.addrs:
                        if len(cache) >= DECODE_CACHE_LIMIT:
                            cache.clear()
                        cache[instr] = d
                ib.append(d)
                room -= 1
                if not room or d.op == _EXIT:
                    break
            else:
                w.stream_done = True
            if ib:
                w.subcore.update(w)

    # -- power states (active-SM controller) ------------------------------------------------
    def in_flight(self) -> bool:
        return bool(self.wb_cycles or self.mem_out or self.retry)

    def stay_paused(self, now: int) -> None:
        """A non-active cycle: no issue; launch ports still delivered; drain acknowledged."""
        for sc in self.subcores:
            if sc.launch_bits or sc.tick_always and self.n_ctas:
                sc.grant(0, sc.launch_bits)
                sc.launch_bits = 0
            sc.slot_paused += 1
        self.paused_cycles += 1
        if self.state == PWR_GATED:
            self.gated_cycles += 1
        if self.state == PWR_PAUSING and not self.in_flight():
            self.state = PWR_PAUSED
            self.gpu.sm_drained(now, self)

    def set_state(self, now: int, state: int) -> None:
        """Change power state at the end of cycle ``now`` (the controller runs after the SMs)."""
        self.catch_up(now + 1)
        self.state = state
        self.poke(now + 1)


def run_sms(sms: list[SM], now: int) -> int:
    """Run cycle ``now`` of every SM due (``wake <= now``), in order; the soonest next wake
    (compiled: the GPU loop's innermost loop, with native calls into ``SM.cycle``)."""
    soonest = NEVER
    for sm in sms:
        wake = sm.wake
        if wake <= now:
            sm.cycle(now)
            wake = sm.wake
        if wake < soonest:
            soonest = wake
    return soonest
