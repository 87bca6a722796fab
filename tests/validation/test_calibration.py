"""The calibration mechanisms behind the titanx preset (docs/validation.md): each off by default,
each checked against numbers derived from its configuration."""

from __future__ import annotations

import dataclasses

import pytest

from gpusched.config import get_preset, validate
from sim.memory.hierarchy import MemoryHierarchy
from sim.workload.kernel import Instr, Op


def with_dram(preset: str, **fields):
    cfg = get_preset(preset)
    return validate(dataclasses.replace(cfg, dram=dataclasses.replace(cfg.dram, **fields)))


def closed_row_reads(cfg, n_banks: int) -> list[int]:
    """Completion cycles of one 128-byte load to each of banks 0..n_banks-1 of channel 0 (rows
    closed), all issued at cycle 0 from different SMs."""
    d, mem, done = cfg.dram, MemoryHierarchy(cfg), {}
    for sm in range(cfg.sm.count):
        mem.connect(sm, lambda token, cycle: done.__setitem__(token, cycle))
    for b in range(n_banks):
        addr = (5 << d.row_bit) | (b << d.bank_bit)            # channel 0, bank b, row 5
        assert (addr >> d.channel_bit) % d.channels == 0 and (addr >> d.bank_bit) % d.banks == b
        instr = Instr(Op.LDG, (1,), (), tuple(addr + 4 * i for i in range(32)))
        assert mem.issue(0, b % cfg.sm.count, instr, b)
    while mem.busy():
        mem.tick(mem.next_event())
    return [done[b] for b in range(n_banks)]


def test_trrd_follows_each_presets_source():
    """Off where the source gives none; GPGPU-Sim's configs' RRD and [OWL] Table 1 elsewhere."""
    for name in ("tiny", "ikra_15cu"):
        assert get_preset(name).dram.tRRD == 0
    assert get_preset("gtx480").dram.tRRD == get_preset("thesis").dram.tRRD == 6   # GTX480: RRD=6
    assert get_preset("titanx").dram.tRRD == get_preset("gp102").dram.tRRD == 8    # SM6_TITANX: RRD=8
    assert get_preset("owl").dram.tRRD == 8                    # [OWL] Table 1


@pytest.mark.parametrize("trrd", [20, 40])
def test_trrd_spaces_activations_of_different_banks(trrd):
    base = closed_row_reads(with_dram("tiny", tRRD=0), 4)
    spaced = closed_row_reads(with_dram("tiny", tRRD=trrd), 4)
    cfg = get_preset("tiny")
    gap = trrd * cfg.core_clock_mhz / cfg.dram.clock_mhz       # tRRD in core cycles
    assert spaced[0] == base[0]                                # the first ACT waits for nothing
    for i in range(1, 4):                                      # each next one: tRRD after the last
        assert spaced[i] - spaced[i - 1] == pytest.approx(gap, abs=1.5)
    assert base[3] - base[0] < 3 * gap


def test_a_trrd_beyond_the_watchdog_is_refused_naming_the_field():
    from gpusched.config import ConfigError
    from gpusched.config.validate import check_watchdog
    with pytest.raises(ConfigError, match=r"^dram.tRRD = 100000000: gives a delay"):
        check_watchdog(with_dram("tiny", tRRD=100_000_000), 100_000)
    check_watchdog(with_dram("tiny", tRRD=8), 100_000)


def with_l1(preset: str, **fields):
    cfg = get_preset(preset)
    return validate(dataclasses.replace(cfg, l1=dataclasses.replace(cfg.l1, **fields)))


def store_completion(cfg, n_lines: int) -> int:
    """Cycle a warp store of 32 words spread over ``n_lines`` lines, issued at 0, completes."""
    mem, done = MemoryHierarchy(cfg), {}
    mem.connect(0, lambda token, cycle: done.__setitem__(token, cycle))
    per = 32 // n_lines
    addrs = tuple(line * cfg.l1.line_bytes * 4 + 4 * i for line in range(n_lines) for i in range(per))
    assert mem.issue(0, 0, Instr(Op.STG, (), (1, 2), addrs), "st")
    while mem.busy():
        mem.tick(mem.next_event())
    return done["st"]


def test_store_ack_is_off_except_in_the_accelsim_presets():
    for name in ("tiny", "gtx480", "ikra_15cu", "thesis"):
        assert get_preset(name).l1.store_ack is False
    assert get_preset("titanx").l1.store_ack is get_preset("gp102").l1.store_ack is True


@pytest.mark.parametrize("n_lines", [1, 2, 4])
def test_store_ack_completes_a_store_after_its_round_trip_to_the_l2(n_lines):
    cfg = with_l1("tiny", store_ack=True)
    assert store_completion(with_l1("tiny", store_ack=False), n_lines) == 1     # posted
    icnt, bw = cfg.icnt, cfg.icnt.bytes_per_cycle
    data = 32 * 4 // n_lines                   # bytes of each line's packet
    up = -(-(icnt.header_bytes + -(-data // 32) * 32) // bw)       # flits of one write packet
    down = -(-icnt.header_bytes // bw)                              # the ack: header only
    # the last line's packet leaves after the others' flits, then the slice's tag stage, the ack
    last_up = n_lines * up - 1 + icnt.latency
    expect = last_up + cfg.l2.hit_latency + down - 1 + icnt.latency
    assert store_completion(cfg, n_lines) == expect


def test_sector_acks_send_one_ack_per_sector_and_the_store_waits_for_the_last():
    acked, per_sector = with_l1("tiny", store_ack=True), with_l1("tiny", store_ack=True, sector_acks=True)
    down = -(-per_sector.icnt.header_bytes // per_sector.icnt.bytes_per_cycle)
    # one line, 4 sectors: four header-only acks share the SM's port, one after the other
    assert store_completion(per_sector, 1) == store_completion(acked, 1) + 3 * down
    mem = MemoryHierarchy(per_sector)
    mem.connect(0, lambda token, cycle: None)
    assert mem.issue(0, 0, Instr(Op.STG, (), (1, 2), tuple(4 * i for i in range(32))), "st")
    while mem.busy():
        mem.tick(mem.next_event())
    assert mem.stats()["icnt.down.packets"] == 4 and mem.stats()["icnt.up.packets"] == 1


def test_stream_order_only_in_the_accelsim_presets_and_traces_carry_their_stream(tmp_path):
    from gpusched.config.presets import PRESETS
    for name, cfg in PRESETS.items():       # CUDA's stream semantics: the default everywhere
        assert cfg.kernels.stream_order is True, name
    from sim.workload.accelsim import read_trace_dir
    from sim.workload.trace_parity import write_case
    wl = read_trace_dir(write_case("sg_srad", tmp_path), preset="titanx", cache=tmp_path / "cache")
    assert [k.meta["cuda stream"] for k in wl.kernels] == ["0"] * 4     # the writer's one stream


def test_interconnect_and_bypass_mechanisms_only_in_the_accelsim_presets():
    from gpusched.config.presets import PRESETS
    for name, cfg in PRESETS.items():
        on = name in ("gp102", "titanx", "qv100")   # Accel-Sim's icnt files: 1 VC, 40 B flits
        assert cfg.icnt.fifo_inputs is on and cfg.l1.sector_acks is on, name
        # only where global loads skip the L1 (-gpgpu_gmem_skip_L1D 1: Pascal, not SM7_QV100)
        assert cfg.l1.bypass_unmerged is (name in ("gp102", "titanx")), name
    assert get_preset("titanx").icnt.bytes_per_cycle == 40


def test_partition_map_as_the_accelsim_configs_set_it():
    """SM6_TITANX's partition indexing 4 (random; titanx and gp102, its counterpart), SM7_QV100's
    2 (ipoly); modulo elsewhere."""
    from gpusched.config.presets import PRESETS
    for name, cfg in PRESETS.items():
        want = {"titanx": "random", "gp102": "random", "qv100": "ipoly"}.get(name, "modulo")
        assert cfg.dram.partition_map == want, name


def test_random_partition_map_spreads_strided_lines_and_keeps_each_slice_on_its_channel():
    """Lines 4 KB apart fall on 3 of titanx's 12 channels with the modulo map; the random map
    (GPGPU-Sim's RANDOM partition indexing) spreads them over nearly all slices, the same way
    every time, and a line's DRAM channel is its slice's."""
    from sim.memory.dram import AddressMap
    cfg = get_preset("titanx")
    modulo = AddressMap(dataclasses.replace(cfg.dram, partition_map="modulo"), 128, cfg.l2.slices)
    rand, again = (AddressMap(cfg.dram, 128, cfg.l2.slices) for _ in range(2))
    lines = [0x40000000 + j * 0x1000 for j in range(96)]
    assert {modulo.locate(a)[0] for a in lines} == {0, 4, 8}
    slices = [rand.slice_of(a) for a in lines]
    assert len(set(slices)) >= 20 and slices == [again.slice_of(a) for a in lines]
    assert all(rand.locate(a)[0] == s // rand.spc for a, s in zip(lines, slices))
    # the four sectors of one line stay together
    assert all(rand.slice_of(a + 32 * k) == rand.slice_of(a) for a in lines[:8] for k in range(4))


def test_gp102s_random_partition_map_uses_each_of_its_22_slices_on_its_channel():
    """gp102 takes SM6_TITANX's random map with its own 11 channels × 2 slices: consecutive lines
    reach every slice, and a line's DRAM channel is its slice's."""
    from sim.memory.dram import AddressMap
    cfg = get_preset("gp102")
    rand = AddressMap(cfg.dram, cfg.l2.line_bytes, cfg.l2.slices)
    lines = [j * cfg.l2.line_bytes for j in range(cfg.l2.slices * 16)]
    slices = [rand.slice_of(a) for a in lines]
    assert set(slices) == set(range(cfg.l2.slices)) == set(range(22))
    modulo = AddressMap(dataclasses.replace(cfg.dram, partition_map="modulo"), cfg.l2.line_bytes,
                        cfg.l2.slices)
    assert slices != [modulo.slice_of(a) for a in lines]               # not the modulo order
    assert all(rand.locate(a)[0] == s // rand.spc < cfg.dram.channels for a, s in zip(lines, slices))


def with_icnt(preset: str, **fields):
    cfg = get_preset(preset)
    return validate(dataclasses.replace(cfg, icnt=dataclasses.replace(cfg.icnt, **fields)))


def load_run(cfg, n_sectors: int) -> tuple[int, dict]:
    """Completion cycle and memory statistics of one warp load of ``n_sectors`` sectors of one
    line (L1 bypassed or cold: it goes to the L2), issued at 0 on an idle GPU."""
    mem, done = MemoryHierarchy(cfg), {}
    mem.connect(0, lambda token, cycle: done.__setitem__(token, cycle))
    addrs = tuple(4 * (i % (8 * n_sectors)) for i in range(32))        # 32 B per 8 words
    assert mem.issue(0, 0, Instr(Op.LDG, (1,), (), addrs), "ld")
    while mem.busy():
        mem.tick(mem.next_event())
    return done["ld"], mem.stats()


def test_sector_requests_only_in_the_sectored_accelsim_presets():
    """Only the presets from Accel-Sim configs with -gpgpu_coalesce_arch >= 40 (gp102: SM6_TITANX's)."""
    from gpusched.config.presets import PRESETS
    for name, cfg in PRESETS.items():
        assert cfg.icnt.sector_requests is (name in ("titanx", "qv100", "gp102")), name


@pytest.mark.parametrize("n_sectors", [1, 2, 4])
def test_sector_requests_send_one_packet_per_sector_and_the_request_leaves_with_the_last(n_sectors):
    line, per_sector = with_icnt("tiny"), with_icnt("tiny", sector_requests=True)
    header_flits = -(-line.icnt.header_bytes // line.icnt.bytes_per_cycle)
    t_line, s_line = load_run(line, n_sectors)
    t_sector, s_sector = load_run(per_sector, n_sectors)
    assert s_line["icnt.up.packets"] == 1 and s_sector["icnt.up.packets"] == n_sectors
    assert s_sector["icnt.up.flits"] == n_sectors * header_flits
    # the request's own packet waits behind the sectors before it on the SM's link to the slice
    assert t_sector == t_line + (n_sectors - 1) * header_flits
    # replies and the L2's work do not change: one reply with the sectors' data, one lookup
    for key in ("icnt.down.packets", "icnt.down.bytes", "l2.misses", "l2.hits", "dram.reads"):
        assert s_sector[key] == s_line[key], key


def test_partition_seed_draws_another_random_map_and_zero_is_the_default():
    from sim.memory.dram import AddressMap
    cfg = get_preset("titanx")
    assert cfg.dram.partition_seed == 0
    lines = [0x40000000 + j * 128 for j in range(512)]

    def slices(seed: int) -> list[int]:
        m = AddressMap(dataclasses.replace(cfg.dram, partition_seed=seed), 128, cfg.l2.slices)
        return [m.slice_of(a) for a in lines]
    default, one, two = slices(0), slices(1), slices(2)
    assert default == [AddressMap(cfg.dram, 128, cfg.l2.slices).slice_of(a) for a in lines]
    assert one == slices(1) and len(set(one)) == cfg.l2.slices
    # independent draws: about 1 line in 24 keeps its slice, not a shifted copy of the default
    for other in (one, two):
        same = sum(a == b for a, b in zip(default, other))
        assert same < len(lines) // 8, same
        assert other[1:] != default[:-1] and other[:-1] != default[1:]
