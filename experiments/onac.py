"""ONAC vs Seq-Det vs all SMs ([THESIS §4.4]): the active-SM count each controller chooses against
the oracle, detection time, performance retained and energy saved, on the ``thesis`` preset.

Workloads (sim/workload/catalogue.py): kernels mimicking the thesis's saturating, bandwidth-bound
"type A" kernels (TP, BP-K2, BT-K2: r ALU instructions per 128-B load) and a compute-bound
"type B" kernel that scales to every core (Hotspot/Pathfinder). Type is the mimicked kernel's
class in the thesis (Table 4.4), not our oracle's verdict.

Points (runner kind ``thesis_model``, experiments/thesis_runs.py), scale 0.25 (one trip of each
kernel's 4-load loop per CTA, to afford long grids):

- controller runs: ``all_active`` and the detectors on ``LONG_WAVES`` CTA waves, so that
  detection (4-wave samples, [THESIS §4.4.2.4]) is a modest part of the run (our reproduction
  plan). Headline: ``onac_skip3`` / ``seq_det_skip3``, detection after ``RAMP_SKIP`` = 3 ramp-up
  waves; spec default: ``onac`` / ``seq_det``, after 1 wave (labelled rows beside the headline);
- oracle sweep: ``active_n`` (sim/policies/fixed_active.py: SMs ≥ n power-gated throughout) for
  n = 1..M, each on ``ORACLE_WAVES`` waves of its own n SMs. N_oracle = the smallest n whose
  steady-state IPC (``steady_of``: whole waves between 20 % and 80 % of CTAs completed) is
  ≥ 98 % of the all-SM one ([THESIS §4.4]). Whole-run IPC of such short runs would include
  ramp-up and tail, and CTAs that start together stay in step for the first few waves, so the
  sweep uses 20 waves (docs/mechanisms/onac.md, "Measured: the ramp-up before the first sample").

Ramp-up skip (our choice where [THESIS] is silent): the headline skips ``RAMP_SKIP`` = 3 CTA
waves before the first sample, the longest ramp-up measured on these kernels (one count for all
kernels); the 1-wave rows stay beside it, labelled "spec-default". The measurement is in
docs/mechanisms/onac.md, "Measured: the ramp-up before the first sample".

Metrics ([THESIS §4.4]): chosen N (the detector's n_opt; M for all SMs), detection time = cycles
from the detector's start pulse (after the ramp-up skip, onac_ctrl.py) to its decision, performance
retained = all-SM cycles / controller cycles, energy = dynamic (memory events + warp instructions) +
static (un-gated SM-cycles + uncore), sim/memory/energy.py. For scale, the energy per warp
instruction of the oracle sweep at N_oracle vs all SMs gives the saving an exact detector with no
detection phase would reach.

Static power (our choice where [THESIS §4.4] is silent: calibrate static to 30–50 % of GPU power at
full load on a memory-bound kernel, report the sensitivity): the preset's static powers are scaled
by one factor so that the all-SM run of ``REFERENCE`` has static fraction f; headline at f = 40 %
(our choice: the middle of the range), f = 30 % and 50 % as sensitivity rows. Averages over kernels
are arithmetic means of per-kernel values.

Quick grid: a quarter of the chip (8 SMs, 3 memory partitions: the same bandwidth per SM), BP-K2
and the compute kernel, shorter grids: a smoke test of the pipeline, with coarse N steps (one SM
of 8 is four of 32) and a larger detection share of the run.
"""

from __future__ import annotations

import math

from experiments import onac_programs as programs
from experiments.onac_figures import draw_estimates, draw_scaling, draw_summary
from experiments.onac_metrics import (  # noqa: F401  (the analysis, re-exported)
    ONAC,
    RAMP_SKIP,
    REFERENCE,
    SEQ_DET,
    STATIC_SHARE,
    THRESHOLD,
    _long,
    detect_cycles,
    detection_reduction,
    dynamic_uj,
    energy_saving,
    mean_active_sms,
    mean_over,
    n_chosen,
    oracle_curve,
    oracle_n,
    oracle_of,
    oracle_saving,
    perf_retained,
    static_factor,
    static_share_at_defaults,
    static_uj,
)
from experiments.thesis_runs import KIND, grid_union, steady_of
from gpusched.experiment.grid import Grid
from gpusched.experiment.plots import FigurePlot
from gpusched.experiment.query import ResultSet
from gpusched.experiment.registry import Experiment, Headline, Metric, Table

TYPE_A = ["onac_tp_like", "onac_bp_k2_like", "onac_bt_k2_like"]
TYPE_B = ["onac_compute"]
PAPER_ORACLE = {"onac_tp_like": 8, "onac_bp_k2_like": 12, "onac_bt_k2_like": 31,
                "onac_compute": 32}                       # [THESIS Table 4.4] known N_oracle values [P]
PAPER_ONAC = {"onac_bp_k2_like": 12, "onac_compute": 32}  # [THESIS §4.4.2] traces: BP 12, Pathfinder 32
SPEC_SKIP = 1
SPEC_ONAC, SPEC_SEQ_DET = "onac", "seq_det"                             # spec-default skip
CONTROLLERS = ["all_active", ONAC, SEQ_DET, SPEC_ONAC, SPEC_SEQ_DET]
SCALE, LONG_WAVES, ORACLE_WAVES = 0.25, 120, 20
QUICK_LONG_WAVES, QUICK_ORACLE_WAVES = 48, 16
QUARTER_CHIP = {"sm.count": 8, "dram.channels": 3, "l2.slices": 3, "dram.bank_bit": 13,
                "dram.row_bit": 16}  # row/bank bits re-laid so a row stays 2 KB (validate.py)


def _chosen(controller: str, workload: str):
    return lambda results: _long(results, workload, controller, "n_chosen")


# ---- grids and declaration ----------------------------------------------------------------------

def _grid(name: str, workloads: list[str], n_sms: int, long_waves: int, oracle_waves: int,
          overrides: dict, controllers: list[str] = CONTROLLERS) -> Grid:
    common = dict(preset=["thesis"], workloads=workloads, seeds=[0], kind=KIND,
                  overrides=overrides, source=__file__)
    runs = Grid(name=f"{name}_controllers", params={
        "sm_controller": controllers, "waves": [long_waves], "scale": [SCALE]}, **common)
    sweep = Grid(name=f"{name}_oracle", params={
        "sm_controller": [f"active_{n}" for n in range(1, n_sms + 1)], "waves": [oracle_waves],
        "scale": [SCALE]}, **common)
    return grid_union(name, [runs, sweep], source=__file__)


def _detect_share(controller: str, workload: str):
    return lambda r: 100 * _long(r, workload, controller, "detect_cycles") / _long(
        r, workload, controller, "cycles")


def _headline() -> list[Headline]:
    a, b, skip = TYPE_A, TYPE_B, f"{RAMP_SKIP}-wave ramp-up skip"
    rows = [
        Headline("type A: ONAC energy saving vs all SMs", "%", mean_over(energy_saving, a, ONAC),
                 paper=20.0, note=f"{skip}; static share {STATIC_SHARE:.0%} at full load on "
                 f"{REFERENCE}"),
        Headline("type A: Seq-Det energy saving vs all SMs", "%",
                 mean_over(energy_saving, a, SEQ_DET), paper=10.0,
                 note=f"{skip}; static share {STATIC_SHARE:.0%}"),
        Headline("type A: energy saving at the oracle N (fixed, no detection)", "%",
                 mean_over(oracle_saving, a), note="energy per warp instruction, oracle sweep; "
                 "the ceiling for a detector"),
        Headline("type A: detection-time reduction, ONAC vs Seq-Det", "%",
                 mean_over(detection_reduction, a), paper=45.0,
                 note=f"{skip}; 1 − T_ONAC/T_SeqDet per kernel, mean; T = start pulse → "
                 "decision"),
        Headline("type A: performance retained by ONAC", "%", mean_over(perf_retained, a, ONAC),
                 paper=98.0, note=f"{skip}; paper: < 2 % loss; all-SM cycles / ONAC cycles"),
        Headline("type A: performance retained by Seq-Det", "%",
                 mean_over(perf_retained, a, SEQ_DET), note=f"{skip}; no paper number"),
        Headline("type B: ONAC energy saving vs all SMs", "%", mean_over(energy_saving, b, ONAC),
                 paper=-2.0, note=f"{skip}; paper: +2 % energy on type B (errata 7)"),
        Headline("type B: performance retained by ONAC", "%", mean_over(perf_retained, b, ONAC),
                 note=f"{skip}; no paper number"),
    ]
    spec = (f"spec default (our choice): detection after {SPEC_SKIP} ramp-up wave; the ramp-up "
            "measured here is longer (module docstring)")
    rows += [Headline("type A: ONAC energy saving, spec-default 1-wave skip", "%",
                      mean_over(energy_saving, a, SPEC_ONAC), note=spec),
             Headline("type A: Seq-Det energy saving, spec-default 1-wave skip", "%",
                      mean_over(energy_saving, a, SPEC_SEQ_DET), note=spec),
             Headline("type A: detection-time reduction, spec-default 1-wave skip", "%",
                      mean_over(detection_reduction, a, SPEC_ONAC, SPEC_SEQ_DET), note=spec),
             Headline("type A: performance retained by ONAC, spec-default 1-wave skip", "%",
                      mean_over(perf_retained, a, SPEC_ONAC), note=spec)]
    for share in (0.30, 0.50):
        for ctrl, label in ((ONAC, "ONAC"), (SEQ_DET, "Seq-Det")):
            rows.append(Headline(f"type A: {label} energy saving, static share {share:.0%}", "%",
                                 mean_over(energy_saving, a, ctrl, share),
                                 note=f"sensitivity ([THESIS §4.4]); {skip}"))
    rows.append(Headline(f"static share at the preset's defaults ({REFERENCE}, all SMs)", "%",
                         static_share_at_defaults, note="before calibration"))
    for w in TYPE_A + TYPE_B:
        rows += [Headline(f"{w}: oracle N", "SMs", lambda r, w=w: oracle_of(r, w),
                          paper=PAPER_ORACLE.get(w),
                          note="smallest n with ≥ 98 % steady IPC; paper: of 32 cores ([THESIS Table 4.4])"),
                 Headline(f"{w}: ONAC N", "SMs", _chosen(ONAC, w), paper=PAPER_ONAC.get(w),
                          note=skip),
                 Headline(f"{w}: Seq-Det N", "SMs", _chosen(SEQ_DET, w), note=skip),
                 Headline(f"{w}: ONAC N, spec-default 1-wave skip", "SMs",
                          _chosen(SPEC_ONAC, w), note="spec default (our choice)"),
                 Headline(f"{w}: Seq-Det N, spec-default 1-wave skip", "SMs",
                          _chosen(SPEC_SEQ_DET, w), note="spec default (our choice)"),
                 Headline(f"{w}: ONAC detection", "% of run", _detect_share(ONAC, w), note=skip),
                 Headline(f"{w}: Seq-Det detection", "% of run", _detect_share(SEQ_DET, w),
                          note=skip)]
    return rows


METRICS = [
    Metric("cycles", "Run time", "core cycles"),
    Metric("ipc", "IPC", "warp instructions/cycle"),
    Metric("warp_insts", "Warp instructions", "instructions"),
    Metric("steady_ipc", "Steady-state IPC", "warp instructions/cycle", compute=steady_of),
    Metric("n_chosen", "Active SMs chosen", "SMs", compute=n_chosen),
    Metric("detect_cycles", "Detection time", "cycles", compute=detect_cycles),
    Metric("e_dyn", "Dynamic energy", "µJ", compute=dynamic_uj),
    Metric("e_static", "Static energy (preset defaults)", "µJ", compute=static_uj),
    Metric("active_sms", "Mean un-gated SMs", "SMs", compute=mean_active_sms),
]

CATALOGUE = Experiment(
    name="onac-catalogue",
    title="ONAC vs Seq-Det vs all SMs: active-SM count, detection time, energy (thesis, "
          "catalogue)",
    description=__doc__,
    grid=_grid("onac", TYPE_A + TYPE_B, 32, LONG_WAVES, ORACLE_WAVES, {}),
    quick=_grid("onac_quick", ["onac_bp_k2_like", "onac_compute"], 8, QUICK_LONG_WAVES,
                QUICK_ORACLE_WAVES, QUARTER_CHIP),
    metrics=METRICS,
    # rows = SM controller: the long runs (all_active, the detectors), then the oracle sweep
    tables=[Table("steady_ipc", rows="sm_controller", columns="workload",
                  title="Steady-state IPC per SM controller (active_n: the oracle sweep)"),
            Table("cycles", rows="sm_controller", columns="workload",
                  title="Run time (core cycles; long runs and the shorter oracle-sweep runs)")],
    plots=[FigurePlot("n_chosen", "estimates.png", title="ONAC / Seq-Det estimates over time",
                      draw=draw_estimates, caption="Top: active SMs under test over time (one "
                      "run each); dotted: the oracle N. Bottom: each sample's IPC relative to its "
                      "all-SM sample, numbered in order, over the oracle sweep's steady IPC."),
           FigurePlot("steady_ipc", "scaling.png", title="IPC vs active SMs (oracle sweep)",
                      draw=draw_scaling, caption="Steady IPC per number of active SMs, one run "
                      "per point (no whiskers), relative to all SMs; markers: the Ns chosen."),
           FigurePlot("e_dyn", "summary.png", title="Energy, performance, detection time",
                      draw=draw_summary, caption="One run per bar (no whiskers); dashed line: "
                      "1.0 (all SMs active); values printed on the bars.")],
    headline=_headline(),
    labels={"sm_controller": "SM controller", "workload": "workload"},
)


# ---- the program suite --------------------------------------------------------------------------

def _on_programs(fn, labels: list[str], kind: str = "arith"):
    """``kind`` mean over ``labels`` (those with runs) of ``fn(relabelled results, label)``."""
    def ours(results: ResultSet) -> float:
        r = programs.relabel(results)
        present = [lab for lab in labels if r.select(workload=lab).rows]
        if not present:
            raise ValueError("none of " + ", ".join(labels) + " in the results")
        return programs.means([fn(r, lab) for lab in present])[kind]
    return ours


def _program_headline() -> list[Headline]:
    a, b, ref = programs.of_type("A"), programs.of_type("B"), programs.REFERENCE
    skip = f"{RAMP_SKIP}-wave ramp-up skip; static share {STATIC_SHARE:.0%} on {ref}"

    def saving(ctrl: str, share: float = STATIC_SHARE):
        return lambda r, w: energy_saving(r, w, ctrl, share, ref)

    rows = [Headline(f"type A: ONAC energy saving vs all SMs ({kind} mean)", "%",
                     _on_programs(saving(ONAC), a, kind), paper=20.0 if kind == "arith" else None,
                     note=skip) for kind in ("arith", "harm", "geo")]
    rows += [
        Headline("type A: Seq-Det energy saving vs all SMs", "%",
                 _on_programs(saving(SEQ_DET), a), paper=10.0, note=skip),
        Headline("type A: energy saving at the oracle N (fixed, no detection)", "%",
                 _on_programs(lambda r, w: oracle_saving(r, w, STATIC_SHARE, ref), a),
                 note="energy per warp instruction, oracle sweep; the ceiling for a detector"),
        Headline("type A: detection-time reduction, ONAC vs Seq-Det", "%",
                 _on_programs(detection_reduction, a), paper=45.0, note=skip),
        Headline("type A: performance retained by ONAC", "%",
                 _on_programs(lambda r, w: perf_retained(r, w, ONAC), a), paper=98.0,
                 note="paper: < 2 % loss"),
        Headline("type A: performance retained by Seq-Det", "%",
                 _on_programs(lambda r, w: perf_retained(r, w, SEQ_DET), a)),
        Headline("type B: ONAC energy saving vs all SMs", "%",
                 _on_programs(saving(ONAC), b), paper=-2.0, note="paper: +2 % energy on type B"),
        Headline("type B: performance retained by ONAC", "%",
                 _on_programs(lambda r, w: perf_retained(r, w, ONAC), b)),
        Headline(f"static share at the preset's defaults ({ref}, all SMs)", "%",
                 lambda r: static_share_at_defaults(programs.relabel(r), ref)),
    ]
    for w in programs.KERNELS:
        rows += [Headline(f"{w}: oracle N", "SMs", _on_programs(oracle_of, [w]),
                          paper=programs.PAPER_ORACLE.get(w),
                          note="smallest n with ≥ 98 % steady IPC; paper: of 32 cores"),
                 Headline(f"{w}: ONAC N", "SMs", _on_programs(lambda r, w: _long(
                     r, w, ONAC, "n_chosen"), [w])),
                 Headline(f"{w}: Seq-Det N", "SMs", _on_programs(lambda r, w: _long(
                     r, w, SEQ_DET, "n_chosen"), [w]))]
    return rows


def program_table(results: ResultSet) -> list[str]:
    """Per-kernel table: Table 4.4's type and known N_oracle beside ours."""
    r = programs.relabel(results)
    lines = ["### Table 4.4's kernels: ours per kernel", "",
             "Paper: [THESIS Table 4.4] types; N_oracle known for BP-K2 (12) and BT-K2 (31) "
             "of 32 cores, per-kernel savings not given (only the type A mean, 20 % ONAC, 10 % "
             "Seq-Det). Ours: energy saving vs all SMs at static share 40 % on "
             f"{programs.REFERENCE}; perf. = all-SM cycles / controller cycles.", "",
             "| kernel | program:kernel | type | N_oracle paper (of 32) | N_oracle ours | ONAC N "
             "| Seq-Det N | ONAC saving % | Seq-Det saving % | oracle saving % | ONAC perf. % |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]

    def cell(fn) -> str:
        try:
            v = fn()
        except (ValueError, KeyError, ZeroDivisionError):
            return "–"
        return "–" if v is None or (isinstance(v, float) and math.isnan(v)) else (
            f"{v:.1f}" if isinstance(v, float) else str(v))

    ref = programs.REFERENCE
    for lab, (prog, kernel, kind) in programs.KERNELS.items():
        if not r.select(workload=lab).rows:
            continue
        lines.append(" | ".join([
            f"| {lab}", f"{prog}:{kernel}", kind, str(programs.PAPER_ORACLE.get(lab, "–")),
            cell(lambda: oracle_of(r, lab)), cell(lambda: _long(r, lab, ONAC, "n_chosen")),
            cell(lambda: _long(r, lab, SEQ_DET, "n_chosen")),
            cell(lambda: energy_saving(r, lab, ONAC, STATIC_SHARE, ref)),
            cell(lambda: energy_saving(r, lab, SEQ_DET, STATIC_SHARE, ref)),
            cell(lambda: oracle_saving(r, lab, STATIC_SHARE, ref)),
            cell(lambda: perf_retained(r, lab, ONAC))]) + " |")
    return lines


EXPERIMENT = Experiment(
    name="onac",
    title="ONAC vs Seq-Det vs all SMs on the program suite: Table 4.4's kernels (thesis)",
    description=programs.__doc__,
    grid=programs.grid("onac_programs", list(programs.KERNELS), programs.FULL_SCALE,
                       programs.FULL_SWEEP, 32, CONTROLLERS),
    quick=programs.grid("onac_programs_quick", programs.QUICK_LABELS, programs.QUICK_SCALE,
                        programs.QUICK_SWEEP, 8, ["all_active", ONAC, SEQ_DET],
                        programs.QUARTER_CHIP),
    metrics=METRICS,
    tables=[Table("steady_ipc", rows="sm_controller", columns="kernel",
                  title="Steady-state IPC per SM controller (active_n: the oracle sweep)"),
            Table("cycles", rows="sm_controller", columns="kernel",
                  title="Run time (core cycles)")],
    headline=_program_headline(),
    sections=(program_table,),
    labels={"sm_controller": "SM controller", "workload": "program", "kernel": "kernel"},
)
