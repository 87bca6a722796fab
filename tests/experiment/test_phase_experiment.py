"""experiments/phase.py: valid grids, [THESIS §3.5] scheduler states from a real run, classes and
headline means computed as documented, and a tiny end-to-end report."""

import json

import pytest

from gpusched.experiment.query import ResultSet
from gpusched.experiment.registry import get_experiment


def test_grids_check_and_cover_every_kernel_and_scheduler():
    from experiments.phase import KERNELS, QUICK_KERNELS, SCHEDULERS, classify
    exp = get_experiment("phase", catalogue=True)
    for grid, kernels in ((exp.grid, KERNELS), (exp.quick, QUICK_KERNELS)):
        points = grid.check()           # unknown kernels / scheduler names would raise here
        assert {p.overrides["sm.warp_sched"] for p in points} == set(SCHEDULERS)
        assert {p.workload for p in points} == set(kernels)
    assert len(KERNELS) == 13           # Tables 3.2 (8 stand-ins; B+T as one) and 3.3 (5)
    assert set(QUICK_KERNELS) < set(KERNELS)


def _run(workload: str, sched: str) -> dict:
    from gpusched.experiment.point import Point
    from experiments.phase_runs import run_profiled
    return run_profiled(Point(preset="thesis_ch3", workload=workload, seed=0,
                           overrides={"sm.warp_sched": sched},
                           params={"memory": "hierarchy", "scale": 0.1}))


def test_scheduler_states_partition_the_slots():
    from experiments.phase import STATE1, STATE2, STATE3, state_pct
    stats = _run("km_like", "tlphase")
    s1, s2, s3 = (state_pct(*r)(stats) for r in (STATE1, STATE2, STATE3))
    s4 = state_pct("issued", "issue_interval")(stats)
    assert s1 + s2 + s3 + s4 == pytest.approx(100.0)
    assert s2 > 0 and s4 > 0            # a memory kernel: some operand waits, some issue
    exp = get_experiment("phase", catalogue=True)
    assert exp.metric("idle").value(stats) == pytest.approx(s1 + s2 + s3)
    # [THESIS §3.5] loads from the warp-state profiler, per SM: a load kernel has both in flight
    ws = stats["warp_states"]
    assert exp.metric("mem_load").value(stats) == pytest.approx(
        ws["kernels"][0]["mem_load"] / ws["sms"]) and ws["kernels"][0]["mem_load"] > 0
    assert exp.metric("alu_load").value(stats) > 0
    # [THESIS §3.5] runtime decomposition: the four parts partition the run's cycles
    parts = [exp.metric(f"dec_{p}").value(stats)
             for p in ("compute_only", "memory_only", "overlap", "idle")]
    assert sum(parts) == pytest.approx(100.0) and all(p >= 0 for p in parts)
    d = ws["decomposition"]
    assert parts[2] == pytest.approx(100.0 * d["overlap"] / stats["cycles"]) and parts[2] > 0


def _rows(cycles: dict[str, dict[str, float]]) -> ResultSet:
    return ResultSet([{"workload": w, "sm.warp_sched": s, "cycles": c, "idle": c / 10}
                      for w, per in cycles.items() for s, c in per.items()])


def test_classes_and_class_means():
    from experiments.phase import class_count, class_idle, class_speedup, classify
    rs = _rows({"a": {"lrr": 100, "gto": 80, "phase": 50, "tlrr": 100, "tlgto": 120},
                "b": {"lrr": 100, "gto": 125, "phase": 100, "tlrr": 100, "tlgto": 90},
                "c": {"lrr": 100, "gto": 200, "phase": 160, "tlrr": 100, "tlgto": 100}})
    assert classify(rs, "single") == {"A": ["a"], "B": ["b", "c"]}
    assert classify(rs, "two") == {"A": ["b"], "B": ["a", "c"]}     # a tie is not GTO-better
    assert class_count("single", "B")(rs) == 2
    # phase over GTO on b and c: 125/100 and 200/160, geometric mean
    assert class_speedup("phase", "gto", "single", "B")(rs) == pytest.approx(1.25)
    assert class_speedup("phase", "lrr", "single", "A")(rs) == pytest.approx(2.0)
    assert class_idle("phase", "single", "B")(rs) == pytest.approx((1.0 + 1.6) / 2)


def test_tiny_grid_headline_from_real_runs():
    """Two kernels under lrr, gto and phase at a tenth of the work: every single-level kernel
    is classified, and the headline rows are the documented ratios of the runs' cycles."""
    from experiments.phase import speedup
    from gpusched.experiment.report import headline_rows
    exp = get_experiment("phase", catalogue=True)
    rows = []
    for w in ("km_like", "hist_like"):
        for sched in ("lrr", "gto", "phase"):
            stats = _run(w, sched)
            rows.append({"workload": w, "sm.warp_sched": sched,
                         **{m.name: m.value(stats) for m in exp.metrics}})
    rs = ResultSet(rows)
    head = {r["metric"]: r for r in headline_rows(exp, rs, quick=True)}
    counts = [head[f"single-level type {k}: kernels"]["ours"] for k in "AB"]
    assert sum(counts) == 2
    assert head["single-level type B: phase / GTO speedup"]["paper"] == pytest.approx(1.0665)
    assert head["two-level type A: tlphase / TLRR speedup"]["ours"] is None   # no tl* runs
    kinds = [k for k in "AB" if head[f"single-level type {k}: kernels"]["ours"]]
    for k in kinds:
        kernels = [w for w in ("km_like", "hist_like")
                   if (speedup(rs, w, "gto", "lrr") > 1) == (k == "A")]
        want = 1.0
        for w in kernels:
            want *= speedup(rs, w, "phase", "lrr")
        got = head[f"single-level type {k}: phase / lrr speedup"]["ours"]
        assert got == pytest.approx(want ** (1 / len(kernels)))


def test_decomposition_stack_is_relative_to_rr_runtime():
    """The figure's bars: each part's share × (cycles / RR's cycles), mean over the kernels."""
    from experiments.phase_figures import stack
    parts = {"dec_compute_only": 40.0, "dec_overlap": 30.0, "dec_memory_only": 20.0,
             "dec_idle": 10.0}
    rs = ResultSet([{"workload": w, "sm.warp_sched": s, "cycles": c, **parts}
                    for w, s, c in (("a", "lrr", 100), ("a", "gto", 50),
                                    ("b", "lrr", 100), ("b", "gto", 150))])
    got = stack(rs, ["a", "b"], "gto", "lrr")
    assert got == pytest.approx([0.4, 0.3, 0.2, 0.1])        # (0.5 + 1.5) / 2 = 1 × shares
    assert sum(stack(rs, ["a"], "gto", "lrr")) == pytest.approx(0.5)
    assert stack(rs, ["a"], "phase", "lrr") is None          # no runs: no bar


# ---- the program suite (experiments/phase_programs.py, runner kind phase_program) ------------

def test_program_grids_name_every_thesis_kernel():
    """The kernels are those of the suite programs whose INFO names a ch.3 kernel, each a
    kernel the program declares; every kernel of a grid runs under every scheduler."""
    from experiments.phase import SCHEDULERS
    from experiments.phase_program_runs import program_kernels
    from experiments.phase_programs import (QUICK_LABELS, THESIS_CLASS, THESIS_KERNELS,
                                            thesis_programs)
    exp = get_experiment("phase")
    assert {prog for prog, _ in THESIS_KERNELS.values()} == thesis_programs()
    assert len(THESIS_KERNELS) == 14 and set(THESIS_CLASS) == set(THESIS_KERNELS)
    for prog, kernel in THESIS_KERNELS.values():
        assert kernel in program_kernels(f"program:{prog}")
    for grid, labels in ((exp.grid, list(THESIS_KERNELS)), (exp.quick, QUICK_LABELS)):
        points = grid.points()
        assert len(points) == len(labels) * len(SCHEDULERS)
        assert {p.params["kernel"] for p in points} == {THESIS_KERNELS[x][1] for x in labels}
        assert {p.overrides["sm.warp_sched"] for p in points} == set(SCHEDULERS)
        assert all(p.workload.startswith("program:") and p.kind == "phase_program"
                   for p in points)


def test_program_grid_checks_at_the_programs_quick_scales():
    """grid.check() on the experiment's construction at each program's INFO quick_scale (the
    runner's checks run every program functionally; the reproduction's own scales are larger:
    ``test_program_quick_grid_checks``, --runslow)."""
    from experiments.phase import SINGLE
    from experiments.phase_programs import THESIS_KERNELS, grid
    from sim.workload.program import load_module, program_path
    scales = {prog: load_module(program_path(prog)).INFO["quick_scale"]
              for prog, _ in THESIS_KERNELS.values()}
    points = grid("tiny", list(THESIS_KERNELS), scales, [SINGLE[:1]]).check()
    assert len(points) == len(THESIS_KERNELS)


@pytest.mark.slow
def test_program_quick_grid_checks():
    points = get_experiment("phase").quick.check()
    assert points


def test_program_point_rejects_a_kernel_the_program_lacks():
    from gpusched.config import ConfigError
    from gpusched.experiment.point import Point
    from experiments.phase_program_runs import check_phase_program
    with pytest.raises(ConfigError, match="params.kernel"):
        check_phase_program(Point(kind="phase_program", preset="thesis_ch3",
                                  workload="program:backprop", params={"kernel": "find_k"}))


def test_program_point_runs_only_its_kernel():
    """A tiny point: the run holds the named kernel's launches and nothing else, and its
    scheduler slots and warp-state loads are there for the phase metrics."""
    from gpusched.experiment.point import Point
    from experiments.phase_program_runs import run_phase_program
    from sim.run import load_workload
    point = Point(kind="phase_program", preset="thesis_ch3", workload="program:backprop",
                  seed=0, overrides={"sm.warp_sched": "phase"},
                  params={"kernel": "bp_adjust_weights", "scale": 0.004, "memory": "hierarchy"})
    stats = run_phase_program(point)
    whole = load_workload("program:backprop", scale=0.004, preset="thesis_ch3")
    mine = [k for k in whole.kernels if k.name == "bp_adjust_weights"]
    assert len(mine) < len(whole.kernels)
    assert [k["name"] for k in stats["kernels"]] == [k.name for k in mine]
    assert stats["warp_insts"] == sum(k.meta["warp_insts"] for k in mine)
    exp = get_experiment("phase")
    assert exp.metric("idle").value(stats) > 0 and exp.metric("mem_load").value(stats) > 0


def test_thesis_classes_and_agreement():
    """The thesis's lists ([THESIS Table 3.2, Table 3.3]) drive the 'thesis's kernels' means;
    agreement counts the kernels our runs put in the same class."""
    from experiments.phase_programs import class_agreement, thesis_classes
    from experiments.phase import class_speedup
    rows = []
    for kernel, (lrr, gto, phase) in {"cfd_flux": (100, 125, 110),       # thesis B, ours B
                                      "fwt_shared": (100, 80, 80),       # thesis B, ours A
                                      "mc_paths": (100, 90, 45)}.items():  # thesis A, ours A
        rows += [{"kernel": kernel, "sm.warp_sched": s, "cycles": c}
                 for s, c in (("lrr", lrr), ("gto", gto), ("phase", phase))]
    rs = ResultSet(rows)
    assert thesis_classes(rs, "single") == {"A": ["mc_paths"], "B": ["cfd_flux", "fwt_shared"]}
    assert class_agreement("single")(rs) == 2
    # phase over GTO on the thesis's B list: 125/110 and 80/80
    for mean, want in (("arith", (125 / 110 + 1) / 2), ("harm", 2 / (110 / 125 + 1)),
                       ("geo", (125 / 110) ** 0.5)):
        got = class_speedup("phase", "gto", "single", "B", mean, thesis_classes)(rs)
        assert got == pytest.approx(want)
