"""Memory mechanisms an imported Volta config (SM7_QV100) needs: IPOLY partition indexing and
the adaptive L1/shared carve-out (issue 35 item 3; sources in the schema's docs)."""

from __future__ import annotations

import pytest

from gpusched.config import resolve_config
from gpusched.config import ConfigError
from sim.memory.dram import AddressMap
from sim.memory.hierarchy import MemoryHierarchy
from sim.workload.kernel import Instr, Kernel, Op

VOLTA = ["sm.count=80", "dram.channels=32", "l2.slices=64", "dram.partition_map=ipoly",
         "dram.channel_bit=8", "dram.banks=16", "dram.bank_bit=16", "dram.row_bit=20",
         "dram.row_bytes=2048"]


def volta_map() -> AddressMap:
    cfg = resolve_config("titanx", VOLTA)
    return AddressMap(cfg.dram, 128, cfg.l2.slices)


def test_ipoly_spreads_every_power_of_two_stride_over_all_slices():
    """IPOLY's point (Rau, ISCA 1991): 64 consecutive multiples of any power-of-two stride land
    on 64 different slices."""
    m = volta_map()
    for k in range(13):
        stride = 256 << k            # the 256-byte interleave (dramid@8) and up
        assert len({m.slice_of(i * stride) for i in range(64)}) == 64, stride


def test_ipoly_hashes_the_bits_above_the_index_by_polynomial_division():
    """64 slices: index = channel bits 8..12 × 2 + bit 13; bit 14 is the first hashed bit, x^6,
    and x^6 = x + 1 modulo P(x) = x^6 + x + 1, so it flips index bits 0 and 1."""
    m = volta_map()
    assert m.slice_of(0) == 0
    assert m.slice_of(1 << 8) == 2 and m.slice_of(1 << 13) == 1          # channel 1; sub-partition 1
    assert m.slice_of(1 << 14) == 0b11
    assert m.slice_of(1 << 15) == 0b110                                    # x^7 = x^2 + x
    assert m.locate(1 << 14)[0] == 0b11 // 2                               # the slice's channel


def kernel(smem: int, threads: int = 256, ctas: int = 640) -> Kernel:
    return Kernel("k", (ctas, 1, 1), (threads, 1, 1), 16, smem, lambda c, w: iter([Instr(Op.EXIT)]))


@pytest.mark.parametrize("smem, carve, ways", [(0, 0, 256), (1024, 8, 240), (8192, 64, 128),
                                               (12288, 96, 64)])
def test_the_l1_keeps_what_the_shared_memory_carveout_leaves(smem, carve, ways):
    """128 KB unified, 4 sets of 128-byte lines: 256 ways with no shared memory; a kernel
    using smem × 8 CTAs per SM gets the smallest carve-out holding it, the L1 the rest."""
    cfg = resolve_config("titanx", VOLTA + ["l1.sets=4", "l1.ways=256", "l1.size_bytes=131072",
                                            "l1.carveouts=0,8,16,32,64,96", "sm.smem_per_sm=98304",
                                            "l1.bypass_global_loads=false"])
    mem = MemoryHierarchy(cfg)
    k = kernel(smem)
    mem.kernel_boundary(0, None, k)
    assert all(l1.cache.ways == ways for l1 in mem.l1s)
    assert ways == round(256 * (1 - carve / 128))


def test_carveouts_must_hold_the_shared_memory():
    with pytest.raises(ConfigError, match="l1.carveouts"):
        resolve_config("titanx", ["l1.carveouts=0,8,16"])
    with pytest.raises(ConfigError, match="l1.carveouts"):
        resolve_config("titanx", ["l1.carveouts=0,x"])
    with pytest.raises(ConfigError, match="dram.partition_map"):
        resolve_config("titanx", ["dram.partition_map=ipoly"])        # 24 slices
