"""The wait-state masks and issue-slot counts of a sub-core (the base of ``sim.subcore.SubCore``,
compiled with it).

Each warp is in one wait state (sim.warp WS_READY … WS_DONE); its bit is in that state's mask
and, while WS_READY, in the mask of the unit its head instruction goes to. Masks and counts are
native int fields (a list would box a new int on every update); the if-chain accessors index
them by state, unit kind or reason, and ``masks``, ``unit_masks`` and ``counts`` list them (copies,
for profilers and statistics).
"""

from __future__ import annotations

from mypy_extensions import mypyc_attr

from sim.stats import (SLOT_BARRIER, SLOT_FETCH, SLOT_IDLE, SLOT_INTERVAL, SLOT_ISSUED, SLOT_MEMORY,
                       SLOT_SCOREBOARD, SLOT_UNIT_BUSY)
from sim.warp import (ALU, DIV, FP64, LDST, SFU, WS_BARRIER, WS_FETCH, WS_MEMORY, WS_READY,
                      WS_SCOREBOARD)


@mypyc_attr(allow_interpreted_subclasses=True)
class SubCoreState:
    """Wait-state masks, unit masks and issue-slot counts of one sub-core."""

    __slots__ = ("mask_ready", "mask_scoreboard", "mask_memory", "mask_barrier", "mask_fetch",
                 "mask_done", "unit_alu", "unit_sfu", "unit_fp64", "unit_div", "unit_ldst",
                 "unit_none", "slot_issued", "slot_interval", "slot_unit_busy", "slot_memory",
                 "slot_scoreboard", "slot_barrier", "slot_fetch", "slot_idle", "slot_paused")
    # one mask per warp wait state (sim.warp WS_READY … WS_DONE) and, of the WS_READY warps, one
    # per unit of their head instruction: native int fields (a list would box every update)
    mask_ready: int
    mask_scoreboard: int
    mask_memory: int
    mask_barrier: int
    mask_fetch: int
    mask_done: int
    unit_alu: int
    unit_sfu: int
    unit_fp64: int
    unit_div: int
    unit_ldst: int
    unit_none: int
    # issue-slot counts by reason (sim.stats SLOT_*), native ints; ``counts`` lists them
    slot_issued: int
    slot_interval: int
    slot_unit_busy: int
    slot_memory: int
    slot_scoreboard: int
    slot_barrier: int
    slot_fetch: int
    slot_idle: int
    slot_paused: int

    def clear_state(self) -> None:
        """Every mask and count zero."""
        self.mask_ready = self.mask_scoreboard = self.mask_memory = 0
        self.mask_barrier = self.mask_fetch = self.mask_done = 0
        self.unit_alu = self.unit_sfu = self.unit_fp64 = self.unit_div = 0
        self.unit_ldst = self.unit_none = 0
        self.slot_issued = self.slot_interval = self.slot_unit_busy = self.slot_memory = 0
        self.slot_scoreboard = self.slot_barrier = self.slot_fetch = self.slot_idle = 0
        self.slot_paused = 0

    # -- the masks ----------------------------------------------------------------------------
    def mask(self, state: int) -> int:
        """The warps in wait state ``state``."""
        if state == WS_READY:
            return self.mask_ready
        if state == WS_SCOREBOARD:
            return self.mask_scoreboard
        if state == WS_MEMORY:
            return self.mask_memory
        if state == WS_BARRIER:
            return self.mask_barrier
        if state == WS_FETCH:
            return self.mask_fetch
        return self.mask_done

    def set_mask(self, state: int, value: int) -> None:
        if state == WS_READY:
            self.mask_ready = value
        elif state == WS_SCOREBOARD:
            self.mask_scoreboard = value
        elif state == WS_MEMORY:
            self.mask_memory = value
        elif state == WS_BARRIER:
            self.mask_barrier = value
        elif state == WS_FETCH:
            self.mask_fetch = value
        else:
            self.mask_done = value

    def move(self, bit: int, old: int, new: int) -> None:
        """A warp's bit leaves wait state ``old`` for ``new``."""
        self.set_mask(old, self.mask(old) & ~bit)
        self.set_mask(new, self.mask(new) | bit)

    def unit_mask(self, kind: int) -> int:
        """The WS_READY warps whose head instruction goes to unit ``kind``."""
        if kind == ALU:
            return self.unit_alu
        if kind == SFU:
            return self.unit_sfu
        if kind == FP64:
            return self.unit_fp64
        if kind == DIV:
            return self.unit_div
        if kind == LDST:
            return self.unit_ldst
        return self.unit_none

    def set_unit_mask(self, kind: int, value: int) -> None:
        if kind == ALU:
            self.unit_alu = value
        elif kind == SFU:
            self.unit_sfu = value
        elif kind == FP64:
            self.unit_fp64 = value
        elif kind == DIV:
            self.unit_div = value
        elif kind == LDST:
            self.unit_ldst = value
        else:
            self.unit_none = value

    @property
    def masks(self) -> list[int]:
        """The wait-state masks indexed by state (a copy, for profilers and reports)."""
        return [self.mask_ready, self.mask_scoreboard, self.mask_memory, self.mask_barrier,
                self.mask_fetch, self.mask_done]

    @property
    def unit_masks(self) -> list[int]:
        """The WS_READY warps by unit kind (a copy, for profilers and reports)."""
        return [self.unit_alu, self.unit_sfu, self.unit_fp64, self.unit_div, self.unit_ldst,
                self.unit_none]

    # -- issue-slot counts ------------------------------------------------------------------
    def charge(self, reason: int, n: int) -> None:
        """Count ``n`` issue slots for ``reason`` (sim.stats SLOT_*)."""
        if reason == SLOT_ISSUED:
            self.slot_issued += n
        elif reason == SLOT_INTERVAL:
            self.slot_interval += n
        elif reason == SLOT_UNIT_BUSY:
            self.slot_unit_busy += n
        elif reason == SLOT_MEMORY:
            self.slot_memory += n
        elif reason == SLOT_SCOREBOARD:
            self.slot_scoreboard += n
        elif reason == SLOT_BARRIER:
            self.slot_barrier += n
        elif reason == SLOT_FETCH:
            self.slot_fetch += n
        elif reason == SLOT_IDLE:
            self.slot_idle += n
        else:
            self.slot_paused += n

    @property
    def counts(self) -> list[int]:
        """The issue-slot counts indexed by reason (a copy; sim.stats ISSUE_SLOT_REASONS)."""
        return [self.slot_issued, self.slot_interval, self.slot_unit_busy, self.slot_memory,
                self.slot_scoreboard, self.slot_barrier, self.slot_fetch, self.slot_idle,
                self.slot_paused]

    def reason(self) -> int:
        """Why this scheduler cannot issue now (see sim.stats for the order)."""
        if self.mask_ready:
            return SLOT_UNIT_BUSY
        if self.mask_memory:
            return SLOT_MEMORY
        if self.mask_scoreboard:
            return SLOT_SCOREBOARD
        if self.mask_barrier:
            return SLOT_BARRIER
        if self.mask_fetch:
            return SLOT_FETCH
        return SLOT_IDLE
