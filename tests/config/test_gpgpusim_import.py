"""``gpusched config import`` of Accel-Sim / GPGPU-Sim configs (issue 35 item 2): the configs
Accel-Sim ships (their options recorded in data/accelsim/configs/, written back here as option
files) import, validate and run; every option is accounted for; the fields follow from the
option values; bad or conflicting values exit 2 naming the option."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gpusched.config import resolve_config
from gpusched.config import ConfigError, to_dict
from gpusched.config.gpgpusim_config import import_config
from gpusched.config.gpgpusim_file import read_options
from gpusched.config.presets import GTX480
from sim.run import simulate
from sim.workload.kernel import Workload
from sim.workload.trace_parity import CASES

DATA = Path(__file__).parents[2] / "data" / "accelsim" / "configs"
SHIPPED = ("SM6_TITANX", "SM7_QV100", "SM75_RTX2060", "SM86_RTX3070", "SM2_GTX480")


def write_config(folder: Path, name: str, edit: dict[str, str] | None = None) -> Path:
    """Accel-Sim's config ``name`` as option files in ``folder`` (from the recorded options)."""
    rec = json.loads((DATA / f"{name}.json").read_text())
    folder.mkdir(parents=True, exist_ok=True)
    opts = {**rec["gpgpusim.config"], **(edit or {})}
    (folder / "gpgpusim.config").write_text(
        "# written from data/accelsim/configs\n"
        + "".join(f'{k} "{v}"\n' if " " in v else f"{k} {v}\n" for k, v in opts.items()))
    if "trace.config" in rec:
        (folder / "trace.config").write_text("".join(f"{k} {v}\n" for k, v in rec["trace.config"].items()))
    if "icnt" in rec:
        (folder / rec["icnt"]["file"]).write_text(
            "".join(f"{k} = {v};\n" for k, v in rec["icnt"]["settings"].items()))
    return folder / "gpgpusim.config"


def flat(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        out.update(flat(v, f"{prefix}{k}.") if isinstance(v, dict) else {prefix + k: v})
    return out


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_configs_import_validate_and_run(tmp_path, name):
    cfg, rows = import_config(write_config(tmp_path / name, name))
    rec = json.loads((DATA / f"{name}.json").read_text())
    given = set(rec["gpgpusim.config"]) | set(rec.get("trace.config", {}))
    # every option of the files is reported, as mapped, approximated or ignored with a reason
    reported = {o for r in rows for o in r.option.split()}
    assert given <= reported
    assert all(r.status in ("mapped", "approximated", "ignored", "default") for r in rows)
    assert all(r.note for r in rows if r.status == "ignored")
    wl = Workload("alu", CASES["lat_alu"][1]().kernels)
    r = simulate(cfg, wl, memory="hierarchy")
    assert r["warp_insts"] == 401 and r["cycles"] > 400


def test_fields_follow_from_the_option_values(tmp_path):
    cfg, _ = import_config(write_config(tmp_path, "SM7_QV100"))
    assert cfg.sm.count == 80 * 1 and cfg.sm.warps_per_sm == 2048 // 32 and cfg.sm.subcores == 4
    assert cfg.core_clock_mhz == 1132.0 and cfg.dram.clock_mhz == 850.0
    assert cfg.l2.slices == 32 * 2 and cfg.l2.size_per_slice == 32 * 24 * 128
    assert cfg.dram.bus_bytes == 16 and cfg.dram.burst_length == 2 and cfg.dram.data_rate == 2
    assert (cfg.dram.tRCD, cfg.dram.tRAS, cfg.dram.tRP, cfg.dram.tCL, cfg.dram.tRRD) == (12, 28, 12, 12, 3)
    d = cfg.dram        # nbk=16:CCD=1:RRD=3:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=2:CDLR=3:WR=10:
    assert (d.tCCD, d.tRC, d.tWL, d.tCDLR, d.tWR) == (1, 40, 2, 3, 10)      # nbkgrp=4:CCDL=2:RTPL=3
    assert (d.bank_groups, d.tCCDL, d.tRTPL, d.bank_group_bits) == (4, 2, 3, "low")
    assert cfg.dram.partition_map == "ipoly" and cfg.sm.warp_sched == "lrr" and not cfg.sm.dual_issue
    # adaptive cache: 128 KB unified, 4 sets × 128 B lines → 256 ways at carve-out 0
    assert cfg.l1.size_bytes == 128 * 1024 and cfg.l1.ways == 128 * 1024 // (4 * 128)
    assert cfg.l1.carveouts == "0,8,16,32,64,96" and not cfg.l1.bypass_global_loads
    assert (cfg.units.alu_latency, cfg.units.alu_ii, cfg.units.sfu_latency, cfg.units.sfu_ii) == (2, 2, 20, 8)
    assert cfg.l1.hit_latency == 20 and cfg.units.smem_latency == 20
    assert cfg.icnt.sector_requests and cfg.icnt.inject_queue == 512
    titanx, _ = import_config(write_config(tmp_path / "t", "SM6_TITANX"))
    assert titanx.l1.bypass_global_loads and titanx.sm.dual_issue and titanx.sm.warp_sched == "gto"
    assert titanx.dram.partition_map == "random" and titanx.dram.bus_bytes == 4
    # the Booksim file: 256-flit input buffers = 64 packets of 4 flits, one virtual channel
    assert titanx.icnt.inject_queue == 256 // 4 and titanx.icnt.fifo_inputs
    gtx, _ = import_config(write_config(tmp_path / "g", "SM2_GTX480"))
    assert gtx.dram.bus_bytes == 4 * 2 and not gtx.icnt.sector_requests     # 2 chips per controller
    assert gtx.units.div_latency == 39 and gtx.units.idiv_latency == 145     # PTX-mode lists


# gtx480 (GPGPU-Sim 3.2's GTX 480, [SRTF] / thesis era) against GPGPU-Sim 4's SM2_GTX480:
# every differing field, and why the preset keeps its value (docs/config.md)
GTX480_DIFFERENCES = {
    "sm.warp_sched", "units.alu_ii", "units.sfu_latency", "units.ldst_ii", "units.ldst_shared",
    "units.smem_latency", "units.operand_latency", "l1.sector_bytes", "l1.hit_latency",
    "l1.mshrs", "l1.store_ack", "l1.sector_acks", "l2.hit_latency", "l2.mshrs", "icnt.latency",
    "icnt.bytes_per_cycle", "icnt.fifo_inputs", "dram.row_bytes", "dram.bank_group_bits",
    "dram.queue_size",
    "dram.bank_bit", "dram.row_bit", "dram.controller_latency", "kernels.max_concurrent",
    "sm.blocking_atomics", "units.sync_slot", "l1.miss_after_lookup", "l2.mshr_merge",
    "l2.input_queue"}


def test_gtx480_preset_against_gpgpusim_4s_sm2_gtx480(tmp_path):
    cfg, _ = import_config(write_config(tmp_path, "SM2_GTX480"))
    a, b = flat(to_dict(cfg)), flat(to_dict(GTX480))
    differ = {k for k in a if a[k] != b[k] and k != "name" and not k.startswith("energy.")}
    assert differ == GTX480_DIFFERENCES
    same = ("sm.count", "sm.warps_per_sm", "sm.regs_per_sm", "sm.smem_per_sm", "l2.slices",
            "l1.size_bytes", "dram.channels", "dram.clock_mhz", "dram.bus_bytes", "dram.banks",
            "core_clock_mhz")
    assert all(a[k] == b[k] for k in same)


def test_option_files_comments_quotes_and_later_wins(tmp_path):
    f = tmp_path / "a.config"
    f.write_text('# comment\n-gpgpu_n_clusters 10  # trailing\n-gpgpu_dram_timing_opt "nbk=16:\n'
                 '   RCD=12:RAS=28:RP=12:CL=12"\n-gpgpu_n_clusters 14\n')
    opts = read_options(f)
    assert opts["-gpgpu_n_clusters"] == ("14", f"{f}:5")
    assert opts["-gpgpu_dram_timing_opt"][0] == "nbk=16: RCD=12:RAS=28:RP=12:CL=12"


@pytest.mark.parametrize("edit, fragment", [
    ({"-gpgpu_bogus_option": "1"}, r"gpgpusim.config:\d+ -gpgpu_bogus_option = '1': not a GPGPU-Sim"),
    ({"-gpgpu_n_clusters": "many"}, r"-gpgpu_n_clusters = 'many': expected an integer"),
    ({"-gpgpu_scheduler": "fancy"}, r"-gpgpu_scheduler = 'fancy': allowed here: lrr, gto"),
    ({"-gpgpu_num_sched_per_core": "3"}, r"-gpgpu_shader_core_pipeline \(imported as sm.warps_per_sm\)"),
    ({"-gpgpu_cache:dl2": "S:64:128"}, r"-gpgpu_cache:dl2 = 'S:64:128': expected a cache string"),
    ({"-gpgpu_memory_partition_indexing": "1"}, r"indexing = '1': allowed here"),
])
def test_bad_or_conflicting_values_name_the_option(tmp_path, edit, fragment):
    with pytest.raises(ConfigError, match=fragment):
        import_config(write_config(tmp_path, "SM6_TITANX", edit))


def test_cli_import_show_and_run_with_a_config_file(tmp_path):
    g = write_config(tmp_path / "qv", "SM7_QV100")
    out = tmp_path / "qv.toml"

    def cli(*args):
        return subprocess.run([sys.executable, "-c", "from gpusched.cli import main; main()", *args],
                              capture_output=True, text=True)
    r = cli("config", "import", str(g), "--out", str(out))
    assert r.returncode == 0 and "options mapped" in r.stdout
    text = out.read_text()
    assert "#   -gpgpu_perf_sim_memcpy = 1 → ignored: MemcpyHtoD" in text
    assert resolve_config(str(out), []) == resolve_config(str(g), [])
    r = cli("config", "show", str(g), "--set", "kernels.launch_latency=0")
    assert r.returncode == 0 and "launch_latency = 0" in r.stdout
    bad = write_config(tmp_path / "bad", "SM7_QV100", {"-gpgpu_n_mem": "-4"})
    r = cli("run", "--preset", str(bad), "--workload", "compute_like")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "-gpgpu_n_mem" in r.stderr


def test_the_presets_are_the_imports_with_the_parity_runs_settings(tmp_path):
    """qv100 is SM7_QV100 imported (its trace.config read too) with kernel launch latency 0, as
    the parity runs use; titanx differs from imported SM6_TITANX only where docs/config.md
    says why."""
    import dataclasses
    from gpusched.config import get_preset, with_overrides
    q, _ = import_config(write_config(tmp_path / "q", "SM7_QV100"))
    assert dataclasses.replace(with_overrides(q, ["kernels.launch_latency=0"]), name="qv100") \
        == get_preset("qv100")
    t, _ = import_config(write_config(tmp_path / "t", "SM6_TITANX"))
    a, b = flat(to_dict(t)), flat(to_dict(get_preset("titanx")))
    differ = {k for k in a if a[k] != b[k] and k != "name"}
    assert differ == {"sm.fetch_per_cycle", "l1.mshrs", "l2.mshrs",
                      "dram.fixed_latency", "kernels.max_concurrent", "kernels.launch_latency"}
