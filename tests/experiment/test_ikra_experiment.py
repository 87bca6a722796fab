"""experiments/ikra.py: its grids (programs and catalogue) are valid, its metrics follow the
documented formulas, one program point runs through the ``ikra_program`` kind."""

import pytest

from gpusched.config import get_preset
from gpusched.experiment.query import ResultSet
from gpusched.experiment.registry import get_experiment


def test_grids_check_and_cover_every_policy():
    exp = get_experiment("ikra", catalogue=True)
    for grid in (exp.grid, exp.quick):
        points = grid.check()           # unknown workloads / policy names would raise here
        assert {p.params["cta_scheduler"] for p in points} == {
            "ikra_rr", "ikra_chunk", "ikra_reset", "ikra_flip", "ikra_steal"}


def test_metrics_from_a_real_run():
    from experiments.ikra import energy_uj, traffic_kb
    from sim.run import simulate
    from sim.workload.catalogue import get_workload
    cfg = get_preset("ikra_15cu")
    stats = simulate(cfg, get_workload("ikra_hotspot", scale=0.1), memory="hierarchy",
                     cta_scheduler="ikra_reset")
    icnt = stats["memory"]["icnt"]
    want = (stats["energy"]["memory_pj"] + stats["warp_insts"] * cfg.energy.warp_inst_pj) / 1e6
    assert energy_uj(stats) == pytest.approx(want) and energy_uj(stats) > 0
    assert traffic_kb(stats) == pytest.approx((icnt["up"]["bytes"] + icnt["down"]["bytes"]) / 1024)


def test_steal_over_rr_is_an_arithmetic_mean_of_ratios():
    from experiments.ikra import _vs_rr
    rows = [{"workload": "a", "cta_scheduler": "ikra_rr", "cycles": 100},
            {"workload": "a", "cta_scheduler": "ikra_steal", "cycles": 50},
            {"workload": "b", "cta_scheduler": "ikra_rr", "cycles": 100},
            {"workload": "b", "cta_scheduler": "ikra_steal", "cycles": 100}]
    assert _vs_rr("cycles", ["a", "b", "missing"])(ResultSet(rows)) == pytest.approx(0.75)


def test_the_headline_says_when_no_steal_fired():
    """Without one steal, Steal places every CTA as Flip does: the headline must say so."""
    from experiments.ikra import CATALOGUE, steals
    rows = [{"cta_scheduler": "ikra_steal", "workload": w, "steals": n}
            for w, n in (("ikra_hotspot", 0), ("ikra_pathfinder", 0),
                         ("ikra_graph_coloring", 3))]
    rows += [{"cta_scheduler": "ikra_flip", "workload": "ikra_hotspot", "steals": None}]
    results = ResultSet(rows)
    regular, irregular = CATALOGUE.headline[0], CATALOGUE.headline[3]
    assert "no steal fired in any of the 2 Steal runs" in regular.caveat(results)
    assert "Flip/G" in regular.caveat(results)
    assert irregular.caveat(results) == "3 CTAs stolen over 1 Steal runs"
    report = {"policy": "steal", "stats": {"steals_queue": 2, "steals_chunk": 5}}
    assert steals({"policy_reports": {"cta_scheduler": report}}) == 7
    assert steals({"policy_reports": {"cta_scheduler": {"policy": "flip", "stats": {}}}}) is None


def test_legends_and_tables_use_the_papers_names():
    exp = get_experiment("ikra")
    assert [exp.display("cta_scheduler", p) for p in
            ("ikra_rr", "ikra_chunk", "ikra_reset", "ikra_flip", "ikra_steal")] == \
        ["G", "Chunk", "Reset", "Flip", "Steal"]


def test_program_grids_name_the_papers_17_programs_and_check():
    """[IKRA]: 8 regular, 4 irregular (each on cond_mat and olesnik0) and 5 non-iterative apps,
    every one a suite program whose INFO names ikra with that label."""
    from experiments.ikra import (IRREGULAR_PROGRAMS, NONITERATIVE_PROGRAMS, PROGRAMS,
                                  REGULAR_PROGRAMS)
    from sim.workload.program import load_module, program_path
    assert (len(REGULAR_PROGRAMS), len(IRREGULAR_PROGRAMS), len(NONITERATIVE_PROGRAMS)) == (8, 8, 5)
    names = {w.split(":")[1] for w in PROGRAMS.values()}
    assert len(names) == 17
    for label, w in PROGRAMS.items():
        assert label.startswith(load_module(program_path(w)).INFO["papers"]["ikra"])
    exp = get_experiment("ikra")
    full, quick = exp.grid.check(), exp.quick.check()
    assert {p.workload for p in full} == set(PROGRAMS.values())
    for points in (full, quick):
        assert {p.params["cta_scheduler"] for p in points} == {
            "ikra_rr", "ikra_chunk", "ikra_reset", "ikra_flip", "ikra_steal"}
    assert all(p.kind == "ikra_program" and p.overrides == {"sm.count": 3} for p in quick)


def test_bad_program_point_is_a_config_error():
    from experiments.ikra_program_runs import check_point
    from gpusched.config import ConfigError
    from gpusched.experiment.point import Point
    bad = [{"cta_scheduler": "ikra_nope", "scale": 0.1}, {"cta_scheduler": "ikra_rr", "x": 1},
           {"cta_scheduler": "ikra_rr", "scale": "steal_quick"}]
    for params in bad:
        with pytest.raises(ConfigError):
            check_point(Point(preset="ikra_15cu", workload="program:nw", kind="ikra_program",
                              params=params))


def test_one_program_point_runs_and_records_its_tbs():
    """A tiny program point through the kind: the policy's report, the kernels' TB counts."""
    from experiments.ikra import steals
    from experiments.ikra_program_runs import run_point
    from gpusched.experiment.point import Point
    from sim.run import load_workload
    point = Point(preset="ikra_15cu", workload="program:hotspot", kind="ikra_program",
                  overrides={"sm.count": 3}, params={"cta_scheduler": "ikra_steal",
                                                      "scale": 0.02})
    stats = run_point(point)
    kernels = load_workload("program:hotspot", seed=0, scale=0.02).kernels
    tbs = [k.grid[0] * k.grid[1] * k.grid[2] for k in kernels]
    assert stats["setup"]["kernels"] == len(kernels) and stats["setup"]["tbs_max"] == max(tbs)
    assert steals(stats) is not None and stats["cycles"] > 0
