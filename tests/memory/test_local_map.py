"""Local-memory placement (sim/memory/local_map.py): a trace's LDL/STL carry each thread's own
local address, and the SM places them as GPGPU-Sim's translate_local_memaddr does with its
default -gpgpu_local_mem_map 1 (threads of a CTA side by side for one word, then the CTA slots
of every SM, SM by SM; accesses of 4 bytes or more as 4-byte words)."""

from __future__ import annotations

import pytest

from gpusched.config import resolve_config
from sim.memory.coalescer import coalesce
from sim.memory.local_map import LOCAL_GENERIC_START, local_addresses
from sim.run import simulate
from sim.workload.kernel import Instr, Kernel, Op, Workload

FULL = 0xFFFFFFFF
# a CTA of 64 threads, 3 CTAs per SM, 4 SMs: 768 threads hold each local word
SHAPE = dict(warp_size=32, n_sms=4, padded_threads=64, max_ctas=3)
WORD = 64 * 3 * 4 * 4                   # bytes from one local word of every thread to the next


def place(addrs, mask=FULL, size=4, slot=0, sm=0):
    return local_addresses(tuple(addrs), mask, size, slot, sm_id=sm, **SHAPE)


def test_one_word_of_a_warp_is_32_adjacent_words_one_line():
    out = place([0] * 32)
    assert out == tuple(LOCAL_GENERIC_START + 4 * lane for lane in range(32))
    assert coalesce(out, 4, 128, 32) == {LOCAL_GENERIC_START: 0b1111}


def test_the_next_local_word_follows_every_concurrent_threads_word():
    assert place([4] * 32)[0] - place([0] * 32)[0] == WORD


def test_cta_slots_and_sms_each_take_their_own_stretch():
    """Warp slot 2 starts CTA slot 1 (two warps per CTA); SM s adds s CTAs' worth, CTA slot k
    adds all SMs' worth k times."""
    cta = 64 * 4
    assert place([0], mask=1, slot=1)[0] == LOCAL_GENERIC_START + 32 * 4
    assert place([0], mask=1, sm=3)[0] == LOCAL_GENERIC_START + 3 * cta
    assert place([0], mask=1, slot=2)[0] == LOCAL_GENERIC_START + 4 * cta
    assert place([0], mask=1, slot=2, sm=1)[0] == LOCAL_GENERIC_START + 5 * cta


def test_wide_accesses_become_words_and_narrow_ones_keep_their_byte():
    four = place([16], mask=0b1, size=16)
    assert four == tuple(LOCAL_GENERIC_START + (4 + i) * WORD for i in range(4))
    assert place([6], mask=0b1, size=2) == (LOCAL_GENERIC_START + WORD + 2,)


def test_inactive_lanes_are_skipped_in_lane_order():
    out = place([0, 0], mask=(1 << 5) | (1 << 9))
    assert out == (LOCAL_GENERIC_START + 4 * 5, LOCAL_GENERIC_START + 4 * 9)


def store_kernel(local: bool) -> Kernel:
    """Every warp stores one word at local address 0 (a trace's STL, stride 0)."""
    def stream(cta, warp):
        return iter([Instr(Op.STG, (), (1,), (0,) * 32, 4, FULL, 0x10), Instr(Op.EXIT, pc=0x18)])
    return Kernel("k", (8, 1, 1), (64, 1, 1), 16, 0, stream,
                  meta={"local_pcs": (0x10,) if local else ()})


@pytest.mark.parametrize("local", [True, False])
def test_the_sm_places_only_the_kernels_local_pcs(local):
    """16 warps × one store: placed, each warp writes its own 128-byte line (4 sectors, each its
    own write request with titanx's icnt.sector_requests); not placed, every warp writes the
    same sector."""
    cfg = resolve_config("titanx", ["sm.count=2"])
    assert cfg.icnt.sector_requests
    r = simulate(cfg, Workload("w", [store_kernel(local)]), memory="hierarchy")
    assert r["memory"]["l2"]["writes"] == (16 * 4 if local else 16)
    assert r["memory"]["l2"]["sector_accesses"] == (16 * 4 if local else 16)


def load_kernel(local: bool) -> Kernel:
    """Every warp loads the same local word twice (a trace's LDL, stride 0), the second time
    after the first returned."""
    def stream(cta, warp):
        return iter([Instr(Op.LDG, (2,), (1,), (0,) * 32, 4, FULL, 0x10),
                     Instr(Op.ALU, (3,), (2,), pc=0x18),
                     Instr(Op.LDG, (4,), (3,), (0,) * 32, 4, FULL, 0x20),
                     Instr(Op.ALU, (5,), (4,), pc=0x28), Instr(Op.EXIT, pc=0x30)])
    return Kernel("k", (8, 1, 1), (64, 1, 1), 16, 0, stream,
                  meta={"local_pcs": (0x10, 0x20) if local else ()})


@pytest.mark.parametrize("local", [True, False])
def test_local_loads_use_the_l1_where_global_loads_bypass_it(local):
    """titanx's global loads bypass the L1 (-gmem_skip_L1D); GPGPU-Sim skips it for global
    accesses only, so a local load's second access hits there."""
    cfg = resolve_config("titanx", ["sm.count=2"])
    assert cfg.l1.bypass_global_loads
    r = simulate(cfg, Workload("w", [load_kernel(local)]), memory="hierarchy")
    l1 = r["memory"]["l1"]
    assert (l1["hits"], l1["misses"]) == ((16, 16) if local else (0, 32))
