"""The ``PairedTiles`` layout (T-REUSE tiles sharing DRAM rows with a partner CTA)."""

from __future__ import annotations

import pytest

from sim.workload.patterns import FULL_MASK, PairedTiles, WarpRng

LANES = tuple(4 * i for i in range(32))          # one 128 B line per access


def _first_addr(fn, cta: int, k: int) -> int:
    addrs = fn(cta, 0, k, WarpRng(0), FULL_MASK)
    assert addrs == tuple(addrs[0] + o for o in LANES)
    return addrs[0]


def test_hand_checked_layout_of_four_ctas():
    # 4 KB tiles in 1 KB pieces; 2 near pieces (partner c xor 1), 2 far (partner c ± 2).
    # Near region: pairs (0,1) at 0 and (2,3) at 4 KB; far region at 8 KB: pairs (0,2), (1,3).
    # The half of the 2 KB row a piece takes flips every two pieces (j = 2, 3 swap halves).
    fn = PairedTiles(0, footprint=4096, piece=1024, near=2, step=128,
                     warp_offset=128).bind(1, 4, 128)
    piece_starts = {0: [0, 2048, 9216, 11264], 1: [1024, 3072, 13312, 15360],
                    2: [4096, 6144, 8192, 10240], 3: [5120, 7168, 12288, 14336]}
    for cta, starts in piece_starts.items():
        assert [_first_addr(fn, cta, 8 * j) for j in range(4)] == starts
        assert _first_addr(fn, cta, 1) == starts[0] + 128          # next line of piece 0
        assert _first_addr(fn, cta, 32) == starts[0] + 16384        # second tile
    rows: dict[int, set[int]] = {}
    for cta in range(4):
        for k in range(32):
            rows.setdefault(_first_addr(fn, cta, k) // 2048, set()).add(cta)
    assert rows == {0: {0, 1}, 1: {0, 1}, 2: {2, 3}, 3: {2, 3},
                    4: {0, 2}, 5: {0, 2}, 6: {1, 3}, 7: {1, 3}}


def test_tiles_are_disjoint_and_reread_each_pass():
    fn = PairedTiles(0, footprint=8192, piece=1024, near=2, step=128, warp_offset=1280,
                     passes=3).bind(6, 9, 128)
    seen: dict[int, int] = {}
    for cta in range(9):
        for w in range(6):
            lines = [_first_addr(fn, cta, k) for k in range(64 * 3)]
            assert lines[:64] == lines[64:128] == lines[128:]        # same tile every pass
            assert len(set(lines)) == 64
            for a in lines:
                assert seen.setdefault(a, cta) == cta                # private to the CTA


def test_bad_sizes_are_rejected():
    with pytest.raises(ValueError, match="multiple of piece"):
        PairedTiles(0, footprint=8192, piece=1000).bind(6, 4, 128)
    with pytest.raises(ValueError, match="near must be"):
        PairedTiles(0, footprint=8192, piece=1024, near=9).bind(6, 4, 128)
