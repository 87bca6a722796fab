"""One hardware warp: its instruction buffer, scoreboard and wait state ([GPGPU-Sim
scheduler_unit::cycle(), scoreboard.cc]).

A warp is always in exactly one *wait state*, which the sub-core mirrors as a bit in one of its
masks so that the warp arbiter's ``ready`` input is maintained incrementally (no per-cycle walk
over all warps):

- ``WS_READY``: the head of its instruction buffer passes the scoreboard (RAW/WAW) and the warp is
  not waiting; it can issue if the head's functional unit is free.
- ``WS_SCOREBOARD``: the head reads or writes a register with a pending write from an ALU-class op.
- ``WS_MEMORY``: the head collides with a long-op register (global load/atomic destination), or the
  head is a memory fence waiting for the warp's outstanding memory requests.
- ``WS_BARRIER``: the warp waits at ``bar.sync`` for the rest of its CTA.
- ``WS_FETCH``: the instruction buffer is empty (waiting for fetch/decode, or the stream ended).
- ``WS_DONE``: exited (possibly still draining pending writes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, Iterator

from sim.workload.kernel import Instr, Op

if TYPE_CHECKING:
    from sim.cta import CTA
    from sim.subcore import SubCore

# wait states and unit classes as Final literals (compiled code compares native ints)
WS_READY: Final = 0
WS_SCOREBOARD: Final = 1
WS_MEMORY: Final = 2
WS_BARRIER: Final = 3
WS_FETCH: Final = 4
WS_DONE: Final = 5
STATE_NAMES = ("ready", "scoreboard", "memory", "barrier", "fetch", "done")

# Functional-unit classes of a sub-core ([GPGPU-Sim scheduler_unit::cycle()] "target unit"). NONE:
# ops that need no pipeline (barrier, fence, exit, nop); branches go to the ALU (SP) pipe as in
# GPGPU-Sim.
ALU: Final = 0
SFU: Final = 1
FP64: Final = 2
DIV: Final = 3
LDST: Final = 4
NONE: Final = 5
UNIT_NAMES = ("alu", "sfu", "fp64", "div", "ldst", "none")
UNIT_OF_OP: dict[int, int] = {
    Op.ALU: ALU, Op.BRA: ALU, Op.SFU: SFU, Op.FP64: FP64, Op.DIV: DIV,
    Op.LDG: LDST, Op.STG: LDST, Op.LDS: LDST, Op.STS: LDST, Op.ATOM: LDST,
    Op.BAR: NONE, Op.MEMBAR: NONE, Op.EXIT: NONE, Op.NOP: NONE}
LONG_OPS = frozenset({Op.LDG, Op.ATOM})
_MEMBAR = Op.MEMBAR
# (op, dst, src) → (unit, dst mask, use mask, long-op, fence)
_DECODE: dict[tuple[int, tuple, tuple], tuple[int, int, int, bool, bool]] = {}
DECODE_LIMIT = 4096


def _decode(op: int, dst: tuple, src: tuple) -> tuple[int, int, int, bool, bool]:
    """What issue needs from an instruction's op and registers (memoised: decoded on every
    fetch, and per-instance memory instructions are never the same object twice)."""
    d = 0
    for r in dst:
        d |= 1 << r
    use = d
    for r in src:
        use |= 1 << r
    if len(_DECODE) >= DECODE_LIMIT:
        _DECODE.clear()
    out = _DECODE[(op, dst, src)] = (UNIT_OF_OP[op], d, use, op in LONG_OPS, op == _MEMBAR)
    return out


class Decoded:
    """An instruction as the issue stage sees it: unit, register bitmasks, long-op flag."""

    __slots__ = ("instr", "op", "unit", "use_mask", "dst_mask", "long", "fence")
    instr: Instr
    op: int
    unit: int
    use_mask: int
    dst_mask: int
    long: bool
    fence: bool

    def __init__(self, instr: Instr):
        op = instr.op
        self.instr, self.op = instr, op
        f = _DECODE.get((op, instr.dst, instr.src))
        if f is None:
            f = _decode(op, instr.dst, instr.src)
        self.unit, self.dst_mask, self.use_mask, self.long, self.fence = f


class Warp:
    """A warp resident in an SM slot. ``bit`` is its bit in its sub-core's masks."""

    __slots__ = ("slot", "dyn_id", "cta", "index", "stream", "stream_done", "ib", "pending",
                 "longop", "mem_out", "state", "unit", "exited", "finished", "at_barrier",
                 "subcore", "bit", "n_insts", "soc", "phase_table", "atomics")
    slot: int
    dyn_id: int
    cta: CTA
    index: int
    stream: Iterator[Instr]
    stream_done: bool
    ib: list[Decoded]       # a list: indexed natively when compiled (at most sm.ib_entries)
    pending: int
    longop: int
    mem_out: int
    atomics: int            # atomics in flight (``sm.blocking_atomics`` stops issue meanwhile)
    state: int
    unit: int
    exited: bool
    finished: bool
    at_barrier: bool
    subcore: SubCore
    bit: int
    n_insts: int
    soc: Any
    phase_table: Any        # the kernel's phase table once the phase inputs need it, or None

    def __init__(self, slot: int, dyn_id: int, cta: CTA, index: int, stream: Iterator[Instr],
                 subcore: SubCore, bit: int):
        self.slot, self.dyn_id, self.cta, self.index = slot, dyn_id, cta, index
        self.stream, self.stream_done = stream, False
        self.ib = []
        self.pending = 0        # registers with an outstanding write (scoreboard reg_table)
        self.longop = 0         # the subset written by global loads / atomics (longopregs)
        self.mem_out = 0        # memory requests in flight (loads, stores, atomics)
        self.atomics = 0
        self.state = WS_FETCH
        self.unit = NONE        # unit of the head instruction while WS_READY
        self.exited = self.finished = self.at_barrier = False
        self.subcore, self.bit = subcore, bit
        self.n_insts = 0
        self.soc = None         # SOCGPU issue state (sim/issue/socgpu.py), None for in-order
        self.phase_table = None     # sim.issue.phase_port

    def wait_state(self) -> int:
        """The state the current head instruction and flags put this warp in."""
        if self.exited:
            return WS_DONE
        if self.at_barrier:
            return WS_BARRIER
        if not self.ib:
            return WS_FETCH
        head = self.ib[0]
        hit = head.use_mask & self.pending
        if hit:
            return WS_MEMORY if hit & self.longop else WS_SCOREBOARD
        if head.fence and self.mem_out:
            return WS_MEMORY
        if self.longop and self.subcore.block_loads:     # sm.blocking_loads ([OWL §2.1])
            return WS_MEMORY
        if self.atomics:                                  # only with sm.blocking_atomics
            return WS_MEMORY
        return WS_READY

    def drained(self) -> bool:
        """No register write and no memory request outstanding."""
        return not self.pending and not self.mem_out

    def describe_wait(self) -> str:
        """Human-readable reason this warp cannot issue (deadlock reports)."""
        if self.soc is not None:
            return self.soc.describe(self)
        state = self.wait_state()
        if state == WS_BARRIER:
            cta = self.cta
            return (f"waits at barrier; {cta.bar_arrived + cta.n_exited}/{cta.n_warps} warps "
                    f"of its CTA arrived")
        if state == WS_FETCH:
            if self.stream_done:
                return "has no instruction: its stream ended without EXIT"
            return "waits for fetch"
        if state in (WS_SCOREBOARD, WS_MEMORY):
            head = self.ib[0]
            both = head.use_mask & self.pending
            regs = [r for r in range(both.bit_length()) if both >> r & 1]
            if not regs:
                return f"waits for {self.mem_out} memory requests at a fence"
            kind = "memory" if state == WS_MEMORY else "scoreboard"
            return f"waits on {kind} (registers {regs} pending) before {head.instr!r}"
        if state == WS_DONE:
            return f"exited, draining {self.mem_out} memory requests"
        return "is ready"

