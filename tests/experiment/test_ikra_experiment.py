"""experiments/ikra.py: its grids are valid, its metrics follow the documented formulas."""

import pytest

from gpusched.config import get_preset
from gpusched.experiment.query import ResultSet
from gpusched.experiment.registry import get_experiment


def test_grids_check_and_cover_every_policy():
    exp = get_experiment("ikra")
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
    from experiments.ikra import EXPERIMENT, steals
    rows = [{"cta_scheduler": "ikra_steal", "workload": w, "steals": n}
            for w, n in (("ikra_hotspot", 0), ("ikra_pathfinder", 0),
                         ("ikra_graph_coloring", 3))]
    rows += [{"cta_scheduler": "ikra_flip", "workload": "ikra_hotspot", "steals": None}]
    results = ResultSet(rows)
    regular, irregular = EXPERIMENT.headline[0], EXPERIMENT.headline[3]
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
