"""experiments/socgpu.py: grids (programs and catalogue), the ``socgpu`` runner kind, metrics and
headline formulas."""

from __future__ import annotations

import math

import pytest

from gpusched.config import get_preset, with_overrides
from gpusched.experiment.point import Point
from gpusched.experiment.query import ResultSet
from gpusched.experiment.registry import get_experiment


def test_grids_check_and_cover_the_headline_variants():
    exp = get_experiment("socgpu", catalogue=True)
    from experiments.socgpu import VARIANTS
    full, quick = exp.grid.check(), exp.quick.check()
    assert {p.params["variant"] for p in full} == set(VARIANTS)
    assert {"baseline", "socgpu", "socgpu_n2", "socgpu_n16"} <= {p.params["variant"] for p in quick}
    assert all(p.kind == "socgpu" and p.overrides["sm.count"] == 5 for p in full + quick)
    assert len({p.workload for p in full}) == 18          # 6 DeepBench + 12 Rodinia ([SOCGPU])


def test_sweep_axes_follow_the_spec_order():
    """Plot axes are first-seen levels in grid order: N ascending, warps 64 → 32, dual labels
    baseline single/dual then SOCGPU single/dual/smart."""
    from experiments.socgpu import VARIANTS, setup
    rows = [setup(v) for v in VARIANTS]
    levels = lambda k: list(dict.fromkeys(r[k] for r in rows))
    assert levels("N") == [2, 4, 8, 16, 32, 64]
    assert levels("warps") == [64, 48, 32]
    assert levels("policy") == ["first", "oldest", "youngest", "most_ready", "least_ready",
                                "random"]
    assert levels("dual") == ["in-order single", "in-order dual", "SOC single", "SOC dual",
                              "SOC smart"]
    cfg = with_overrides(get_preset("gp102"),
                         [f"{k}={v}" for k, v in VARIANTS["socgpu_w32"].items()])
    assert cfg.sm.regs_per_sm == 32768 and cfg.sm.warps_per_sm == 32     # our parameter list: regs scaled


def test_runner_kind_reports_speedup_and_energy_against_its_baseline():
    from experiments.socgpu import ISSUE_POWER_UW, run_point
    from sim.run import simulate
    from sim.workload.catalogue import get_workload
    point = Point(preset="tiny", workload="sg_lud", kind="socgpu",
                  params={"variant": "socgpu", "scale": 0.05})
    stats = run_point(point)
    base_cfg = with_overrides(get_preset("tiny"), ["sm.issue=inorder_issue", "sm.dual_issue=true"])
    base = simulate(base_cfg, get_workload("sg_lud", scale=0.05), memory="hierarchy")
    assert stats["vs_baseline"]["baseline_cycles"] == base["cycles"]
    assert stats["vs_baseline"]["speedup"] == pytest.approx(base["cycles"] / stats["cycles"])
    assert stats["issue_stage"]["kind"] == "socgpu" and stats["setup"]["N"] == 8
    # our choice: energy = static + issue power × time + dynamic events
    cfg = with_overrides(get_preset("tiny"), ["sm.issue=socgpu", "sm.ib_entries=8",
                                              "sm.dual_issue=true"])
    e, n_sm, t = cfg.energy, cfg.sm.count, stats["cycles"] / (cfg.core_clock_mhz * 1e6)
    static_w = (e.sm_static_mw * n_sm + e.uncore_static_mw * n_sm / 28) * 1e-3
    issue_w = ISSUE_POWER_UW["socgpu"] * 1e-6 * cfg.sm.warps_per_sm * n_sm
    dynamic_j = (stats["energy"]["memory_pj"] + stats["warp_insts"] * e.warp_inst_pj) * 1e-12
    assert stats["energy_j"] == pytest.approx((static_w + issue_w) * t + dynamic_j, rel=1e-9)


def test_sweep_metrics_are_defined_only_on_their_variants():
    exp = get_experiment("socgpu", catalogue=True)
    stats = lambda v: {"setup": {"variant": v}, "vs_baseline": {"speedup": 1.5, "energy": 0.9}}
    assert exp.metric("speedup_n").value(stats("socgpu_n16")) == 1.5
    assert exp.metric("speedup_n").value(stats("socgpu_oldest")) is None
    assert exp.metric("speedup_dual").value(stats("baseline_single")) == 1.5
    assert exp.metric("energy_main").value(stats("socgpu")) == 0.9


def test_headline_is_the_arithmetic_mean_of_per_workload_ratios():
    from experiments.socgpu import _losers, _mean_ratio, _worst
    rows = [{"workload": "a", "variant": "socgpu", "vs_baseline.speedup": 2.0},
            {"workload": "b", "variant": "socgpu", "vs_baseline.speedup": 0.5},
            {"workload": "a", "variant": "socgpu_n2", "vs_baseline.speedup": 9.0}]
    rs = ResultSet(rows)
    assert _mean_ratio("socgpu")(rs) == pytest.approx(1.25)
    assert _mean_ratio("socgpu", geo=True)(rs) == pytest.approx(1.0)
    assert _mean_ratio("socgpu", mean="harm")(rs) == pytest.approx(2 / (1 / 2.0 + 1 / 0.5))
    assert _worst(rs) == 0.5
    assert _losers(rs) == 1
    assert math.isnan(_losers(ResultSet([])))


def test_program_grids_name_the_papers_22_benchmarks_from_the_suite():
    """[SOCGPU]: 14 Rodinia applications and 8 DeepBench layers (4 kinds × train/inference); every
    suite program that names socgpu is used, and only those."""
    from experiments.socgpu import PROGRAMS, PROGRAM_QUICK
    from sim.workload.program import split_options
    from workloads import programs
    exp = get_experiment("socgpu")
    full, quick = exp.grid.check(), exp.quick.check()
    assert len(PROGRAMS) == 22 and {p.workload for p in full} == set(PROGRAMS.values())
    assert {p.workload for p in quick} == {PROGRAMS[p] for p in PROGRAM_QUICK}
    used = {split_options(w)[0][len("program:"):] for w in PROGRAMS.values()}
    assert used == {n for n in programs.names() if "socgpu" in programs.load(n).INFO["papers"]}
    suites = [programs.load(split_options(w)[0][len("program:"):]).INFO["suite"]
              for w in PROGRAMS.values()]
    assert suites.count("Rodinia") == 14 and suites.count("DeepBench") == 8
    assert all(p.preset == "gp102" and "sm.count" not in p.overrides for p in full)
    assert all(p.params["scale"] == "default" and p.params["variant"] == "socgpu" for p in full)
    assert all(p.params["scale"] == "quick" and p.overrides["sm.count"] == 5 for p in quick)
    assert exp.display("workload", PROGRAMS["gemm-train"]) == "gemm-train"


def test_a_tiny_program_point_runs_against_its_baseline():
    from experiments.socgpu import run_point
    point = Point(preset="tiny", workload="program:deepbench_gemm:mode=infer", kind="socgpu",
                  params={"variant": "socgpu_n2", "scale": 0.01})
    stats = run_point(point)
    assert stats["issue_stage"]["kind"] == "socgpu" and stats["setup"]["scale"] == 0.01
    assert [k["name"] for k in stats["kernels"]] == ["gemm_infer"]      # the option's one layer
    assert stats["vs_baseline"]["speedup"] == pytest.approx(
        stats["vs_baseline"]["baseline_cycles"] / stats["cycles"])


def test_program_scale_names_resolve_to_the_programs_info():
    from experiments.socgpu_runs import resolve_scale
    from gpusched.config import ConfigError
    from workloads import programs
    info = programs.load("hotspot").INFO
    assert resolve_scale("program:hotspot", "quick") == info["quick_scale"]
    assert resolve_scale("program:hotspot", "default") == info["default_scale"]
    assert resolve_scale("sg_lud", 0.5) == 0.5
    with pytest.raises(ConfigError):
        resolve_scale("sg_lud", "quick")
