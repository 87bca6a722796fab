"""Every catalogue entry builds, is well formed and keeps barriers consistent within a CTA."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from gpusched.config import ConfigError
from sim.workload.catalogue import catalogue, estimate_warp_instructions, get_workload
from sim.workload.kernel import Op, Workload

from .helpers import check_stream, cta_lines, key, warp

NAMES = sorted(catalogue())
SCALE = 0.05


def test_catalogue_covers_the_specs_benchmarks():
    required = {"mem_stream", "cache_gto", "compute_only", "gemm_like", "conv_like", "rnn_like",
                "stencil_like", "graph_like", "mixed_like", "bp_k2_like", "srad_like",
                "btree_like", "cfd_like", "fwt_like", "heartwall_like", "onac_tp_like",
                "onac_bp_k2_like", "onac_bt_k2_like", "onac_compute", "perfsat_c_strong",
                "perfsat_c_weak", "perfsat_mem", "add_10_loops", "stream_3_words",
                "ikra_gpu_small", "ikra_gpu_medium", "ikra_gpu_large", "ikra_work_stealing",
                "ikra_hotspot", "ikra_pathfinder", "ikra_srad", "ikra_stencil", "ikra_kmeans",
                "ikra_graph_coloring", "owl_t_reuse", "owl_t_stream_shared",
                "owl_t_stream_private", "owl_t_irregular", "owl_t_compute"}
    assert required <= set(NAMES)
    assert all("mimics" in d and ":" in d for d in catalogue().values())


@pytest.mark.parametrize("name", NAMES)
def test_entry_streams_are_well_formed(name):
    wl = get_workload(name, seed=1, scale=SCALE)
    assert isinstance(wl, Workload) and wl.kernels
    for k in wl.kernels[:3]:
        for cta in sorted({0, k.n_ctas - 1}):
            bars = []
            for w in range(k.warps_per_cta()):
                s = warp(k, cta, w)
                check_stream(s, f"{name}/{k.name} cta {cta} warp {w}")
                bars.append(sum(i.op == Op.BAR for i in s))
            assert len(set(bars)) == 1, f"{name}/{k.name}: BAR counts differ per warp: {bars}"


def test_scale_shrinks_and_seed_reproduces():
    small, full = get_workload("gemm_like", scale=0.1), get_workload("gemm_like")
    assert small.kernels[0].n_ctas < full.kernels[0].n_ctas
    assert len(warp(small.kernels[0])) < len(warp(full.kernels[0]))
    a = get_workload("graph_like", seed=4, scale=0.1)
    b = get_workload("graph_like", seed=4, scale=0.1)
    assert [key(i) for i in warp(a.kernels[0], 2, 3)] == [key(i) for i in warp(b.kernels[0], 2, 3)]


def test_small_scale_makes_every_entry_quick():
    for name in NAMES:
        scale = 0.003 if name.startswith("ercb_") else 0.03   # [SRTF ERCBench]: up to 22 M cycles
        if name.startswith("add_"):     # [THESIS §5.3.1]: x (the loop count) is never scaled
            scale = 0.005
        total = sum(estimate_warp_instructions(k) for k in get_workload(name, scale=scale).kernels)
        assert total <= 30_000, (name, total)


def test_default_sizes_are_modest():
    for name in ("owl_t_reuse", "ikra_work_stealing", "cache_gto"):   # the largest entries
        total = sum(estimate_warp_instructions(k) for k in get_workload(name).kernels)
        assert 50_000 < total <= 2_000_000, (name, total)


def test_cache_gto_footprint_exceeds_l1_but_a_few_warps_fit():
    from gpusched.config import get_preset
    l1 = get_preset("gtx480").l1
    k = get_workload("cache_gto").kernels[0]
    per_warp = set()
    reads = 0
    for ins in warp(k, 0, 0):
        if ins.op == Op.LDG:
            per_warp |= {a // l1.line_bytes for a in ins.addrs}
            reads += 1
    footprint = len(per_warp) * l1.line_bytes
    assert reads / len(per_warp) == 16                      # each line read 16 times
    resident_warps = 48                                     # 6 CTAs × 8 warps (register-limited)
    assert resident_warps * footprint > l1.size_bytes       # all warps thrash the L1 …
    assert 16 * footprint <= l1.size_bytes                  # … a third of them fit


def test_iterative_buffers_are_swapped_between_launches():
    wl = get_workload("ikra_hotspot", scale=0.25)
    k0, k1 = wl.kernels[:2]
    out0 = cta_lines(k0, 3, ops=(Op.STG,))
    in1 = cta_lines(k1, 3, ops=(Op.LDG,))
    assert out0 <= in1                                       # self dependence ([IKRA])
    assert cta_lines(k1, 3, ops=(Op.STG,)) & cta_lines(k0, 3, ops=(Op.LDG,))
    assert k0.readonly_regions and all(a < b for a, b in k0.readonly_regions)


def test_unknown_name_lists_known_names():
    with pytest.raises(ConfigError) as e:
        get_workload("no_such_thing")
    assert "gemm_like" in str(e.value) and "owl_t_reuse" in str(e.value)
    with pytest.raises(ConfigError):
        get_workload("gemm_like", scale=0)


def test_parametric_names():
    assert get_workload("stream_7_words", scale=0.1).kernels[0].name == "stream_7_words"
    s5 = warp(get_workload("add_5_loops").kernels[0])
    s9 = warp(get_workload("add_9_loops").kernels[0])
    assert len(s9) - len(s5) == 4 * 41         # the calibrated iteration (ours, for [THESIS])


def test_cli_workloads_json():
    out = subprocess.run([sys.executable, "-c", "from gpusched.cli import main; main()",
                          "workloads", "--json", "--scale", "0.02"],
                         capture_output=True, text=True, check=True).stdout
    rows = json.loads(out)
    assert {r["name"] for r in rows} == set(NAMES)
    assert all(r["kernels"] >= 1 and r["ctas"] >= 1 and r["warp_instructions"] > 0 for r in rows)


def test_cli_bad_scale_is_one_line_exit_2():
    p = subprocess.run([sys.executable, "-c", "from gpusched.cli import main; main()",
                        "workloads", "--scale", "-1"], capture_output=True, text=True)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "scale" in p.stderr


def lru_hit_rate(warp_lines: list[list[int]], group: int, capacity_lines: int) -> float:
    """Hit rate of a fully associative LRU cache when warps run round-robin ``group`` at a time
    (group = all warps: loose round-robin; small group: a greedy scheduler's focus)."""
    from collections import OrderedDict
    cache: OrderedDict[int, None] = OrderedDict()
    hits = total = 0
    for g in range(0, len(warp_lines), group):
        seqs = warp_lines[g:g + group]
        for step in range(max(map(len, seqs))):
            for seq in seqs:
                if step < len(seq):
                    line = seq[step]
                    total += 1
                    if line in cache:
                        hits += 1
                        cache.move_to_end(line)
                    else:
                        cache[line] = None
                        if len(cache) > capacity_lines:
                            cache.popitem(last=False)
    return hits / total


def load_lines(kernel, ctas) -> list[list[int]]:
    return [[a // 128 for ins in kernel.stream(c, w) if ins.op == Op.LDG for a in ins.addrs[:1]]
            for c in ctas for w in range(kernel.warps_per_cta())]


L1_LINES = 16384 // 128          # gtx480 L1


def test_cache_gto_rewards_greedy_scheduling():
    seqs = load_lines(get_workload("cache_gto").kernels[0], range(6))     # 48 resident warps
    assert lru_hit_rate(seqs, 48, L1_LINES) < 0.1
    assert lru_hit_rate(seqs, 4, L1_LINES) > 0.8


def test_owl_reuse_and_perfsat_mem_thrash_beyond_a_few_ctas():
    reuse = get_workload("owl_t_reuse").kernels[0]
    assert reuse.warps_per_cta() == 6
    owl_l1 = 32768 // 128                                                 # the owl preset's L1
    seqs = load_lines(reuse, range(5))                # 5 CTAs × 8 KB: the owl core's 30 warps
    assert lru_hit_rate(seqs, 30, owl_l1) < 0.2
    assert lru_hit_rate(seqs, 12, owl_l1) > 0.6                          # a 2-CTA group fits
    mem = get_workload("perfsat_mem").kernels[0]                          # 5 KB per CTA
    assert lru_hit_rate(load_lines(mem, range(3)), 24, L1_LINES) > 0.75
    assert lru_hit_rate(load_lines(mem, range(6)), 48, L1_LINES) < 0.2


def test_cli_export_then_read_back(tmp_path):
    out = tmp_path / "trace"
    cli = [sys.executable, "-c", "from gpusched.cli import main; main()", "workloads"]
    subprocess.run(cli + ["--export", "stencil_like", "--scale", "0.02", "--out", str(out)],
                   check=True, capture_output=True)
    rows = json.loads(subprocess.run(cli + ["--trace", str(out), "--json"], check=True,
                                     capture_output=True, text=True).stdout)
    k = get_workload("stencil_like", scale=0.02).kernels[0]
    assert rows == [{"name": k.name, "grid": list(k.grid), "block": list(k.block),
                     "ctas": k.n_ctas, "regs_per_thread": k.regs_per_thread,
                     "smem_per_cta": k.smem_per_cta}]


def test_tile_ghost_reads_neighbours_outputs_of_the_previous_launch():
    k0, k1 = get_workload("ikra_tile_ghost").kernels[:2]
    t_lines, h_lines = 4096 // 128, 256 // 128
    written = {b: cta_lines(k0, b, ops=(Op.STG,)) for b in (4, 5, 6)}
    read = cta_lines(k1, 5, ops=(Op.LDG,))
    assert all(len(w) == t_lines for w in written.values())
    assert written[5] <= read and len(read) == t_lines + 2 * h_lines
    assert len(read & written[4]) == h_lines == len(read & written[6])
