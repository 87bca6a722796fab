"""experiments/perfsat.py (+ sim/policies/fixed_limit.py): grids, the [THESIS Table 4.2] oracle
rule, the accuracy / saving formulas on synthetic rows, and the fixed limit on a real run."""

import pytest

from gpusched.experiment.query import ResultSet
from gpusched.experiment.registry import get_experiment

QUARTER = {"sm.count": 4, "dram.channels": 3, "l2.slices": 3, "dram.bank_bit": 13,
           "dram.row_bit": 16}


def test_grids_sweep_every_limit_below_n_max():
    from experiments.perfsat import n_max
    exp = get_experiment("perfsat", catalogue=True)
    for grid in (exp.grid, exp.quick):
        points = grid.check()
        for w in grid.workloads:
            limits = {p.params["cta_limit"] for p in points if p.workload == w}
            assert limits == {"max_occupancy", "perf_sat"} | {f"ctas_{n}"
                                                              for n in range(1, n_max(w))}
    # occupancy of the thesis preset (48 warps, 8 CTA slots, 32 K registers)
    assert n_max("perfsat_c_weak") == 1536 // 256
    assert n_max("perfsat_gaussian") == 8


def test_oracle_is_the_count_beyond_which_one_more_cta_gains_under_two_percent():
    from experiments.perfsat import oracle_limit
    assert oracle_limit({1: 1.0, 2: 1.5, 3: 1.8, 4: 1.83, 5: 1.9, 6: 1.95}) == 3
    assert oracle_limit({1: 1.0, 2: 1.2, 3: 1.3, 4: 1.4}) == 4           # C-strong: N_max
    assert oracle_limit({1: 1.0, 2: 1.6, 3: 1.7, 4: 1.5, 5: 1.4}) == 3   # MEM: drops after 3


def _rows():
    rows = []
    for n, ipc in {1: 1.0, 2: 1.6, 3: 1.7, 4: 1.72, 5: 1.6}.items():
        rows.append({"workload": "k", "cta_limit": f"ctas_{n}", "steady_ipc": ipc,
                     "limit_mean": n})
    rows.append({"workload": "k", "cta_limit": "max_occupancy", "steady_ipc": 1.5,
                 "limit_mean": 6, "n_max": 6, "mean_ctas": 5.5, "cycles": 1000})
    rows.append({"workload": "k", "cta_limit": "perf_sat", "steady_ipc": 1.7, "limit_mean": 3.5,
                 "mean_ctas": 3.3, "cycles": 990})
    return ResultSet(rows)


def test_accuracy_and_savings_follow_section_9_2():
    from experiments.perfsat import (accuracy, limit_curve, limit_saving, oracle_of,
                                     perf_retained, residency_saving)
    rs = _rows()
    assert limit_curve(rs, "k")[6] == 1.5          # the baseline is the curve's N_max point
    assert oracle_of(rs, "k") == 3
    assert accuracy(rs, "k") == pytest.approx(100 * (1 - 0.5 / 3))
    assert limit_saving(rs, "k") == pytest.approx(100 * (1 - 3.5 / 6))
    assert limit_saving(rs, "k", "oracle") == pytest.approx(50.0)
    assert residency_saving(rs, "k") == pytest.approx(40.0)
    assert perf_retained(rs, "k") == pytest.approx(100 * 1000 / 990)


def test_limit_mean_reads_each_policy_report():
    from experiments.perfsat import limit_mean, settled_share
    kern = [{"ctas": 10, "occupancy_limit": 6}]
    assert limit_mean({"kernels": kern, "policy_reports": {}}) == 6
    assert limit_mean({"kernels": kern, "policy_reports": {"cta_limit": {"n": 9}}}) == 6
    report = {"limits": [(0, 0, 3), (0, 1, 3), (50, 0, 4), (80, 1, 2)],
              "kernels": [{"sm": 0, "limit": 5}, {"sm": 1, "limit": None}]}
    stats = {"kernels": kern, "policy_reports": {"cta_limit": report}}
    assert limit_mean(stats) == pytest.approx((5 + 2) / 2)   # SM 1 never settled: last limit
    assert settled_share(stats) == 0.5


def test_fixed_limit_caps_resident_ctas():
    from experiments.perfsat import limit_mean, mean_ctas
    from experiments.thesis_runs import run_thesis_model
    from gpusched.experiment.point import Point
    stats = run_thesis_model(Point("thesis", "perfsat_gaussian", 0, QUARTER,
                                   {"scale": 0.25, "waves": 3, "cta_limit": "ctas_2"}))
    assert stats["kernels"][0]["ctas"] == 3 * 8 * 4      # 3 waves × N_max 8 × 4 SMs
    assert limit_mean(stats) == 2
    assert 0 < mean_ctas(stats) <= 2.0


# ---- the program suite (experiments/perfsat_programs.py) ----------------------------------------

def test_program_grids_sweep_each_table_4_2_kernel_below_its_n_max():
    from experiments.perfsat_programs import KERNELS, OUR_N_MAX
    from experiments.phase_program_runs import program_kernels
    exp = get_experiment("perfsat")
    for grid in (exp.grid, exp.quick):
        points = grid.check()
        for p in points:
            assert p.params["kernel"] in program_kernels(p.workload)
        labels = {(p.workload.removeprefix("program:"), p.params["kernel"]) for p in points}
        for label, key in KERNELS.items():
            if key not in labels:
                continue
            limits = {p.params["cta_limit"] for p in points
                      if (p.workload.removeprefix("program:"), p.params["kernel"]) == key}
            assert limits == {"max_occupancy", "perf_sat"} | {
                f"ctas_{n}" for n in range(1, OUR_N_MAX[label])}
    # every Table 4.2 row is a kernel of a program whose INFO names it for thesis_ch4
    assert len(KERNELS) == 16 and {p.params["kernel"] for p in exp.grid.points()} == {
        k for _, k in KERNELS.values()}


@pytest.mark.parametrize("label", ["BP-1", "BP-2", "B+-1", "NN", "SRAD-4", "Gaussian"])
def test_our_n_max_is_the_occupancy_limit_of_the_programs_kernel(label):
    from experiments.perfsat_programs import KERNELS, OUR_N_MAX, n_max
    from workloads import programs
    prog = KERNELS[label][0]
    assert n_max(label, programs.load(prog).INFO["quick_scale"]) == OUR_N_MAX[label]


def test_decisions_take_the_settled_limit_or_the_last_one_of_the_launch():
    from experiments.perfsat_program_runs import decisions
    report = {"limits": [(0, 0, 3), (40, 0, 4), (100, 0, 3), (130, 0, 2), (0, 1, 3),
                         (60, 1, 5)],
              "kernels": [{"sm": 0, "start": 0, "limit": None},      # ends at 100: last 4
                          {"sm": 0, "start": 100, "limit": 2},
                          {"sm": 1, "start": 0, "limit": None}]}     # last 5
    got = decisions(report)
    assert got["mean"] == pytest.approx((4 + 2 + 5) / 3)
    assert got["settled"] == pytest.approx(1 / 3) and got["records"] == 3


def test_kernel_row_accuracy_against_the_sweeps_oracle():
    from experiments.perfsat_programs import KERNELS, kernel_row
    prog, kernel = KERNELS["NN"]
    rows = [{"workload": f"program:{prog}", "kernel": kernel, "cta_limit": f"ctas_{n}",
             "ipc": ipc, "cycles": 100} for n, ipc in {1: 1.0, 2: 1.5, 3: 1.52, 4: 1.53,
                                                       5: 1.5}.items()]
    rows.append({"workload": f"program:{prog}", "kernel": kernel, "cta_limit": "max_occupancy",
                 "ipc": 1.49, "n_max": 6, "cycles": 100})
    rows.append({"workload": f"program:{prog}", "kernel": kernel, "cta_limit": "perf_sat",
                 "ipc": 1.5, "n_det": 3.0, "settled": 1.0, "cycles": 100})
    r = kernel_row(ResultSet(rows), "NN")
    assert (r["n_opt"], r["type"]) == (2, "C-weak")
    assert r["accuracy"] == pytest.approx(100 * (1 - 1 / 2))
    assert r["saving"] == pytest.approx(50.0)


def test_harmonic_and_geometric_means_refuse_a_negative_accuracy():
    from experiments.perfsat_programs import mean_of
    assert mean_of([50.0, 100.0], "harm") == pytest.approx(2 / (1 / 50 + 1 / 100))
    assert mean_of([-25.0, 100.0], "arith") == pytest.approx(37.5)
    assert mean_of([-25.0, 100.0], "geo") != mean_of([-25.0, 100.0], "geo")    # nan
    with pytest.raises(ValueError, match="≤ 0"):
        mean_of([-25.0, 100.0], "harm", strict=True)


def test_one_program_point_runs_and_reports_perf_sats_decisions():
    from experiments.perfsat_program_runs import run_point
    from gpusched.experiment.point import Point
    stats = run_point(Point("thesis", "program:nn", 0, QUARTER,
                            {"kernel": "nn_distance", "scale": 0.01, "cta_limit": "perf_sat"},
                            kind="perfsat_program"))
    d = stats["perf_sat_decisions"]
    assert d["records"] == QUARTER["sm.count"]          # one launch, one detection per SM
    assert 1 <= d["mean"] <= stats["kernels"][0]["occupancy_limit"]
