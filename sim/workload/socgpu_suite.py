"""SOCGPU suite ([SOCGPU]): synthetic stand-ins for the paper's 14 Rodinia 3.1 and 8 DeepBench
applications, one entry per application type, built from the [SOCGPU] generator knobs.

What separates the two groups ([SOCGPU] "traits to reproduce", our sizes and values):

- DeepBench (``sg_gemm_*``, ``sg_conv_*``, ``sg_lstm_*``, ``sg_gru_*``): long unrolled FFMA/LDS
  blocks with one loop branch per 100+ instructions and a BAR per tile (< 2 % serial), heavy
  register use (96–128 registers/thread: few warps per SM, i.e. low TLP); the RNNs are sequences
  of GEMV kernels that stream weights (memory/latency bound). *train* variants have bigger grids
  and more tiles than *inf* ones.
  gemm/conv model [SOCGPU]'s "high intra-warp ILP; heavy register reuse" (register tiling: values
  loaded once, read by many FFMAs into independent accumulators) with a RAW distance of mean 8
  = 2 issue slots × the 4-cycle FP32 latency of our parameter list (an in-order dual-issue pipe
  stalls on a dependence closer than that) and a register pool of ``regs_per_thread − 8`` (8 left
  for addresses, counters, predicates), so the software-prefetched tile registers are not recycled
  inside the FFMA block they are meant to fly under.
- Rodinia (``sg_<app>``): short basic blocks (4–12), frequent BAR and loop branches, divergent
  ``If``s, 8–25 % serial instructions, short RAW distances over small pools (10–16), 32
  registers per thread (full occupancy when the grid allows).
- Loads: affine accesses (stencil neighbours, streamed records, weights, tiles) are independent
  of each other's data (``_affine``); only the graph stand-ins (bfs, b+tree) chain a load's
  address on an earlier load's value ([SOCGPU] "dependent LDG chains").

Why DeepBench's RAW distance and pools are what they are (issue 7):
docs/mechanisms/socgpu.md, "The stand-ins' instruction-level parallelism".

All default-off additions: existing catalogue entries are untouched. ``scale`` multiplies grids
and main loop trips; at 1.0 each runs in a few seconds on a 5-SM slice of ``gp102``.
"""

from __future__ import annotations

from .kernel import Kernel, Op
from .patterns import Gather, Stream
from .recipes import Ctx
from .synthetic import (Barrier, Block, If, Ins, KernelSpec, LaneWork, Loop, Mix, Regs)


def _affine(op: Op, n: int, pattern=None) -> tuple:
    """``n`` loads of an affine access (neighbours, fields, weights): the first reads the address
    arithmetic just before it, the others use the same base with an offset, so no load's address
    comes from another load's data (``Ins`` default ``dep='chain'`` would make them a dependent
    chain, which only the graph stand-ins bfs and b+tree model on purpose)."""
    first = Ins(op, 1, pattern)
    return (first,) if n == 1 else (first, Ins(op, n - 1, pattern, dep="free"))


def _gemm(c: Ctx, name: str, ctas: int, regs: int, unroll: int, tiles: int) -> list[Kernel]:
    a = Stream(c.region(), unit="group", group=4)
    b = Stream(c.region())
    # software-prefetched tile (cuBLAS style): the next tile's loads fly during the FFMA block
    tile = (Ins(Op.LDG, 2, a, dep="free"), Ins(Op.LDG, 2, b, dep="free"),
            Block(unroll, Mix(alu=0.88, lds=0.12), avoid_loads=True),
            Ins(Op.STS, 4, dep="last_load"), Barrier())
    body = (Ins(Op.ALU, 6, dep="free"), Loop(tile, trips=c.n(tiles)),
            Block(12, Mix(alu=0.5, stg=0.5), store=Stream(c.region())))
    return [c.kernel(KernelSpec(name, c.n(ctas), 256, body, regs=Regs(pool=regs - 8, raw_mean=8.0),
                                regs_per_thread=regs, smem_per_cta=16384))]


def _conv(c: Ctx, name: str, ctas: int, regs: int, unroll: int, tiles: int) -> list[Kernel]:
    img = Stream(c.region(), footprint=1024, unit_stride=1024, halo=128)
    flt = Stream(c.region(), unit="grid", footprint=4096, step=1024)
    tile = (Ins(Op.LDG, 2, img, dep="free"), Ins(Op.LDG, 1, flt, dep="free"),
            Block(unroll, Mix(alu=0.85, lds=0.15), avoid_loads=True),
            Ins(Op.STS, 3, dep="last_load"), Barrier())
    body = (Ins(Op.ALU, 8, dep="free"), Loop(tile, trips=c.n(tiles)),
            Block(8, Mix(alu=0.5, stg=0.5), store=Stream(c.region())))
    return [c.kernel(KernelSpec(name, c.n(ctas), 256, body, regs=Regs(pool=regs - 8, raw_mean=8.0),
                                regs_per_thread=regs, smem_per_cta=12288))]


def _rnn(c: Ctx, name: str, steps: int, ctas: int, gates: int) -> list[Kernel]:
    w, h, out = c.region(), c.region(), c.region()
    kernels = []
    for step in range(c.n(steps, lo=2)):
        body = (Ins(Op.ALU, 4, dep="free"),
                Loop((*_affine(Op.LDG, 2, Stream(w)),
                      Ins(Op.LDG, 1, Stream(h, unit="grid", footprint=2048, step=512), dep="free"),
                      Block(8, Mix(alu=1.0))), trips=12),
                Ins(Op.SFU, gates), Block(3 * gates, Mix(alu=1.0)),
                Ins(Op.STG, 1, Stream(out + step * (1 << 20))))
        kernels.append(c.kernel(KernelSpec(f"{name}_t{step}", c.n(ctas), 128, body,
                                           regs=Regs(pool=16, raw_mean=2.0), regs_per_thread=64)))
    return kernels


def _stencil(c: Ctx, name: str, sweeps: int, block: int, alu: int, diverge: float) -> list[Kernel]:
    tile = Stream(c.region(), footprint=1024, unit_stride=1024, halo=64)
    sweep = (*_affine(Op.LDS, 3), Block(alu, Mix(alu=0.9, sfu=0.1)),
             If((Block(3, Mix(alu=1.0)),), diverge=diverge, taken=0.2), Ins(Op.STS, 1), Barrier())
    body = (Ins(Op.ALU, 4, dep="free"), *_affine(Op.LDG, 2, tile), Ins(Op.STS, 1), Barrier(),
            Loop(sweep, trips=c.n(sweeps)), Ins(Op.LDS, 1), Ins(Op.STG, 1, Stream(c.region())))
    return [c.kernel(KernelSpec(name, c.n(60), block, body, regs=Regs(pool=14, raw_mean=1.6),
                                regs_per_thread=32, smem_per_cta=4096))]


def _srad(c: Ctx) -> list[Kernel]:
    img, out = Stream(c.region(), footprint=512, unit_stride=512, halo=64), c.region()
    k1 = (Ins(Op.ALU, 3, dep="free"), *_affine(Op.LDG, 5, img),
          Block(14, Mix(alu=0.75, sfu=0.1, div=0.15)),
          If((Block(4, Mix(alu=1.0)),), diverge=0.1, taken=0.1),
          Ins(Op.STG, 4, Stream(out)))
    k2 = (Ins(Op.ALU, 3, dep="free"), *_affine(Op.LDG, 5, img), Block(10, Mix(alu=1.0)),
          Ins(Op.STG, 1, Stream(out + (1 << 24))))
    return [c.kernel(KernelSpec(f"srad_k{i}", c.n(80), 256, body, regs=Regs(pool=12, raw_mean=1.5)))
            for i, body in enumerate((k1, k2) * 2)]


def _bfs(c: Ctx) -> list[Kernel]:
    col = Gather(c.region(), 8 << 20, lines=8, reuse=0.2)
    visited = Gather(c.region(), 1 << 20, lines=32, reuse=0.1)
    inner = (Ins(Op.LDG, 1, col), Ins(Op.LDG, 1, visited, dep="last_load"), Ins(Op.ALU, 1),
             If((Ins(Op.STG, 1, Gather(c.region(), 1 << 20, lines=32)),), diverge=0.5, taken=0.3))
    body = (Ins(Op.ALU, 3, dep="free"), Ins(Op.LDG, 1, Stream(c.region())),
            If((Ins(Op.LDG, 1, Stream(c.region(), lines=2, elem=8)), Ins(Op.ALU, 2),
                Loop(inner, trips=1, per_lane=LaneWork("powerlaw", 3.0, 16))),
               diverge=0.6, taken=0.4))
    return [c.kernel(KernelSpec("bfs_k1", c.n(100), 256, body, regs=Regs(pool=10, raw_mean=1.5)))]


def _btree(c: Ctx) -> list[Kernel]:
    nodes = Gather(c.region(), 4 << 20, lines=4, reuse=0.5, hot=32)
    level = (Ins(Op.LDG, 1, nodes, dep="last_load"), Block(6, Mix(alu=1.0)),
             If((Ins(Op.ALU, 2),), diverge=0.3, taken=0.5))
    body = (Ins(Op.ALU, 4, dep="free"), Ins(Op.LDG, 1, Stream(c.region())),
            Loop(level, trips=c.n(8)), Ins(Op.STG, 1, Stream(c.region())))
    return [c.kernel(KernelSpec("findK", c.n(100), 256, body, regs=Regs(pool=12, raw_mean=1.5)))]


def _streaming(c: Ctx, name: str, loads: int, alu: int, sfu: int, trips: int,
               ctas: int) -> list[Kernel]:
    feats = Stream(c.region())
    body = (Ins(Op.ALU, 4, dep="free"),
            Loop((*_affine(Op.LDG, loads, feats), Block(alu, Mix(alu=1.0))), trips=c.n(trips)),
            Ins(Op.SFU, sfu), Ins(Op.STG, 1, Stream(c.region())))
    return [c.kernel(KernelSpec(name, c.n(ctas), 256, body, regs=Regs(pool=10, raw_mean=1.5)))]


def _backprop(c: Ctx) -> list[Kernel]:
    body = (Ins(Op.ALU, 4, dep="free"), *_affine(Op.LDG, 2, Stream(c.region())),
            Ins(Op.STS, 1), Barrier(), Loop((*_affine(Op.LDS, 2), Ins(Op.ALU, 3), Barrier()),
                                            trips=4),
            Ins(Op.SFU, 1), Ins(Op.STG, 1, Stream(c.region())))
    adjust = (Ins(Op.ALU, 4, dep="free"), *_affine(Op.LDG, 3, Stream(c.region())),
              Block(8, Mix(alu=1.0)), Ins(Op.STG, 2, Stream(c.region())))
    return [c.kernel(KernelSpec("bpnn_layerforward", c.n(120), 256, body,
                                regs=Regs(pool=12, raw_mean=1.6), smem_per_cta=2048)),
            c.kernel(KernelSpec("bpnn_adjust_weights", c.n(120), 256, adjust,
                                regs=Regs(pool=12, raw_mean=1.6)))]


def _lud(c: Ctx) -> list[Kernel]:
    row = (*_affine(Op.LDS, 2), Ins(Op.ALU, 2), Barrier())
    body = (Ins(Op.ALU, 4, dep="free"), *_affine(Op.LDG, 2, Stream(c.region(), footprint=1024)),
            Ins(Op.STS, 2), Barrier(), Loop(row, trips=c.n(16)),
            Ins(Op.STG, 2, Stream(c.region())))
    return [c.kernel(KernelSpec("lud_internal", c.n(64), 256, body,
                                regs=Regs(pool=12, raw_mean=1.5), smem_per_cta=2048))]


def _lavamd(c: Ctx) -> list[Kernel]:
    body = (*_affine(Op.LDG, 2, Stream(c.region())), Ins(Op.STS, 2), Barrier(),
            Loop((*_affine(Op.LDS, 2), Block(24, Mix(alu=0.8, sfu=0.1, div=0.1)), Barrier()),
                 trips=c.n(12)),
            Ins(Op.STG, 1, Stream(c.region())))
    return [c.kernel(KernelSpec("kernel_gpu_cuda", c.n(40), 128, body, smem_per_cta=7200,
                                regs=Regs(pool=16, raw_mean=2.0), regs_per_thread=48))]


def _hybridsort(c: Ctx) -> list[Kernel]:
    buckets = Gather(c.region(), 4096, lines=8, reuse=0.5)
    body = (Ins(Op.LDG, 1, Stream(c.region())), Ins(Op.ALU, 3),
            Loop((If((Ins(Op.ATOM, 1, buckets), Ins(Op.ALU, 1)), (Ins(Op.ALU, 2),), diverge=0.7),
                  Ins(Op.ALU, 2)), trips=c.n(4)),
            Ins(Op.STG, 1, Stream(c.region())))
    return [c.kernel(KernelSpec("bucketsort", c.n(80), 256, body,
                                regs=Regs(pool=10, raw_mean=1.5)))]


SUITE: dict[str, tuple[str, str, object]] = {
    "sg_gemm_train": ("DeepBench gemm (train)", "160-instr FFMA/LDS tiles, RAW mean 8, 128 regs",
                      lambda c: _gemm(c, "sgemm_train", 40, 128, 160, 8)),
    "sg_gemm_inf": ("DeepBench gemm (inference)", "128-instr tiles, RAW mean 8, 96 regs",
                    lambda c: _gemm(c, "sgemm_inf", 24, 96, 128, 6)),
    "sg_conv_train": ("DeepBench conv (train)", "implicit GEMM, halo tiles (RAW mean 8), 112 regs",
                      lambda c: _conv(c, "conv_train", 40, 112, 120, 8)),
    "sg_conv_inf": ("DeepBench conv (inference)", "implicit GEMM, RAW mean 8, 80 regs",
                    lambda c: _conv(c, "conv_inf", 24, 80, 96, 5)),
    "sg_lstm": ("DeepBench rnn-lstm", "6 GEMV steps, independent weight/vector loads, 4 gates",
                lambda c: _rnn(c, "lstm", 6, 24, 4)),
    "sg_gru": ("DeepBench rnn-gru", "6 GEMV steps, independent weight/vector loads, 3 gates",
               lambda c: _rnn(c, "gru", 6, 24, 3)),
    "sg_hotspot": ("Rodinia hotspot", "smem tile, BAR per sweep, 8-instr blocks, rare divergence",
                   lambda c: _stencil(c, "hotspot", 8, 256, 8, 0.2)),
    "sg_pathfinder": ("Rodinia pathfinder", "smem row, BAR per step, 5-instr blocks",
                      lambda c: _stencil(c, "dynproc", 12, 256, 5, 0.3)),
    "sg_dwt2d": ("Rodinia dwt2d", "smem tiles, BAR per lifting step, 12-instr blocks",
                 lambda c: _stencil(c, "fdwt53", 6, 128, 12, 0.05)),
    "sg_srad": ("Rodinia srad_v1", "2 kernels/iteration, 5 neighbour loads, div/SFU",
                _srad),
    "sg_bfs": ("Rodinia bfs", "power-law neighbour loops, dependent gathers, divergence", _bfs),
    "sg_btree": ("Rodinia b+tree", "dependent LDG chain per tree level, short blocks", _btree),
    "sg_kmeans": ("Rodinia kmeans", "streaming feature loads, 3 ALU per load",
                  lambda c: _streaming(c, "kmeans_point", 2, 3, 0, 16, 60)),
    "sg_nn": ("Rodinia nn", "streaming records, distance + sqrt",
              lambda c: _streaming(c, "euclid", 2, 4, 1, 4, 120)),
    "sg_backprop": ("Rodinia backprop", "smem reduction with BAR, then weight update", _backprop),
    "sg_lud": ("Rodinia lud", "smem tile, BAR per row, 2-instr bodies", _lud),
    "sg_lavamd": ("Rodinia lavaMD", "compute-heavy smem loops with SFU/div", _lavamd),
    "sg_hybridsort": ("Rodinia hybridsort", "divergent atomics into buckets", _hybridsort),
}
DEEPBENCH = [n for n in SUITE if n.startswith(("sg_gemm", "sg_conv", "sg_lstm", "sg_gru"))]
RODINIA = [n for n in SUITE if n not in DEEPBENCH]
