"""Thesis ch.3 ([THESIS ch. 3]): phase-aware warp scheduling against RR and GTO.

Every ch.3 kernel stand-in (Tables 3.2/3.3, ``sim/workload/catalogue.py``) runs on
``thesis_ch3`` (Table 3.1) with the full memory hierarchy under the single-level schedulers
``lrr`` (RR), ``gto``, ``phase`` and the two-level ones ``tlrr``, ``tlgto``, ``tlphase`` and
``tlphase_rr`` (RR inside the ready queue, our variant; 6-entry ready queue). Speedup is RR's cycles
over the scheduler's ([THESIS §3.5]: normalised to RR).

Kernel classes ([THESIS Table 3.2, Table 3.3]) come from our own runs, not from the thesis's lists,
because a stand-in need not behave like its original: a kernel is type A (GTO-favouring) at a level
when GTO's cycles are below RR's at that level (single: ``gto`` vs ``lrr``; two-level: ``tlgto`` vs
``tlrr``), else type B. The thesis itself classifies per level (BP-K1, LUD and KM change class).

Headline (the abstract of [THESIS ch. 3]): two-level phase-aware over TLRR on the two-level type A
kernels (+6.31 %), and single-level phase-aware over GTO on the single-level type B kernels (+6.65
%); geometric means of per-kernel speedups (the thesis names no mean; a choice).

Scheduler states ([THESIS §3.5]) from the sub-core's per-slot reasons (docs/stats.md ``issue.*``,
each slot counted under its first reason): state 1 (no warp has an instruction) = ``idle`` +
``fetch``; state 2 (waiting on an operand) = ``memory`` + ``scoreboard`` + ``barrier``; state 3
(pipeline stall) = ``unit_busy``; state 4 (can issue) = ``issued`` + ``issue_interval`` (the
second cycle of the 1-per-2-cycles dispatch, Table 3.1, is not idleness). Idle time = states 1–3
as % of all slots. ALU and memory load ([THESIS §3.5]): the warp-state profiler's (sim/profile/
warp_states.py) average in-flight ALU results and global memory instructions per cycle, per SM;
the runner kind ``phase`` runs the model with that profiler on (it leaves cycles unchanged).
Runtime decomposition ([THESIS §3.5]): the same profiler's cycles per SM with ALU work only, memory
only, both (overlap) or neither (idle) in flight, as % of the run (docs/stats.md
``warp_states.decomposition``); figure ``decomposition.png`` (experiments/phase_figures.py).
"""

from __future__ import annotations

from experiments import phase_programs as programs
from experiments.phase_figures import draw_decomposition
from experiments.phase_runs import KIND, run_profiled  # noqa: F401 (registers the kind)
from gpusched.experiment.grid import Grid
from gpusched.experiment.plots import FigurePlot
from gpusched.experiment.query import ResultSet, geomean
from gpusched.experiment.registry import Experiment, Headline, Metric, Plot, Table

PRESET = "thesis_ch3"
RODINIA = ["bp_k1_like", "bp_k2_like", "btree_like", "heartwall_like", "km_like", "lud_like",
           "srad_like", "cfd_like"]
SDK = ["dwt_like", "dxtc_like", "fwt_like", "hist_like", "mco_like"]
KERNELS = RODINIA + SDK
SINGLE = ["lrr", "gto", "phase"]
TWO_LEVEL = ["tlrr", "tlgto", "tlphase", "tlphase_rr"]     # tlphase_rr: RR inside
SCHEDULERS = SINGLE + TWO_LEVEL
AXIS = "sm.warp_sched"
LEVELS = {"single": ("gto", "lrr"), "two": ("tlgto", "tlrr")}


def _slots(stats: dict) -> int:
    return sum(v for k, v in stats["issue"].items() if k != "paused")


def state_pct(*reasons: str):
    """Share of scheduler slots (%) whose first reason is one of ``reasons``."""
    def compute(stats: dict) -> float:
        return 100.0 * sum(stats["issue"][r] for r in reasons) / max(_slots(stats), 1)
    return compute


STATE1 = ("idle", "fetch")
STATE2 = ("memory", "scoreboard", "barrier")
STATE3 = ("unit_busy",)


def row_axis(results: ResultSet) -> str:
    """The column naming a kernel: ``kernel`` for the program suite's runs (one kernel of a
    program per point, experiments/phase_programs.py), else ``workload`` (a stand-in)."""
    return "kernel" if any(r.get("kernel") is not None for r in results.rows) else "workload"


def speedup(results: ResultSet, workload: str, sched: str, base: str) -> float:
    """Cycles of ``base`` over cycles of ``sched`` on one kernel (mean over seeds)."""
    row = row_axis(results)
    num = results.mean("cycles", {AXIS: base, row: workload})
    den = results.mean("cycles", {AXIS: sched, row: workload})
    return num / den if den and num == num and den == den else float("nan")


def classify(results: ResultSet, level: str) -> dict[str, list[str]]:
    """{"A": GTO-favouring kernels, "B": RR-favouring kernels} at ``level`` ("single"/"two")."""
    gto, rr = LEVELS[level]
    out: dict[str, list[str]] = {"A": [], "B": []}
    for w in results.levels(row_axis(results)):
        s = speedup(results, w, gto, rr)
        if s == s:
            out["A" if s > 1.0 else "B"].append(w)
    return out


MEANS = {"geo": geomean,
         "arith": lambda xs: sum(xs) / len(xs) if xs else float("nan"),
         "harm": lambda xs: len(xs) / sum(1 / x for x in xs) if xs else float("nan")}


def class_speedup(sched: str, base: str, level: str, kind: str, mean: str = "geo",
                  kernels_of=None):
    """Mean (``MEANS``: geometric by default) over the ``kind`` kernels of ``level`` of
    sched's speedup over base; ``kernels_of(results, level)`` gives the classes (default: our
    own runs' ``classify``; the program experiment also uses the thesis's own lists)."""
    def ours(results: ResultSet) -> float:
        kernels = (kernels_of or classify)(results, level)[kind]
        values = [v for v in (speedup(results, w, sched, base) for w in kernels) if v == v]
        return MEANS[mean](values)
    return ours


def class_count(level: str, kind: str):
    return lambda results: float(len(classify(results, level)[kind]))


def class_idle(sched: str, level: str, kind: str):
    """Mean idle time of ``sched`` over the ``kind`` kernels, normalised to RR's ([THESIS §3.5])."""
    rr = LEVELS[level][1]

    def ours(results: ResultSet) -> float:
        kernels, row = classify(results, level)[kind], row_axis(results)
        ratios = [results.mean("idle", {AXIS: sched, row: w})
                  / results.mean("idle", {AXIS: rr, row: w}) for w in kernels]
        return sum(ratios) / len(ratios) if ratios else float("nan")
    return ours


def load_per_sm(column: str):
    """Average ``column`` (``alu_load`` / ``mem_load``) per SM per cycle, over the run's kernels
    (each ch.3 workload is one kernel)."""
    def compute(stats: dict) -> float | None:
        ws = stats.get("warp_states")
        if not ws or not ws["kernels"]:
            return None
        return sum(k[column] for k in ws["kernels"]) / ws["sms"]
    return compute


def decomposition_pct(part: str):
    """Share (%) of the run's cycles, mean per SM, in one part of the runtime decomposition:
    ``compute_only``, ``memory_only``, ``overlap`` or ``idle``."""
    def compute(stats: dict) -> float | None:
        d = (stats.get("warp_states") or {}).get("decomposition")
        if not d or not stats["cycles"]:
            return None
        value = {"compute_only": d["compute"] - d["overlap"],
                 "memory_only": d["memory"] - d["overlap"],
                 "overlap": d["overlap"], "idle": d["idle"]}[part]
        return 100.0 * value / stats["cycles"]
    return compute


# the quick grid's kernels: both classes at both levels (single-level B: cfd, dxtc; two-level A:
# bp_k2, dxtc), phase's gains (dwt, fwt, mco); without the slowest four (btree, heartwall, bp_k1,
# lud: 65 % of the 13-kernel quick grid's run time)
QUICK_KERNELS = ["bp_k2_like", "km_like", "srad_like", "cfd_like", "dwt_like", "dxtc_like",
                 "fwt_like", "hist_like", "mco_like"]


def _grid(name: str, scale: float, seeds: list[int], kernels: list[str] = KERNELS) -> Grid:
    return Grid(name=name, preset=[PRESET], workloads=kernels, seeds=seeds,
                overrides={AXIS: SCHEDULERS},
                params={"memory": ["hierarchy"], "scale": [scale]}, kind=KIND,
                source=__file__)


def _headline() -> list[Headline]:
    rows = [
        Headline("two-level type A: tlphase / TLRR speedup", "×",
                 class_speedup("tlphase", "tlrr", "two", "A"), paper=1.0631,
                 note="geo mean over kernels where TLGTO beats TLRR in this run (abstract: +6.31 %)"),
        Headline("single-level type B: phase / GTO speedup", "×",
                 class_speedup("phase", "gto", "single", "B"), paper=1.0665,
                 note="geo mean over kernels where RR beats GTO in this run (abstract: +6.65 %)"),
    ]
    for level, (gto, rr) in LEVELS.items():
        mine = "phase" if level == "single" else "tlphase"
        for kind in ("A", "B"):
            rows.append(Headline(f"{level}-level type {kind}: kernels", "count",
                                 class_count(level, kind), note="classified from this run"))
            for sched in (gto, mine):
                rows.append(Headline(f"{level}-level type {kind}: {sched} / {rr} speedup", "×",
                                     class_speedup(sched, rr, level, kind),
                                     note="geo mean; the thesis: phase-aware tracks the better "
                                          "of GTO and RR"))
            rows.append(Headline(f"{level}-level type {kind}: {mine} idle time / {rr}", "×",
                                 class_idle(mine, level, kind),
                                 note="states 1-3 share, arithmetic mean of per-kernel ratios"))
    for kind in ("A", "B"):
        rows.append(Headline(f"two-level type {kind}: tlphase_rr / tlrr speedup", "×",
                             class_speedup("tlphase_rr", "tlrr", "two", kind),
                             note="geo mean; tlphase with RR inside the ready queue "
                                  "(our variant)"))
    return rows


METRICS = [
    Metric("cycles", "Execution time", "core cycles"),
    Metric("speed", "Speed", "10⁶ / cycles", compute=lambda s: 1e6 / s["cycles"]),
    Metric("idle", "Scheduler idle time (states 1-3)", "% of slots",
           compute=state_pct(*STATE1, *STATE2, *STATE3)),
    Metric("state1", "State 1: no instruction", "% of slots", compute=state_pct(*STATE1)),
    Metric("state2", "State 2: operand wait", "% of slots", compute=state_pct(*STATE2)),
    Metric("state3", "State 3: pipeline stall", "% of slots", compute=state_pct(*STATE3)),
    Metric("ipc", "IPC", "warp instructions/cycle"),
    Metric("alu_load", "ALU load", "results in flight per SM", compute=load_per_sm("alu_load")),
    Metric("mem_load", "Memory load", "loads in flight per SM", compute=load_per_sm("mem_load")),
    *[Metric(f"dec_{part}", f"Runtime: {part.replace('_', ' ')}", "% of cycles per SM",
             compute=decomposition_pct(part))
      for part in ("compute_only", "memory_only", "overlap", "idle")],
]
NAMES = {AXIS: {"lrr": "RR", "gto": "GTO", "phase": "phase-aware", "tlrr": "TLRR",
                "tlgto": "TLGTO", "tlphase": "TL-phase", "tlphase_rr": "TL-phase (RR inside)"}}


def _tables(row: str) -> list[Table]:
    return [Table(m, rows=row, columns=AXIS)
            for m in ("cycles", "idle", "state1", "state2", "state3", "alu_load", "mem_load",
                      "dec_compute_only", "dec_memory_only", "dec_overlap", "dec_idle")]


def _plots(x: str) -> list[Plot]:
    return [Plot("speed", "speedup.png", x=x, series=AXIS, normalize="lrr", mean=("geo",),
                 title="Speedup over RR (single-level: RR, GTO, phase-aware; the rest two-level)"),
            Plot("idle", "idle.png", x=x, series=AXIS, normalize="lrr", mean=("arith",),
                 title="Scheduler idle time (states 1-3), normalised to RR"),
            Plot("state2", "operand_wait.png", x=x, series=AXIS,
                 title="State 2 (all warps wait on an operand), % of scheduler slots"),
            Plot("mem_load", "mem_load.png", x=x, series=AXIS, normalize="lrr", mean=("geo",),
                 title="Memory load (global loads in flight per SM), normalised to RR"),
            Plot("alu_load", "alu_load.png", x=x, series=AXIS, normalize="lrr", mean=("geo",),
                 title="ALU load (results in flight per SM), normalised to RR"),
            FigurePlot("cycles", "decomposition.png", draw=draw_decomposition,
                       title="Runtime decomposition per class, relative to RR's runtime",
                       caption="stacked: compute only, overlap, memory only, idle cycles per SM "
                               "([THESIS §3.5]); mean over the class's kernels")]


# the stand-ins of sim/workload/catalogue.py (the reproduction before the program suite)
CATALOGUE = Experiment(
    name="phase-catalogue",
    title="Thesis ch.3: phase-aware warp scheduling vs RR and GTO, catalogue stand-ins "
          "(thesis_ch3)",
    description=__doc__,
    # full: about 4 waves of CTAs per core (the thesis's grids are 56 to 65535 CTAs), one seed
    # (docs/mechanisms/phase-aware.md: 78 points take about an hour on 2 shared cores)
    grid=_grid("phase", 4.0, [0]),
    # quick: about one wave, one seed; tail effects weigh more (see docs/mechanisms/phase-aware.md)
    quick=_grid("phase_quick", 0.5, [0], QUICK_KERNELS),
    metrics=METRICS, tables=_tables("workload"), plots=_plots("workload"),
    headline=_headline(),
    labels={AXIS: "warp scheduler", "workload": "kernel"},
    names=NAMES,
)

EXPERIMENT = Experiment(
    name="phase",
    title="Thesis ch.3: phase-aware warp scheduling vs RR and GTO on the program suite "
          "(thesis_ch3)",
    description=programs.__doc__,
    grid=programs.grid("phase_programs", list(programs.THESIS_KERNELS), programs.FULL_SCALE,
                       [SINGLE, TWO_LEVEL]),
    quick=programs.grid("phase_programs_quick", programs.QUICK_LABELS, programs.QUICK_SCALE,
                        [SINGLE, TWO_LEVEL]),
    metrics=METRICS, tables=_tables("kernel"), plots=_plots("kernel"),
    headline=programs.headline() + _headline(),
    labels={AXIS: "warp scheduler", "kernel": "kernel", "workload": "program"},
    names={**NAMES, "kernel": programs.LABEL_OF},
)
