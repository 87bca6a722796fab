"""Unloaded latencies equal the configured path sums (hierarchy.py docstring, [OWL §4.3])."""

import math

import pytest

from memdriver import Driver, config, warp_load


def locate(cfg, addr):
    """(channel, bank, row) straight from the DRAMConfig docstring, independent of the model."""
    d = cfg.dram
    return (addr >> d.channel_bit) % d.channels, (addr >> d.bank_bit) % d.banks, addr >> d.row_bit


def icnt(cfg, nbytes):
    return math.ceil(nbytes / cfg.icnt.bytes_per_cycle) - 1 + cfg.icnt.latency


def dram_cycles_to_core(cfg, dram_cycles):
    return dram_cycles * cfg.core_clock_mhz / cfg.dram.clock_mhz


def data_dram_cycles(cfg, nbytes):
    d = cfg.dram
    bursts = math.ceil(nbytes / (d.bus_bytes * d.burst_length))
    burst = d.burst_length / d.data_rate
    # the bursts of one access go to one bank: each column command tCCDL (tCCD) after the last
    gap = max(burst, d.tCCDL if d.bank_groups > 1 else d.tCCD)
    return (bursts - 1) * gap + burst


def path(cfg, dram_timing):
    """Load missing in L1 and L2: request packet, L2 stage, DRAM, reply packet."""
    line, hdr = cfg.l1.line_bytes, cfg.icnt.header_bytes
    dram = dram_cycles_to_core(cfg, dram_timing + data_dram_cycles(cfg, line))
    return (icnt(cfg, hdr) + cfg.l2.hit_latency + cfg.dram.controller_latency + dram
            + icnt(cfg, hdr + line))


def first_touch_addresses(cfg, n):
    """One line in each of n distinct (channel, bank) pairs: every access finds a closed bank."""
    seen, out, addr = set(), [], 0
    while len(out) < n:
        key = locate(cfg, addr)[:2]
        if key not in seen:
            seen.add(key)
            out.append(addr)
        addr += cfg.l1.line_bytes
    return out


@pytest.mark.parametrize("preset", ["tiny", "gtx480", "gp102", "thesis"])
def test_pointer_chase_closed_rows(preset):
    # one request per line on the modulo map, the path path() sums and locate() decodes (gp102
    # sends one request per sector on the random map, as Accel-Sim's SM6_TITANX)
    cfg = config(preset, dram={"partition_map": "modulo"}, icnt={"sector_requests": False})
    d = cfg.dram
    n = min(d.channels * d.banks, 64)
    drv = Driver(cfg)
    lat = []
    for i, addr in enumerate(first_touch_addresses(cfg, n)):
        t0 = drv.issue(0, warp_load(addr), i)
        lat.append(drv.wait(i) - t0)
    expected = path(cfg, d.tRCD + d.tCL)
    mean = sum(lat) / len(lat)
    # command-clock alignment adds < 1 DRAM cycle; core rounding < 1 core cycle
    assert expected <= mean <= expected + dram_cycles_to_core(cfg, 1) + 1, (mean, expected)
    st = drv.mem.stats()
    assert st["dram.row_closed"] == n and st["dram.row_hits"] == st["dram.row_conflicts"] == 0


@pytest.mark.parametrize("preset", ["tiny", "gtx480"])
def test_reuse_hits_l1_then_l2(preset):
    cfg = config(preset)
    drv = Driver(cfg)
    drv.wait_addr = None
    t0 = drv.issue(0, warp_load(0x4000), "miss")
    drv.wait("miss")
    t1 = drv.issue(0, warp_load(0x4000), "hit")
    assert drv.wait("hit") - t1 == cfg.l1.hit_latency
    # another SM misses its own L1 and hits the L2
    t2 = drv.issue(1, warp_load(0x4000), "l2")
    hdr, line = cfg.icnt.header_bytes, cfg.l1.line_bytes
    assert drv.wait("l2") - t2 == icnt(cfg, hdr) + cfg.l2.hit_latency + icnt(cfg, hdr + line)
    assert drv.done["miss"] - t0 > drv.done["l2"] - t2


def test_bypass_global_loads_skips_l1():
    cfg = config("tiny", l1={"bypass_global_loads": True})
    drv = Driver(cfg)
    drv.issue(0, warp_load(0x4000), "a")
    drv.wait("a")
    t1 = drv.issue(0, warp_load(0x4000), "b")
    hdr, line = cfg.icnt.header_bytes, cfg.l1.line_bytes
    assert drv.wait("b") - t1 == icnt(cfg, hdr) + cfg.l2.hit_latency + icnt(cfg, hdr + line)
    assert drv.mem.stats()["l1.hits"] == 0


def test_smem_latency_and_conflicts():
    cfg = config("tiny")
    drv = Driver(cfg)
    from sim.workload.kernel import Op
    t0 = drv.issue(0, warp_load(0, stride=4, op=Op.LDS), "free")
    assert drv.wait("free") - t0 == cfg.units.smem_latency
    t1 = drv.issue(0, warp_load(0, stride=8, op=Op.LDS), "2way")
    assert drv.wait("2way") - t1 == cfg.units.smem_latency + 1


def measured(cfg, sm_addr_pairs):
    """Latency of one-line loads (line_bytes / 4 threads × 4 B) issued one after another."""
    drv = Driver(cfg)
    out = []
    threads = cfg.l1.line_bytes // 4
    for i, (sm, addr) in enumerate(sm_addr_pairs):
        t0 = drv.issue(sm, warp_load(addr, threads=threads), i)
        out.append(drv.wait(i) - t0)
    return out


def test_gp102_unloaded_latency_targets():
    """[SOCGPU]: L1 hit 82, L2 hit ≈ 220, DRAM ≈ 400 core cycles (bypassed L1 for loads)."""
    cfg = config("gp102", l1={"bypass_global_loads": False})
    dram, l1_hit, l2_hit = measured(cfg, [(0, 0), (0, 0), (1, 0)])
    assert l1_hit == 82
    assert abs(l2_hit - 220) <= 0.05 * 220 and abs(dram - 400) <= 0.05 * 400


def test_ikra_unloaded_latencies_inside_documented_ranges():
    """[IKRA]: L2 hit 29–61, memory 197–261 cycles; the preset aims at the middle (45, 229,
    presets.py)."""
    cfg = config("ikra_15cu")
    dram, l1_hit, l2_hit = measured(cfg, [(0, 0), (0, 0), (1, 0)])
    assert l1_hit == 1 and 29 <= l2_hit <= 61 and 197 <= dram <= 261
    assert l2_hit == 45 and abs(dram - 229) <= 2


def test_energy_is_event_counts_times_config():
    cfg = config("tiny")
    drv = Driver(cfg)
    drv.issue(0, warp_load(0), "a")
    drv.wait("a")
    st = drv.mem.stats()
    e, line, sec, hdr = cfg.energy, cfg.l1.line_bytes, cfg.l1.sector_bytes, cfg.icnt.header_bytes
    sectors = line // sec
    assert st["energy.l1_pj"] == sectors * e.l1_access_pj            # the fill
    assert st["energy.l2_pj"] == sectors * e.l2_access_pj            # the fill
    assert st["energy.icnt_pj"] == (hdr + hdr + line) / 32 * e.icnt_flit_pj
    assert st["energy.dram_pj"] == sectors * e.dram_access_pj + e.dram_activate_pj
    assert st["energy.memory_pj"] == pytest.approx(sum(st[f"energy.{k}_pj"] for k in
                                                       ("l1", "smem", "l2", "icnt", "dram")))
