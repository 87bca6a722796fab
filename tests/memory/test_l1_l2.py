"""L1/L2 policies: LRU, MSHR merging and stalls, store traffic, kernel-boundary hooks."""

import pytest

from memdriver import Driver, config, warp_load
from sim.workload.kernel import Op


def same_set(cfg, n):
    """n line addresses that map to L1 set 0 (set = line number mod sets)."""
    step = cfg.l1.sets * cfg.l1.line_bytes
    return [i * step for i in range(n)]


def load(drv, sm, addr, token):
    drv.issue(sm, warp_load(addr), token)
    return drv.wait(token)


def test_l1_lru_replacement():
    cfg = config("tiny")
    ways = cfg.l1.ways
    drv = Driver(cfg)
    lines = same_set(cfg, ways + 1)
    for i, a in enumerate(lines[:ways]):           # fill the set
        load(drv, 0, a, ("fill", i))
    load(drv, 0, lines[0], "touch0")                # line 0 becomes MRU; line 1 is now LRU
    load(drv, 0, lines[ways], "new")                # evicts line 1
    before = drv.mem.stats()
    load(drv, 0, lines[0], "hit0")
    load(drv, 0, lines[1], "miss1")
    after = drv.mem.stats()
    assert before["l1.hits"] == 1
    assert after["l1.hits"] - before["l1.hits"] == 1          # line 0 still there
    assert after["l1.misses"] - before["l1.misses"] == 1      # line 1 was the victim


def test_mshr_merging_one_sm_32_warps():
    cfg = config("tiny")
    drv = Driver(cfg)
    for w in range(32):
        assert drv.mem.issue(0, 0, warp_load(0x8000), w)
    drv.drain()
    st = drv.mem.stats()
    assert st["dram.reads"] == 1 and st["l1.misses"] == 1 and st["l1.merges"] == 31
    assert len(set(drv.done.values())) == 1                   # all 32 served by the one fill


def test_mshr_merging_across_sms_at_l2():
    cfg = config("gtx480")
    drv = Driver(cfg)
    for sm in range(cfg.sm.count):
        assert drv.mem.issue(0, sm, warp_load(0x8000), sm)
    drv.drain()
    st = drv.mem.stats()
    assert st["dram.reads"] == 1 and st["l2.misses"] == 1
    assert st["l2.merges"] + st["l2.hits"] == cfg.sm.count - 1
    assert len(drv.done) == cfg.sm.count


def test_mshr_full_stalls_until_a_fill():
    cfg = config("tiny", l1={"mshrs": 4})
    drv = Driver(cfg)
    for i in range(4):
        assert drv.mem.issue(0, 0, warp_load(0x10000 * (i + 1)), i)
    assert not drv.mem.issue(0, 0, warp_load(0x90000), "late")   # structural stall
    assert drv.mem.issue(0, 0, warp_load(0x10000), "merge")      # merging needs no new MSHR
    t = drv.issue(0, warp_load(0x90000), "late")
    assert t == min(drv.done.values())                            # accepted once one entry freed
    assert drv.mem.stats()["l1.stalls"] >= 1


def test_uncoalesced_load_wider_than_mshr_file_does_not_deadlock():
    cfg = config("tiny", l1={"mshrs": 4})
    drv = Driver(cfg)
    drv.issue(0, warp_load(0, stride=cfg.l1.line_bytes), "wide")  # 32 lines
    drv.wait("wide")
    assert drv.mem.stats()["l1.misses"] == 32


def test_write_through_store_traffic():
    cfg = config("tiny")
    line = cfg.l1.line_bytes
    drv = Driver(cfg)
    n = 10
    for i in range(n):
        drv.issue(0, warp_load(i * line, op=Op.STG), ("st", i))   # 32 × 4 B = one full line
    drv.drain()
    st = drv.mem.stats()
    assert st["traffic.l1_to_l2_bytes"] == n * line
    assert st["l1.store_misses"] == n and st["l2.writes"] == n
    load(drv, 0, 0, "ld")                           # no write-allocate in L1: a miss ...
    st = drv.mem.stats()
    assert st["l1.misses"] == 1 and st["l2.hits"] == 1    # ... that hits the written L2 line
    assert st["dram.reads"] == 0


def test_write_back_l1_keeps_stores_local():
    cfg = config("tiny", l1={"write_policy": "write_back"})
    drv = Driver(cfg)
    drv.issue(0, warp_load(0, op=Op.STG), "st")
    load(drv, 0, 0, "ld")
    st = drv.mem.stats()
    assert st["traffic.l1_to_l2_bytes"] == 0 and st["l1.hits"] == 1
    drv.mem.kernel_boundary(drv.now, None, None)     # invalidate → dirty line written back
    drv.drain()
    assert drv.mem.stats()["traffic.l1_to_l2_bytes"] == cfg.l1.line_bytes


def test_kernel_boundary_invalidate_vs_keep():
    for keep, hits, prev in ((False, 0, 0), (True, 1, 1)):
        cfg = config("tiny", l1={"keep_across_kernels": keep})
        drv = Driver(cfg)
        load(drv, 0, 0x4000, "k1")
        drv.mem.kernel_boundary(drv.now, None, None)
        load(drv, 0, 0x4000, "k2")
        st = drv.mem.stats()
        assert (st["l1.hits"], st["l1.hits_prev_kernel"]) == (hits, prev)


def test_atomics_go_to_l2_and_dirty_the_line():
    cfg = config("tiny")
    drv = Driver(cfg)
    drv.issue(0, warp_load(0x4000, stride=0, op=Op.ATOM), "a")
    drv.wait("a")
    st = drv.mem.stats()
    assert st["l2.atomics"] == 1 and st["l1.misses"] == 0 and st["dram.reads"] == 1


def test_prefetch_ports():
    cfg = config("tiny")
    drv = Driver(cfg)
    assert drv.mem.prefetch_l1(0, 0, 0x4000)
    drv.drain()
    t = drv.issue(0, warp_load(0x4000), "a")
    assert drv.wait("a") - t == cfg.l1.hit_latency
    assert drv.mem.prefetch_l2(drv.now, 0x8000)
    assert not drv.mem.prefetch_l2(drv.now, 0x8000)      # already on its way
    drv.drain()
    assert drv.mem.open_row(0x8000)[2] == 0x8000 >> cfg.dram.row_bit
    load(drv, 0, 0x8000, "b")
    st = drv.mem.stats()
    assert st["l1.prefetch_hits"] == 1 and st["l2.prefetch_hits"] == 1
    assert st["l2.prefetches"] == 1 and st["dram.reads"] == 2


def test_sector_miss_fetches_only_missing_sectors():
    cfg = config("tiny")
    sector = cfg.l1.sector_bytes
    drv = Driver(cfg)
    drv.issue(0, warp_load(0, threads=sector // 4), "sector0")     # sector 0 only
    drv.wait("sector0")
    assert drv.mem.stats()["dram.bytes_read"] == sector
    drv.issue(0, warp_load(0), "full")                             # sectors 1.. missing
    drv.wait("full")
    st = drv.mem.stats()
    assert st["dram.bytes_read"] == cfg.l1.line_bytes
    assert st["l1.sector_misses"] == 1 and st["traffic.l2_to_l1_bytes"] == cfg.l1.line_bytes


def test_denovo_launch_keeps_owned_and_readonly_data():
    """[IKRA DeNovo]: at a launch, owned (dirty) and read-only-region data stay valid in the L1;
    other clean data is self-invalidated."""
    from sim.workload.kernel import Kernel
    cfg = config("tiny", l1={"keep_across_kernels": True, "self_invalidate": True,
                             "write_policy": "write_back"})
    drv = Driver(cfg)
    ro, clean, owned = 0x10000, 0x20000, 0x30000
    load(drv, 0, ro, "ro")
    load(drv, 0, clean, "clean")
    drv.issue(0, warp_load(owned, op=Op.STG), "st")
    drv.drain()
    nxt = Kernel("k2", (1, 1, 1), (32, 1, 1), 16, 0, stream=lambda c, w: iter(()),
                 readonly_regions=((ro, ro + 4096),))
    drv.mem.kernel_boundary(drv.now, None, nxt)
    for a in (ro, clean, owned):
        load(drv, 0, a, ("k2", a))
    st = drv.mem.stats()
    assert st["l1.hits_prev_kernel"] == 2          # ro and owned
    assert st["l1.misses"] == 3                    # ro, clean first time; clean again


@pytest.mark.parametrize("unmerged", [False, True])
def test_bypassing_loads_merge_in_the_l1_unless_unmerged(unmerged):
    cfg = config("tiny", l1={"bypass_global_loads": True, "bypass_unmerged": unmerged})
    drv = Driver(cfg)
    for w in range(4):                         # four warps load the same line in one cycle
        assert drv.mem.issue(0, 0, warp_load(0x8000), w)
    drv.drain()
    st = drv.mem.stats()
    assert st["dram.reads"] == 1 and len(drv.done) == 4
    if unmerged:                               # each load's own packet reaches the L2 and merges there
        assert st["icnt.up.packets"] == 4 and st["l1.merges"] == 0
        assert st["l2.misses"] == 1 and st["l2.merges"] == 3 and st["icnt.down.packets"] == 4
    else:                                      # one packet, the others wait in the L1's MSHR
        assert st["icnt.up.packets"] == 1 and st["l1.merges"] == 3
        assert st["icnt.down.packets"] == 1 and len(set(drv.done.values())) == 1
