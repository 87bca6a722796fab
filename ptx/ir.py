"""The PTX program as the parser builds it: modules, functions, variables, instructions and their
operands (registers, immediates, symbols, addresses, vectors, predicate pairs)."""

from __future__ import annotations

from dataclasses import dataclass, field

TYPES = {"pred": 0, "b8": 1, "b16": 2, "b32": 4, "b64": 8, "u8": 1, "u16": 2, "u32": 4, "u64": 8,
         "s8": 1, "s16": 2, "s32": 4, "s64": 8, "f16": 2, "f16x2": 4, "bf16": 2, "bf16x2": 4,
         "f32": 4, "f64": 8}


@dataclass(frozen=True)
class Reg:
    name: str


@dataclass(frozen=True)
class Imm:
    value: int | float
    kind: str            # 'int', 'f32' or 'f64'


@dataclass(frozen=True)
class Sym:
    name: str            # a variable, function or label name


@dataclass(frozen=True)
class Addr:
    base: Reg | Sym | None
    offset: int


@dataclass(frozen=True)
class Vec:
    items: tuple


@dataclass(frozen=True)
class Pair:
    first: object        # setp p|q, shfl r|p
    second: object


SINK = Sym("_")


@dataclass
class Instr:
    opcode: str                      # the base name: 'add', 'ld', 'setp', …
    mods: tuple[str, ...]            # the dotted parts after it: ('global', 'f32')
    operands: list
    guard: tuple[str, bool] | None   # (predicate register, negated)
    line: int
    text: str

    def where(self, path: str) -> str:
        return f"{path}:{self.line}"


@dataclass
class Label:
    name: str
    line: int


@dataclass
class Var:
    """A variable of a state space: ``.shared .align 4 .b8 tile[1024]`` and the like."""
    space: str
    type: str
    name: str
    count: int | None       # array length (None: scalar; 0: ``[]`` extern/unsized)
    align: int
    init: list | None
    line: int
    extern: bool = False

    @property
    def size(self) -> int:
        return TYPES[self.type] * (1 if self.count is None else self.count)


@dataclass
class Function:
    name: str
    kind: str                        # 'entry' or 'func'
    params: list[Var]
    rets: list[Var]
    body: list                       # Instr and Label, in order
    regs: dict[str, str]             # register name → type
    vars: list[Var]                  # .shared / .local / .param declared inside
    line: int
    attrs: dict = field(default_factory=dict)
    defined: bool = True


@dataclass
class Module:
    path: str
    version: str = ""
    target: str = ""
    address_size: int = 64
    vars: list[Var] = field(default_factory=list)
    functions: dict[str, Function] = field(default_factory=dict)
