"""PTX text → a ``Module`` of functions, variables and instructions (no semantics here).

Covers what nvcc emits (``.version`` 7.x–9.x, ``.target sm_5x``–``sm_9x``, ``.address_size
64``): module variables (``.global``/``.const``/``.shared`` with initialisers), ``.entry`` and
``.func`` with parameters and return values, ``.reg``/``.shared``/``.local``/``.param``
declarations (``%r<6>`` ranges), nested ``{ }`` scopes (their names renamed apart), labels,
guards (``@%p``, ``@!%p``), vector operands, ``a|b`` predicate pairs, addresses ``[x+off]``,
hex-float immediates. Debug directives (``.loc``, ``.file``, ``.section``, ``.pragma``) are
skipped. Every error names ``file:line``.
"""

from __future__ import annotations

import struct

from .errors import PTXError, UnsupportedError
from .ir import (
    SINK,
    TYPES,
    Addr,
    Function,
    Imm,
    Instr,
    Label,
    Module,
    Pair,
    Reg,
    Sym,
    Var,
    Vec,
)
from .tokens import Tokens, integer, skip_balanced


class Parser:
    """Recursive-descent parser over the token list (one pass, no backtracking but peeks)."""

    def __init__(self, text: str, path: str = "<ptx>"):
        self.t = Tokens(text, path)
        self.path = path
        self.lines = text.splitlines()
        self.scope_id = 0

    def module(self) -> Module:
        t, mod = self.t, Module(self.path)
        while t.peek()[0] != "eof":
            k, s, line = t.peek()
            if s == ".version":
                t.next()
                mod.version = self._version()
            elif s == ".target":
                t.next()
                mod.target = t.next()[1]
                while t.accept(","):
                    t.next()
            elif s == ".address_size":
                t.next()
                mod.address_size = integer(t.next(), self.path)
                if mod.address_size != 64:
                    raise UnsupportedError(f"{self.path}:{line}", f".address_size {mod.address_size}",
                                           "only .address_size 64 is supported")
            elif s in (".file", ".loc", ".pragma"):
                self._skip_statement()
            elif s == ".section":
                t.next()
                t.next()
                skip_balanced(t, "{", "}")
            elif s in (".visible", ".extern", ".weak", ".common", ".entry", ".func",
                       ".global", ".const", ".shared", ".local"):
                self._toplevel(mod)
            else:
                raise t.error("expected a directive (.version, .target, .entry, .func, .global, …)")
        if not mod.version:
            raise PTXError(f"{self.path}:1: no .version directive: expected PTX as nvcc emits it")
        return mod

    def _version(self) -> str:
        k, s, line = self.t.next()
        if k != "flt":
            raise PTXError(f"{self.path}:{line}: expected a version like 8.5, found '{s}'")
        major = int(s.split(".")[0])
        if not 6 <= major <= 9:
            raise UnsupportedError(f"{self.path}:{line}", f".version {s}", "PTX ISA 6.x-9.x only")
        return s

    def _skip_statement(self) -> None:
        line = self.t.peek()[2]
        while True:
            k, s, ln = self.t.peek()
            if k == "eof" or ln != line and s.startswith("."):
                return
            self.t.next()
            if s == ";" or (ln != line and s != ","):
                return

    def _toplevel(self, mod: Module) -> None:
        t = self.t
        extern = False
        while t.peek()[1] in (".visible", ".extern", ".weak", ".common"):
            extern |= t.next()[1] == ".extern"
        k, s, line = t.peek()
        if s in (".entry", ".func"):
            f = self._function(extern)
            old = mod.functions.get(f.name)
            if old is None or not old.defined:
                mod.functions[f.name] = f
            elif f.defined:
                raise PTXError(f"{self.path}:{f.line}: function '{f.name}' defined twice")
            return
        var = self._var(t.next()[1][1:], extern)
        t.expect(";")
        mod.vars.append(var)

    # -- declarations --------------------------------------------------------------------
    def _var(self, space: str, extern: bool = False) -> Var:
        t, align, line = self.t, 0, self.t.peek()[2]
        typ = None
        while True:
            k, s, ln = t.peek()
            if s == ".align":
                t.next()
                align = integer(t.next(), self.path)
            elif s == ".ptr":
                t.next()
                while t.peek()[1] in (".global", ".shared", ".const", ".local"):
                    t.next()
                if t.peek()[1] == ".align":
                    t.next()
                    align = integer(t.next(), self.path)
            elif s.startswith(".") and s[1:] in TYPES:
                typ = s[1:]
                t.next()
            elif s in (".v2", ".v4"):
                raise UnsupportedError(f"{self.path}:{ln}", s, "vector-typed variables are not supported")
            else:
                break
        if typ is None:
            raise t.error("expected a type (.b8, .u32, .f32, …)")
        k, name, ln = t.next()
        if k != "id":
            raise PTXError(f"{self.path}:{ln}: expected a variable name, found '{name}'")
        count = None
        if t.accept("["):
            if t.accept("]"):
                count = 0
            else:
                count = integer(t.next(), self.path)
                t.expect("]")
            while t.accept("["):
                count *= integer(t.next(), self.path)
                t.expect("]")
        init = None
        if t.accept("="):
            init = self._initializer()
        return Var(space, typ, name, count, align or max(1, TYPES[typ]), init, line, extern)

    def _initializer(self) -> list:
        t = self.t
        out: list = []
        if t.accept("{"):
            while not t.accept("}"):
                if t.peek()[1] == "{":
                    out.extend(self._initializer())
                else:
                    out.append(self._scalar_init())
                t.accept(",")
            return out
        return [self._scalar_init()]

    def _scalar_init(self):
        t = self.t
        neg = t.accept("-")
        k, s, line = t.peek()
        if k in ("int", "hex", "f32", "f64", "flt"):
            v = self._immediate()
            return Imm(-v.value if neg else v.value, v.kind)
        if k == "id":                       # address of a variable, possibly generic(x)+off
            t.next()
            if s in ("generic", "global", "shared", "const") and t.accept("("):
                s = t.next()[1]
                t.expect(")")
            off = 0
            if t.accept("+"):
                off = integer(t.next(), self.path)
            return Addr(Sym(s), off)
        raise t.error("expected an initial value")

    def _params(self) -> list[Var]:
        t, out = self.t, []
        t.expect("(")
        while not t.accept(")"):
            k, s, line = t.next()
            if s not in (".param", ".reg"):
                raise PTXError(f"{self.path}:{line}: expected '.param', found '{s}'")
            out.append(self._var("param"))
            t.accept(",")
        return out

    def _function(self, extern: bool) -> Function:
        t = self.t
        kind = t.next()[1][1:]
        rets: list[Var] = []
        if kind == "func" and t.peek()[1] == "(":
            rets = self._params()
        k, name, line = t.next()
        if k != "id":
            raise PTXError(f"{self.path}:{line}: expected a function name, found '{name}'")
        params = self._params() if t.peek()[1] == "(" else []
        attrs: dict = {}
        while t.peek()[1] in (".maxntid", ".reqntid", ".minnctapersm", ".maxnreg", ".noreturn",
                              ".maxnctapersm", ".explicitcluster", ".reqnctapercluster",
                              ".maxclusterrank", ".pragma"):
            a = t.next()[1][1:]
            vals = []
            while t.peek()[0] in ("int", "hex", "str"):
                vals.append(t.next()[1])
                if not t.accept(","):
                    break
            t.accept(";")
            attrs[a] = vals
        f = Function(name, kind, params, rets, [], {}, [], line, attrs)
        if t.accept(";"):
            f.defined = False
            return f
        t.expect("{")
        self._block(f, {}, 0)
        return f

    # -- function bodies -----------------------------------------------------------------
    def _block(self, f: Function, rename: dict[str, str], depth: int) -> None:
        """Statements up to the matching '}' (the '{' is consumed); names declared in a nested
        scope (``depth`` > 0) are renamed apart (nvcc reuses ``param0`` in every call block)."""
        t = self.t
        rename = dict(rename)
        while True:
            k, s, line = t.peek()
            if k == "eof":
                raise PTXError(f"{self.path}:{line}: expected '}}' closing function '{f.name}'")
            if s == "}":
                t.next()
                return
            if s == "{":
                t.next()
                self._block(f, rename, depth + 1)
            elif s == ".reg":
                t.next()
                self._regs(f, rename, depth)
            elif s in (".shared", ".local", ".param", ".const", ".global"):
                t.next()
                v = self._var(s[1:])
                t.expect(";")
                v.name = self._scoped(v.name, rename, depth)
                f.vars.append(v)
            elif s in (".loc", ".pragma", ".file"):
                self._skip_statement()
            elif k == "id" and t.peek(1)[1] == ":" and not s.startswith("%"):
                t.next()
                t.next()
                f.body.append(Label(s, line))
            else:
                f.body.append(self._instr(rename))

    def _scoped(self, name: str, rename: dict[str, str], depth: int) -> str:
        if depth:
            self.scope_id += 1
            new = f"{name}@{self.scope_id}"
            rename[name] = new
            return new
        return name

    def _regs(self, f: Function, rename: dict[str, str], depth: int) -> None:
        t = self.t
        typ = None
        while t.peek()[1].startswith(".") and t.peek()[1] not in (";",):
            s = t.next()[1]
            if s[1:] in TYPES:
                typ = s[1:]
            elif s in (".v2", ".v4"):
                raise UnsupportedError(f"{self.path}:{t.peek()[2]}", s, "vector registers are not supported")
        if typ is None:
            raise t.error("expected a register type")
        while True:
            k, name, line = t.next()
            if k != "id":
                raise PTXError(f"{self.path}:{line}: expected a register name, found '{name}'")
            if t.accept("<"):
                n = integer(t.next(), self.path)
                t.expect(">")
                names = [f"{name}{i}" for i in range(n)]
            else:
                names = [name]
            for nm in names:
                f.regs[self._scoped(nm, rename, depth)] = typ
            if not t.accept(","):
                break
        t.expect(";")

    def _instr(self, rename: dict[str, str]) -> Instr:
        t = self.t
        guard = None
        k, s, line = t.peek()
        if t.accept("@"):
            neg = t.accept("!")
            k, p, _ = t.next()
            guard = (rename.get(p, p), neg)
        k, op, line = t.next()
        if k != "id":
            raise PTXError(f"{self.path}:{line}: expected an instruction, found '{op}'")
        parts = op.split(".")
        operands: list = []
        if t.peek()[1] != ";":
            while True:
                operands.append(self._operand(rename))
                if not t.accept(","):
                    break
        t.expect(";")
        src = self.lines[line - 1] if line <= len(self.lines) else ""
        text = " ".join(src.split(";")[0].split()) if op in src else op
        return Instr(parts[0], tuple(parts[1:]), operands, guard, line, text)

    def _operand(self, rename: dict[str, str]):
        t = self.t
        k, s, line = t.peek()
        if s == "[":
            t.next()
            return self._address(rename)
        if s == "{":
            t.next()
            items = []
            while not t.accept("}"):
                items.append(self._operand(rename))
                t.accept(",")
            return Vec(tuple(items))
        if s == "(":                        # call argument lists
            t.next()
            items = []
            while not t.accept(")"):
                items.append(self._operand(rename))
                t.accept(",")
            return Vec(tuple(items))
        if s == "!":                        # negated predicate source (setp's c, selp)
            t.next()
            inner = self._operand(rename)
            return ("not", inner)
        if k in ("int", "hex", "f32", "f64", "flt") or s == "-":
            return self._immediate()
        if k == "id":
            t.next()
            first = self._name(s, rename)
            if t.accept("|"):
                k2, s2, _ = t.next()
                return Pair(first, self._name(s2, rename))
            return first
        raise t.error("expected an operand")

    def _name(self, s: str, rename: dict[str, str]):
        s = rename.get(s, s)
        if s.startswith("%"):
            return Reg(s)
        return SINK if s == "_" else Sym(s)

    def _immediate(self) -> Imm:
        t = self.t
        neg = t.accept("-")
        k, s, line = t.next()
        if k == "f32":
            v: int | float = struct.unpack(">f", bytes.fromhex(s[2:]))[0]
            kind = "f32"
        elif k == "f64":
            v, kind = struct.unpack(">d", bytes.fromhex(s[2:]))[0], "f64"
        elif k == "flt":
            v, kind = float(s), "f64"
        elif k in ("int", "hex"):
            v, kind = integer((k, s, line), self.path), "int"
        else:
            raise PTXError(f"{self.path}:{line}: expected a number, found '{s}'")
        return Imm(-v if neg else v, kind)

    def _address(self, rename: dict[str, str]) -> Addr:
        t = self.t
        k, s, line = t.peek()
        base: Reg | Sym | None = None
        offset = 0
        if k == "id":
            t.next()
            base = self._name(s, rename)
        else:
            offset = self._immediate().value
        while t.peek()[1] in ("+", "-"):
            sign = -1 if t.next()[1] == "-" else 1
            v = self._immediate().value
            offset += sign * int(v)
        t.expect("]")
        return Addr(base, int(offset))


def parse(text: str, path: str = "<ptx>") -> Module:
    """Parse PTX source text; ``path`` names the file in error messages."""
    return Parser(text, path).module()
