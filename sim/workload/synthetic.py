"""Synthetic kernels: a small structured program (blocks, phases, loops, ifs, barriers) compiled
once per kernel into a static template, then interpreted lazily per warp.

Why a static template: real kernels are static code run by many warps, and reusing immutable
``Instr`` objects keeps generation near 1 µs per instruction (ARCHITECTURE.md "speed matters").
Only addresses, active masks and trip counts vary per warp, drawn from a generator seeded by
(kernel seed, CTA, warp) alone (``patterns.warp_rng``), so streams can be created in any order.

Contract with the GPU model: yielded ``Instr`` objects may be shared between warps and must be
treated as read-only. ``next_pc`` is always the pc of the warp's next dynamic instruction (the
fall-through pc+8 except after a taken or divergent branch), as in a trace ([SOCGPU]).
BAR only appears where every warp of a CTA executes it equally often (CTA-uniform loop trip
counts, never inside ``If`` or per-lane loops): checked when the kernel is built.

Knobs (our reproduction plans for [SOCGPU], [OWL Table 3, Table 4], [THESIS] and [IKRA]):
instruction mix, RAW distance and register pool (``Regs``), memory patterns (``patterns``), phases
(k loads, c ALU, first consumer), barriers, divergence (``If``), predication (``Block.pred``),
per-CTA work variation (``Work``) and per-thread work (``LaneWork``, e.g. graph degrees).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from .kernel import Kernel, Op
from .patterns import Pattern, mix_seed

PARAM_REG = 0          # never written: thread index / kernel parameters
POOL_BASE = 1          # first register of the rotating architectural pool
LOOP_PRED, IF_PRED, GUARD_PRED = 256, 257, 258
_CTA_SALT = 0xC7A


@dataclass(frozen=True)
class Mix:
    """Relative weights of the op classes drawn by a ``Block``."""
    alu: float = 1.0
    sfu: float = 0.0
    fp64: float = 0.0
    div: float = 0.0
    ldg: float = 0.0
    stg: float = 0.0
    lds: float = 0.0
    sts: float = 0.0
    atom: float = 0.0

    def weights(self) -> tuple[tuple[Op, ...], tuple[float, ...]]:
        pairs = [(Op.ALU, self.alu), (Op.SFU, self.sfu), (Op.FP64, self.fp64), (Op.DIV, self.div),
                 (Op.LDG, self.ldg), (Op.STG, self.stg), (Op.LDS, self.lds), (Op.STS, self.sts),
                 (Op.ATOM, self.atom)]
        pairs = [p for p in pairs if p[1] > 0]
        return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)


@dataclass(frozen=True)
class Regs:
    """Register knobs: ``pool`` architectural registers rotate as destinations (a small pool
    creates false WAR/WAW dependences); sources read the value written ``d`` register-writing
    instructions earlier, d ~ geometric with mean ``raw_mean`` (``fixed``: always raw_mean)."""
    pool: int = 32
    raw_mean: float = 3.0
    fixed: bool = False


@dataclass(frozen=True)
class Work:
    """Per-CTA trip-count factor for ``Loop(scaled=True)``: 'uniform' (1), 'skewed' (rises
    linearly from 1 at CTA 0 to ``spread`` at the last CTA; IKRA work stealing), 'data'
    (lognormal, σ = ``spread``, mean 1, capped at 4×; data-dependent CTA time, our choice where
    [SRTF] is silent)."""
    kind: str = "uniform"
    spread: float = 1.0

    def factor(self, seed: int, cta: int, n_ctas: int) -> float:
        if self.kind == "uniform":
            return 1.0
        if self.kind == "skewed":
            return 1.0 + (self.spread - 1.0) * cta / max(1, n_ctas - 1)
        if self.kind == "data":
            g = random.Random(mix_seed(seed, cta, _CTA_SALT)).gauss(0.0, self.spread)
            return min(4.0, math.exp(g - self.spread ** 2 / 2))
        raise ValueError(f"Work.kind must be uniform|skewed|data, got {self.kind!r}")


@dataclass(frozen=True)
class LaneWork:
    """Per-thread trip counts (e.g. vertex degree): 'powerlaw' (Pareto tail, cond_mat-like),
    'banded' (mean ± 25 %, olesnik0-like) or 'uniform' (1..2·mean); at least 1, at most ``cap``.
    A warp loops max(lane trips) times; finished lanes drop out of the active mask."""
    dist: str = "powerlaw"
    mean: float = 4.0
    cap: int = 64

    def draw(self, rng: random.Random) -> int:
        if self.dist == "powerlaw":   # Pareto with α = 2 has mean 2·x_min
            v = (self.mean / 2) / (1.0 - rng.random()) ** 0.5
        elif self.dist == "banded":
            v = self.mean * (0.75 + 0.5 * rng.random())
        else:
            v = 1 + rng.random() * (2 * self.mean - 1)
        return max(1, min(self.cap, int(v)))


@dataclass(frozen=True)
class Block:
    """``n`` instructions drawn once (static code) from ``mix``; LDG/ATOM use ``load``, STG uses
    ``store`` (default ``load``), LDS/STS use ``shared``; a fraction ``pred`` of ALU ops is
    predicated (guard register written just before, per-warp random lane subset).
    ``avoid_loads`` (default off): sources skip registers still holding a global load's result
    (software prefetch: the block computes while the next tile's loads are in flight)."""
    n: int
    mix: Mix = Mix()
    load: Pattern | None = None
    store: Pattern | None = None
    shared: Pattern | None = None
    pred: float = 0.0
    avoid_loads: bool = False


@dataclass(frozen=True)
class Ins:
    """``count`` explicit instructions of one op; ``dep``: 'chain' (reads the previous result),
    'last_load' (reads the most recent load: dependent load chains), 'free' (reads params)."""
    op: Op
    count: int = 1
    pattern: Pattern | None = None
    dep: str = "chain"


@dataclass(frozen=True)
class Phase:
    """[THESIS §3.3.1] and our reproduction plan: ``loads`` initial loads, ``alu`` ALU ops that use only older values,
    then the first consumer of this phase's loads (which starts the next phase)."""
    loads: int
    alu: int
    load: Pattern | None = None
    alu_op: Op = Op.ALU


@dataclass(frozen=True)
class Barrier:
    """A CTA barrier (bar.sync)."""


@dataclass(frozen=True)
class If:
    """A data-dependent branch: with probability ``diverge`` the warp splits (each lane takes
    ``then`` with probability ``taken``), else all lanes go one way (then with p = ``taken``)."""
    then: tuple
    orelse: tuple = ()
    diverge: float = 0.5
    taken: float = 0.5


@dataclass(frozen=True)
class Loop:
    """``trips`` iterations (× the CTA's ``Work`` factor when ``scaled``; × nothing when
    ``per_lane`` is given, which sets per-thread trips instead). Each iteration ends with the
    loop overhead: counter ALU, compare into a predicate, backward BRA."""
    body: tuple
    trips: int
    scaled: bool = False
    per_lane: LaneWork | None = None


Section = Block | Ins | Phase | Barrier | If | Loop


@dataclass(frozen=True)
class KernelSpec:
    """Everything needed to build one synthetic kernel (geometry, resources, program)."""
    name: str
    grid: int | tuple[int, int, int]
    block: int | tuple[int, int, int]
    body: tuple
    regs: Regs = Regs()
    work: Work = Work()
    regs_per_thread: int = 32
    smem_per_cta: int = 0
    line_bytes: int = 128
    readonly: tuple[tuple[int, int], ...] = ()
    arrival: int = 0
    meta: tuple[tuple[str, object], ...] = ()


def _dim3(v: int | tuple) -> tuple[int, int, int]:
    if isinstance(v, int):
        return (v, 1, 1)
    return tuple(v) + (1,) * (3 - len(v))  # type: ignore[return-value]


def build_kernel(spec: KernelSpec, seed: int = 0) -> Kernel:
    """Compile ``spec`` into a ``Kernel`` whose streams are generated lazily per warp."""
    from .interp import compile_program, make_stream_factory
    grid, block = _dim3(spec.grid), _dim3(spec.block)
    kernel = Kernel(name=spec.name, grid=grid, block=block,
                    regs_per_thread=spec.regs_per_thread, smem_per_cta=spec.smem_per_cta,
                    stream=_no_stream, readonly_regions=spec.readonly, arrival=spec.arrival,
                    meta=dict(spec.meta, seed=seed))
    wpc = kernel.warps_per_cta()
    program = compile_program(spec, seed, wpc, kernel.n_ctas)
    kernel.stream = make_stream_factory(program, spec, seed, wpc, kernel.n_ctas,
                                        kernel.threads_per_cta)
    kernel.meta["static_instructions"] = program.n_static
    return kernel


def _no_stream(cta: int, warp: int):
    raise RuntimeError("kernel stream not compiled")
    yield  # pragma: no cover


@dataclass
class Program:
    """The compiled template: flat code entries (see ``interp``) and counts."""
    code: list = field(default_factory=list)
    n_loops: int = 0
    n_mem_slots: int = 0
    n_static: int = 0


__all__ = ["Mix", "Regs", "Work", "LaneWork", "Block", "Ins", "Phase", "Barrier", "If", "Loop",
           "Section", "KernelSpec", "build_kernel", "Program", "PARAM_REG", "POOL_BASE",
           "LOOP_PRED", "IF_PRED", "GUARD_PRED"]
