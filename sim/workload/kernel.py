"""Kernel and instruction types shared by generators, the trace reader and the GPU model.

A warp's instruction stream is produced lazily by ``Kernel.stream(cta, warp)`` and must
depend only on (kernel seed, CTA linear id, warp index in the CTA): the GPU model may create
streams in any order and results must not change (determinism under every scheduling policy).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Callable, Final, Iterator


class Op(IntEnum):
    """Op classes: they choose the functional unit and latency (SASS opcodes map onto these)."""
    ALU = 0      # int / fp32 add, mul, fma, logic, moves  → SP unit
    SFU = 1      # transcendental                          → SFU
    FP64 = 2     # double precision                        → FP64 (SFU when absent)
    DIV = 3      # long-latency divide                     → SFU-class, div latency
    LDG = 4      # global / local load                     → LD/ST, long-latency (long-op dst)
    STG = 5      # global / local store                    → LD/ST
    LDS = 6      # shared-memory load                      → LD/ST, smem latency
    STS = 7      # shared-memory store                     → LD/ST
    ATOM = 8     # global atomic                           → LD/ST, long-latency
    BRA = 9      # branch                                  → SP (control)
    BAR = 10     # CTA barrier (bar.sync)
    MEMBAR = 11  # memory fence
    EXIT = 12    # warp exit
    NOP = 13


# the codes the compiled model compares (sim.accel), as Final literals: mypyc folds these to
# constants, but not Op's members
OP_STG: Final = 5
OP_LDS: Final = 6
OP_STS: Final = 7
OP_ATOM: Final = 8
OP_BAR: Final = 10
OP_EXIT: Final = 12
assert ((OP_STG, OP_LDS, OP_STS, OP_ATOM, OP_BAR, OP_EXIT)
        == (Op.STG, Op.LDS, Op.STS, Op.ATOM, Op.BAR, Op.EXIT))

MEMORY_OPS = frozenset({Op.LDG, Op.STG, Op.LDS, Op.STS, Op.ATOM})
GLOBAL_OPS = frozenset({Op.LDG, Op.STG, Op.ATOM})
SERIAL_OPS = frozenset({Op.BRA, Op.BAR, Op.MEMBAR, Op.EXIT})


class Instr:
    """One warp instruction. ``addrs``: per-active-thread byte addresses (memory ops only),
    in lane order of ``mask``; ``size``: bytes per thread access. Registers are small ints
    (0–255 general, 256–263 predicates); ``dst``/``src`` are tuples."""

    __slots__ = ("op", "dst", "src", "addrs", "size", "mask", "pc", "next_pc")

    def __init__(self, op: Op, dst: tuple = (), src: tuple = (), addrs: tuple | None = None,
                 size: int = 4, mask: int = 0xFFFFFFFF, pc: int = 0, next_pc: int | None = None):
        self.op, self.dst, self.src, self.addrs, self.size = op, dst, src, addrs, size
        self.mask, self.pc = mask, pc
        self.next_pc = pc + 8 if next_pc is None else next_pc

    def __repr__(self) -> str:
        a = f" addrs[{len(self.addrs)}]" if self.addrs else ""
        return f"Instr({self.op.name} pc={self.pc:#x} dst={self.dst} src={self.src}{a})"


class LocalInstr(Instr):
    """A local load or store (LDL/STL) at its threads' physical addresses
    (sim.memory.local_map): the L1 caches it even where global loads bypass the L1."""

    __slots__ = ()


StreamFactory = Callable[[int, int], Iterator[Instr]]


@dataclass
class Kernel:
    """A kernel launch: geometry, per-thread resources and a lazy per-warp stream factory.

    ``stream(cta_linear_id, warp_in_cta)`` yields that warp's instructions, ending with EXIT.
    ``readonly_regions``: (start, end) byte ranges the kernel only reads (IKRA keep_readonly).
    ``arrival``: cycle at which the kernel is launched (0 = at start; used by concurrent-kernel
    schedulers); ``meta``: free-form description (which benchmark it mimics, knobs).
    """
    name: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    regs_per_thread: int
    smem_per_cta: int
    stream: StreamFactory
    readonly_regions: tuple[tuple[int, int], ...] = ()
    arrival: int = 0
    meta: dict = field(default_factory=dict)

    @property
    def n_ctas(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2]

    @property
    def threads_per_cta(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    def warps_per_cta(self, warp_size: int = 32) -> int:
        return -(-self.threads_per_cta // warp_size)

    def cta_dim3(self, linear: int) -> tuple[int, int, int]:
        """Linear CTA id → (x, y, z), x fastest (CUDA order)."""
        gx, gy, _ = self.grid
        return linear % gx, (linear // gx) % gy, linear // (gx * gy)


@dataclass
class Workload:
    """An ordered list of kernels (launch order) plus a name and description."""
    name: str
    kernels: list[Kernel]
    description: str = ""
    meta: dict = field(default_factory=dict)
