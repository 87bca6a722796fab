"""Catalogue recipes, part 2: thesis kernels (phase kernels [THESIS Table 3.2, Table 3.3],
ONAC [THESIS Table 4.4], Perf-Sat [THESIS Table 4.2], ch.5 micro-benchmarks [THESIS §5.3.1]) and
IKRA workloads ([IKRA]).

Phase lengths in the thesis are summed latencies in cycles ([THESIS §3.3.2]); we turn a phase of L
cycles into ⌈L/4⌉ ALU instructions (choice: a dependent ALU op costs ~4 issue cycles of latency on
the Fermi-class presets; the latency table is unspecified in [THESIS]).
"""

from __future__ import annotations

import random

from .kernel import Kernel, Op
from .patterns import Gather, Stream, mix_seed
from .recipes import Ctx
from .synthetic import (Barrier, Block, If, Ins, KernelSpec, LaneWork, Loop, Mix, Phase, Regs,
                        Work)

CYCLES_PER_ALU = 4


def _phases(c: Ctx, cycles: list[int], loads: int) -> tuple:
    """One Phase per entry, each load slot streaming from its own region (coalesced)."""
    out = []
    for cyc in cycles:
        out.append(Phase(loads, -(-cyc // CYCLES_PER_ALU), Stream(c.region())))
    return tuple(out)


def phase_kernel(c: Ctx, name: str, cycles: list[int], threads: int = 256, ctas: int = 180,
                 loads: int = 2, loop: tuple[int, list[int]] | None = None,
                 regs: int = 32) -> list[Kernel]:
    """A synthetic kernel for [THESIS] (ours): a list of phases; ``loop`` = (trips, cycles) adds a
    branch-back section of short phases (B+Tree-like) after the first phase. ``regs``: registers per
    thread (with ``threads``, the CTAs per core of Tables 3.2/3.3 on the ``thesis_ch3`` preset)."""
    if loop is None:
        return _fitted_phase_kernel(c, name, cycles, threads, ctas, loads, regs)
    body = [Ins(Op.ALU, 4, dep="free")] + list(_phases(c, cycles[:1], loads))
    body.append(Loop(_phases(c, loop[1], 1), trips=loop[0]))
    body += list(_phases(c, cycles[1:], loads))
    body.append(Ins(Op.STG, 1, Stream(c.region())))
    return [c.kernel(KernelSpec(name, c.n(ctas), threads, tuple(body), regs=Regs(raw_mean=2.0),
                                regs_per_thread=regs))]


def _fitted_phase_kernel(c: Ctx, name: str, cycles: list[int], threads: int, ctas: int,
                         loads: int, regs: int) -> list[Kernel]:
    """Phases whose lengths under the phase analysis's costs (sim/workload/phases.py) are the
    given ones, to ±2 cycles: each phase's ALU count leaves room for its fixed parts (phase 1:
    4 index ops; later phases: the consumer that begins them; loads at their issue cost; the
    last phase: the store) and the last phase has no loads, so the store joins it instead of
    forming a phase of its own."""
    from .phases import COST, ISSUE_COST
    alu = COST[Op.ALU]
    body: list = [Ins(Op.ALU, 4, dep="free")]
    for i, cyc in enumerate(cycles):
        last = i == len(cycles) - 1
        n_loads = 0 if last else loads
        fixed = (4 * alu if i == 0 else alu) + n_loads * ISSUE_COST + (ISSUE_COST if last else 0)
        body.append(Phase(n_loads, max(0, round((cyc - fixed) / alu)), Stream(c.region())))
    body.append(Ins(Op.STG, 1, Stream(c.region())))
    return [c.kernel(KernelSpec(name, c.n(ctas), threads, tuple(body), regs=Regs(raw_mean=2.0),
                                regs_per_thread=regs))]


def heartwall_cycles(seed: int) -> list[int]:
    """45 phases of 41–212 cycles, many above 100 ([THESIS Table 3.2, Table 3.3]), fixed by the
    seed."""
    rng = random.Random(mix_seed(seed, 45))
    return [rng.randint(41, 212) for _ in range(45)]


def onac(c: Ctx, name: str, r: int, trips: int, sfu: float = 0.0) -> list[Kernel]:
    """A synthetic ONAC kernel for [THESIS §4.4] (ours): r non-memory instructions per coalesced
    128-B load, unrolled ×4 (loop overhead of 3 instructions per 4 loads counts as ~1 of the r)."""
    alu = Block(max(1, r - 1), Mix(alu=1.0 - sfu, sfu=sfu))
    body = (Ins(Op.ALU, 4, dep="free"),
            Loop(tuple(x for _ in range(4) for x in (Ins(Op.LDG, 1, Stream(c.region())), alu)),
                 trips=c.n(trips)),
            Ins(Op.STG, 1, Stream(c.region())))
    return [c.kernel(KernelSpec(name, c.n(480), 256, body, regs=Regs(raw_mean=3.0)))]


def perfsat_c_strong(c: Ctx) -> list[Kernel]:
    """C-strong ([THESIS §4.3.1.2], B+tree / SRAD-6): memory latency still exposed at N_max, so
    performance rises up to it. Our reproduction plan: "low bandwidth demand, long dependent-load latency
    chains". Each warp load reads one 32-B sector of an 8 MB region (the next node's keys), its
    address from the previous load. The earlier recipe read 4 lines per warp access: 4 MSHRs a
    warp, so 8 warps filled the L1's 32 and from 2 CTAs on the LD/ST unit waited on MSHRs (79 %
    of issue slots at ≥ 4 CTAs, pipeline stalls) with IPC flat, a C-weak shape (16 SMs, steady
    IPC 1 → 6 CTAs: +19, +0.9, −0.1, −0.3, +0.6 %). One sector per access: +92, +42, +24, +10,
    +2.7 %."""
    chain = Gather(c.region(), 8 << 20, lines=1, elem=1)
    body = (Ins(Op.ALU, 3, dep="free"),
            Loop((Ins(Op.LDG, 1, chain, dep="last_load"), Ins(Op.ALU, 2)), trips=c.n(24)),
            Ins(Op.STG, 1, Stream(c.region())))
    return [c.kernel(KernelSpec("btree_chain", c.n(180), 256, body, regs_per_thread=20))]


def perfsat_c_weak(c: Ctx) -> list[Kernel]:
    body = (Ins(Op.ALU, 3, dep="free"),
            Loop((Ins(Op.LDG, 1, Stream(c.region())), Block(16, Mix(alu=1.0))), trips=c.n(16)),
            Ins(Op.STG, 1, Stream(c.region())))
    return [c.kernel(KernelSpec("pathfinder_weak", c.n(180), 256, body, regs_per_thread=16))]


def perfsat_mem(c: Ctx) -> list[Kernel]:
    """MEM ([THESIS §4.3.1.2], LUD/CFD): performance drops past the optimum because L1D contention
    raises the miss rate. Our reproduction plan's recipe: a 4–6 KB working set per CTA, re-used
    across iterations, so that more CTAs overflow the 16 KB L1D and the extra misses exhaust MSHRs
    and bandwidth. Here each warp owns five 128-B lines of its CTA's 5 KB tile and reads them twice
    per iteration for 6 iterations; ≤ 3 CTAs' tiles fit the L1, more evict each other.

    Each iteration the CTA also reads one new 128-B line (fresh input, as LUD's and CFD's row
    reads; all its warps read it, so 1 line per CTA), so every warp waits on DRAM every
    iteration and every resident CTA's tile is live at once. Without that wait (tile re-reads
    and ALU only, the earlier recipe) the kernel was issue-bound and GTO's age priority kept a
    few warps' lines hot (the CCWS effect): on 16 SMs the L1 hit rate stayed ≥ 0.80 up to 6 CTAs
    and IPC never fell (3 → 6 CTAs: +2.8 %). With it, hits fall from 0.83 (1–2 CTAs) to 0.59
    (6) and IPC peaks at 4 CTAs, then −3.1 % and −4.6 % per extra CTA. The iteration count is
    not scaled (the grid is): the re-use is the category's trait, and at scale 0.25 a scaled
    loop kept a quarter of it."""
    base = c.region()
    tile = tuple(Ins(Op.LDG, 1, Stream(base + (j % 5) * 1024, footprint=5120, step=5120,
                                       passes=6)) for j in range(10))
    fresh = Ins(Op.LDG, 1, Stream(c.region(), footprint=128))       # one line per CTA
    body = (Ins(Op.ALU, 3, dep="free"),
            Loop(tile + (fresh, Ins(Op.ALU, 1, dep="last_load")), trips=6),
            Ins(Op.STG, 1, Stream(c.region())))
    return [c.kernel(KernelSpec("lud_mem", c.n(180), 256, body, regs_per_thread=16))]


def perfsat_gaussian(c: Ctx) -> list[Kernel]:
    """16-thread CTAs (half-warp masks): the CTA-slot limit binds."""
    body = (Ins(Op.ALU, 3, dep="free"),
            Loop((Ins(Op.LDG, 1, Stream(c.region())), Ins(Op.LDG, 1, Stream(c.region())),
                  Ins(Op.ALU, 3), Ins(Op.STG, 1, Stream(c.region()))), trips=c.n(8)))
    return [c.kernel(KernelSpec("gaussian_fan2", c.n(960), 16, body, regs_per_thread=12))]


ADD_ITERATION = 41     # warp instructions per add_x_loops iteration, loop overhead included
CH5_REGS = 16          # registers per thread: 8 CTAs of 256 threads in a 32 K register file


def add_x_loops(c: Ctx, x: int) -> list[Kernel]:
    """[THESIS §5.3.1]: ~6 index ALU, 2 FP32 loads, x iterations of {2 FMUL + the rest of the
    iteration's ALU work + loop overhead}, FADD, store. The iteration is calibrated to
    ``ADD_ITERATION`` warp instructions: the thesis's ≈13.2 k chip-cycles per unit of x at 16
    cores and 1 IPC per core over 5,120 warps (our reproduction plan for [THESIS §5.3.1]; choice:
    the FMULs plus independent filler ALU; the text does not list the loop's other instructions).
    640 CTAs of 256 threads at ``CH5_REGS`` registers, so 8 CTAs = 64 warps fit a core (Fig 5.3)."""
    filler = ADD_ITERATION - 2 - 3                       # 3 = counter, compare, branch
    body = (Ins(Op.ALU, 6, dep="free"), Ins(Op.LDG, 1, Stream(c.region())),
            Ins(Op.LDG, 1, Stream(c.region())),
            Loop((Ins(Op.ALU, 2), Ins(Op.ALU, filler)), trips=x),
            Ins(Op.ALU, 1), Ins(Op.STG, 1, Stream(c.region())))
    return [c.kernel(KernelSpec(f"add_{x}_loops", c.n(640), 256, body,
                                regs_per_thread=CH5_REGS))]


def stream_x_words(c: Ctx, x: int) -> list[Kernel]:
    """[THESIS §5.3.1]: index ALU, then x coalesced 4-B loads and x stores per thread; 640 CTAs
    of 256 threads at ``CH5_REGS`` registers (8 CTAs per core, Fig 5.3)."""
    body = (Ins(Op.ALU, 4, dep="free"),
            *(Ins(Op.LDG, 1, Stream(c.region())) for _ in range(x)),
            *(Ins(Op.STG, 1, Stream(c.region())) for _ in range(x)))
    return [c.kernel(KernelSpec(f"stream_{x}_words", c.n(640), 256, body,
                                regs_per_thread=CH5_REGS))]


# -- IKRA ([IKRA]) -------------------------------------------------------------------------

def ikra_micro(c: Ctx, tbs: int, launches: int = 16, steal: bool = False) -> list[Kernel]:
    """Each thread does load–add–store in place on words j of ``b·8 KB + (j·256 + t)·4``;
    Work-Stealing: 1..64 load–add–stores rising linearly with the TB id. ``scale`` shrinks the
    TB count and launches too, so footprints (L1/L2 fit) only hold at scale 1."""
    buf = c.region()
    words = Stream(buf, footprint=8192, step=1024, warp_offset=128, passes=64)
    loop = Loop((Ins(Op.LDG, 1, words), Ins(Op.ALU, 1, dep="last_load"), Ins(Op.STG, 1, words)),
                trips=1 if steal else 8, scaled=steal)
    work = Work("skewed", 64.0) if steal else Work()
    return [c.kernel(KernelSpec(f"load_add_store_{i}", c.n(tbs), 256,
                                (Ins(Op.ALU, 2, dep="free"), loop), work=work))
            for i in range(c.n(launches, lo=2))]


def _iterative(c: Ctx, name: str, iters: int, ctas: int, make_body, readonly=(),
               smem_per_cta: int = 0) -> list[Kernel]:
    """Host loop: kernel i reads buffer i % 2 and writes the other ([IKRA])."""
    bufs = (c.region(), c.region())
    return [c.kernel(KernelSpec(f"{name}_{i}", ctas, 256,
                                make_body(bufs[i % 2], bufs[1 - i % 2], i),
                                readonly=readonly, smem_per_cta=smem_per_cta))
            for i in range(iters)]


def tile_ghost(c: Ctx, tile: int = 4096, ghost: int = 256, iters: int = 8, ctas: int = 64,
               alu: int = 8) -> list[Kernel]:
    """[IKRA] generator: TB b reads in[b·T − h, (b+1)·T + h) and writes out[b·T, (b+1)·T)
    (T = ``tile``, h = ``ghost`` bytes), ``alu`` ops per element; the host swaps the buffers."""
    per_access = 8 * 128                             # 8 warps × one 128-B line each

    def body(src: int, dst: int, i: int) -> tuple:
        reads = Stream(src, footprint=tile + 2 * ghost, unit_stride=tile, halo=ghost,
                       step=per_access)
        writes = Stream(dst, footprint=tile, step=per_access)
        return (Ins(Op.ALU, 3, dep="free"),
                Loop((Ins(Op.LDG, 1, reads),), trips=-(-(tile + 2 * ghost) // per_access)),
                Loop((Block(alu, Mix(alu=1.0)), Ins(Op.STG, 1, writes)), trips=tile // per_access))
    return _iterative(c, "tile_ghost", c.n(iters, lo=2), c.n(ctas), body)


def ikra_stencil(c: Ctx, name: str, shifts: tuple[int, ...], iters: int = 10,
                 alu: int = 12, readonly_input: bool = False) -> list[Kernel]:
    """T = 2 KB per TB (2 words per thread); neighbours at ±shift bytes reach into adjacent TBs'
    tiles (ghost zones); hotspot adds a read-only power array."""
    power = c.region() if readonly_input else None

    def body(src: int, dst: int, i: int) -> tuple:
        loads = [Ins(Op.LDG, 1, Stream(src, footprint=2048, step=1024, halo=h))
                 for h in (0,) + tuple(s for x in shifts for s in (x, -x))]
        if power is not None:
            loads.append(Ins(Op.LDG, 1, Stream(power, footprint=2048, step=1024)))
        return (Ins(Op.ALU, 4, dep="free"),
                Loop((*loads, Block(alu, Mix(alu=1.0)), Ins(Op.STG, 1, Stream(dst, footprint=2048,
                                                                            step=1024))), trips=2))
    ro = ((power, power + (1 << 28)),) if power is not None else ()
    return _iterative(c, name, c.n(iters, lo=2), c.n(64), body, readonly=ro)


def ikra_pathfinder(c: Ctx) -> list[Kernel]:
    wall = c.region()

    def body(src: int, dst: int, i: int) -> tuple:
        return (Ins(Op.ALU, 3, dep="free"), Ins(Op.LDG, 1, Stream(src)),
                Ins(Op.LDG, 1, Stream(wall + i * (1 << 20))), Ins(Op.STS, 1), Barrier(),
                Loop((Ins(Op.LDS, 3), Block(4, Mix(alu=1.0)),
                      If((Ins(Op.ALU, 2),), diverge=0.3, taken=0.8), Ins(Op.STS, 1), Barrier()),
                     trips=4),
                Ins(Op.STG, 1, Stream(dst)))
    return _iterative(c, "dynproc", c.n(10, lo=2), c.n(96), body,
                      readonly=((wall, wall + (1 << 28)),), smem_per_cta=2048)


def ikra_srad(c: Ctx) -> list[Kernel]:
    """SRAD v1: two kernels per iteration; derivatives from J's N/S/E/W neighbours, then the
    update from c (self, S, E) and the derivatives; per-TB work data-dependent."""
    j, d, coef = c.region(), c.region(), c.region()
    tile = dict(footprint=2048, step=1024)
    ks = []
    for it in range(c.n(5, lo=1)):
        k1 = (Ins(Op.ALU, 4, dep="free"),
              Loop((*(Ins(Op.LDG, 1, Stream(j, halo=h, **tile)) for h in (0, 4, -4, 64, -64)),
                    Loop((Block(10, Mix(alu=0.9, div=0.1)),), trips=2, scaled=True),
                    *(Ins(Op.STG, 1, Stream(d + q * (1 << 24), **tile)) for q in range(4)),
                    Ins(Op.STG, 1, Stream(coef, **tile))), trips=2))
        k2 = (Ins(Op.ALU, 4, dep="free"),
              Loop((*(Ins(Op.LDG, 1, Stream(coef, halo=h, **tile)) for h in (0, -4, -64)),
                    *(Ins(Op.LDG, 1, Stream(d + q * (1 << 24), **tile)) for q in range(4)),
                    Ins(Op.LDG, 1, Stream(j, **tile)), Block(8, Mix(alu=1.0)),
                    Ins(Op.STG, 1, Stream(j, **tile))), trips=2))
        ks.append(c.kernel(KernelSpec(f"srad_cuda_1_{it}", c.n(64), 256, k1,
                                      work=Work("data", 0.3))))
        ks.append(c.kernel(KernelSpec(f"srad_cuda_2_{it}", c.n(64), 256, k2)))
    return ks


def ikra_kmeans(c: Ctx) -> list[Kernel]:
    """Read-only features (feature-major, coalesced) reused every iteration; centroids written
    by the CPU (broadcast); data-dependent work per TB."""
    feats, cents, member = c.region(), c.region(), c.region()
    body = (Ins(Op.ALU, 3, dep="free"),
            Loop((Loop((Ins(Op.LDG, 1, Stream(feats)),
                        Ins(Op.LDG, 1, Stream(cents, unit="grid", footprint=1024, step=128)),
                        Ins(Op.ALU, 3)), trips=8),
                  If((Ins(Op.ALU, 2),), diverge=0.4, taken=0.3)), trips=5, scaled=True),
            Ins(Op.STG, 1, Stream(member)))
    return [c.kernel(KernelSpec(f"kmeansPoint_{i}", c.n(96), 64, body, work=Work("data", 0.4),
                                readonly=((feats, feats + (1 << 28)),)))
            for i in range(c.n(5, lo=2))]


def ikra_graph_coloring(c: Ctx, dist: str = "powerlaw", ctas: int = 66) -> list[Kernel]:
    """Pannotia colouring: CSR read-only; work per thread ∝ degree (power-law ≈ cond_mat,
    banded ≈ olesnik0); gathers follow graph connectivity, not TB identity."""
    n_v = c.n(ctas) * 256 * 4
    row, col = c.region(), c.region()
    rand, color, flag = c.region(), c.region(), c.region()
    mean = 4.0 if dist == "powerlaw" else 8.0
    ks = []
    for it in range(c.n(3, lo=1)):
        nbr = (Ins(Op.LDG, 1, Gather(col, 8 * n_v, lines=4, reuse=0.3)),
               Ins(Op.LDG, 1, Gather(rand, n_v, lines=32, reuse=0.1), dep="last_load"),
               Ins(Op.LDG, 1, Gather(color, n_v, lines=32, reuse=0.1)), Ins(Op.ALU, 2))
        ks.append(c.kernel(KernelSpec(f"color1_{it}", c.n(ctas), 256, (
            Ins(Op.ALU, 3, dep="free"), Ins(Op.LDG, 1, Stream(color)),
            If((Ins(Op.LDG, 2, Stream(row)),
                Loop(nbr, trips=1, per_lane=LaneWork(dist, mean, 64)),
                Ins(Op.STG, 1, Stream(flag))), diverge=0.5, taken=0.6)),
            readonly=((row, row + (1 << 28)), (col, col + (1 << 28))))))
        ks.append(c.kernel(KernelSpec(f"color2_{it}", c.n(ctas), 256, (
            Ins(Op.ALU, 2, dep="free"), Ins(Op.LDG, 1, Stream(flag)), Ins(Op.LDG, 1, Stream(color)),
            If((Ins(Op.STG, 1, Stream(color)),), diverge=0.5, taken=0.4)))))
    return ks


def staggered_phase_kernel(c: Ctx, name: str, head: list[int], body: list[int], tail: list[int],
                           trips: int, spread: float, threads: int = 256, ctas: int = 180,
                           loads: int = 2, regs: int = 32) -> list[Kernel]:
    """A phase kernel whose CTAs sit in different phases at once ([THESIS §3.3.2]: B+Tree's warps
    "branch back", CFD's 38 waves of CTAs start at scattered times): ``head`` phases, then the
    ``body`` phases in a loop of ``trips`` iterations × a per-CTA factor (lognormal, σ =
    ``spread``, mean 1: ``Work("data")``), then ``tail``. Unequal CTA times make the CTAs of a
    core start, and so run their phases, out of step."""
    out = [Ins(Op.ALU, 4, dep="free"), *_phases(c, head, loads),
           Loop(_phases(c, body, loads), trips=trips, scaled=True), *_phases(c, tail, loads),
           Ins(Op.STG, 1, Stream(c.region()))]
    return [c.kernel(KernelSpec(name, c.n(ctas), threads, tuple(out), regs=Regs(raw_mean=2.0),
                                work=Work("data", spread), regs_per_thread=regs))]
