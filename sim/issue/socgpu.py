"""SOCGPU issue stage in the GPU model ([SOCGPU instruction buffer, dependence matrix]): per-warp IB
+ dependence matrix.

Each warp owns one issue block (``FastSocgpuIssue`` by default; any object with its model API,
e.g. the twin behind ``TwinBlock`` in the tests). The sub-core's warp arbiter (GTO/LRR twin) is
unchanged: a warp is *ready* when its block offers a candidate whose unit is free ([SOCGPU dual
issue]: the first pick ignores units; the picker skips a warp whose candidate unit is busy). Dual
issue sends ``cand2`` too when it goes to another unit kind that is free (``none``-unit ops never
pair).

Per cycle, in the SM's stage order: write-backs free entries and clear DM columns (our cycle
contract), the granted instruction issues (b) and, if its dynamic successor is not its fall-through,
flushes the warp's non-issued entries (c: our choice trace proxy); fetch then inserts 2 instructions
per fetch into warps with ≥ 2 free entries (d: our choice), one fetch per warp per cycle,
``sm.fetch_per_cycle`` per SM, round-robin, none into a warp flushed in this cycle. Fetch runs
sequentially past an unresolved redirect, so the slots behind it are wrong-path placeholders until
the flush.

Write-back ([SOCGPU] "entry held until write-back"): ALU-class ops after their unit latency; shared
loads after the shared-memory latency (plus bank-conflict passes); global loads, stores and
atomics when the memory system answers; a store's answer is its acceptance, so an STS writes
back when the LD/ST unit has taken all its bank passes (it has no result to wait for; until
issue 7 it was held for the full shared-memory latency, unlike STG); MEMBAR/NOP the next cycle;
BAR when the CTA barrier releases (our choice); EXIT at issue (the warp ends; the IB is then empty,
asserted). At most ``WB_PORTS`` = 4 write-backs per warp per cycle; the excess waits a cycle (our
choice).

Model glue: ``Warp.pending`` holds the bits of issued entries awaiting write-back (the SM clears
them exactly as it clears registers for the in-order stage) and ``Warp.state`` stays
``SCOREBOARD`` so that the SM hands every write-back to ``update``; the wait state that feeds
the masks and the stall reasons lives in ``WarpIssue.mstate``.
"""

from __future__ import annotations


from sim.issue.block import VOLATILE, FastSocgpuIssue
from sim.issue.inorder_block import FastInorderIssue
from sim.issue.decode import decode, placeholder
from sim.issue.warp_state import MemReq, SocgpuFetch, WarpIssue
from sim.subcore import SubCore
from sim.warp import ALU, DIV, LDST, NONE, WS_READY, Warp
from sim.warp import WS_BARRIER
from sim.warp import WS_DONE
from sim.warp import WS_FETCH
from sim.warp import WS_MEMORY
from sim.warp import WS_SCOREBOARD
from sim.workload.kernel import Op

WB_PORTS = 4
MODEL_REG_IDS = 264        # sim.workload.kernel.Instr: 0–255 general, 256–263 predicates
OP_BAR, OP_EXIT, OP_MEMBAR, OP_STS = Op.BAR, Op.EXIT, Op.MEMBAR, Op.STS
COUNTERS = ("fetches", "fetched_slots", "wrong_path_slots", "flushes", "flushed_entries",
            "dropped_slots", "dual_issues", "serial_issued")
FETCHES, SLOTS, WRONG, FLUSHES, FLUSHED, DROPPED, DUALS, SERIALS = range(len(COUNTERS))


def block_params(cfg, slot: int) -> dict:
    """The ``socgpu_issue`` block parameters of warp slot ``slot`` on ``cfg`` (the one place they
    are derived): N = ``sm.ib_entries``, the local policy, the dual mode, W = the model's
    write-back ports per warp, RW wide enough for every model register id; S / D / PW at the
    spec's defaults (checked on every insert by ``PortIssue``)."""
    s = cfg.sm
    dual = ("smart" if s.smart_dual else "on") if s.dual_issue else "off"
    return {"N": s.ib_entries, "policy": s.local_policy, "dual": dual, "slot": slot,
            "W": WB_PORTS, "RW": (MODEL_REG_IDS - 1).bit_length()}


def port_blocks(sm, index: int, blocks, baseline: bool) -> dict:
    """The warp slots of sub-core ``index`` whose issue block the provider ``blocks`` replaces,
    each block behind its port driver: ``PortInorderIssue`` for the baseline's
    ``inorder_issue``, ``PortIssue`` for ``socgpu_issue``."""
    name = "inorder_issue" if baseline else "socgpu_issue"
    drivers = {}
    for slot in range(index, sm.n_slots, sm.n_sub):
        inst = f"sm{sm.sm_id}.w{slot}"
        if not blocks.replaces(name, inst):
            continue
        if baseline:
            from sim.issue.port_inorder import PortInorderIssue
            from sim.issue.port_inorder import block_params as inorder_params
            p, driver = inorder_params(sm.gpu.cfg), PortInorderIssue
        else:
            from sim.issue.port_issue import PortIssue
            p, driver = block_params(sm.gpu.cfg, slot), PortIssue
        drivers[slot] = driver(blocks.block(name, inst, lambda: p, lambda: None), p,
                               f"{name}[{inst}]")
    return drivers


class SocgpuSubCore(SubCore):
    """Warp arbiter + SOCGPU issue blocks + units for one sub-core."""

    __slots__ = ("n_entries", "policy", "dual_mode", "volatile", "make_block", "port_blocks",
                 "fetcher",
                 "stage_counts", "lvl", "acc", "t_lvl")

    def __init__(self, sm, index: int, scheduler, n_slots: int, units: list,
                 issue_interval: int, fetcher: SocgpuFetch, n_entries: int = 8,
                 policy: str = "first", dual_mode: str = "on", make_block=None, blocks=None):
        """``make_block``: the model's per-warp block class (``FastSocgpuIssue`` when None);
        ``blocks``: the run's provider, asked for the issue block (``socgpu_issue``, or
        ``inorder_issue`` for the baseline ``FastInorderIssue``) at ``sm<i>.w<slot>``: a block it
        replaces stands behind its port driver for every warp of that slot."""
        super().__init__(sm, index, scheduler, n_slots, units, issue_interval, dual_mode != "off")
        self.n_entries, self.policy, self.dual_mode = n_entries, policy, dual_mode
        self.volatile = policy in VOLATILE and make_block is None
        self.make_block = make_block or FastSocgpuIssue
        # SM warp slot -> port driver of its provider-replaced block
        self.port_blocks: dict = {} if blocks is None else \
            port_blocks(sm, index, blocks, self.make_block is FastInorderIssue)
        self.fetcher = fetcher
        # ``multi`` (SubCore): volatile policies' warps with ≥ 2 ready entries
        self.stage_counts = [0] * len(COUNTERS)
        self.lvl = [0, 0, 0, 0]     # valid entries, ready entries, candidate warps, warps
        self.acc = [0, 0, 0, 0]     # their integrals over cycles
        self.t_lvl = 0

    # -- statistics ---------------------------------------------------------------------------
    def _level(self, eff: int, k: int, delta: int) -> None:
        dt = eff - self.t_lvl
        if dt > 0:
            lvl, acc = self.lvl, self.acc
            for i in range(4):
                acc[i] += lvl[i] * dt
            self.t_lvl = eff
        self.lvl[k] += delta

    def close_levels(self, end: int) -> None:
        self._level(end, 0, 0)

    # -- warps --------------------------------------------------------------------------------
    def add(self, w: Warp) -> None:
        super().add(w)
        w.state = WS_SCOREBOARD      # SM-visible: every write-back reaches update()
        blk = self.port_blocks.get(w.slot)
        if blk is None:
            blk = self.make_block(N=self.n_entries, policy=self.policy, dual=self.dual_mode,
                                  slot=w.slot)
        else:
            blk.start()
        w.soc = WarpIssue(blk)
        self._level(self.sm.gpu.now + 1, 3, 1)

    def remove(self, w: Warp) -> None:
        st = w.soc
        bit = w.bit
        if st.mstate == WS_READY:
            self.set_unit_mask(w.unit, self.unit_mask(w.unit) & ~bit)
            self._level(self.sm.gpu.now + 1, 2, -1)
        self.set_mask(st.mstate, self.mask(st.mstate) & ~bit)
        self.multi &= ~bit
        st.mstate = WS_DONE
        now = self.sm.gpu.now + 1
        self._level(now, 0, -st.n_valid)
        self._level(now, 1, -st.n_ready)
        self._level(now, 3, -1)
        st.n_valid = st.n_ready = 0

    def update(self, w: Warp) -> None:
        """Write-backs (the SM cleared their bits in ``w.pending``) or a barrier release."""
        if w.finished:
            return
        st = w.soc
        now = self.sm.gpu.now
        if w.exited:            # in-order block: EXIT issued, older instructions drain
            if not w.pending and not w.mem_out:
                self.sm.finish_warp(w, now)
            return
        done = st.inflight & ~w.pending
        if done:
            if st.wb_cycle != now:
                st.wb_cycle, st.wb_used = now, 0
            room = WB_PORTS - st.wb_used
            if done.bit_count() > room:         # our choice: the excess waits a cycle
                keep = 0
                for _ in range(room):
                    keep |= (done & ~keep) & -(done & ~keep)
                late = done & ~keep
                w.pending |= late
                self.sm.schedule_writeback(now + 1, w, late)
                done = keep
            st.wb_used += done.bit_count()
            st.inflight &= ~done
            if done:
                st.blk.writeback(now, done)
        if st.bar and not w.at_barrier:         # released in this cycle: WB at its edge
            st.blk.writeback(now + 1, st.bar)
            st.bar = 0
            self.refresh(w, now + 1)
        else:
            self.refresh(w, now)

    def refresh(self, w: Warp, eff: int) -> None:
        """Re-derive the warp's wait state from its block (effective from cycle ``eff``),
        move its bit between the masks and keep its fetch eligibility."""
        st = w.soc
        blk = st.blk
        bit = w.bit
        nv, nr = blk.valid.bit_count(), blk.rdy.bit_count()
        if nv != st.n_valid:
            self._level(eff, 0, nv - st.n_valid)
            st.n_valid = nv
        if nr != st.n_ready:
            self._level(eff, 1, nr - st.n_ready)
            st.n_ready = nr
        free2 = blk.n - nv >= 2
        unit = NONE
        if w.at_barrier:                        # (SOCGPU: BAR is serial, so nothing is ready)
            new = WS_BARRIER
        elif w.atomics:                         # sm.blocking_atomics: an atomic in flight
            new = WS_MEMORY
        elif nr:
            x = blk.instr[blk.cand(eff)]
            new, unit = WS_READY, x.unit
            if x.op == OP_MEMBAR and w.mem_out:  # in-order block: a fence waits for memory
                new = WS_MEMORY
        elif not blk.valid & ~blk.issued and (free2 and not st.done
                                               or st.fetch_buf is not None):
            new = WS_FETCH
        elif w.longop & w.pending:
            new = WS_MEMORY
        else:
            new = WS_SCOREBOARD
        if self.volatile:
            self.multi = self.multi | bit if nr >= 2 else self.multi & ~bit
        if free2 and not st.done:
            self.sm.ib_empty |= 1 << w.slot
        old = st.mstate
        if old == WS_READY:
            if new == WS_READY and w.unit == unit:
                return
            self.set_unit_mask(w.unit, self.unit_mask(w.unit) & ~bit)
            if new != WS_READY:
                self._level(eff, 2, -1)
        elif old == new:
            return
        elif new == WS_READY:
            self._level(eff, 2, 1)
        self.move(bit, old, new)
        st.mstate = new
        if new == WS_READY:
            w.unit = unit
            self.set_unit_mask(unit, self.unit_mask(unit) | bit)
            self.wake = 0
            pipe = self.units[unit]
            if pipe is not None and pipe not in self.in_use:
                self.in_use.append(pipe)

    def reassess(self, now: int) -> None:
        """Volatile policies: this cycle's candidate (hence its unit) may differ from the last."""
        slots = self.slots
        m = self.multi
        while m:
            low = m & -m
            m ^= low
            w = slots[low.bit_length() - 1]
            unit = w.soc.blk.instr[w.soc.blk.cand(now)].unit
            if unit != w.unit:
                self.set_unit_mask(w.unit, self.unit_mask(w.unit) & ~low)
                self.set_unit_mask(unit, self.unit_mask(unit) | low)
                w.unit = unit
                pipe = self.units[unit]
                if pipe is not None and pipe not in self.in_use:
                    self.in_use.append(pipe)

    # -- fetch --------------------------------------------------------------------------------
    def fetch_slots(self, w: Warp) -> list:
        """One fetch: two sequential slots (correct path from the stream, else placeholders),
        read when the fetch starts; ``SocgpuFetch`` inserts them ``latency`` cycles later."""
        st = w.soc
        entries = []
        for _ in range(2):
            if st.wrong_path:
                entries.append(placeholder(st.fetch_pc))
                st.fetch_pc += 8
                self.stage_counts[WRONG] += 1
                continue
            ins = next(w.stream, None)
            if ins is None:
                st.done = w.stream_done = True
                break
            e = decode(ins, self.sm.decode_cache)
            entries.append(e)
            if e.op == OP_EXIT:
                st.done = True
                break
            if e.redirect:
                st.wrong_path, st.fetch_pc = True, e.pc + 8
        c = self.stage_counts
        c[FETCHES] += 1
        c[SLOTS] += len(entries)
        return entries

    def insert_fetched(self, w: Warp, entries: list, now: int) -> None:
        """Decode writes a fetch's slots into the warp's block in cycle ``now`` (our cycle
        contract)."""
        if entries:
            w.soc.blk.insert(now, entries)
        self.refresh(w, now + 1)

    def fetch_into(self, w: Warp, now: int) -> None:
        """Fetch and insert in the same cycle (``FETCH_TO_INSERT = 0``; tests)."""
        self.insert_fetched(w, self.fetch_slots(w), now)

    # -- issue --------------------------------------------------------------------------------
    def issue_warp(self, w: Warp, now: int) -> None:
        """Issue from the granted warp's block: its candidate and, with dual issue, ``cand2``
        to another free unit kind; a redirect flushes the warp's non-issued entries (our choice)."""
        st = w.soc
        blk = st.blk
        units = self.units
        unit_free = 0
        if self.dual_mode == "smart":
            for u in self.pipes:
                if u.free_at <= now:
                    unit_free |= 1 << u.kind
        c, c2 = blk.candidates(now, unit_free)
        x = blk.instr[c]
        g2, y = -1, None
        if c2 >= 0:
            y = blk.instr[c2]
            k2 = y.unit
            if k2 != x.unit and k2 != NONE and x.unit != NONE and units[k2].free_at <= now:
                g2 = c2
        flush = x.redirect
        if flush:
            pend = blk.valid & ~blk.issued
            self.stage_counts[FLUSHES] += 1
            self.stage_counts[FLUSHED] += (pend & ~(1 << c)).bit_count()
            st.wrong_path = False
            f = self.fetcher
            if f.hold_at != now:
                f.hold, f.hold_at = 0, now
            f.hold |= 1 << w.slot
            if st.fetch_buf is not None:
                self.stage_counts[DROPPED] += len(st.fetch_buf)
                f.drop(w)
        tok, tok2 = blk.grant(now, c, g2, flush)
        self.dispatch_entry(w, st, tok, x, now)
        if g2 >= 0:
            self.stage_counts[DUALS] += 1
            self.dispatch_entry(w, st, tok2, y, now)
        if not w.finished:
            self.refresh(w, now + 1)

    def dispatch_entry(self, w: Warp, st: WarpIssue, bit: int, x, now: int) -> None:
        """Send instruction ``x`` to its unit; ``bit`` (its entry, or token) is cleared from
        ``w.pending`` at its write-back."""
        w.n_insts += 1
        self.n_insts += 1
        if x.serial:
            self.stage_counts[SERIALS] += 1
        sm = self.sm
        kind = x.unit
        if kind <= DIV:
            unit = self.units[kind]
            unit.free_at = now + unit.ii
            if unit.track:
                unit.note(now)
            w.pending |= bit
            st.inflight |= bit
            sm.schedule_writeback(now + unit.result, w, bit)
        elif kind == LDST:
            st.inflight |= bit
            unit = self.units[LDST]
            if x.op == OP_STS:      # a store's answer is its acceptance, as for STG
                sm.memory_op(w, MemReq(x, 0), unit, now)
                w.pending |= bit
                sm.schedule_writeback(unit.free_at, w, bit)
            else:
                sm.memory_op(w, MemReq(x, bit), unit, now)
        elif x.op == OP_BAR:
            st.bar = bit
            if self.units[ALU].track:          # units.sync_slot (sim.subcore.Unit)
                self.units[ALU].take_sync_slot(now)
            sm.arrive_barrier(w, now)
        elif x.op == OP_EXIT:
            if self.units[ALU].track:
                self.units[ALU].take_sync_slot(now)
            blk = st.blk
            blk.writeback(now + 1, bit)
            assert not blk.valid, f"EXIT with other IB entries live: {blk.valid:#x}"
            sm.exit_warp(w, now)
        else:                                   # MEMBAR, NOP: no pipeline
            w.pending |= bit
            st.inflight |= bit
            sm.schedule_writeback(now + 1, w, bit)
