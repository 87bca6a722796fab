"""A kernel compiled for execution: every instruction of the flattened code becomes an ``Entry``
(its kind, its vectorised ``run`` function, guard, branch target and reconvergence point) and,
unless ptxas would elide it, a ``Static`` — what the trace records of it (pc, SASS-style
opcode, architectural registers, access width).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import access, alu, convert, warp
from .alu import Ctx
from .cfg import CFG
from .errors import PTXError, UnsupportedError
from .lower import Flat
from .memory import WINDOWS
from .regalloc import allocate
from .sass import SPECIALS, elided, opcode
from .syntax import Addr, Imm, Pair, Reg, Sym, Vec
from .values import DTYPE, Operands, type_of

OP, MEM, BRA, EXIT, BAR, NOP = range(6)

_SPECIAL_TYPES = {name: ("u64" if name in ("%clock64", "%globaltimer") else "u32") for name in SPECIALS}

_BUILDERS = {
    "add": alu.add_sub, "sub": alu.add_sub, "addc": alu.add_sub, "subc": alu.add_sub,
    "mul": alu.mul, "mad": alu.mad, "fma": alu.fma, "div": alu.div_rem, "rem": alu.div_rem,
    "abs": alu.abs_neg, "neg": alu.abs_neg, "min": alu.min_max, "max": alu.min_max,
    "and": alu.logic, "or": alu.logic, "xor": alu.logic, "not": alu.not_, "cnot": alu.not_,
    "shl": alu.shift, "shr": alu.shift, "popc": alu.bits, "clz": alu.bits, "brev": alu.bits,
    "bfind": alu.bits, "bfe": alu.bfe, "bfi": alu.bfi, "prmt": alu.prmt, "shf": alu.shf,
    "lop3": alu.lop3, "setp": convert.setp, "set": convert.set_, "selp": convert.selp,
    "slct": convert.slct, "testp": convert.testp, "copysign": convert.copysign,
    "mov": convert.mov, "cvt": convert.cvt, "rcp": convert.special, "sqrt": convert.special,
    "rsqrt": convert.special, "sin": convert.special, "cos": convert.special,
    "ex2": convert.special, "lg2": convert.special, "tanh": convert.special,
    "shfl": warp.shfl, "vote": warp.vote, "match": warp.match, "activemask": warp.activemask,
    "redux": warp.redux,
}
_NO_DEF = ("st", "red", "bar", "barrier", "bra", "membar", "fence", "prefetch", "prefetchu",
           "call", "ret", "exit")


@dataclass
class Entry:
    kind: int
    run: object
    guard: tuple[int, bool] | None     # (register index, negated)
    rec: int                           # static id in the trace, -1 when elided
    target: int = -1
    reconv: int = -1
    uni: bool = False
    bar: tuple | None = None           # (id reader, count reader | None, arrive only)
    wide: bool = False                 # reads other lanes of its warp (shfl, vote, …)
    line: int = 0
    text: str = ""


@dataclass
class Static:
    pc: int
    opcode: str
    dst: tuple[int, ...]
    src: tuple[int, ...]
    width: int                         # bytes per lane of a memory access, else 0
    line: int
    ptx: str
    target: int = -1                   # a branch's target pc (the next recorded instruction)


def _regs_in(op) -> list[str]:
    if isinstance(op, Reg):
        return [op.name]
    if isinstance(op, Addr) and isinstance(op.base, Reg):
        return [op.base.name]
    if isinstance(op, Vec):
        return [r for x in op.items for r in _regs_in(x)]
    if isinstance(op, Pair):
        return _regs_in(op.first) + _regs_in(op.second)
    if isinstance(op, tuple):
        return _regs_in(op[1])
    return []


class Program:
    """One kernel, ready to run: entries, statics, symbol addresses, memory layout."""

    def __init__(self, flat: Flat, module_symbols: dict[str, tuple[str, int]],
                 module_shared: list | None = None, family: str = "volta"):
        self.flat, self.name, self.path = flat, flat.name, flat.path
        self._module_shared = list(module_shared or [])
        regs = dict(flat.regs)
        regs["%cc"] = "u32"
        self.ops = Operands(regs, _SPECIAL_TYPES)
        self.syms = access.Symbols()
        self.syms.at.update(module_symbols)
        self._layout()
        code = flat.code
        self.kernel_params = {p.name for p in flat.params}
        kinds = []
        for ins in code:
            if ins.opcode == "bra" or (ins.opcode == "ret" and "inline" in ins.mods):
                kinds.append(("cond" if ins.guard else "jump", flat.target(ins)))
            elif ins.opcode in ("ret", "exit"):
                kinds.append(("cexit" if ins.guard else "exit", None))
            else:
                kinds.append(("seq", None))
        self.cfg = CFG(kinds)
        self.entries = [self._entry(i, ins) for i, ins in enumerate(code)]
        self.statics = self._statics(family)
        self.pc_of_line = {s.line: s.pc for s in reversed(self.statics)}
        self._branch_targets()

    # -- memory layout ----------------------------------------------------------------------
    def _layout(self) -> None:
        off = 0
        self.param_size = 0
        for p in self.flat.params:
            off = -(-off // p.align) * p.align
            self.syms.at[p.name] = ("kparam", off)
            off += p.size
        self.param_size = off
        self.param_layout = [(p, self.syms.at[p.name][1]) for p in self.flat.params]
        off = 0
        self.dynamic_shared = None
        for v in self.flat.shared + self.module_shared():
            if v.count == 0 or v.extern:
                self.dynamic_shared = v
                continue
            off = -(-off // v.align) * v.align
            self.syms.at[v.name] = ("shared", off)
            off += v.size
        self.static_shared = off
        if self.dynamic_shared is not None:
            self.syms.at[self.dynamic_shared.name] = ("shared", -(-off // 16) * 16)
        off = 0
        for v in self.flat.local:
            off = -(-off // max(v.align, 1)) * max(v.align, 1)
            self.syms.at[v.name] = ("local", off)
            off += v.size
        self.local_size = -(-off // 16) * 16

    def module_shared(self) -> list:
        return self._module_shared

    def dynamic_offset(self) -> int:
        return -(-self.static_shared // 16) * 16

    # -- entries ------------------------------------------------------------------------------
    def where(self, ins) -> str:
        return f"{self.path}:{ins.line}"

    def _entry(self, i: int, ins) -> Entry:
        guard = None
        if ins.guard is not None:
            name, neg = ins.guard
            if name not in self.ops.index or self.ops.types[name] != "pred":
                raise PTXError(f"{self.where(ins)}: '{ins.text}': guard {name} is not a .pred register")
            guard = (self.ops.index[name], neg)
        e = Entry(NOP, None, guard, -1, line=ins.line, text=ins.text)
        op = ins.opcode
        try:
            self._fill(e, i, ins, op)
        except KeyError as k:
            raise PTXError(f"{self.where(ins)}: '{ins.text}': unknown register or name {k}") from None
        except TypeError as t:
            raise PTXError(f"{self.where(ins)}: '{ins.text}': {t}") from None
        return e

    def _fill(self, e: Entry, i: int, ins, op: str) -> None:
        c = Ctx(ins, self.ops, self.where(ins))
        if op == "bra" or (op == "ret" and "inline" in ins.mods):
            e.kind, e.target, e.uni = BRA, self.flat.target(ins), "uni" in ins.mods
            e.reconv = self.cfg.reconvergence(i)
        elif op in ("ret", "exit"):
            e.kind = EXIT
        elif op in ("bar", "barrier"):
            self._barrier(e, c, ins)
        elif op in ("membar", "fence", "call", "prefetch", "prefetchu"):
            e.kind = NOP
        elif op in ("ld", "ldu"):
            e.kind = OP if self._is_kparam(ins) else MEM
            e.run = access.load(c, self.syms, self.name)
        elif op == "st":
            e.kind, e.run = MEM, access.store(c, self.syms, self.name)
        elif op in ("atom", "red"):
            e.kind, e.run = MEM, access.atomic(c, self.syms, self.name)
        elif op == "mov" and len(ins.operands) == 2 and isinstance(ins.operands[1], Sym):
            e.kind, e.run = OP, self._symbol_move(c, ins)
        elif op == "mov" and isinstance(ins.operands[1], Reg) and ins.operands[1].name in ("%clock", "%clock64"):
            e.kind, e.run = OP, self._clock(c)
        elif op == "cvta":
            e.kind, e.run = OP, convert.cvta(c, WINDOWS)
        elif op in _BUILDERS:
            e.kind, e.run = OP, _BUILDERS[op](c)
            e.wide = op in ("shfl", "vote", "match", "activemask", "redux")
        else:
            raise UnsupportedError(self.where(ins), ins.text)
        if op in ("bar", "barrier") and "warp" in ins.mods:
            e.kind, e.bar = NOP, None

    def _is_kparam(self, ins) -> bool:
        a = ins.operands[1]
        return isinstance(a, Addr) and isinstance(a.base, Sym) and a.base.name in self.kernel_params

    def _barrier(self, e: Entry, c: Ctx, ins) -> None:
        mods = set(ins.mods)
        if "warp" in mods:
            return
        if mods & {"red"}:
            raise c.unsupported("bar.red is not supported")
        ops = ins.operands
        if not ops:
            raise c.unsupported("barrier without an id")
        bid = self.ops.reader(ops[0], "u32")
        cnt = self.ops.reader(ops[1], "u32") if len(ops) > 1 else None
        e.kind, e.bar = BAR, (bid, cnt, "arrive" in mods)

    def _symbol_move(self, c: Ctx, ins):
        name = ins.operands[1].name
        loc = self.syms.address(name)
        if loc is None:
            raise c.unsupported(f"unknown variable '{name}'")
        value = DTYPE[c.t or "u64"].type(loc[1] if loc[0] != "global" else loc[1])
        d = c.wr(0)

        def run(st, sel, m):
            d(st.R, sel, m, value)
        return run

    def _clock(self, c: Ctx):
        d = c.wr(0)
        dt = DTYPE[c.t]

        def run(st, sel, m):
            d(st.R, sel, m, dt.type(st.insts & (2 ** (8 * dt.itemsize) - 1)))
        return run

    # -- statics -----------------------------------------------------------------------------
    def defs_uses(self, ins) -> tuple[list[str], list[str]]:
        specials = SPECIALS
        ops = ins.operands
        if ins.opcode in _NO_DEF:
            defs, srcs = [], [r for o in ops for r in _regs_in(o)]
        else:
            defs = _regs_in(ops[0]) if ops else []
            srcs = [r for o in ops[1:] for r in _regs_in(o)]
        if ins.guard is not None:
            srcs.append(ins.guard[0])
        return ([r for r in defs if r not in specials and r != "%cc"],
                [r for r in srcs if r not in specials and r != "%cc"])

    def _statics(self, family: str) -> list[Static]:
        code = self.flat.code
        du = [self.defs_uses(ins) for ins in code]
        gone = {i for i, ins in enumerate(code) if elided(ins, self.kernel_params)}
        types = dict(self.flat.regs)
        arch, self.spills = allocate(self.cfg, [d for d, _ in du], [u for _, u in du], types, gone)
        self.arch_regs = arch
        self.regs_used = 1 + max((r for r in arch.values() if r < 256), default=-1)
        out: list[Static] = []
        for i, ins in enumerate(code):
            if i in gone:
                continue
            e = self.entries[i]
            width, space = self._access(ins)
            if space == "param":            # call arguments: registers in the SASS calling ABI
                width, name = 0, "MOV"
            else:
                name = opcode(ins, family, width, space)
            d, u = du[i]
            self.entries[i].rec = len(out)
            out.append(Static(8 * len(out), name, tuple(dict.fromkeys(arch[r] for r in d if r in arch)),
                              tuple(dict.fromkeys(arch[r] for r in u if r in arch)),
                              width if e.kind == MEM else 0, ins.line, ins.text))
        return out

    def _branch_targets(self) -> None:
        """Each recorded branch's target pc: the first recorded instruction at or after its
        target (elided instructions have no pc); the kernel's end maps past the last one."""
        pc_at = [0] * (len(self.entries) + 1)
        nxt = 8 * len(self.statics)
        for i in range(len(self.entries) - 1, -1, -1):
            if self.entries[i].rec >= 0:
                nxt = self.statics[self.entries[i].rec].pc
            pc_at[i] = nxt
        pc_at[len(self.entries)] = 8 * len(self.statics)
        for e in self.entries:
            if e.kind == BRA and e.rec >= 0:
                self.statics[e.rec].target = pc_at[e.target] if e.target < len(self.entries) \
                    else pc_at[-1]

    def _access(self, ins) -> tuple[int, str]:
        if ins.opcode not in ("ld", "ldu", "st", "atom", "red"):
            return 0, ""
        t = type_of(ins.mods)
        vec = 4 if "v4" in ins.mods else 2 if "v2" in ins.mods else 1
        width = (DTYPE[t].itemsize if t else 4) * vec
        space = next((x for x in ins.mods if x in access.SPACES), "generic")
        a = ins.operands[0 if ins.opcode in ("st", "red") else 1]
        if isinstance(a, Addr) and isinstance(a.base, Sym):
            loc = self.syms.address(a.base.name)
            if loc is not None:
                space = "param" if "param" in ins.mods else loc[0]
        return width, space


__all__ = ["Program", "Entry", "Static", "OP", "MEM", "BRA", "EXIT", "BAR", "NOP", "Imm"]
