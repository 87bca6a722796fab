"""Compile a ``KernelSpec`` program into a flat template and interpret it per warp.

Code entries are tuples tagged by a small int (``_STATIC`` … ``_EXIT``); static instructions are
shared ``Instr`` objects built once per kernel. The interpreter keeps only per-warp counters,
the active mask and an if-stack, so one instruction costs a few dictionary-free operations.
"""

from __future__ import annotations

import math
import random
from typing import Iterator

from .kernel import Instr, Op
from .patterns import FULL_MASK, WARP_SIZE, Shared, mix_seed, warp_rng
from .synthetic import (GUARD_PRED, IF_PRED, LOOP_PRED, PARAM_REG, POOL_BASE, Barrier, Block, If,
                        Ins, KernelSpec, Loop, Phase, Program)

_STATIC, _MEM, _PRED, _HEAD, _LOOPBR, _IF, _JUMP, _ENDIF, _EXIT = range(9)
_LOADS = (Op.LDG, Op.LDS, Op.ATOM)
_STORES = (Op.STG, Op.STS)
_MEMORY = _LOADS + _STORES
_SRC_COUNT = {Op.ALU: 2, Op.SFU: 1, Op.FP64: 2, Op.DIV: 2}
_TEMPLATE_SALT = 0x7E3A


class _Builder:
    """Emits static code with register allocation driven by the ``Regs`` knobs."""

    def __init__(self, spec: KernelSpec, seed: int, wpc: int, n_ctas: int):
        self.spec, self.wpc, self.n_ctas = spec, wpc, n_ctas
        self.rng = random.Random(mix_seed(seed, _TEMPLATE_SALT))
        self.pool = max(2, min(spec.regs.pool, 255 - POOL_BASE))
        self.n_written = 0
        self.history: list[int] = []
        self.last_load = PARAM_REG
        self.loaded: set[int] = set()   # registers holding a global load's result (avoid_loads)
        self.prog = Program()
        self.pc = 0
        self.divergent = 0          # > 0 inside If bodies / per-lane loops (no BAR allowed)
        self.bound: dict[int, object] = {}
        self.default_shared = Shared(size=spec.smem_per_cta or 4096)

    # -- registers -----------------------------------------------------------------------------
    def _distance(self) -> int:
        mean = max(1.0, self.spec.regs.raw_mean)
        if self.spec.regs.fixed or mean == 1.0:
            d = round(mean)
        else:
            p = 1.0 / mean
            d = 1 + int(math.log(1.0 - self.rng.random()) / math.log(1.0 - p))
        return max(1, min(d, self.pool - 1))

    def pick(self, exclude: frozenset | set = frozenset()) -> int:
        h = self.history
        j = len(h) - self._distance()
        while j >= 0 and h[j] in exclude:
            j -= 1
        return h[j] if j >= 0 else PARAM_REG

    def alloc(self) -> int:
        r = POOL_BASE + self.n_written % self.pool
        self.n_written += 1
        self.history.append(r)
        self.loaded.discard(r)
        return r

    # -- emission ------------------------------------------------------------------------------
    def _next_pc(self) -> int:
        pc, self.pc = self.pc, self.pc + 8
        return pc

    def _bind(self, pattern):
        fn = self.bound.get(id(pattern))
        if fn is None:
            fn = pattern.bind(self.wpc, self.n_ctas, self.spec.line_bytes)
            self.bound[id(pattern)] = fn
        return fn

    def _src(self, dep: str, exclude) -> int:
        if dep == "chain":
            return self.history[-1] if self.history else PARAM_REG
        if dep == "last_load":
            return self.last_load
        if dep == "free":
            return PARAM_REG
        return self.pick(exclude)

    def instr(self, op: Op, pattern=None, dep: str = "pick", exclude=frozenset(),
              pred: bool = False, extra_src: tuple = ()) -> int | None:
        """Emit one instruction of class ``op``; return its destination register (if any)."""
        if op in _MEMORY:
            if pattern is None:
                if op in (Op.LDS, Op.STS):
                    pattern = self.default_shared
                else:
                    raise ValueError(f"{self.spec.name}: {op.name} needs an address pattern")
            src = (self._src(dep, exclude),)
            if op in _STORES or op == Op.ATOM:
                src += (self.pick(exclude),)
            dst = (self.alloc(),) if op in _LOADS else ()
            slot = self.prog.n_mem_slots
            self.prog.n_mem_slots += 1
            pc = self._next_pc()
            self.prog.code.append((_MEM, op, dst, src, getattr(pattern, "elem", 4), pc,
                                   self._bind(pattern), slot))
            if op in _LOADS:
                self.last_load = dst[0]
                if op != Op.LDS:
                    self.loaded.add(dst[0])
            return dst[0] if dst else None
        if op == Op.BAR:
            if self.divergent:
                raise ValueError(f"{self.spec.name}: BAR inside an If or per-lane loop")
            self.prog.code.append((_STATIC, Instr(Op.BAR, (), (), pc=self._next_pc())))
            return None
        if op == Op.EXIT:
            raise ValueError(f"{self.spec.name}: EXIT is appended to every kernel, not an Ins")
        if op in (Op.BRA, Op.MEMBAR, Op.NOP):     # a not-taken branch, a fence, a bubble
            src = (self.pick(exclude),) if op == Op.BRA else ()
            self.prog.code.append((_STATIC, Instr(op, (), src, pc=self._next_pc())))
            return None
        n_src = _SRC_COUNT.get(op, 1)
        src = tuple(self._src(dep if i == 0 else "pick", exclude) for i in range(n_src))
        dst = self.alloc()
        ins = Instr(op, (dst,), src + extra_src, pc=self._next_pc())
        self.prog.code.append((_PRED if pred else _STATIC, ins))
        return dst

    def setp(self, pred_reg: int) -> None:
        """An integer compare writing a predicate register (not part of the rotating pool)."""
        ins = Instr(Op.ALU, (pred_reg,), (self.pick(),), pc=self._next_pc())
        self.prog.code.append((_STATIC, ins))

    # -- sections ------------------------------------------------------------------------------
    def section(self, s) -> None:
        if isinstance(s, Block):
            self.block(s)
        elif isinstance(s, Ins):
            for _ in range(s.count):
                self.instr(s.op, s.pattern, s.dep)
        elif isinstance(s, Phase):
            self.phase(s)
        elif isinstance(s, Barrier):
            self.instr(Op.BAR)
        elif isinstance(s, Loop):
            self.loop(s)
        elif isinstance(s, If):
            self.branch(s)
        elif isinstance(s, (tuple, list)):
            for x in s:
                self.section(x)
        else:
            raise TypeError(f"unknown section {s!r}")

    def block(self, b: Block) -> None:
        ops, weights = b.mix.weights()
        if b.pred > 0:
            self.setp(GUARD_PRED)
        ex = self.loaded if b.avoid_loads else frozenset()
        for _ in range(b.n):
            op = self.rng.choices(ops, weights)[0]
            if op in _MEMORY:
                pat = b.store if op == Op.STG and b.store is not None else b.load
                self.instr(op, b.shared if op in (Op.LDS, Op.STS) else pat, exclude=ex)
            elif op == Op.ALU and b.pred > 0 and self.rng.random() < b.pred:
                self.instr(op, pred=True, extra_src=(GUARD_PRED,), exclude=ex)
            else:
                self.instr(op, exclude=ex)

    def phase(self, p: Phase) -> None:
        loaded: set[int] = set()
        first = None
        for _ in range(p.loads):
            r = self.instr(Op.LDG, p.load, exclude=loaded)
            loaded.add(r)
            first = r if first is None else first
        for _ in range(p.alu):
            self.instr(p.alu_op, exclude=loaded)
        if first is not None:   # the first consumer: begins the next phase
            src = (first, self.pick(loaded))
            ins = Instr(Op.ALU, (self.alloc(),), src, pc=self._next_pc())
            self.prog.code.append((_STATIC, ins))

    def loop(self, lp: Loop) -> None:
        if lp.trips < 1:
            raise ValueError(f"{self.spec.name}: loop trips must be ≥ 1")
        lid = self.prog.n_loops
        self.prog.n_loops += 1
        head = len(self.prog.code)
        head_pc = self.pc
        self.prog.code.append(None)
        self.divergent += lp.per_lane is not None
        self.section(lp.body)
        self.instr(Op.ALU, dep="pick")          # loop counter update
        self.setp(LOOP_PRED)
        self.divergent -= lp.per_lane is not None
        pc = self._next_pc()
        taken = Instr(Op.BRA, (), (LOOP_PRED,), pc=pc, next_pc=head_pc)
        done = Instr(Op.BRA, (), (LOOP_PRED,), pc=pc)
        self.prog.code[head] = (_HEAD, lid, lp.trips, lp.scaled, lp.per_lane)
        self.prog.code.append((_LOOPBR, lid, head, taken, done))

    def branch(self, b: If) -> None:
        if not b.then:
            raise ValueError(f"{self.spec.name}: If needs a non-empty then-body")
        self.setp(IF_PRED)
        code = self.prog.code
        at = len(code)
        code.append(None)
        bra_pc = self._next_pc()
        self.divergent += 1
        self.section(b.then)
        jump_at = None
        if b.orelse:
            jump_at = len(code)
            code.append(None)
            jump_pc = self._next_pc()
        else_idx, else_pc = len(code), self.pc
        self.section(b.orelse)
        self.divergent -= 1
        end_idx, end_pc = len(code), self.pc
        code.append((_ENDIF,))
        code[at] = (_IF, b.diverge, b.taken, bra_pc, bra_pc + 8, else_idx, else_pc)
        if jump_at is not None:
            code[jump_at] = (_JUMP, jump_pc, else_idx, else_pc, end_idx, end_pc)

    def finish(self) -> Program:
        self.prog.code.append((_EXIT, Instr(Op.EXIT, pc=self._next_pc())))
        self.prog.n_static = self.pc // 8
        return self.prog


def compile_program(spec: KernelSpec, seed: int, wpc: int, n_ctas: int) -> Program:
    b = _Builder(spec, seed, wpc, n_ctas)
    b.section(spec.body)
    return b.finish()


def _lane_subset(rng: random.Random, mask: int, p: float) -> int:
    if p == 0.5:
        return mask & rng.getrandbits(32)
    bits = 0
    for lane in range(WARP_SIZE):
        if mask >> lane & 1 and rng.random() < p:
            bits |= 1 << lane
    return bits


def make_stream_factory(prog: Program, spec: KernelSpec, seed: int, wpc: int, n_ctas: int,
                        threads_per_cta: int):
    """The ``Kernel.stream`` function: interprets ``prog`` for one (CTA, warp)."""
    code = tuple(prog.code)
    n_loops, n_mem = prog.n_loops, prog.n_mem_slots
    rem = threads_per_cta % WARP_SIZE
    last_mask = (1 << rem) - 1 if rem else FULL_MASK
    work = spec.work

    def stream(cta: int, warp: int) -> Iterator[Instr]:
        rng = warp_rng(seed, cta, warp)
        factor = work.factor(seed, cta, n_ctas)
        mask = last_mask if warp == wpc - 1 else FULL_MASK
        ks = [0] * n_mem
        left, done = [0] * n_loops, [0] * n_loops
        lanes: list = [None] * n_loops
        saved = [0] * n_loops
        stack: list[tuple[int, int]] = []
        i = 0
        while True:
            e = code[i]
            kind = e[0]
            if kind == _STATIC:
                ins = e[1]
                yield ins if mask == FULL_MASK else Instr(ins.op, ins.dst, ins.src, None, 4, mask,
                                                          ins.pc, ins.next_pc)
                i += 1
            elif kind == _MEM:
                _, op, dst, src, size, pc, fn, slot = e
                k = ks[slot]
                ks[slot] = k + 1
                yield Instr(op, dst, src, fn(cta, warp, k, rng, mask), size, mask, pc)
                i += 1
            elif kind == _LOOPBR:
                lid = e[1]
                it = done[lid] + 1
                done[lid] = it
                if it < left[lid]:
                    ins = e[3]
                    yield ins if mask == FULL_MASK else Instr(Op.BRA, (), ins.src, None,
                                                              4, mask, ins.pc, ins.next_pc)
                    lt = lanes[lid]
                    if lt is not None:
                        mask = saved[lid] & sum(1 << j for j, t in enumerate(lt) if t > it)
                    i = e[2] + 1
                else:
                    ins = e[4]
                    yield ins if mask == FULL_MASK else Instr(Op.BRA, (), ins.src, None, 4, mask,
                                                              ins.pc, ins.next_pc)
                    if lanes[lid] is not None:
                        mask = saved[lid]
                        lanes[lid] = None
                    i += 1
            elif kind == _HEAD:
                _, lid, trips, scaled, per_lane = e
                if per_lane is not None:
                    lt = [per_lane.draw(rng) if mask >> j & 1 else 0 for j in range(WARP_SIZE)]
                    lanes[lid], saved[lid] = lt, mask
                    trips = max(lt)
                elif scaled:
                    trips = max(1, round(trips * factor))
                left[lid], done[lid] = trips, 0
                i += 1
            elif kind == _PRED:
                ins = e[1]
                sub = mask & rng.getrandbits(32) or mask
                yield Instr(ins.op, ins.dst, ins.src, None, 4, sub, ins.pc, ins.next_pc)
                i += 1
            elif kind == _IF:
                _, diverge, taken, bra_pc, then_pc, else_idx, else_pc = e
                if rng.random() < diverge:
                    m_then = _lane_subset(rng, mask, taken)
                else:
                    m_then = mask if rng.random() < taken else 0
                m_else = mask & ~m_then
                stack.append((mask, m_else))
                if m_then:
                    yield Instr(Op.BRA, (), (IF_PRED,), None, 4, mask, bra_pc, then_pc)
                    mask, i = m_then, i + 1
                else:
                    yield Instr(Op.BRA, (), (IF_PRED,), None, 4, mask, bra_pc, else_pc)
                    mask, i = m_else, else_idx
            elif kind == _JUMP:
                _, jump_pc, else_idx, else_pc, end_idx, end_pc = e
                m_else = stack[-1][1]
                if m_else:
                    yield Instr(Op.BRA, (), (IF_PRED,), None, 4, mask, jump_pc, else_pc)
                    mask, i = m_else, else_idx
                else:
                    yield Instr(Op.BRA, (), (IF_PRED,), None, 4, mask, jump_pc, end_pc)
                    i = end_idx
            elif kind == _ENDIF:
                mask = stack.pop()[0]
                i += 1
            else:  # _EXIT
                ins = e[1]
                yield ins if mask == FULL_MASK else Instr(Op.EXIT, (), (), None, 4, mask, ins.pc)
                return
    return stream
