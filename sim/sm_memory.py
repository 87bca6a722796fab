"""The SM's side of the memory system: LD/ST issue, structural-stall retries, completions,
shared-memory bank conflicts (a mixin of ``sim.sm.SM``).

Retries: an instruction the memory system refuses stays in its LD/ST unit (``unit.stalled``) and
is re-offered at the start of the SM's cycles. A memory system with ``watch_stalls`` tells the SM
when what a refused request waits on changes (an MSHR frees, the SM's injection queue moves, a
kernel boundary); until then a re-offer would be refused again with no side effect, so the SM
skips it and, if nothing else is due, sleeps (it is woken at the change). Without that hook the
SM re-offers every cycle. Either way the GPU loop still visits every cycle while an SM holds a
refused request (``gpu.n_retrying``), as when such SMs re-offered every cycle: occupancy samples
and per-cycle policies see the same cycles."""

from __future__ import annotations

from typing import Any, Final

from sim.memory.local_map import local_addresses
from sim.subcore import NEVER, SubCore, Unit
from sim.warp import LDST, WS_MEMORY, WS_SCOREBOARD, Warp
from sim.workload.kernel import LocalInstr
from sim.workload.kernel import OP_ATOM as _ATOM
from sim.workload.kernel import OP_LDS as _LDS
from sim.workload.kernel import OP_STS as _STS

PWR_ACTIVE: Final = 0           # SM power states (sim.sm)
PWR_PAUSING: Final = 1
PWR_PAUSED: Final = 2
PWR_GATED: Final = 3


class SMMemory:
    """Memory paths of an SM (the base of ``sim.sm.SM``; its fields are declared here)."""

    sm_id: int
    gpu: Any
    memory: Any
    subcores: list[SubCore]
    smem_latency: int
    smem_banks: int
    ldst_sector_cycles: int
    block_atomics: bool
    sector_shift: int
    state: int
    wake: int
    core_wake: int
    accounted: int
    mem_out: int
    retry: list[Unit]
    watched: bool
    stalled_on: bool | None
    profiler: Any       # sim.profile.warp_states.WarpStateProfiler, or None (off)

    # defined by SM; declared here so that the compiled methods below can call them natively
    def catch_up(self, upto: int) -> None:
        raise NotImplementedError

    def finish_warp(self, w: Warp, now: int) -> None:
        raise NotImplementedError

    def schedule_writeback(self, cycle: int, w: Warp, dst: int) -> None:
        raise NotImplementedError

    def init_memory(self, memory: Any) -> None:
        """Retry state and the memory-system hooks (called by ``SM.__init__``)."""
        self.mem_out = 0
        self.retry = []                     # LD/ST units holding a refused instruction
        watch = getattr(memory, "watch_stalls", None)
        self.watched = watch is not None
        if watch is not None:
            watch(self.sm_id, self.stall_changed)
        self.stalled_on = None              # True: every retry refused, nothing changed since
        memory.connect(self.sm_id, self.on_memory_complete)

    def memory_op(self, w: Warp, d: Any, unit: Unit, now: int) -> None:
        """LD/ST unit: shared memory in the SM, global/atomic ops to the memory system. ``d``:
        a ``Decoded``, or SOCGPU's ``MemReq`` (same fields)."""
        op = d.op
        if not d.instr.addrs:
            # no active lane (a trace's mask 0: lanes exited or predicated off): the LD/ST unit
            # takes it for one initiation interval and it completes there with no access, as
            # GPGPU-Sim's ldst_unit passes an instruction with active_count() == 0
            unit.free_at = now + unit.ii
            if d.dst_mask:
                w.pending |= d.dst_mask
                self.schedule_writeback(now + unit.ii, w, d.dst_mask)
            return
        if op == _LDS or op == _STS:
            passes = self.bank_passes(d.instr)
            unit.free_at = now + unit.ii * passes
            if d.dst_mask:
                w.pending |= d.dst_mask
                self.schedule_writeback(now + self.smem_latency + (passes - 1) * unit.ii, w, d.dst_mask)
            return
        instr = d.instr
        run = w.cta.run
        if run.local_pcs and instr.pc in run.local_pcs:
            instr = self.local_instr(w, instr, run)
        dst = d.dst_mask
        if dst:
            w.pending |= dst
            if d.long:
                w.longop |= dst
        w.mem_out += 1
        self.mem_out += 1
        if op == _ATOM and self.block_atomics:
            w.atomics += 1              # sm.blocking_atomics: the warp waits for it
            token: tuple = (w, dst, 1)
        else:
            token = (w, dst)
        if self.memory.issue(now, self.sm_id, instr, token):
            unit.free_at = now + self.ldst_hold(instr, unit.ii)
        else:
            unit.stalled = (instr, token)
            unit.free_at = NEVER
            if not self.retry:
                self.gpu.n_retrying += 1
                # watched: re-offered once the memory system says what it waits on moved
                self.stalled_on = True if self.watched else None
            self.retry.append(unit)     # else a retry already due stays due

    def retry_memory(self, now: int) -> None:
        """Re-offer LD/ST instructions the memory system refused (structural stall)."""
        if self.watched:
            self.stalled_on = True      # stall_changed (an MSHR freed, a packet moved) resets it
        still = []
        issue, sm_id = self.memory.issue, self.sm_id
        for unit in self.retry:
            instr, token = unit.stalled
            if issue(now, sm_id, instr, token):
                unit.stalled = None
                unit.free_at = now + self.ldst_hold(instr, unit.ii)
                for sc in self.subcores:    # the schedulers that feed this unit re-check
                    if sc.units[LDST] is unit:
                        sc.wake = 0
                self.core_wake = now        # so this cycle runs in full (issue included)
            else:
                still.append(unit)
        if not still:
            self.gpu.n_retrying -= 1
            self.stalled_on = None
        self.retry = still

    def stall_changed(self) -> None:
        """Memory-system hook: what a refused request waits on has changed; retry at the current
        cycle (or the next, if this SM has already run in it)."""
        if self.stalled_on:
            self.stalled_on = None
            gpu = self.gpu
            now = gpu.now
            if now < self.wake:
                self.wake = now
                if not gpu.in_tick:     # the GPU loop may have passed this SM: let it re-check
                    gpu.policy_acted = True

    def local_instr(self, w: Warp, instr: Any, run: Any) -> LocalInstr:
        """A local load or store (LDL/STL) at the physical addresses of its threads' local
        words (``sim.memory.local_map``), 4-byte words for accesses of 4 bytes or more."""
        warp_size = run.padded_threads // run.warps_per_cta
        addrs = local_addresses(instr.addrs, instr.mask, instr.size, w.slot, warp_size,
                                self.sm_id, run.n_sms, run.padded_threads, run.occupancy.limit)
        size = 4 if instr.size >= 4 else instr.size
        return LocalInstr(instr.op, instr.dst, instr.src, addrs, size, instr.mask, instr.pc,
                          instr.next_pc)

    def ldst_hold(self, instr: Any, ii: int) -> int:
        """Cycles an accepted global access holds its LD/ST unit: ``ii``, or with
        ``units.ldst_sector_cycles`` that many per distinct sector it touches, if more."""
        per = self.ldst_sector_cycles
        if not per or not instr.addrs:
            return ii
        shift = self.sector_shift
        hold = per * len({a >> shift for a in instr.addrs})
        return hold if hold > ii else ii

    def bank_passes(self, instr: Any) -> int:
        """Shared-memory passes: the most distinct 4-byte words that fall in one bank."""
        addrs = instr.addrs
        if not addrs:
            return 1
        n = self.smem_banks
        if (max(addrs) >> 2) - (min(addrs) >> 2) < n:   # one window of n words: distinct banks
            return 1
        banks: dict[int, set] = {}
        for a in addrs:
            word = a >> 2
            banks.setdefault(word % n, set()).add(word)
        return max(len(v) for v in banks.values())

    def on_memory_complete(self, token: tuple, cycle: int) -> None:
        """Memory-system callback: a load's data is back / a store was accepted. The SM is woken
        only if that changed something its cycles look at (a warp's wait state, a warp
        finishing, a pause drain, SOCGPU state); else, e.g. for most store acceptances, it sleeps
        on."""
        w = token[0]
        dst = token[1]
        if len(token) == 3:
            w.atomics -= 1
        if self.profiler is not None and self.accounted < cycle:
            self.catch_up(cycle)        # the profiler's MEM load changes even when quiet
        w.pending &= ~dst
        w.longop &= ~dst
        w.mem_out -= 1
        self.mem_out -= 1
        st = w.state                    # after_release, inlined
        quiet = w.soc is None and self.state == PWR_ACTIVE
        # the skipped cycles are charged (catch_up) before any mask changes, not for a quiet
        # answer: the next catch_up charges them with the same reasons
        if st == WS_SCOREBOARD or st == WS_MEMORY:
            if self.accounted < cycle:
                self.catch_up(cycle)
            w.subcore.update(w)
            if quiet and w.state == st:
                return                  # nothing the SM's next cycles depend on has changed
        elif w.exited and not w.pending and not w.mem_out:
            if self.accounted < cycle:
                self.catch_up(cycle)
            self.finish_warp(w, cycle)
        elif quiet:
            return
        if cycle < self.wake:           # poke, inlined
            self.wake = cycle
        if cycle < self.core_wake:
            self.core_wake = cycle
