"""Accel-Sim-style statistics (issue 19 item 5): thread instructions, sector counts, CLI form."""

from __future__ import annotations

import json
import subprocess
import sys

from gpusched.config import get_preset
from sim.run import simulate
from sim.workload.accelsim import read_trace_dir
from sim.workload.kernel import Instr, Kernel, Op, Workload
from sim.workload.synthetic import build_kernel
from sim.workload.trace_stats import accelsim_stats, format_accelsim, thread_instructions
from sim.workload.tracegen import write_trace_dir

from .test_synthetic import rich_spec

LOADS = 6


def streaming_loads(cta: int, warp: int):
    """``LOADS`` fully coalesced 128-byte loads per warp, each line touched once, half the lanes
    active on the last one."""
    base = (cta * 4 + warp) * LOADS * 128
    for i in range(LOADS):
        mask = 0xFFFFFFFF if i < LOADS - 1 else 0x0000FFFF
        lanes = mask.bit_count()
        yield Instr(Op.LDG, (2 + i,), (1,), tuple(base + i * 128 + 4 * j for j in range(lanes)),
                    mask=mask, pc=8 * i)
    yield Instr(Op.EXIT, pc=8 * LOADS)


def test_thread_instructions_match_the_trace_masks(tmp_path):
    k = build_kernel(rich_spec(), seed=2)
    d = write_trace_dir(tmp_path, [k])
    lanes = 0
    for line in (d / "kernel-1.traceg").read_text().splitlines():
        t = line.split()
        if len(t) > 3 and t[0][0] in "0123456789abcdef":
            lanes += int(t[1], 16).bit_count()
    assert thread_instructions(k) == lanes == read_trace_dir(d).kernels[0].meta["thread_insts"]
    assert lanes < 32 * sum(len(list(k.stream(c, w))) for c in range(k.n_ctas)
                            for w in range(k.warps_per_cta()))      # divergence shows


def test_sector_counts_follow_from_the_access_pattern():
    cfg = get_preset("gp102")                       # global loads bypass the L1
    k = Kernel("loads", (10, 1, 1), (128, 1, 1), 16, 0, streaming_loads)
    r = simulate(cfg, Workload("loads", [k]), memory="hierarchy")
    s = accelsim_stats(r, Workload("loads", [k]), cfg.l1.bypass_global_loads)
    warps = 10 * 4
    sectors = warps * ((LOADS - 1) * 4 + 2)         # 128 B = 4 sectors; half a line = 2
    t = s["total"]
    assert t["L2_total_cache_accesses"] == sectors == t["total dram reads"] == t["L2_total_cache_misses"]
    assert t["L1D_total_cache_accesses"] == 0 and t["total dram writes"] == 0
    assert t["gpgpu_n_tot_w_icount"] == warps * (LOADS + 1)
    assert s["kernels"][0]["gpu_sim_insn"] == warps * ((LOADS - 1) * 32 + 16 + 32)
    assert s["kernels"][0]["gpu_ipc"] == round(s["kernels"][0]["gpu_sim_insn"] / r["cycles"], 4)


def gpusched(*args):
    return subprocess.run([sys.executable, "-c", "from gpusched.cli import main; main()", *args],
                          capture_output=True, text=True)


def test_cli_accelsim_format_agrees_with_json(tmp_path):
    d = write_trace_dir(tmp_path, [build_kernel(rich_spec(grid=(3, 2)), seed=1)])
    args = ("run", "--preset", "tiny", "--trace", str(d))
    text = gpusched(*args, "--format", "accelsim")
    j = json.loads(gpusched(*args, "--json").stdout)
    assert text.returncode == 0, text.stderr
    kv = dict(line.split(" = ", 1) for line in text.stdout.splitlines() if " = " in line)
    assert int(kv["gpu_sim_cycle"]) == j["cycles"] == j["accelsim"]["total"]["gpu_tot_sim_cycle"]
    assert int(kv["gpgpu_n_tot_w_icount"]) == j["warp_insts"]
    assert float(kv["gpu_ipc"]) == round(int(kv["gpu_sim_insn"]) / j["cycles"], 4)
    body, _, host = text.stdout.rstrip("\n").partition("\ngpgpu_simulation_time")
    assert format_accelsim(j["accelsim"]) == body           # the host's timing: text only
    assert "sec)" in host and "(inst/sec)" in host and "gpgpu_simulation_time" not in json.dumps(j)
    bad = gpusched(*args, "--format", "csv")
    assert bad.returncode == 2 and "--format" in bad.stderr


# the statistics Accel-Sim's util/job_launching/stats/example_stats.yml collects by default
# (the keys of its regexes; get_stats.py reads the last value printed)
GET_STATS_KEYS = (
    "gpu_tot_sim_insn", "gpu_tot_sim_cycle", "gpgpu_n_tot_w_icount", "total dram reads",
    "total dram writes", "kernel_launch_uid", "gpgpu_n_shmem_bkconflict", "gpu_ipc",
    "gpu_occupancy", "L2_BW", "gpu_tot_ipc",
    *(f"{c}[GLOBAL_ACC_{k}][{s}]" for c in ("L2_cache_stats_breakdown",
                                            "Total_core_cache_stats_breakdown")
      for k in "RW" for s in ("HIT", "TOTAL_ACCESS")),
    "Total_core_cache_stats_breakdown[GLOBAL_ACC_R][MSHR_HIT]",
    "gpgpu_simulation_time", "gpgpu_simulation_rate", "gpgpu_silicon_slowdown")


def test_the_keys_get_stats_collects_by_default_are_printed(tmp_path):
    d = write_trace_dir(tmp_path, [build_kernel(rich_spec(), seed=1)])
    out = gpusched("run", "--preset", "titanx", "--trace", str(d), "--format", "accelsim").stdout
    printed = {line.split("=")[0].strip() for line in out.splitlines() if "=" in line}
    assert set(GET_STATS_KEYS) <= printed, set(GET_STATS_KEYS) - printed


def stream(cta: int, warp: int, op: Op, passes: int = 1):
    """``passes`` sweeps of ``op`` over 4 lines per warp, every lane of a line's 4 sectors."""
    base = (cta * 4 + warp) * 512
    pc = 0
    for _ in range(passes):
        for line in range(4):
            yield Instr(op, (2,) if op == Op.LDG else (), (1,),
                        tuple(base + line * 128 + 4 * j for j in range(32)), pc=pc)
            pc += 8
    yield Instr(Op.EXIT, pc=pc)


def breakdown(op: Op, passes: int, preset: str = "titanx", kernels: int = 1) -> dict:
    cfg = get_preset(preset)
    ks = [Kernel(f"k{i}", (2, 1, 1), (128, 1, 1), 16, 0,
                 lambda c, w: stream(c, w, op, passes)) for i in range(kernels)]
    wl = Workload("w", ks)
    r = simulate(cfg, wl, memory="hierarchy")
    return accelsim_stats(r, wl, cfg.l1.bypass_global_loads, cfg.core_clock_mhz)


def test_l2_breakdown_counts_sectors_as_accel_sims_sectored_cache():
    """Stores of 4 full lines per warp, twice: the first sector of a line is a MISS, its other
    3 SECTOR_MISSes, and the second pass HITs (the write-back L2 allocated the lines)."""
    warps, lines = 2 * 4, 4
    t = breakdown(Op.STG, 2)["total"]
    assert t["L2_cache_stats_breakdown[GLOBAL_ACC_W][MISS]"] == warps * lines
    assert t["L2_cache_stats_breakdown[GLOBAL_ACC_W][SECTOR_MISS]"] == warps * lines * 3
    assert t["L2_cache_stats_breakdown[GLOBAL_ACC_W][HIT]"] == warps * lines * 4
    assert t["L2_cache_stats_breakdown[GLOBAL_ACC_W][TOTAL_ACCESS]"] == 2 * warps * lines * 4
    assert t["L2_total_cache_accesses"] == 2 * warps * lines * 4
    assert t["Total_core_cache_stats_breakdown[GLOBAL_ACC_W][TOTAL_ACCESS]"] == 0   # bypassed


def test_l1_breakdown_where_loads_use_the_l1():
    """gtx480's L1 takes global loads: a second pass over the same lines hits every sector."""
    t = breakdown(Op.LDG, 2, "gtx480")["total"]
    warps, sectors = 2 * 4, 4 * 4
    assert t["Total_core_cache_stats_breakdown[GLOBAL_ACC_R][HIT]"] == warps * sectors
    assert t["Total_core_cache_stats_breakdown[GLOBAL_ACC_R][TOTAL_ACCESS]"] == 2 * warps * sectors
    assert t["L1D_total_cache_accesses"] == 2 * warps * sectors
    assert t["L2_cache_stats_breakdown[GLOBAL_ACC_R][TOTAL_ACCESS]"] == warps * sectors


def test_per_kernel_blocks_are_cumulative_as_accel_sim_prints_them():
    s = breakdown(Op.LDG, 1, kernels=2)
    a, b = s["kernels"]
    assert (a["kernel_launch_uid"], b["kernel_launch_uid"]) == (1, 2)
    assert b["gpu_tot_sim_insn"] == a["gpu_sim_insn"] + b["gpu_sim_insn"]
    assert b["gpgpu_n_tot_w_icount"] == 2 * a["gpgpu_n_tot_w_icount"]
    # the two kernels overlap here (no stream): the first block holds what was done by its end
    assert a["L2_total_cache_accesses"] <= b["L2_total_cache_accesses"] == 2 * 8 * 16
    assert s["total"]["total dram reads"] == b["total dram reads"]
