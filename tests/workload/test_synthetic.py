"""Synthetic generators: determinism and that each knob changes the property it names."""

from __future__ import annotations

import statistics

import pytest

from sim.workload.kernel import Op
from sim.workload.patterns import Gather, Stream
from sim.workload.synthetic import (GUARD_PRED, Barrier, Block, If, Ins, KernelSpec, LaneWork, Loop,
                                    Mix, Phase, Regs, Work, build_kernel)

from .helpers import check_stream, cta_lines, key, lines_of, raw_distances, warp

REGION = 1 << 32


def rich_spec(**kw) -> KernelSpec:
    """A kernel using every feature: mixes, predication, loops, ifs, per-lane loops, barriers."""
    ld = Stream(REGION)
    body = (Block(12, Mix(alu=1, ldg=0.2, sfu=0.1, fp64=0.05, div=0.05), load=ld, pred=0.3),
            Loop((Block(20, Mix(alu=1, ldg=0.1, stg=0.1, lds=0.1, sts=0.1, atom=0.02), load=ld),
                  Barrier(), If((Block(4, Mix(alu=1)),), (Ins(Op.LDG, 1, ld),), diverge=0.5)),
                 trips=4, scaled=True),
            Loop((Ins(Op.LDG, 1, Gather(REGION * 2, 1 << 20, lines=8, reuse=0.3)), Ins(Op.ALU, 2)),
                 trips=1, per_lane=LaneWork("powerlaw", 3.0, 16)))
    args = dict(name="rich", grid=(4, 3), block=200, body=body, work=Work("data", 0.5))
    args.update(kw)
    return KernelSpec(**args)


def test_same_seed_same_streams_in_any_creation_order():
    k1, k2 = build_kernel(rich_spec(), seed=7), build_kernel(rich_spec(), seed=7)
    pairs = [(c, w) for c in range(k1.n_ctas) for w in range(k1.warps_per_cta())]
    forward = {p: [key(i) for i in k1.stream(*p)] for p in pairs}
    # reversed creation, consumed interleaved one instruction at a time
    gens = {p: k2.stream(*p) for p in reversed(pairs)}
    got: dict = {p: [] for p in pairs}
    while gens:
        for p in list(gens):
            ins = next(gens[p], None)
            if ins is None:
                del gens[p]
            else:
                got[p].append(key(ins))
    assert got == forward
    other = build_kernel(rich_spec(), seed=8)
    assert any([key(i) for i in other.stream(*p)] != forward[p] for p in pairs)


def test_rich_kernel_streams_are_well_formed():
    k = build_kernel(rich_spec(), seed=3)
    for c in range(k.n_ctas):
        bars = set()
        for w in range(k.warps_per_cta()):
            s = warp(k, c, w)
            check_stream(s, f"cta {c} warp {w}")
            bars.add(sum(i.op == Op.BAR for i in s))
        assert len(bars) == 1
    # 200 threads: the last warp has 8 active lanes
    assert warp(k, 0, 6)[-1].mask == 0xFF


@pytest.mark.parametrize("d", [1, 2, 4, 7])
def test_fixed_raw_distance_is_exact(d):
    k = build_kernel(KernelSpec("raw", 1, 32, (Block(300, Mix(alu=1)),),
                                regs=Regs(pool=16, raw_mean=d, fixed=True)))
    dist = raw_distances(warp(k))[40:]      # after the pool has filled
    assert set(dist) == {d}


def test_raw_mean_knob_raises_measured_distance():
    def mean(m):
        k = build_kernel(KernelSpec("raw", 1, 32, (Block(2000, Mix(alu=1)),),
                                    regs=Regs(pool=64, raw_mean=m)), seed=1)
        return statistics.mean(raw_distances(warp(k)))
    lo, hi = mean(1.5), mean(8.0)
    assert lo < 2.5 and 5.5 < hi < 10.5


def test_small_register_pool_bounds_distance():
    k = build_kernel(KernelSpec("raw", 1, 32, (Block(500, Mix(alu=1)),),
                                regs=Regs(pool=4, raw_mean=20)))
    assert max(raw_distances(warp(k))) <= 3


@pytest.mark.parametrize("frac", [0.1, 0.3, 0.6])
def test_memory_intensity_knob(frac):
    k = build_kernel(KernelSpec("mix", 1, 32, (Block(3000, Mix(alu=1 - frac, ldg=frac),
                                                     load=Stream(REGION)),)))
    s = warp(k)
    assert abs(sum(i.op == Op.LDG for i in s) / len(s) - frac) < 0.04


@pytest.mark.parametrize("lines", [1, 2, 3, 4, 8, 13, 16, 32])
def test_coalescing_knob_is_distinct_lines_per_access(lines):
    k = build_kernel(KernelSpec("coal", 2, 64, (Ins(Op.LDG, 5, Stream(REGION, lines=lines)),
                                                Ins(Op.LDG, 3, Gather(REGION * 2, 1 << 24,
                                                                      lines=lines)))))
    for ins in warp(k, 1, 1):
        if ins.op == Op.LDG:
            assert len(lines_of(ins)) == lines


@pytest.mark.parametrize("s", [1, 2, 4, 8])
def test_group_sharing_knob_sets_adjacent_cta_overlap(s):
    ld = Stream(REGION, unit="group", group=s)
    k = build_kernel(KernelSpec("share", 32, 128, (Loop((Ins(Op.LDG, 1, ld),), trips=4),)))
    lines = [cta_lines(k, c) for c in range(32)]
    for c in range(31):
        overlap = len(lines[c] & lines[c + 1]) / len(lines[c])
        assert overlap == (1.0 if c // s == (c + 1) // s else 0.0)


def test_split_group_shares_dram_rows_not_lines():
    ld = Stream(REGION, unit="group", group=4, split=True, unit_tiles=4)
    k = build_kernel(KernelSpec("rows", 8, 128, (Loop((Ins(Op.LDG, 1, ld),), trips=4),)))
    a, b, other = cta_lines(k, 0), cta_lines(k, 1), cta_lines(k, 4)
    assert not a & b
    rows = lambda ls: {x * 128 // 2048 for x in ls}          # noqa: E731  (2 KB DRAM rows)
    assert rows(a) & rows(b) and not rows(a) & rows(other)


def test_ghost_zone_overlaps_only_neighbours():
    # TB b reads [b·T − h, (b+1)·T + h) with T = 1 KB, h = 128 B ([IKRA])
    ld = Stream(REGION, footprint=1024 + 256, unit_stride=1024, halo=128, step=128,
                warp_offset=128)
    k = build_kernel(KernelSpec("ghost", 6, 32, (Loop((Ins(Op.LDG, 1, ld),), trips=10),)))
    lines = [cta_lines(k, c) for c in range(6)]
    assert all(len(x) == 10 for x in lines)
    assert len(lines[2] & lines[3]) == 2 and len(lines[2] & lines[1]) == 2
    assert not lines[2] & lines[4]


def test_working_set_and_passes():
    # per-CTA 4 KB tile (32 lines), read 3 times by the CTA's 4 warps before the next tile
    ld = Stream(REGION, footprint=4096, step=512, passes=3)
    k = build_kernel(KernelSpec("ws", 4, 128, (Loop((Ins(Op.LDG, 1, ld),), trips=24 * 2),)))
    counts: dict[int, int] = {}
    for w in range(4):
        for ins in k.stream(1, w):
            if ins.op == Op.LDG:
                for line in lines_of(ins):
                    counts[line] = counts.get(line, 0) + 1
    assert len(counts) == 2 * 32 and set(counts.values()) == {3}


def test_cta_work_variation_kinds():
    def lengths(work):
        spec = KernelSpec("w", 64, 32, (Loop((Ins(Op.ALU, 4),), trips=8, scaled=True),), work=work)
        k = build_kernel(spec, seed=5)
        return [len(warp(k, c)) for c in range(64)]
    assert len(set(lengths(Work()))) == 1
    sk = lengths(Work("skewed", 8.0))
    assert sk == sorted(sk) and 7.0 < (sk[-1] - 3) / (sk[0] - 3) < 9.0
    dd = lengths(Work("data", 0.6))
    assert statistics.pstdev(dd) / statistics.mean(dd) > 0.25 and dd != sorted(dd)


def test_phase_structure_matches_thesis_definition():
    # [THESIS §3.4.2.1] forward pass on the dynamic stream: a phase ends at the first consumer
    k = build_kernel(KernelSpec("ph", 1, 32, (Phase(2, 5, Stream(REGION)),
                                              Phase(3, 12, Stream(REGION * 2)),
                                              Phase(1, 2, Stream(REGION * 3)))))
    sizes, cur, long_regs = [], 0, set()
    for ins in warp(k):
        if any(r in long_regs for r in ins.src):
            sizes.append(cur)
            cur, long_regs = 0, set()
        cur += 1
        if ins.op == Op.LDG:
            long_regs |= set(ins.dst)
    assert sizes == [2 + 5, 1 + 3 + 12, 1 + 1 + 2]


def test_divergence_and_predication_masks():
    k = build_kernel(KernelSpec("div", 8, 32, (
        Block(30, Mix(alu=1), pred=1.0),
        If((Ins(Op.ALU, 3),), (Ins(Op.ALU, 2),), diverge=1.0, taken=0.5))))
    for c in range(8):
        s = warp(k, c)
        check_stream(s, f"cta {c}")
        preds = [i for i in s if GUARD_PRED in i.src]
        assert len(preds) == 30 and sum(i.mask != 0xFFFFFFFF for i in preds) >= 25
        then = [i for i in s[-8:] if i.op == Op.ALU]
        masks = {i.mask for i in then}
        assert len(masks) == 2 and sum(masks) == 0xFFFFFFFF     # two complementary paths
    uniform = build_kernel(KernelSpec("nodiv", 8, 32, (If((Ins(Op.ALU, 3),), (Ins(Op.ALU, 2),),
                                                          diverge=0.0),)))
    for c in range(8):
        assert all(i.mask == 0xFFFFFFFF for i in warp(uniform, c))


def test_per_lane_loop_drops_finished_lanes():
    k = build_kernel(KernelSpec("deg", 16, 32, (Loop((Ins(Op.LDG, 1, Stream(REGION)),), trips=1,
                                                      per_lane=LaneWork("powerlaw", 4.0, 32)),)))
    trips = []
    for c in range(16):
        masks = [i.mask for i in warp(k, c) if i.op == Op.LDG]
        assert all(b & ~a == 0 for a, b in zip(masks, masks[1:]))      # only ever shrinks
        trips.append(len(masks))
    assert max(trips) > 2 * min(trips)                                  # skewed degrees


def test_barrier_outside_uniform_control_is_rejected():
    with pytest.raises(ValueError, match="BAR"):
        build_kernel(KernelSpec("bad", 1, 64, (If((Barrier(),)),)))
    with pytest.raises(ValueError, match="BAR"):
        build_kernel(KernelSpec("bad", 1, 64, (Loop((Barrier(),), 1, per_lane=LaneWork()),)))


def test_memory_op_without_pattern_is_rejected():
    with pytest.raises(ValueError, match="LDG needs an address pattern"):
        build_kernel(KernelSpec("bad", 1, 32, (Ins(Op.LDG),)))


@pytest.mark.parametrize("reuse", [0.0, 0.3, 0.7])
def test_gather_reuse_knob(reuse):
    ld = Gather(REGION, 1 << 30, lines=32, reuse=reuse, hot=8)
    k = build_kernel(KernelSpec("irr", 1, 32, (Loop((Ins(Op.LDG, 1, ld),), trips=200),)), seed=9)
    seen: set[int] = set()
    again = total = 0
    for ins in warp(k):
        if ins.op == Op.LDG:
            for line in (a // 128 for a in ins.addrs):      # one lane per line
                again += line in seen
                total += 1
                seen.add(line)
    assert abs(again / total - reuse) < 0.05
