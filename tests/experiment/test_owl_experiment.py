"""experiments/owl.py on the catalogue archetypes (``CATALOGUE``): scheme points run the scheme's configuration, the headline arithmetic,
and a tiny end-to-end reproduction (2 schemes + Perfect-L2, 1 workload, small scale)."""

from __future__ import annotations

import dataclasses
import math

import pytest

from experiments import owl
from gpusched.config import ConfigError
from gpusched.experiment.grid import Grid
from gpusched.experiment.point import Point
from gpusched.experiment.query import ResultSet


def _rows(ipc: dict[tuple[str, str], float]) -> ResultSet:
    return ResultSet([{"scheme": s, "workload": w, "ipc": v} for (s, w), v in ipc.items()])


def test_means_are_arithmetic_harmonic_and_geometric_over_workloads():
    rs = _rows({("rr", "a"): 1.0, ("owl", "a"): 2.0, ("rr", "b"): 2.0, ("owl", "b"): 2.0})
    assert owl.gain("owl", workloads=["a", "b"])(rs) == pytest.approx(50.0)
    assert owl.gain("owl", kind="harm", workloads=["a", "b"])(rs) == pytest.approx(100 * (4 / 3 - 1))
    assert owl.gain("owl", kind="geo", workloads=["a", "b"])(rs) == pytest.approx(
        100 * (math.sqrt(2) - 1))
    # a workload without its baseline run does not enter the mean
    assert owl.per_workload(rs, "owl", "rr", ["a", "b", "c"]) == [2.0, 1.0]


def test_perfect_gap_and_type2_worst():
    rows = {("rr", w): 1.0 for w in owl.TYPE1 + owl.TYPE2}
    rows.update({("owl", w): 1.2 for w in owl.TYPE1})
    rows.update({("perfect_l2", w): 1.5 for w in owl.TYPE1})
    rows.update({("owl", owl.TYPE2[0]): 0.9, ("owl", owl.TYPE2[1]): 1.0})
    rs = _rows(rows)
    assert owl.gap_to_perfect_l2(rs) == pytest.approx(20.0)
    assert owl.type2_worst(rs) == pytest.approx(-10.0)


def test_l1_miss():
    stats = {"memory": {"l1": {"hit_rate": 0.25}}}
    assert owl.l1_miss_pct(stats) == pytest.approx(75.0)
    assert owl.l1_miss_pct({}) is None


def test_unknown_scheme_is_a_one_line_error():
    point = Point(preset="owl", workload="owl_t_compute", seed=0, overrides={},
                  params={"scheme": "fastest", "scale": 0.05}, kind="owl")
    with pytest.raises(ConfigError, match="scheme"):
        owl.check_point(point)


def test_every_scheme_resolves_to_a_valid_configuration():
    grid = dataclasses.replace(owl.CATALOGUE.quick, workloads=["owl_t_compute"])
    assert len(grid.check()) == len(owl.SCHEMES)


def test_tiny_grid_runs_each_scheme_with_its_configuration():
    """RR, +BLP and Perfect-L2 on one archetype at a small scale: the stats name the scheme's
    warp scheduler, and Perfect-L2 never touches DRAM."""
    from gpusched.experiment.runners import get_kind
    kind = get_kind("owl")
    out = {}
    for scheme in ("rr", "blp", "perfect_l2"):
        point = Point(preset="owl", workload="owl_t_stream_shared", seed=0, overrides={},
                      params={"scheme": scheme, "scale": 0.05}, kind="owl")
        out[scheme] = kind.run(point)
    assert out["rr"]["warp_sched"] == "lrr" and out["blp"]["warp_sched"] == "owl_blp_rot"
    assert out["blp"]["scheme"] == "blp"
    assert out["rr"]["memory"]["dram"]["reads"] > 0
    assert out["perfect_l2"]["memory"]["dram"]["reads"] == 0
    assert out["perfect_l2"]["ipc"] > out["rr"]["ipc"]
    rs = ResultSet([{"scheme": s, "workload": "w", "ipc": st["ipc"]} for s, st in out.items()])
    assert owl.gain("perfect_l2", workloads=["w"])(rs) > 0


def test_experiment_is_discoverable():
    from gpusched.experiment.registry import experiment_names, get_experiment
    assert "owl" in experiment_names()
    exp = get_experiment("owl", catalogue=True)
    assert exp.name == "owl-catalogue"
    assert isinstance(exp.grid, Grid) and exp.grid.kind == "owl"
    assert {m.name for m in exp.metrics} >= {"ipc", "l1_miss", "blp", "rbl", "mem_block"}
    assert get_experiment("owl").grid.kind == "owl_program"


def test_profiler_metrics_are_exact_or_absent_never_a_proxy():
    issue = {"issue": {"issued": 10, "memory": 30, "idle": 60, "issue_interval": 300},
             "scheme": "owl"}
    exact = {**issue, "owl": {"memory_block_fraction": 0.5, "memory_stall_fraction": 0.75,
                              "no_warp_fraction": 0.125, "cinv": 0.25,
                              "rbl": {"bank_mean": 0.75}}}
    metric = {m.name: m for m in owl.CATALOGUE.metrics}
    assert metric["mem_block"].value(exact) == pytest.approx(50.0)
    assert metric["mem_stall"].value(exact) == pytest.approx(75.0)
    assert metric["no_warp"].value(exact) == pytest.approx(12.5)
    assert metric["cinv"].value(exact) == pytest.approx(25.0)
    assert metric["rbl_bank"].value(exact) == pytest.approx(75.0)
    for name in ("mem_block", "mem_stall", "no_warp", "cinv"):
        assert metric[name].value(issue) is None        # issue-slot counts are not the counters


def test_the_stages_run_the_rotating_head_and_slot_static_groups_are_the_ablation():
    """Group refill: +Locality, +BLP and OWL run the rotating head ([OWL §4.2, Fig. 4B]); the
    slot-static ablations differ from them in the warp scheduler only."""
    assert owl.SCHEMES["locality"] == {"sm.warp_sched": "owl_locality_rot"}
    assert owl.SCHEMES["blp"] == {"sm.warp_sched": "owl_blp_rot"}
    assert owl.SCHEMES["owl"]["sm.warp_sched"] == "owl_blp_rot"
    assert owl.SCHEMES["locality_static"] == {"sm.warp_sched": "owl_locality"}
    assert owl.SCHEMES["blp_static"] == {"sm.warp_sched": "owl_blp"}
    points = owl.CATALOGUE.grid.points()
    assert {p.params["scheme"] for p in points} >= {"locality_static", "blp_static"}


def test_rr_points_carry_the_table_4_row_profile():
    from gpusched.experiment.runners import get_kind
    kind = get_kind("owl")
    point = Point(preset="owl", workload="owl_t_mixed", seed=0, overrides={},
                  params={"scheme": "rr", "scale": 0.1}, kind="owl")
    stats = kind.run(point)
    rows = stats["row_profile"]
    assert rows["ctas_per_row"] > 10 and rows["cons_cta_row_sharing"] > 0.9
    metric = {m.name: m for m in owl.CATALOGUE.metrics}
    assert metric["ctas_per_row"].value(stats) == pytest.approx(rows["ctas_per_row"])
    other = kind.run(dataclasses.replace(point, params={"scheme": "blp", "scale": 0.1}))
    assert "row_profile" not in other and metric["ctas_per_row"].value(other) is None


def test_prefetch_ablations_differ_from_owl_only_in_the_prefetcher():
    base = owl.SCHEMES["owl"]
    for name, field, value in (("owl_a", "dram.prefetch", "owl_a"),
                               ("owl_b_hi", "dram.prefetch_priority", "above_misses")):
        scheme = owl.SCHEMES[name]
        assert scheme[field] == value and scheme["sm.warp_sched"] == base["sm.warp_sched"]
        assert ({k: v for k, v in scheme.items() if k != field}
                == {k: v for k, v in base.items() if k != field})


@pytest.mark.parametrize("scale", [0.25, 1.0])
def test_irregular_variants_gather_within_their_scaled_footprint(scale):
    from sim.run import load_workload
    from sim.workload.kernel import Op
    k = load_workload("experiments/owl_irregular.py:footprint_4mb", seed=0, scale=scale).kernels[0]
    addrs = [a for w in range(8) for ins in k.stream(0, w) if ins.op == Op.LDG for a in ins.addrs]
    span = max(addrs) - min(addrs)
    assert 0.5 * 4 * (1 << 20) * scale < span <= 4 * (1 << 20) * scale
    bfs = load_workload("experiments/owl_irregular.py:bfs_like", seed=0, scale=scale).kernels[0]
    loads = [ins for ins in bfs.stream(0, 0) if ins.op == Op.LDG]
    assert len(loads) == 48                      # a streamed and a gathered load per trip


def test_plots_leave_out_groups_and_series_without_values():
    from gpusched.experiment.plots import _bar_values
    rows = [{"scheme": s, "workload": w, "ipc_t2": v}
            for s, w, v in (("rr", "owl_t_compute", 1.0), ("owl", "owl_t_compute", 1.1),
                            ("rr", "owl_t_reuse", None), ("perfect_l1", "owl_t_reuse", None))]
    spec = next(p for p in owl.CATALOGUE.plots if p.metric == "ipc_t2")
    xs, series, value, _, _ = _bar_values(owl.CATALOGUE, spec, ResultSet(rows))
    assert xs == ["owl_t_compute"] and sorted(series) == ["owl", "rr"]
    assert value[("owl_t_compute", "owl")] == pytest.approx(1.1)


def test_dram_bus_use_counts_reads_with_prefetches_and_writes():
    stats = {"cycles": 100, "scheme": "owl",
             "memory": {"dram": {"peak_bytes_per_cycle": 10.0, "bytes_read": 300,
                                 "bytes_written": 100, "prefetch_bytes": 100}}}
    assert owl.dram_busy_pct(stats) == pytest.approx(40.0)    # bytes_read holds the prefetches'
    from gpusched.experiment.point import Point
    from experiments.owl import run_point
    run = run_point(Point(preset="owl", workload="owl_t_stream_private", seed=0, overrides={},
                          params={"scheme": "owl", "scale": 0.05}, kind="owl"))
    assert run["memory"]["dram"]["prefetch_bytes"] > 0
    assert 0 < owl.dram_busy_pct(run) <= 100.0
    assert owl.dram_busy_pct({"cycles": 100, "memory": {}}) is None
