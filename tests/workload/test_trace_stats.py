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
    assert format_accelsim(j["accelsim"]) == text.stdout.rstrip("\n")
    bad = gpusched(*args, "--format", "csv")
    assert bad.returncode == 2 and "--format" in bad.stderr
