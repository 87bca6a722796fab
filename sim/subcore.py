"""One sub-core: warp scheduler (driven only through its port), issue stage, functional units.

The warp scheduler comes from the run's block provider (instance ``sm<i>.sub<j>``): whatever
stands there (a twin, an RTL backend, a lockstep pair) is a ``PortBlock`` stepped through
``step_port`` with the sub-core's ``WarpSchedPort`` record (hdl/params/warp_sched.py's ports),
the same call for all. It is stepped only in cycles where ``ready`` or ``launch`` is non-zero:
the port contract of those policies leaves their state unchanged otherwise (no grant → last-issued
pointer kept; no launch → ages kept), so skipping those cycles is exact. A policy whose state
moves every cycle (``tick_always``, set from the registry) is stepped every cycle while the SM
holds a CTA.

Issue stage ``sm.issue = inorder`` ([GPGPU-Sim scheduler_unit::cycle(), scoreboard.cc]; SOCGPU:
``sim.issue.socgpu``): per-warp in-order issue from the instruction buffer, a scoreboard of pending
destination registers (RAW and WAW), one warp per scheduler per cycle and, with ``sm.dual_issue``, a
second consecutive instruction of that warp to a different unit type.
``sm.issue_interval``: cycles between two issuing cycles of one scheduler.

Speed: ready warps are kept as bitmasks per wait state and per target unit (``sim.subcore_state``;
updated only when a warp's state changes), and ``wake`` is a lower bound on the next cycle this
scheduler can issue, so the SM skips the issue stage (and idle cycles altogether) until something
can happen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from mypy_extensions import mypyc_attr

from sim.blocks.port_block import PortBlock
from sim.blocks.warp_sched import WarpSchedPort
from sim.warp import ALU, DIV, LDST, NONE, WS_READY, UNIT_NAMES, Decoded, Warp
from sim.warp import WS_BARRIER
from sim.warp import WS_MEMORY
from sim.warp import WS_SCOREBOARD
from sim.warp import WS_FETCH
from sim.warp import WS_DONE
from sim.subcore_state import SubCoreState
from sim.workload.kernel import OP_BAR, OP_EXIT

if TYPE_CHECKING:
    from sim.sm import SM

NEVER: Final = 1 << 62   # "no event" cycle


class Unit:
    """A pipelined functional unit: accepts one warp instruction every ``ii`` cycles. An
    instruction first spends ``operand`` cycles reading its operands (``units.operand_latency``),
    then ``latency`` executing: its result is ready ``result`` = operand + latency after issue."""

    __slots__ = ("kind", "name", "latency", "ii", "free_at", "stalled", "operand", "result",
                 "track", "hist", "hist_at")
    kind: int
    name: str
    latency: int
    ii: int
    free_at: int
    stalled: Any
    operand: int
    result: int
    track: bool
    hist: int
    hist_at: int

    def __init__(self, kind: int, latency: int, ii: int, operand: int = 0):
        self.kind, self.name, self.latency, self.ii = kind, UNIT_NAMES[kind], latency, ii
        self.operand, self.result = operand, operand + latency
        self.free_at = 0
        self.stalled = None     # LD/ST only: (instr, token) refused by the memory system
        self.track = False      # ``units.sync_slot``: remember recent issue cycles (ALU)
        self.hist = self.hist_at = 0

    def note(self, now: int) -> None:
        """Record an issue at ``now`` (bit k of ``hist``: an issue k cycles before ``hist_at``)."""
        shift = now - self.hist_at
        self.hist = ((self.hist << shift) | 1) & 0xFFFFFFFF if shift < 32 else 1
        self.hist_at = now

    def take_sync_slot(self, now: int) -> None:
        """``units.sync_slot``: a BAR or EXIT goes down this pipe with a latency of 1 and must
        not write back in the same cycle as an earlier, longer operation (GPGPU-Sim's
        ``pipelined_simd_unit`` ``occupied`` reservation), so it waits while an operation
        issued ``latency − 1`` cycles before it would complete with it; meanwhile it holds the
        pipe (its dispatch register), and nothing else enters."""
        x = now if now > self.free_at else self.free_at
        while True:
            back = self.hist_at - (x + 1 - self.latency)
            if back < 0 or back >= 32 or not (self.hist >> back) & 1:
                break
            x += 1
        self.free_at = x + 1


@mypyc_attr(allow_interpreted_subclasses=True)     # SOCGPU's sub-core (sim.issue.socgpu)
class SubCore(SubCoreState):
    """Warp arbiter + issue stage + units for the warp slots j, j+S, j+2S, … of one SM."""

    __slots__ = ("sm", "index", "sched", "port", "slots", "units", "pipes", "in_use",
                 "next_issue", "issue_interval", "dual_issue", "launch_bits", "n_insts",
                 "wake", "n_dual", "n_fetches", "tick_always", "multi", "phase_inputs",
                 "in_use_kinds", "block_loads")
    sm: SM
    index: int
    sched: PortBlock        # the warp scheduler, whatever the provider put there
    port: WarpSchedPort     # its ports, reused every cycle it is stepped
    slots: list[Warp | None]
    units: list[Unit | None]
    pipes: list[Unit]
    in_use: list[Unit]
    in_use_kinds: int
    next_issue: int
    issue_interval: int
    dual_issue: bool
    launch_bits: int
    n_insts: int
    wake: int
    n_dual: int
    n_fetches: int
    tick_always: bool
    multi: int
    phase_inputs: Any       # slots -> {distance, long_out} for the phase-aware policies, or None
    block_loads: bool       # ``sm.blocking_loads``: a load in flight blocks the warp ([OWL §2.1])

    def __init__(self, sm: SM, index: int, scheduler: PortBlock, n_slots: int,
                 units: list[Unit | None], issue_interval: int, dual_issue: bool):
        self.sm, self.index, self.sched = sm, index, scheduler
        self.port = WarpSchedPort(sm.sm_id)     # the SM writes its launch_* fields at a launch
        self.clear_state()
        self.tick_always = False        # build_subcores sets it from the policy's registry entry
        self.phase_inputs = None        # … and this (sim.workload.phases.port_inputs)
        self.block_loads = False        # … and this (``sm.blocking_loads``)
        self.multi = 0      # warps whose candidate unit can change by itself (SOCGPU)
        self.slots = [None] * n_slots
        self.units = units             # indexed by unit kind; NONE → None
        self.pipes = [u for u in units if u is not None]
        # the pipes some warp has been WS_READY for (only those can hold a WS_READY warp back): the
        # issue loops skip the others
        self.in_use = []
        self.in_use_kinds = 0          # their unit kinds as bits
        self.next_issue = 0
        self.issue_interval, self.dual_issue = issue_interval, dual_issue
        self.launch_bits = 0
        self.n_insts = self.n_dual = self.n_fetches = 0
        # Lower bound on the next cycle this scheduler can issue; 0 = "re-check now". Set after
        # each issue attempt; reset by anything that can make it earlier (a warp becoming ready,
        # a launch, a refused LD/ST finally accepted).
        self.wake = 0

    # -- wait-state bookkeeping -------------------------------------------------------------
    def update(self, w: Warp) -> None:
        """Re-derive ``w``'s wait state (``Warp.wait_state``, inlined: the hottest path) and move
        its bit between the masks."""
        hu = NONE                       # unit of the head instruction
        if w.exited:
            new = WS_DONE
        elif w.at_barrier:
            new = WS_BARRIER
        elif not w.ib:
            new = WS_FETCH
        else:
            head = w.ib[0]
            hu = head.unit
            hit = head.use_mask & w.pending
            if hit:
                new = WS_MEMORY if hit & w.longop else WS_SCOREBOARD
            elif head.fence and w.mem_out:
                new = WS_MEMORY
            elif self.block_loads and w.longop:     # blocking-load model: a load in flight
                new = WS_MEMORY
            elif w.atomics:                         # sm.blocking_atomics: an atomic in flight
                new = WS_MEMORY
            else:
                new = WS_READY
        old = w.state
        bit = w.bit
        if old == WS_READY:
            if new == WS_READY and w.unit == hu:
                return
            self.set_unit_mask(w.unit, self.unit_mask(w.unit) & ~bit)
            self.mask_ready &= ~bit
        elif old == new:
            return
        else:
            self.set_mask(old, self.mask(old) & ~bit)
        w.state = new
        if new != WS_READY:
            self.set_mask(new, self.mask(new) | bit)
            return
        self.mask_ready |= bit
        w.unit = hu
        self.set_unit_mask(hu, self.unit_mask(hu) | bit)
        # it cannot issue before its unit is free (a refused LD/ST unit: NEVER until the
        # memory system accepts, when retry_memory resets ``wake``)
        unit = self.units[hu]
        if unit is None:
            self.wake = 0
            return
        if unit.free_at < self.wake:
            self.wake = unit.free_at
        if not (self.in_use_kinds >> hu) & 1:
            self.in_use_kinds |= 1 << hu
            if unit not in self.in_use:     # SOCGPU's stage adds units itself
                self.in_use.append(unit)

    def add(self, w: Warp) -> None:
        """A newly launched warp (empty instruction buffer); announced on the ``launch`` port."""
        self.slots[w.bit.bit_length() - 1] = w
        self.mask_fetch |= w.bit
        self.launch_bits |= w.bit
        self.wake = 0

    def remove(self, w: Warp) -> None:
        """A finished warp leaves every mask."""
        if w.state == WS_READY:
            self.set_unit_mask(w.unit, self.unit_mask(w.unit) & ~w.bit)
        self.set_mask(w.state, self.mask(w.state) & ~w.bit)

    def grant(self, ready: int, launch: int) -> int:
        """One cycle of the warp scheduler through its port: the granted slot or -1."""
        p = self.port
        p.ready, p.launch = ready, launch
        p.valid = (self.mask_ready | self.mask_scoreboard | self.mask_memory | self.mask_barrier
                   | self.mask_fetch)
        p.mem_wait, p.barrier = self.mask_memory, self.mask_barrier
        pi = self.phase_inputs
        if pi is not None:
            extra: dict[str, int] = pi(self.slots)
            p.distance, p.long_out = extra["distance"], extra["long_out"]
        self.sched.step_port(p)
        return p.grant_idx if p.grant_valid else -1

    # -- one cycle --------------------------------------------------------------------------
    def issue(self, now: int) -> None:
        """Issue stage of cycle ``now`` (the template every issue stage shares): the interval
        check, ready masking by unit, the scheduler's grant and the next wake; what happens to
        the granted warp is ``issue_warp`` (in-order here, SOCGPU in sim.issue.socgpu)."""
        launch = self.launch_bits
        if now < self.next_issue:
            if launch or self.tick_always:
                self.launch_bits = 0
                self.grant(0, launch)
            self.slot_interval += 1
            return
        if self.multi:
            self.reassess(now)
        ready = self.mask_ready
        soonest = NEVER
        if ready:
            for u in self.in_use:
                f = u.free_at
                if f > now:
                    m = self.unit_mask(u.kind)
                    if m & ready:
                        ready &= ~m
                        if f < soonest:
                            soonest = f
        if not ready and not launch and not self.tick_always:
            self.idle(now, soonest)
            return
        self.launch_bits = 0
        g = self.grant(ready, launch)
        if g < 0:
            self.idle(now, soonest)
            return
        w = self.slots[g]
        assert w is not None
        self.slot_issued += 1
        self.next_issue = now + self.issue_interval
        self.issue_warp(w, now)
        self.wake = self.next_chance()

    def idle(self, now: int, soonest: int) -> None:
        """No issue this cycle: wake when a busy unit some ready warp needs frees (``soonest``),
        next cycle when a warp's candidate unit may change (``multi``); charge the slot."""
        wake = soonest if self.mask_ready else NEVER
        if self.multi and wake > now + 1:
            wake = now + 1
        self.wake = wake
        self.charge(self.reason(), 1)

    def next_chance(self) -> int:
        """After an issue: the next cycle this scheduler can issue, after the issue interval and
        once a unit some ready warp needs is free."""
        t_issue = self.next_issue
        ready = self.mask_ready
        if not ready:
            return NEVER
        if self.unit_none & ready or self.multi:
            return t_issue
        t = NEVER
        for u in self.in_use:
            if self.unit_mask(u.kind) & ready:
                f = u.free_at
                if f <= t_issue:
                    return t_issue
                if f < t:
                    t = f
        return t

    def reassess(self, now: int) -> None:
        """Re-derive the unit of warps whose candidate can change by itself (``multi``); the
        in-order stage has none."""

    def issue_warp(self, w: Warp, now: int) -> None:
        """In-order issue of the granted warp: its head instruction and, with dual issue, the
        next one to another unit type ([GPGPU-Sim scheduler_unit::cycle()])."""
        first = w.ib[0]
        self.dispatch(w, first, now)
        if self.dual_issue and w.ib and first.unit != NONE:
            second = w.ib[0]
            unit = self.units[second.unit]
            if (second.unit != first.unit and unit is not None and unit.free_at <= now
                    and w.wait_state() == WS_READY):
                self.n_dual += 1
                self.dispatch(w, second, now)
        if not w.finished:
            self.update(w)

    def dispatch(self, w: Warp, d: Decoded, now: int) -> None:
        """Send the head instruction of ``w`` to its unit; reserve its destinations."""
        w.ib.pop(0)
        w.n_insts += 1
        self.n_insts += 1
        sm = self.sm
        op = d.op
        if not w.ib and not w.stream_done and op != OP_EXIT:
            sm.ib_empty |= 1 << w.slot
        kind = d.unit
        if kind <= DIV:
            unit = self.units[kind]
            assert unit is not None
            unit.free_at = now + unit.ii
            if unit.track:
                unit.note(now)
            dst = d.dst_mask
            if dst:
                w.pending |= dst
                sm.schedule_writeback(now + unit.result, w, dst)
        elif kind == LDST:
            ldst = self.units[LDST]
            assert ldst is not None
            sm.memory_op(w, d, ldst, now)
        elif op == OP_BAR:
            alu = self.units[ALU]
            if alu is not None and alu.track:
                alu.take_sync_slot(now)
            sm.arrive_barrier(w, now)
        elif op == OP_EXIT:
            alu = self.units[ALU]
            if alu is not None and alu.track:
                alu.take_sync_slot(now)
            # a fetch decodes ib_entries consecutive instructions into an empty buffer and
            # stops after EXIT, so this warp needed exactly ceil(n / ib_entries) fetches
            self.n_fetches += -(-w.n_insts // sm.ib_entries)
            sm.exit_warp(w, now)


def make_units(units_cfg, shared_ldst: Unit | None) -> list:
    """The functional units of one sub-core from ``UnitsConfig`` (LD/ST possibly SM-shared; its
    operand reads are inside the memory latencies)."""
    u = units_cfg
    ldst = shared_ldst or Unit(LDST, u.smem_latency, u.ldst_ii)
    oc = u.operand_latency
    alu = Unit(ALU, u.alu_latency, u.alu_ii, oc)
    alu.track = u.sync_slot
    return [alu, Unit(1, u.sfu_latency, u.sfu_ii, oc),
            Unit(2, u.fp64_latency, u.fp64_ii, oc), Unit(DIV, u.div_latency, u.div_ii, oc), ldst,
            None]
