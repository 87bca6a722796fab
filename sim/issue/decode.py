"""Model instructions as SOCGPU issue-block entries ([SOCGPU instruction
buffer, dependence matrix]; which opcodes are serial is our choice).

- Registers: one [SOCGPU instruction buffer] record per register (size code 0; the model's operands
  are 32-bit), RZ
  (255) and PT (263) dropped as the decoder would; the guard predicate is a source.
- ``serial``: BRA (all control: branches, calls, returns, SSY/SYNC…), BAR, MEMBAR, EXIT (our choice,
  ``SERIAL_OPS``); atomics are not serial.
- ``unit``: the model's functional-unit kind (``sim.warp``: alu, sfu, fp64, div, ldst, none); it
  stands for the spec's 2-bit unit class in the dual-issue rule (different kinds).
- ``redirect``: the dynamic successor is not the fall-through ``npc``: granting the instruction
  flushes the warp's IB (our cycle contract, trace proxy of our choice); ``pe`` (path end) =
  redirect and not serial, which drives the a3 guard through ``proxy_rpc``.
- Wrong-path slots are placeholders: no operands, ALU unit, not serial (our choice).
"""

from __future__ import annotations

from sim.issue.block import IBEntry
from sim.warp import ALU, LONG_OPS, UNIT_OF_OP
from sim.workload.kernel import Instr, Op, SERIAL_OPS

RZ, PT = 255, 263
CACHE_LIMIT = 1 << 16
_OPERANDS: dict = {}     # (dst, src) → (dst records, src records, dmask, umask, smask)
_EXIT = Op.EXIT


def _operands(dst: tuple, src: tuple) -> tuple:
    key = (dst, src)
    ops = _OPERANDS.get(key)
    if ops is None:
        d = tuple(r for r in dst if r != RZ and r != PT)
        s = tuple(r for r in src if r != RZ and r != PT)
        dmask = smask = 0
        for r in d:
            dmask |= 1 << r
        for r in s:
            smask |= 1 << r
        if len(_OPERANDS) >= CACHE_LIMIT:
            _OPERANDS.clear()
        ops = _OPERANDS[key] = (tuple((r, 0) for r in d), tuple((r, 0) for r in s), dmask,
                                dmask | smask, smask)
    return ops


def make_entry(instr: Instr) -> IBEntry:
    """A fresh entry for one model instruction."""
    e = IBEntry.__new__(IBEntry)
    op = instr.op
    e.dst, e.src, e.dmask, e.umask, e.smask = _operands(instr.dst, instr.src)
    e.pc = pc = instr.pc
    e.npc = pc + 8
    e.op, e.instr, e.unit, e.tag = op, instr, UNIT_OF_OP[op], None
    e.serial = op in SERIAL_OPS
    e.long = op in LONG_OPS
    e.redirect = op != _EXIT and instr.next_pc != pc + 8
    e.pe = e.redirect and not e.serial
    e.ph = False
    return e


def decode(instr: Instr, cache: dict) -> IBEntry:
    """``make_entry`` shared through ``cache`` for static instructions (no per-instance
    addresses); entries are read-only, so warps may share them."""
    if instr.addrs:
        return make_entry(instr)
    e = cache.get(instr)
    if e is None:
        if len(cache) >= CACHE_LIMIT:
            cache.clear()
        e = cache[instr] = make_entry(instr)
    return e


def placeholder(pc: int) -> IBEntry:
    """A wrong-path fetch slot (our choice): never issues, dropped by the flush."""
    e = IBEntry(pc, pc + 8, (), (), False, ALU)
    e.op, e.ph = Op.NOP, True
    return e
