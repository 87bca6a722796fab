"""Coalescing, shared-memory bank conflicts, and validation of the memory configuration."""

import dataclasses

import pytest

from gpusched.config import ConfigError, get_preset, validate, with_overrides
from memdriver import warp_load
from sim.memory.coalescer import coalesce, smem_conflict_cycles
from sim.workload.kernel import Op


@pytest.mark.parametrize("stride,size,lines,mask", [
    (4, 4, 1, 0b1111),          # 32 × 4 B consecutive: one 128 B line, all 4 sectors
    (8, 4, 2, 0b1111),          # 256 B span: two lines
    (2, 2, 1, 0b0011),          # 64 B: sectors 0 and 1
    (0, 4, 1, 0b0001),          # everyone reads one word
    (128, 4, 32, 0b0001),       # one line per thread
])
def test_coalesce_lines_and_sectors(stride, size, lines, mask):
    got = coalesce(warp_load(0, stride=stride, size=size).addrs, size, 128, 32)
    assert len(got) == lines and all(m == mask for m in got.values())


def test_coalesce_straddling_access_marks_both_lines():
    assert coalesce([124], 8, 128, 32) == {0: 0b1000, 128: 0b0001}


@pytest.mark.parametrize("stride,cycles", [(4, 1), (0, 1), (8, 2), (16, 4), (128, 32), (12, 1)])
def test_smem_bank_conflicts(stride, cycles):
    assert smem_conflict_cycles(warp_load(0, stride=stride, op=Op.LDS), 32) == cycles


@pytest.mark.parametrize("override,field,words", [
    ("l1.size_bytes=5000", "l1.size_bytes", "l1.sets × l1.ways"),
    ("l2.size_per_slice=1000", "l2.size_per_slice", "l2.sets × l2.ways"),
    ("dram.bank_bit=8", "dram.bank_bit", "overlaps dram.channel_bit"),
    ("dram.row_bit=12", "dram.row_bit", "overlaps"),
    ("dram.row_bit=15", "dram.row_bit", "dram.row_bytes"),
    ("l2.slices=3", "l2.slices", "multiple of dram.channels"),
    ("l2.line_bytes=64;l2.sets=32", "l2.line_bytes", "l1.line_bytes"),
    ("l1.write_policy=write_around", "l1.write_policy", "write_back"),
    ("l1.sector_bytes=256", "l1.sector_bytes", "l1.line_bytes"),
])
def test_memory_config_errors_name_the_field(override, field, words):
    with pytest.raises(ConfigError) as e:
        with_overrides(get_preset("tiny"), override.split(";"))
    assert e.value.where == field and words in str(e.value)


def test_presets_map_rows_consistently():
    for name in ("tiny", "gtx480", "gp102", "ikra_15cu", "thesis"):
        cfg = get_preset(name)
        assert validate(dataclasses.replace(cfg)) is not None
        assert cfg.l2.slices % cfg.dram.channels == 0


@pytest.mark.parametrize("preset", ["tiny", "gtx480", "gp102", "ikra_15cu", "thesis"])
def test_l2_slices_and_sets_evenly_used(preset):
    """Consecutive lines spread evenly over all slices, and each slice uses all of its sets (the
    modulo map; gp102's random one: test_calibration's random-map test)."""
    from sim.memory.hierarchy import MemoryHierarchy
    cfg = get_preset(preset)
    cfg = dataclasses.replace(cfg, dram=dataclasses.replace(cfg.dram, partition_map="modulo"))
    mem = MemoryHierarchy(cfg)
    n_lines = cfg.l2.slices * cfg.l2.sets * 4
    per_slice: dict[int, set] = {}
    for i in range(n_lines):
        addr = i * cfg.l2.line_bytes
        sl = mem.map.slice_of(addr)
        per_slice.setdefault(sl, set()).add(id(mem.slices[sl].cache.set_of(addr)))
    assert sorted(per_slice) == list(range(cfg.l2.slices))
    assert all(len(s) == cfg.l2.sets for s in per_slice.values())
