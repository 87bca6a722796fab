"""Catalogue recipes, part 1: the required basics, SOCGPU archetypes ([SOCGPU]) and OWL
archetypes (ours, tuned toward [OWL Table 2, Table 4]). Sizes are our choices, kept so a default run
on gtx480 stays below ~2 M warp instructions; ``scale`` multiplies grids and main loop trip counts.
"""

from __future__ import annotations

from .kernel import Kernel, Op, Workload
from .patterns import Gather, PairedTiles, Stream, Window, mix_seed
from .synthetic import (Barrier, Block, If, Ins, KernelSpec, LaneWork, Loop, Mix, Regs,
                        build_kernel)

REGION_BASE = 1 << 32
REGION_ALIGN = 1 << 28


class Ctx:
    """Build context of one workload: seed, scale and a deterministic address-region allocator
    (regions are 256 MB-aligned so patterns never overlap by accident)."""

    def __init__(self, seed: int, scale: float):
        self.seed, self.scale = seed, scale
        self._next_region = REGION_BASE
        self._n_kernels = 0

    def n(self, x: float, lo: int = 1) -> int:
        """A count scaled by ``scale`` (grids, loop trips), at least ``lo``."""
        return max(lo, round(x * self.scale))

    def region(self, size: int = REGION_ALIGN) -> int:
        base = self._next_region
        self._next_region += -(-size // REGION_ALIGN) * REGION_ALIGN
        return base

    def kernel(self, spec: KernelSpec) -> Kernel:
        """Build ``spec`` with a per-kernel seed derived from (workload seed, launch index)."""
        seed = mix_seed(self.seed, self._n_kernels) & 0xFFFFFFFF
        self._n_kernels += 1
        return build_kernel(spec, seed)

    def workload(self, name: str, kernels: list[Kernel], description: str) -> Workload:
        return Workload(name=name, kernels=kernels, description=description,
                        meta={"seed": self.seed, "scale": self.scale})


def streaming(c: Ctx) -> list[Kernel]:
    """Clearly memory-bound: per thread 8 × (load, 2 ALU, store), coalesced, no reuse."""
    ld, st = Stream(c.region()), Stream(c.region())
    body = (Ins(Op.ALU, 4, dep="free"),
            Loop((Ins(Op.LDG, 1, ld), Ins(Op.ALU, 2), Ins(Op.STG, 1, st)), trips=c.n(8)))
    return [c.kernel(KernelSpec("mem_stream", c.n(480), 256, body, regs_per_thread=16))]


def cache_gto(c: Ctx) -> list[Kernel]:
    """Cache-sensitive: each warp re-reads its own 512 B (4 lines) 16 times. On gtx480 (16 KB L1,
    48 resident warps) all warps together need 24 KB, the oldest few fit: GTO's age priority keeps
    them hot. Four CTA waves, so GTO's starvation of young warps does not just move work into a
    long single-wave tail. Measured (hierarchy memory, full size): L1 hit rate 0.93 under GTO vs
    0.37 under LRR, GTO ≈1.05× faster; the rest is bounded by gtx480's 2-cycle SP and LD/ST
    initiation intervals (issue slots lost to busy units dominate)."""
    ld = Stream(c.region(), unit="warp", footprint=512, step=128, passes=16)
    body = (Ins(Op.ALU, 2, dep="free"),
            Loop((Ins(Op.LDG, 1, ld), Ins(Op.ALU, 1, dep="last_load")), trips=64),
            Ins(Op.STG, 1, Stream(c.region())))
    return [c.kernel(KernelSpec("cache_gto", c.n(360), 256, body, regs_per_thread=20))]


def compute_only(c: Ctx) -> list[Kernel]:
    """No memory at all: FFMA blocks with 10 % SFU, ILP ≈ 4."""
    body = (Loop((Block(24, Mix(alu=0.9, sfu=0.1)),), trips=c.n(16)),)
    return [c.kernel(KernelSpec("compute_only", c.n(120), 256, body,
                                regs=Regs(pool=32, raw_mean=4.0)))]


# -- SOCGPU archetypes ([SOCGPU]) -----------------------------------------------------------

def gemm_like(c: Ctx) -> list[Kernel]:
    a = Stream(c.region(), unit="group", group=4)      # A rows shared by 4 CTAs of a row
    b = Stream(c.region())
    tile = (Ins(Op.LDG, 1, a), Ins(Op.LDG, 1, b), Ins(Op.STS, 2), Barrier(),
            Block(128, Mix(alu=0.88, lds=0.12)), Barrier())
    body = (Ins(Op.ALU, 6, dep="free"), Loop(tile, trips=c.n(8)),
            Block(8, Mix(alu=0.5, stg=0.5), store=Stream(c.region())))
    return [c.kernel(KernelSpec("sgemm", c.n(60), 256, body, regs=Regs(pool=64, raw_mean=8.0),
                                regs_per_thread=64, smem_per_cta=8192))]


def conv_like(c: Ctx) -> list[Kernel]:
    img = Stream(c.region(), footprint=1024, unit_stride=1024, halo=128)  # shares halo lines
    flt = Stream(c.region(), unit="grid", footprint=4096, step=1024)       # broadcast filter
    tile = (Ins(Op.LDG, 1, img), Ins(Op.LDG, 1, flt), Ins(Op.STS, 2), Barrier(),
            Block(96, Mix(alu=0.85, lds=0.15)), Barrier())
    body = (Ins(Op.ALU, 8, dep="free"), Loop(tile, trips=c.n(8)),
            Block(6, Mix(alu=0.5, stg=0.5), store=Stream(c.region())))
    return [c.kernel(KernelSpec("implicit_conv", c.n(60), 256, body,
                                regs=Regs(pool=64, raw_mean=6.0), regs_per_thread=56,
                                smem_per_cta=6144))]


def rnn_like(c: Ctx) -> list[Kernel]:
    kernels = []
    w, h, out = c.region(), c.region(), c.region()
    for step in range(c.n(8, lo=2)):
        weights = Stream(w)
        hidden = Stream(h, unit="grid", footprint=2048, step=512)
        body = (Ins(Op.ALU, 4, dep="free"),
                Loop((Ins(Op.LDG, 1, weights), Ins(Op.LDG, 1, hidden), Ins(Op.ALU, 4)), trips=16),
                Ins(Op.SFU, 2), Ins(Op.ALU, 2), Ins(Op.STG, 1, Stream(out + step * (1 << 20))))
        kernels.append(c.kernel(KernelSpec(f"gemv_t{step}", c.n(30), 128, body,
                                           regs=Regs(pool=24, raw_mean=2.0))))
    return kernels


def stencil_like(c: Ctx) -> list[Kernel]:
    tile = Stream(c.region(), footprint=1024, unit_stride=1024, halo=64)
    sweep = (Ins(Op.LDS, 5), Block(8, Mix(alu=1.0)),
             If((Block(3, Mix(alu=1.0)),), diverge=0.2, taken=0.1), Ins(Op.STS, 1), Barrier())
    body = (Ins(Op.ALU, 6, dep="free"), Ins(Op.LDG, 1, tile), Ins(Op.STS, 1), Barrier(),
            Loop(sweep, trips=c.n(8)), Ins(Op.LDS, 1), Ins(Op.STG, 1, Stream(c.region())))
    return [c.kernel(KernelSpec("stencil_tile", c.n(120), 256, body, regs=Regs(pool=24),
                                smem_per_cta=4096))]


def graph_like(c: Ctx, dist: str = "powerlaw") -> list[Kernel]:
    v_bytes = 1 << 20
    frontier, row_ptr = Stream(c.region()), Stream(c.region(), lines=2, elem=8)
    col = Gather(c.region(), 8 * v_bytes, lines=8, reuse=0.2)
    visited = Gather(c.region(), v_bytes, lines=32, reuse=0.1)
    cost = Gather(c.region(), v_bytes, lines=32)
    inner = (Ins(Op.LDG, 1, col), Ins(Op.LDG, 1, visited, dep="last_load"), Ins(Op.ALU, 1),
             If((Ins(Op.STG, 1, cost), Ins(Op.STG, 1, visited)), diverge=0.5, taken=0.3))
    body = (Ins(Op.ALU, 3, dep="free"), Ins(Op.LDG, 1, frontier), Ins(Op.ALU, 1, dep="last_load"),
            If((Ins(Op.LDG, 1, row_ptr), Ins(Op.ALU, 2),
                Loop(inner, trips=1, per_lane=LaneWork(dist, 4.0, 32))), diverge=0.6, taken=0.4))
    return [c.kernel(KernelSpec("bfs_frontier", c.n(120), 256, body,
                                regs=Regs(pool=16, raw_mean=1.5)))]


def mixed_like(c: Ctx) -> list[Kernel]:
    feats, cents = Stream(c.region()), Stream(c.region(), unit="grid", footprint=1024, step=128)
    ks = [c.kernel(KernelSpec("kmeans_dist", c.n(60), 256, (
        Ins(Op.ALU, 4, dep="free"),
        Loop((Ins(Op.LDG, 1, feats), Ins(Op.LDG, 1, cents), Ins(Op.ALU, 3)), trips=c.n(8)),
        Ins(Op.STG, 1, Stream(c.region()))), regs=Regs(pool=20)))]
    mat = c.region()
    for i in range(c.n(6, lo=2)):                       # gaussian: many tiny kernels
        ks.append(c.kernel(KernelSpec(f"gauss_fan{i}", c.n(16), 64, (
            Ins(Op.ALU, 3, dep="free"), Ins(Op.LDG, 1, Stream(mat + i * 65536)),
            Ins(Op.LDG, 1, Stream(mat, unit="grid", footprint=256)), Ins(Op.ALU, 4),
            Ins(Op.STG, 1, Stream(mat + i * 65536))))))
    ks.append(c.kernel(KernelSpec("lavamd_like", c.n(30), 128, (
        Ins(Op.LDG, 2, Stream(c.region())), Ins(Op.STS, 2), Barrier(),
        Loop((Ins(Op.LDS, 2), Block(20, Mix(alu=0.8, sfu=0.1, div=0.1)), Barrier()),
             trips=c.n(16)),
        Ins(Op.STG, 1, Stream(c.region()))), smem_per_cta=7200, regs=Regs(raw_mean=4.0))))
    buckets = Gather(c.region(), 4096, lines=8, reuse=0.5)
    ks.append(c.kernel(KernelSpec("hybridsort_bucket", c.n(60), 256, (
        Ins(Op.LDG, 1, Stream(c.region())), Ins(Op.ALU, 3),
        If((Ins(Op.ATOM, 1, buckets), Ins(Op.ALU, 1)), (Ins(Op.ALU, 2),), diverge=0.7),
        Ins(Op.STG, 1, Stream(c.region()))))))
    return ks


# -- OWL archetypes (ours, toward [OWL Table 4]) --------------------------------------------------

def owl_reuse(c: Ctx) -> list[Kernel]:
    """T-REUSE: 6-warp CTAs, each re-reading a private 8 KB tile 3 times (all warps read all of
    it). A core holds 5 CTAs (30 of 32 warps): 40 KB overflow the 32 KB L1, a CTA-aware group of
    2–3 CTAs (16–24 KB) fits; 8-warp TL groups straddle CTAs. The tile lies in 1 KB pieces that
    share each 2 KB DRAM row with one partner CTA: 2 of its 8 pieces with the consecutive CTA,
    the rest with a far one ([OWL Table 4]: low sharing, CTAs/Row ≈ 2). ``scale`` ≥
    0.1 shrinks the grid only (the passes over the tile are the archetype); below, for smoke
    tests, the passes too."""
    tile, warps = 8192, 6
    per_pass = tile // 128
    ld = PairedTiles(c.region(), footprint=tile, piece=1024, near=2, step=128,
                     warp_offset=128 * (per_pass // warps), passes=3)
    body = (Ins(Op.ALU, 2, dep="free"),
            Loop((Ins(Op.LDG, 1, ld), Ins(Op.ALU, 1, dep="free"),
                  Ins(Op.ALU, 1, dep="last_load")),
                 trips=per_pass * 3 if c.scale >= 0.1 else c.n(per_pass * 3)),
            Ins(Op.STG, 1, Stream(c.region())))
    return [c.kernel(KernelSpec("t_reuse", c.n(160), 32 * warps, body))]


def owl_stream(c: Ctx, group: int, private: bool) -> list[Kernel]:
    """T-STREAM-SHARED: the ``group`` consecutive CTAs of a grid row read disjoint 128 B
    pieces of the same image rows (``group`` × 128 B each; two of them fill a 2 KB DRAM row on
    the owl map, so a DRAM row is shared by exactly those ``group`` CTAs, as in [OWL Table 4]), no
    line reuse. T-STREAM-PRIVATE: each CTA its own rows (``scale`` shrinks the grid only, so the
    rows each CTA touches stay as they are)."""
    trips = 16
    if private:
        ld: Stream | Window = Stream(c.region(), unit_tiles=trips)
    else:
        ld = Window(c.region(), width=group, reach_x=1, reach_y=1)
    body = (Ins(Op.ALU, 2, dep="free"),
            Loop((Ins(Op.LDG, 1, ld), Ins(Op.ALU, 4)), trips=trips),
            Ins(Op.STG, 1, Stream(c.region())))
    return [c.kernel(KernelSpec("t_stream", c.n(480), 256, body))]


def owl_irregular(c: Ctx) -> list[Kernel]:
    ld = Gather(c.region(), 64 << 20, lines=8, reuse=0.3, hot=16)
    body = (Ins(Op.ALU, 2, dep="free"), Loop((Ins(Op.LDG, 1, ld), Ins(Op.ALU, 12)), trips=24),
            Ins(Op.STG, 1, Stream(c.region())))
    return [c.kernel(KernelSpec("t_irregular", c.n(240), 256, body))]


def owl_mixed(c: Ctx) -> list[Kernel]:
    """T-MIXED (SAD-like): each CTA reads a 2-block-high window of a 16-block-wide image (one
    image row = one 2 KB DRAM row on the owl map), so a DRAM row is shared by the 32 CTAs of
    two grid rows and every line is read by two CTAs (L2 reuse); 16 loads per warp, back to
    back (``scale`` shrinks the grid only)."""
    ld = Window(c.region(), width=16, reach_x=1, reach_y=2)
    body = (Loop((Ins(Op.LDG, 1, ld),), trips=16),
            Ins(Op.STG, 1, Stream(c.region())))
    return [c.kernel(KernelSpec("t_mixed", c.n(256), 256, body))]


def owl_small(c: Ctx) -> list[Kernel]:
    """T-SMALL: 2-warp CTAs with 16 KB shared memory → ≤ 6 resident warps per core."""
    body = (Ins(Op.LDG, 1, Stream(c.region())), Ins(Op.STS, 1), Barrier(),
            Loop((Ins(Op.LDG, 1, Stream(c.region())), Ins(Op.LDS, 1), Ins(Op.ALU, 4)),
                 trips=c.n(32)), Ins(Op.STG, 1, Stream(c.region())))
    return [c.kernel(KernelSpec("t_small", c.n(90), 64, body, smem_per_cta=16384))]


def owl_compute(c: Ctx) -> list[Kernel]:
    body = (Loop((Ins(Op.LDG, 1, Stream(c.region())), Block(40, Mix(alu=0.95, sfu=0.05))),
                 trips=c.n(8)), Ins(Op.STG, 1, Stream(c.region())))
    return [c.kernel(KernelSpec("t_compute", c.n(120), 256, body, regs=Regs(raw_mean=4.0)))]


__all__ = ["Ctx", "streaming", "cache_gto", "compute_only", "gemm_like", "conv_like", "rnn_like",
           "stencil_like", "graph_like", "mixed_like", "owl_reuse", "owl_stream", "owl_irregular",
           "owl_mixed", "owl_small", "owl_compute"]
