"""The ``owl`` preset ([OWL Table 1]) and the Perfect-L1 / Perfect-L2 memory modes
([OWL §3, §5]): unloaded latencies from the Table 1 numbers, and what each mode removes."""

from __future__ import annotations

from memdriver import Driver, config, warp_load

from gpusched.config import get_preset


def test_owl_preset_is_table_1():
    cfg = get_preset("owl")
    assert (cfg.sm.count, cfg.sm.warps_per_sm, cfg.sm.threads_per_sm, cfg.sm.issue_interval) == \
        (28, 32, 1024, 4)
    assert cfg.l1.size_bytes == 32 * 1024 and cfg.l1.line_bytes == 64 and cfg.l1.ways == 8
    assert cfg.l2.slices == cfg.dram.channels == 8
    assert cfg.l2.size_per_slice == 512 * 1024 and cfg.l2.ways == 16
    d = cfg.dram
    assert (d.banks, d.row_bytes, d.queue_size, d.clock_mhz) == (4, 2048, 128, 800.0)
    assert (d.tCL, d.tRP, d.tRAS, d.tRCD, d.tRRD) == (10, 10, 25, 12, 8)
    assert d.tRAS + d.tRP == 35                         # tRC of Table 1 holds without modelling
    # row-contiguous map (A6): the 32 lines of 2 KB of consecutive addresses lie below the
    # channel bits, so they share one row of one bank
    assert 1 << d.channel_bit == d.row_bytes == 32 * cfg.l1.line_bytes


def _latencies(cfg) -> tuple[int, int, int]:
    """(first-touch load, the same line again on SM 0, the line on SM 1), unloaded."""
    drv = Driver(cfg)
    out = []
    for i, sm in enumerate((0, 0, 1)):
        t0 = drv.issue(sm, warp_load(0x10000, threads=16), i)
        out.append(drv.wait(i) - t0)
    return tuple(out), drv.mem.stats()


def test_unloaded_owl_miss_is_the_papers_minimum_l2_miss_latency():
    """[OWL Table 1]: minimum L2 miss latency 120 core cycles (closed row: tRCD + tCL + one
    burst)."""
    (dram, l1_hit, l2_hit), _ = _latencies(config("owl"))
    assert abs(dram - 120) <= 2 and l1_hit == 4
    # request packet (8 B header: 1 flit) + slice + reply (8 + 64 B: 5 flits of 16 B)
    assert l2_hit == (16 + 0) + 20 + (16 + 5 - 1)


def test_perfect_l1_answers_every_load_at_the_l1_hit_latency():
    (a, b, c), st = _latencies(config("owl", l1={"perfect": True}))
    assert a == b == c == 4
    assert st["l1.hits"] == 3 and st["l1.misses"] == 0
    assert st["dram.reads"] == 0 and st["l2.hits"] + st["l2.misses"] == 0


def test_perfect_l2_turns_every_l1_miss_into_an_l2_hit():
    base, _ = _latencies(config("owl"))
    (a, b, c), st = _latencies(config("owl", l2={"perfect": True}))
    assert a == c == base[2] and b == base[1]          # first touch now costs an L2 hit
    assert st["l2.hits"] == 2 and st["dram.reads"] == 0


def test_perfect_modes_refuse_the_fixed_memory_stand_in():
    import pytest

    from gpusched.config import ConfigError
    from sim.run import make_memory
    for section in ("l1", "l2"):
        with pytest.raises(ConfigError, match=f"{section}.perfect.*--memory hierarchy"):
            make_memory(config("owl", **{section: {"perfect": True}}), "fixed")


def test_under_load_a_core_issues_at_most_every_4_cycles_with_at_most_32_misses_in_flight():
    """[OWL Table 1] / Table 1 under a memory-bound run: one warp instruction per core every 4
    cycles at most (peak 0.25 per core-cycle) and the 32 MSHRs of a core fill but never overflow."""
    from gpusched.config import with_overrides
    from sim.run import load_workload, simulate
    cfg = with_overrides(get_preset("owl"), ["sm.count=4", "dram.channels=2", "l2.slices=2",
                                             "dram.bank_bit=12", "dram.row_bit=14"])
    for workload in ("owl_t_stream_private", "owl_t_compute"):
        st = simulate(cfg, load_workload(workload, scale=0.05), memory="hierarchy")
        assert st["warp_insts"] <= 0.25 * st["cycles"] * cfg.sm.count
        assert st["issue"]["issue_interval"] >= 3 * st["issue"]["issued"] - 3 * cfg.sm.count
        if workload == "owl_t_stream_private":
            assert st["memory"]["l1"]["max_mshr"] == 32
