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
