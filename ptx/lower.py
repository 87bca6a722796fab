"""A kernel flattened for execution: calls to ``.func`` inlined (names renamed apart per call
site), labels resolved to instruction indices, variables gathered per state space.

A call's ``.param`` arguments are per-thread storage in the caller; the callee's parameters are
renamed onto them, its ``ret`` becomes a branch to the end of its inlined body. Recursion and
calls through pointers are outside the supported subset (docs/ptx.md).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace

from .errors import PTXError, UnsupportedError
from .syntax import Addr, Function, Instr, Label, Module, Pair, Reg, Sym, Var, Vec


@dataclass
class Flat:
    name: str
    path: str
    params: list[Var]
    code: list[Instr] = field(default_factory=list)
    labels: dict[str, int] = field(default_factory=dict)
    regs: dict[str, str] = field(default_factory=dict)
    shared: list[Var] = field(default_factory=list)
    local: list[Var] = field(default_factory=list)      # .local and per-thread .param vars
    attrs: dict = field(default_factory=dict)

    def target(self, ins: Instr) -> int:
        """The instruction index a branch goes to."""
        sym = next((o for o in ins.operands if isinstance(o, Sym)), None)
        if sym is None or sym.name not in self.labels:
            raise PTXError(f"{self.path}:{ins.line}: '{ins.text}': unknown branch target")
        return self.labels[sym.name]


def _rename(op, names: dict[str, str]):
    if isinstance(op, Reg):
        return Reg(names.get(op.name, op.name))
    if isinstance(op, Sym):
        return Sym(names.get(op.name, op.name))
    if isinstance(op, Addr):
        return Addr(_rename(op.base, names) if op.base is not None else None, op.offset)
    if isinstance(op, Vec):
        return Vec(tuple(_rename(x, names) for x in op.items))
    if isinstance(op, Pair):
        return Pair(_rename(op.first, names), _rename(op.second, names))
    if isinstance(op, tuple):
        return (op[0], _rename(op[1], names))
    return op


def flatten(mod: Module, name: str) -> Flat:
    """The entry ``name`` with every call inlined."""
    f = mod.functions.get(name)
    if f is None or f.kind != "entry":
        entries = sorted(n for n, g in mod.functions.items() if g.kind == "entry")
        raise PTXError(f"{mod.path}: no kernel '{name}' (kernels: {', '.join(entries) or 'none'})")
    out = Flat(name, mod.path, f.params, attrs=f.attrs)
    counter = itertools.count(1)
    _emit(mod, f, out, {}, (name,), counter)
    return out


def _emit(mod: Module, f: Function, out: Flat, names: dict[str, str], stack: tuple,
          counter, end_label: str | None = None) -> None:
    for reg, t in f.regs.items():
        out.regs[names.get(reg, reg)] = t
    for v in f.vars:
        nv = replace(v, name=names.get(v.name, v.name))
        if v.space == "shared":
            if all(s.name != nv.name for s in out.shared):
                out.shared.append(nv)
        elif v.space in ("local", "param"):
            out.local.append(nv)
        else:
            raise UnsupportedError(f"{mod.path}:{v.line}", f".{v.space} {v.name}",
                                   "function-scope variables of this space are not supported")
    for item in f.body:
        if isinstance(item, Label):
            out.labels[names.get(item.name, item.name)] = len(out.code)
            continue
        ins = replace(item, operands=[_rename(o, names) for o in item.operands],
                      guard=(names.get(item.guard[0], item.guard[0]), item.guard[1]) if item.guard else None)
        if ins.opcode == "call":
            _inline(mod, ins, out, names, stack, counter)
        elif ins.opcode == "ret" and end_label is not None:
            out.code.append(replace(ins, mods=("inline",), operands=[Sym(end_label)]))
        else:
            out.code.append(ins)


def _inline(mod: Module, ins: Instr, out: Flat, names: dict[str, str], stack: tuple, counter) -> None:
    where = f"{mod.path}:{ins.line}"
    ops = ins.operands
    fpos = next((i for i, o in enumerate(ops) if isinstance(o, Sym) and o.name in mod.functions), None)
    if fpos is None:
        raise UnsupportedError(where, ins.text, "calls through a pointer are not supported")
    callee = mod.functions[ops[fpos].name]
    if not callee.defined:
        raise UnsupportedError(where, ins.text, f"'{callee.name}' has no body in this file "
                               "(library calls such as printf are not supported)")
    if callee.name in stack:
        raise UnsupportedError(where, ins.text, "recursive calls are not supported")
    rets = ops[fpos - 1].items if fpos > 0 and isinstance(ops[fpos - 1], Vec) else ()
    args = ops[fpos + 1].items if fpos + 1 < len(ops) and isinstance(ops[fpos + 1], Vec) else ()
    if len(args) != len(callee.params) or len(rets) != len(callee.rets):
        raise PTXError(f"{where}: '{ins.text}': {callee.name} takes {len(callee.params)} "
                       f"arguments and returns {len(callee.rets)} values")
    if not all(isinstance(a, Sym) for a in (*args, *rets)):
        raise UnsupportedError(where, ins.text, "call arguments must be .param variables")
    suffix = f"@c{next(counter)}"
    inner: dict[str, str] = {n: n + suffix for n in callee.regs}
    inner.update({v.name: v.name + suffix for v in callee.vars if v.space != "shared"})
    inner.update({lab.name: lab.name + suffix for lab in callee.body if isinstance(lab, Label)})
    inner.update({p.name: a.name for p, a in zip(callee.params, args)})
    inner.update({p.name: r.name for p, r in zip(callee.rets, rets)})
    end = f"$ret{suffix}"
    out.code.append(replace(ins, operands=[Sym(callee.name)]))       # the CALL itself
    _emit(mod, callee, out, inner, stack + (callee.name,), counter, end)
    out.labels[end] = len(out.code)
