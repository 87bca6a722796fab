"""gp102's Accel-Sim counterpart (data/accelsim/configs/gp102.json): SM6_TITANX with [SOCGPU]'s
changes. The committed option files are what the recorder writes, and imported they carry
gp102's own figures: its clock, memory partitions and the unloaded latencies it models."""

from __future__ import annotations

import json
from pathlib import Path

from gpusched.config import get_preset
from gpusched.config.gpgpusim_config import import_config
from sim.workload.trace_parity_record import write_config

CONFIGS = Path(__file__).parents[2] / "data" / "accelsim" / "configs"


def test_committed_files_are_the_recorders(tmp_path):
    write_config("gp102", tmp_path)
    for f in tmp_path.iterdir():
        assert f.read_text() == (CONFIGS / "gp102" / f.name).read_text(), f.name
    assert {f.name for f in tmp_path.iterdir()} == {f.name for f in (CONFIGS / "gp102").iterdir()}


def test_every_change_names_its_source_and_the_base_value(tmp_path):
    spec = json.loads((CONFIGS / "gp102.json").read_text())
    base = json.loads((CONFIGS / f"{spec['base']}.json").read_text())["gpgpusim.config"]
    text = write_config("gp102", tmp_path).read_text()
    for option, change in spec["changes"].items():
        assert change["source"] and change[spec["base"]] == base[option] != change["value"]
        assert f"{option} {change['value']}\n" in text


def test_imported_counterpart_has_gp102s_figures():
    cfg, _ = import_config(CONFIGS / "gp102" / "gpgpusim.config", CONFIGS / "gp102" / "trace.config")
    gp102 = get_preset("gp102")
    assert cfg.core_clock_mhz == gp102.core_clock_mhz
    assert (cfg.dram.channels, cfg.l2.slices) == (gp102.dram.channels, gp102.l2.slices)
    assert cfg.l2.hit_latency == gp102.l2.hit_latency
    assert cfg.dram.controller_latency == gp102.dram.controller_latency
    # the same DRAM bandwidth: channels × bus bytes × transfers per second
    bw = cfg.dram.channels * cfg.dram.bus_bytes * cfg.dram.data_rate * cfg.dram.clock_mhz
    ref = gp102.dram.channels * gp102.dram.bus_bytes * gp102.dram.data_rate * gp102.dram.clock_mhz
    assert bw == ref
