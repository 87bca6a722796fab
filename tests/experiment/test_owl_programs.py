"""experiments/owl.py on the program suite (``EXPERIMENT``): the grids, the measured Type-1 rule,
the per-program tables beside the paper's values, and one tiny program point."""

from __future__ import annotations

import pytest

from experiments import owl, owl_programs
from experiments.owl_program_runs import program_scale
from gpusched.config import ConfigError
from gpusched.experiment.point import Point
from gpusched.experiment.query import ResultSet
from workloads import programs


def _rows(ipc: dict[tuple[str, str], float]) -> ResultSet:
    return ResultSet([{"scheme": s, "workload": w, "ipc": v} for (s, w), v in ipc.items()])


def test_grids_check_and_run_every_owl_program():
    named = {n for n in programs.names() if "owl" in programs.load(n).INFO["papers"]}
    assert {w.removeprefix("program:") for w in owl.EXPERIMENT.grid.workloads} == named
    assert set(owl.EXPERIMENT.quick.workloads) <= set(owl.EXPERIMENT.grid.workloads)
    for grid in (owl.EXPERIMENT.grid, owl.EXPERIMENT.quick):
        points = grid.check()
        assert {p.params["scheme"] for p in points} >= {"rr", "owl", "perfect_l1", "perfect_l2"}
    assert owl.CATALOGUE.name == "owl-catalogue" and owl.EXPERIMENT.name == "owl"


def test_quick_set_has_both_types_of_the_paper():
    quick = owl.EXPERIMENT.quick.workloads
    assert any(owl_programs.paper_type1(w) for w in quick)
    assert any(not owl_programs.paper_type1(w) for w in quick)


def test_paper_type1_follows_table_2s_pmem():
    for w in owl_programs.WORKLOADS:
        pmem = owl_programs.paper(w, "pmem")
        assert owl_programs.paper_type1(w) == (pmem is not None and pmem >= 1.4)


def test_measured_type_is_pmem_at_least_1_4():
    rs = _rows({("rr", "program:sad"): 1.0, ("perfect_l1", "program:sad"): 1.5,
                ("rr", "program:nn"): 1.0, ("perfect_l1", "program:nn"): 1.39,
                ("rr", "program:bfs"): 1.0, ("perfect_l1", "program:bfs"): 1.2,
                ("owl", "program:sad"): 1.3, ("owl", "program:nn"): 0.9})
    assert owl_programs.type1(rs) == ["program:sad"]
    assert sorted(owl_programs.type2(rs)) == ["program:bfs", "program:nn"]
    # sad (paper Type-1) and nn (paper Type-2) agree, bfs (paper BFSR, Type-1) does not
    assert owl_programs.type_agreement(rs) == pytest.approx(200 / 3)
    exp = owl.EXPERIMENT
    head = {h.metric: h for h in exp.headline}
    assert head["OWL over RR, IPC (arithmetic mean)"].ours(rs) == pytest.approx(30.0)
    assert head["Type-2: worst OWL change over RR"].ours(rs) == pytest.approx(-10.0)


def test_tables_put_the_papers_values_beside_ours():
    rs = _rows({("rr", "program:sad"): 1.0, ("perfect_l1", "program:sad"): 2.0,
                ("perfect_l2", "program:sad"): 1.5, ("owl", "program:sad"): 1.25})
    row = next(r for r in owl_programs.table2(rs) if r.startswith("| sad |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == owl_programs.paper_label("program:sad")
    assert cells[2] == f"{programs.load('sad').INFO['paper_values']['owl']['pmem']:.2f}"
    assert cells[3] == "2.00" and cells[5] == "1" and cells[8] == "1.50"
    fig = owl_programs.fig7(rs)
    assert any(r.startswith("| sad | 1 |") and "1.250" in r for r in fig)


def test_named_scales_are_the_programs_own():
    info = programs.load("sad").INFO
    assert program_scale("program:sad", "quick") == info["quick_scale"]
    assert program_scale("program:sad", "default") == info["default_scale"]
    assert program_scale("program:sad", 0.5) == 0.5
    with pytest.raises(ConfigError, match="params.scale"):
        program_scale("program:sad", "huge")
    with pytest.raises(ConfigError, match="workload"):
        program_scale("owl_t_reuse", "quick")


def test_one_tiny_program_point_runs():
    """RR and Perfect-L1 of one program at a small scale on the quick machine: the scheme's
    configuration is in the stats, and Perfect-L1 never misses in the L1."""
    from gpusched.experiment.runners import get_kind
    kind = get_kind(owl.EXPERIMENT.grid.kind)
    out = {}
    for scheme in ("rr", "perfect_l1"):
        point = Point(preset="owl", workload="program:scalarprod", seed=0,
                      overrides=dict(owl.QUARTER),
                      params={"scheme": scheme, "scale": 0.01, "memory": "hierarchy"},
                      kind=owl.EXPERIMENT.grid.kind)
        out[scheme] = kind.run(point)
    assert out["rr"]["scheme"] == "rr" and out["rr"]["warp_sched"] == "lrr"
    assert out["rr"]["program_scale"] == 0.01 and "row_profile" in out["rr"]
    assert out["perfect_l1"]["memory"]["l1"]["hit_rate"] == 1.0
    assert out["rr"]["memory"]["l1"]["hit_rate"] < 1.0
    assert out["rr"]["warp_insts"] == out["perfect_l1"]["warp_insts"]


def test_report_renders_the_sections_after_the_headline(tmp_path):
    """``Experiment.sections``: markdown computed from the results, written after the headline
    and before the per-metric tables."""
    import dataclasses

    from gpusched.experiment.report import write_report
    from gpusched.experiment.store import Run
    exp = dataclasses.replace(owl.EXPERIMENT, plots=[])
    points = [Point(preset="owl", workload="program:sad", seed=0, overrides={},
                    params={"scheme": s, "scale": "quick", "memory": "hierarchy"},
                    kind=exp.grid.kind) for s in ("rr", "perfect_l1")]
    runs = [Run(key=p.key, point=p, status="done", error=None, wall_s=1.0, host="h",
                version="v", sweep=None, finished_at="t",
                stats={"ipc": ipc, "cycles": 10, "scheme": p.params["scheme"],
                       "memory": {"l1": {"hit_rate": 0.5}, "l2": {"hit_rate": 0.5},
                                  "dram": {"row_hit_rate": 0.5}}})
            for p, ipc in zip(points, (1.0, 2.0))]
    md = write_report(exp, points, runs, tmp_path).markdown.read_text()
    head, tables = md.index("## Headline"), md.index("## Tables")
    section = md.index("### Table 2 beside ours")
    assert head < section < tables
    pmem = programs.load("sad").INFO["paper_values"]["owl"]["pmem"]
    assert f"| sad | {owl_programs.paper_label('program:sad')} | {pmem:.2f} | 2.00 |" in md
