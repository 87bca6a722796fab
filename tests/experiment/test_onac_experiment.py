"""experiments/onac.py (+ thesis_runs.py, sim/policies/fixed_active.py): grids, the oracle rule,
the energy calibration and headline formulas on synthetic rows, the fixed-active policy and the
long-grid runner on real runs, and one tiny end-to-end report."""

import dataclasses
import json

import pytest

from gpusched.experiment.query import ResultSet
from gpusched.experiment.registry import get_experiment

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
QUARTER = {"sm.count": 4, "dram.channels": 3, "l2.slices": 3, "dram.bank_bit": 13,
           "dram.row_bit": 16}


def test_grids_hold_controller_runs_and_a_full_oracle_sweep():
    exp = get_experiment("onac", catalogue=True)
    detectors = {"onac_skip3", "seq_det_skip3", "onac", "seq_det"}   # headline + spec default
    for grid, m in ((exp.grid, 32), (exp.quick, 8)):
        points = grid.check()
        for w in grid.workloads:
            ctrl = {p.params["sm_controller"] for p in points if p.workload == w}
            assert ctrl == {"all_active"} | detectors | {f"active_{n}" for n in range(1, m + 1)}
        long = {p.params["waves"] for p in points if p.params["sm_controller"] == "onac"}
        sweep = {p.params["waves"] for p in points if p.params["sm_controller"] == "active_1"}
        assert len(long) == len(sweep) == 1 and long.pop() > sweep.pop()


def test_headline_detectors_skip_the_ramp_up_and_the_spec_default_one_wave():
    """Headline rows use the ramp-up-matched skip, the spec-default rows one wave."""
    from experiments.onac import ONAC, RAMP_SKIP, SEQ_DET, SPEC_ONAC, SPEC_SEQ_DET
    from gpusched.config import get_preset
    from sim.policies import make_policy
    cfg = get_preset("thesis")
    for name, mode, k in ((ONAC, "onac", RAMP_SKIP), (SEQ_DET, "seq_det", RAMP_SKIP),
                          (SPEC_ONAC, "onac", 1), (SPEC_SEQ_DET, "seq_det", 1)):
        ctl = make_policy("sm_controller", name, cfg)
        assert (ctl.mode, ctl.skip_waves) == (mode, k)
    names = {h.metric for h in get_experiment("onac", catalogue=True).headline}
    assert {"type A: ONAC energy saving vs all SMs",
            "type A: ONAC energy saving, spec-default 1-wave skip"} <= names


def test_oracle_is_smallest_count_within_two_percent_of_all_sms():
    from experiments.onac import oracle_n
    saturating = {n: min(n, 10.0) for n in range(1, 33)}     # flat from 10 SMs on
    assert oracle_n(saturating) == 10
    scaling = {n: float(n) for n in range(1, 33)}              # 31/32 = 96.9 % < 98 %
    assert oracle_n(scaling) == 32
    # a dip above the threshold count does not matter: the smallest passing n wins
    bumpy = {1: 1.0, 2: 9.85, 3: 9.0, 4: 10.0}
    assert oracle_n(bumpy) == 2


def _rows():
    """Two kernels; ONAC gates SMs (less static), Seq-Det fewer; all numbers invented."""
    rows = []
    data = {  # controller: (e_dyn, e_static, cycles, detect_cycles, n_chosen)
        "onac_bp_k2_like": {"all_active": (60.0, 40.0, 1000, None, 32),
                            "onac_skip3": (60.0, 20.0, 1010, 100, 14),
                            "seq_det_skip3": (60.0, 30.0, 1005, 400, 20),
                            "onac": (60.0, 25.0, 1010, 300, 18),
                            "seq_det": (60.0, 30.0, 1005, 400, 20)},
        "onac_compute": {"all_active": (90.0, 40.0, 2000, None, 32),
                         "onac_skip3": (90.0, 42.0, 2040, 150, 32),
                         "seq_det_skip3": (90.0, 40.5, 2010, 50, 32)},
    }
    for w, ctrls in data.items():
        for c, (dyn, stat, cycles, det, n) in ctrls.items():
            rows.append({"workload": w, "sm_controller": c, "e_dyn": dyn, "e_static": stat,
                         "cycles": cycles, "detect_cycles": det, "n_chosen": n})
    for n in range(1, 33):
        rows.append({"workload": "onac_bp_k2_like", "sm_controller": f"active_{n}",
                     "steady_ipc": min(n, 12) / 12 * 10.0, "warp_insts": 100 if n < 32 else 50,
                     "e_dyn": 30.0 if n < 32 else 15.0, "e_static": 8.0 if n < 32 else 10.0})
    return ResultSet(rows)


def test_static_calibration_hits_the_requested_share():
    from experiments.onac import static_factor
    rs = _rows()
    for share in (0.3, 0.4, 0.5):
        k = static_factor(rs, share)
        assert k * 40.0 / (60.0 + k * 40.0) == pytest.approx(share)


def test_energy_performance_and_detection_formulas():
    from experiments.onac import (detection_reduction, energy_saving, mean_over, oracle_of,
                                  perf_retained)
    rs = _rows()
    k = 0.4 / 0.6 * 60.0 / 40.0      # static factor for a 40 % share on the reference run
    want = 100 * (1 - (60 + k * 20) / (60 + k * 40))
    assert energy_saving(rs, "onac_bp_k2_like", "onac_skip3", 0.4) == pytest.approx(want)
    assert energy_saving(rs, "onac_compute", "onac_skip3", 0.4) < 0    # more static: a loss
    assert perf_retained(rs, "onac_bp_k2_like", "onac_skip3") == pytest.approx(100 * 1000 / 1010)
    assert detection_reduction(rs, "onac_bp_k2_like") == pytest.approx(75.0)     # headline pair
    assert detection_reduction(rs, "onac_bp_k2_like", "onac", "seq_det") == pytest.approx(25.0)
    both = mean_over(detection_reduction, ["onac_bp_k2_like", "onac_compute", "absent"])(rs)
    assert both == pytest.approx((75.0 + (1 - 150 / 50) * 100) / 2)
    assert oracle_of(rs, "onac_bp_k2_like") == 12
    # static factor 1 (a 40 % share = 40/(60+40) on the reference run): per instruction,
    # (30 + 8) / 100 at the oracle's 12 SMs against (15 + 10) / 50 at all 32
    from experiments.onac import oracle_saving
    assert oracle_saving(rs, "onac_bp_k2_like", 0.4) == pytest.approx(100 * (1 - 0.38 / 0.5))
    with pytest.raises(ValueError):
        oracle_of(rs, "onac_compute")                                   # no sweep for it


def test_steady_ipc_spans_whole_waves_and_skips_ramp_and_tail():
    from experiments.thesis_runs import steady_ipc
    # waves of 4 CTAs finishing together every 40 cycles (10 instructions each), a slow tail
    ends = [40 * (1 + i // 4) for i in range(80)] + [5000 + 100 * i for i in range(20)]
    st = steady_ipc(ends, warp_insts=1000, wave=4)
    assert st["ipc"] == pytest.approx(4 * 10 / 40)        # one wave of work per 40 cycles
    assert (st["to"] - st["from"]) % 40 == 0 and st["waves"] == 14
    # without whole waves, a window from a burst's first CTA to another burst's last is biased
    biased = steady_ipc(ends, warp_insts=1000, wave=1)
    assert biased["ipc"] > 1.05 * st["ipc"]
    assert steady_ipc(ends[:6], 60, wave=4) == {}


def test_fixed_active_gates_the_other_sms_and_waves_size_the_grid():
    from experiments.onac import mean_active_sms, n_chosen
    from experiments.thesis_runs import run_thesis_model, wave_workload
    from gpusched.config import resolve_config
    from gpusched.experiment.point import Point, override_strings
    cfg = resolve_config("thesis", override_strings(QUARTER))
    wl = wave_workload("onac_bp_k2_like", cfg, 3, 2, scale=0.25)
    occ = 4                          # onac_bp_k2_like: register-limited to 4 CTAs per SM
    assert wl.kernels[0].n_ctas == 3 * occ * 2
    stats = run_thesis_model(Point("thesis", "onac_bp_k2_like", 0, QUARTER,
                                   {"scale": 0.25, "waves": 3, "sm_controller": "active_2"}))
    assert stats["kernels"][0]["ctas"] == 3 * occ * 2
    assert stats["sm"]["ctas_launched"] == [12, 12, 0, 0]
    assert [g > 0.95 * stats["cycles"] for g in stats["sm"]["gated_cycles"]] == [
        False, False, True, True]
    assert n_chosen(stats) == 2 and 2.0 <= mean_active_sms(stats) < 2.1
    assert len(stats["ctas"]["ends"]) == 24 and "rows" not in stats["ctas"]
    from experiments.thesis_runs import steady_of
    assert 0 < steady_of(stats) <= 2.0          # at most 1 warp instruction/cycle per SM


def test_tiny_end_to_end_report(tmp_path):
    from experiments.onac import CATALOGUE, _grid
    from gpusched.experiment.executors import SerialExecutor
    from gpusched.experiment.report import write_report
    from gpusched.experiment.store import ResultStore
    from gpusched.experiment.sweep import run_sweep
    grid = _grid("onac_tiny", ["onac_bp_k2_like"], 4, 10, 2, QUARTER)
    exp = dataclasses.replace(CATALOGUE, quick=grid, module="experiments.onac")
    points = grid.check()
    with ResultStore(tmp_path / "r.sqlite") as store:
        summary = run_sweep("tiny", points, store, SerialExecutor(exp.plugins),
                            show_progress=False)
        runs = store.runs([p.key for p in points])
    assert summary.ran == len(points) == 9 and summary.failed == 0
    files = write_report(exp, points, runs, tmp_path / "rep", quick=True)
    assert len(files.images) == 3
    assert all(p.read_bytes().startswith(PNG_MAGIC) for p in files.images)
    head = {h["metric"]: h for h in json.loads(files.headline.read_text())}
    oracle = head["onac_bp_k2_like: oracle N"]["ours"]
    assert oracle is not None and 1 <= oracle <= 4
    assert head["type A: ONAC energy saving vs all SMs"]["paper"] == 20.0
    assert head["type A: performance retained by ONAC"]["ours"] > 50


# ---- the program suite (experiments/onac_programs.py) -------------------------------------------

def test_program_grids_run_table_4_4_kernels_with_a_full_sweep_on_own_sms():
    from experiments.onac import ONAC, SEQ_DET
    from experiments.onac_programs import KERNELS
    from experiments.phase_program_runs import program_kernels
    from workloads import programs
    exp = get_experiment("onac")
    for grid, m in ((exp.grid, 32), (exp.quick, 8)):
        points = grid.check()
        for p in points:
            assert p.params["kernel"] in program_kernels(p.workload)
        for label, (prog, kernel, kind) in KERNELS.items():
            mine = [p for p in points if p.params["kernel"] == kernel]
            if not mine:
                continue
            ctrl = {p.params["sm_controller"] for p in mine}
            assert {"all_active", ONAC, SEQ_DET} | {f"active_{n}" for n in range(1, m + 1)} \
                <= ctrl
            for p in mine:
                assert bool(p.params.get("sweep")) == p.params["sm_controller"].startswith(
                    "active_")
    # every label's program names the thesis's ch.4 (Table 4.4 types: A saves, B scales)
    for label, (prog, _, kind) in KERNELS.items():
        assert "thesis_ch4" in programs.load(prog).INFO["papers"]
        assert kind in ("A", "B")


def test_relabel_names_rows_by_table_4_4_label_for_the_cross_run_analysis():
    from experiments.onac import oracle_of
    from experiments.onac_programs import relabel
    rows = [{"workload": "program:backprop", "kernel": "bp_adjust_weights",
             "sm_controller": f"active_{n}", "steady_ipc": min(n, 3.0)} for n in range(1, 9)]
    rows += [{"workload": "program:backprop", "kernel": "bp_layer_forward",
              "sm_controller": f"active_{n}", "steady_ipc": float(n)} for n in range(1, 9)]
    r = relabel(ResultSet(rows))
    assert oracle_of(r, "BP-K2") == 3 and oracle_of(r, "BP-K1") == 8


def test_one_program_point_runs_a_sweep_count_on_its_own_share_of_the_grid():
    from experiments.onac import n_chosen
    from experiments.onac_program_runs import run_point
    from gpusched.experiment.point import Point
    base = {"kernel": "bp_adjust_weights", "scale": 0.02, "sweep": True}
    whole = run_point(Point("thesis", "program:backprop", 0, QUARTER,
                            {**base, "sm_controller": "active_4"}, kind="onac_program"))
    half = run_point(Point("thesis", "program:backprop", 0, QUARTER,
                           {**base, "sm_controller": "active_2"}, kind="onac_program"))
    assert n_chosen(half) == 2 and half["program_scale"] == pytest.approx(0.01)
    assert len(half["ctas"]["ends"]) < len(whole["ctas"]["ends"])
