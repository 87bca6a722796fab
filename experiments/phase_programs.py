"""Thesis ch.3 on the program suite: which kernel of which program each Table 3.2/3.3 label
names, the thesis's kernel classes, the grids' scales, and the headline rows that set our
classes and gains beside the thesis's (experiments/phase.py declares the experiment).

Kernels: the suite programs whose ``INFO["papers"]`` has a ``thesis_ch3`` entry; a program
the thesis splits (BP-K1/K2, B+T-K1/K2) gives one point per kernel. Each point runs that
kernel's launches alone (runner kind ``phase_program``, experiments/phase_program_runs.py).

Scales: the thesis's grids are 56 to 65 535 CTAs (Tables 3.2/3.3), up to 680 waves of CTAs on
its 16 cores; each program's ``INFO["scale_note"]`` says which scale is the thesis's grid. We
keep the kernels' code, CTA shape and occupancy and shrink the grid: the quick grid to about
two waves of CTAs per core, the full grid to four times that, so
warps and CTAs fall out of step as in a long grid (docs/mechanisms/phase-aware.md, "On the
program suite", lists CTAs and waves per kernel).
"""

from __future__ import annotations

from gpusched.experiment.grid import Grid
from gpusched.experiment.registry import Headline
from experiments.phase_program_runs import KIND
from experiments.thesis_runs import GridUnion

PRESET = "thesis_ch3"
AXIS = "sm.warp_sched"
# Table 3.2/3.3 label -> (suite program, kernel). K1/K2 by the tables' order of each program's
# kernels; CFD's 9-phase, 985-cycle kernel is the flux kernel (compute_flux), DWT's the forward
# 5/3 lifting (4 096 CTAs of 512 at the thesis's 2 048 x 1 024 input), FWT's the shared-memory
# pass (4 096 CTAs of 512), HIST's the 256-CTA partial histograms, KM's the assignment kernel,
# LUD's the 16 129-CTA internal update, SRAD's the diffusion coefficient kernel (its longest
# phase on PTX, 218 cycles, is the table's).
THESIS_KERNELS = {
    "BP-K1": ("backprop", "bp_layer_forward"), "BP-K2": ("backprop", "bp_adjust_weights"),
    "B+T-K1": ("btree", "find_k"), "B+T-K2": ("btree", "find_range_k"),
    "CFD": ("cfd", "cfd_flux"), "Heartwall": ("heartwall", "heartwall"),
    "KM": ("kmeans", "kmeans_assign"), "LUD": ("lud", "lud_internal"),
    "SRAD": ("srad_v1", "srad_coeff"),
    "DWT": ("dwt2d", "fdwt53"), "DXTC": ("dxtc", "dxt1_compress"), "FWT": ("fwt", "fwt_shared"),
    "HIST": ("histogram", "histogram_partial"), "MCO": ("mco", "mc_paths"),
}
# The thesis's classes ([THESIS §3.5.5]), single-level and two-level: A = GTO
# beats RR, B = RR beats GTO. BP-K1, LUD and KM change class between the levels.
THESIS_CLASS = {
    "BP-K1": "AB", "BP-K2": "AA", "B+T-K1": "AA", "B+T-K2": "AA", "CFD": "BB",
    "Heartwall": "BB", "KM": "AB", "LUD": "AB", "SRAD": "AA", "DWT": "AA", "DXTC": "AA",
    "FWT": "BB", "HIST": "AA", "MCO": "AA",
}
# scales: quick one to two waves of CTAs per core, full four times the quick (the CTAs and waves
# each gives are in docs/mechanisms/phase-aware.md)
QUICK_SCALE = {
    "backprop": 0.05, "btree": 0.02, "cfd": 0.1, "heartwall": 0.2, "kmeans": 0.5, "lud": 0.1,
    "srad_v1": 0.5, "dwt2d": 1 / 16, "dxtc": 1 / 128, "fwt": 1 / 64, "histogram": 0.01,
    "mco": 1 / 256,
}
FULL_SCALE = {prog: 4 * scale for prog, scale in QUICK_SCALE.items()}
# the quick grid's kernels: both thesis classes at both levels; without CFD, DXTC and
# Heartwall, left to the full grid: each alone would take most of the 10-minute budget (CFD's
# flux kernel at scale 0.1: 9 launches, 1.26 M warp instructions, 440 s for one RR point on
# the shared machine; a DXTC CTA runs ~30 000 warp instructions, a Heartwall frame ~1 500 per
# thread)
# (cheapest first, so a sweep cut short has them all)
QUICK_LABELS = ["BP-K1", "BP-K2", "B+T-K1", "B+T-K2", "HIST", "MCO", "DWT", "FWT", "SRAD", "LUD",
                "KM"]
LABEL_OF = {kernel: label for label, (_, kernel) in THESIS_KERNELS.items()}


def thesis_programs() -> set[str]:
    """The suite programs whose INFO names a ch.3 kernel (the set THESIS_KERNELS must cover)."""
    from sim.workload.program import load_module, suite_dir
    root = suite_dir()
    found = set()
    for d in sorted(root.iterdir()) if root else []:
        if (d / f"{d.name}.py").is_file():
            info = getattr(load_module(d / f"{d.name}.py"), "INFO", {})
            if "thesis_ch3" in info.get("papers", {}):
                found.add(d.name)
    return found


def grid(name: str, labels: list[str], scales: dict[str, float],
         schedulers: list[list[str]]) -> GridUnion:
    """One part per scheduler group and kernel (its program at its scale), swept as one grid
    in that order: every kernel's single-level runs come before the two-level ones, so a sweep
    cut short still has whole levels."""
    parts = [Grid(name=f"{name}/{label}", preset=[PRESET],
                  workloads=[f"program:{THESIS_KERNELS[label][0]}"], seeds=[0],
                  overrides={AXIS: group},
                  params={"kernel": [THESIS_KERNELS[label][1]], "memory": ["hierarchy"],
                          "scale": [scales[THESIS_KERNELS[label][0]]]}, kind=KIND)
             for group in schedulers for label in labels]
    return GridUnion(name=name, preset=[PRESET], workloads=list(dict.fromkeys(
        w for p in parts for w in p.workloads)), seeds=[0], kind=KIND, parts=tuple(parts),
        source=__file__)


def thesis_classes(results, level: str) -> dict[str, list[str]]:
    """The thesis's class lists at ``level`` over the kernels these results ran."""
    index = 0 if level == "single" else 1
    ran = set(results.levels("kernel"))
    out: dict[str, list[str]] = {"A": [], "B": []}
    for label, (_, kernel) in THESIS_KERNELS.items():
        if kernel in ran:
            out[THESIS_CLASS[label][index]].append(kernel)
    return out


def class_agreement(level: str):
    """Kernels whose class in our runs is the thesis's, at ``level``."""
    def ours(results) -> float:
        from experiments.phase import classify
        mine, theirs = classify(results, level), thesis_classes(results, level)
        return float(sum(len(set(mine[k]) & set(theirs[k])) for k in "AB"))
    return ours


def kernel_ratio(kernel: str, sched: str, base: str):
    def ours(results) -> float:
        from experiments.phase import speedup
        return speedup(results, kernel, sched, base)
    return ours


def headline() -> list[Headline]:
    """Our classes beside the thesis's, the abstract's two gains on the thesis's own kernel
    sets (and on ours) with arithmetic, harmonic and geometric means, the PACT abstract's
    accuracies, and per kernel GTO/RR and phase-aware's gain."""
    from experiments.phase import class_speedup
    rows = []
    for level in ("single", "two"):
        rows.append(Headline(f"{level}-level: kernels in the thesis's class", "count",
                             class_agreement(level), paper=len(THESIS_KERNELS),
                             note="type A (GTO beats RR) / B per kernel, ours from these runs"))
    claims = (("two-level type A: tlphase / TLRR", "tlphase", "tlrr", "two", "A", 1.0631),
              ("single-level type B: phase / GTO", "phase", "gto", "single", "B", 1.0665))
    for metric, sched, base, level, kind, paper in claims:
        for mean in ("arith", "harm", "geo"):
            rows.append(Headline(f"{metric} speedup, thesis's kernels, {mean} mean", "×",
                                 class_speedup(sched, base, level, kind, mean, thesis_classes),
                                 paper=paper, note="the thesis's class list (abstract; mean "
                                 "not named)"))
        rows.append(Headline(f"{metric} speedup, our classes, geo mean", "×",
                             class_speedup(sched, base, level, kind), paper=paper,
                             note="kernels classified from these runs"))
    rows.append(Headline("single-level type A: phase / GTO", "×",
                         class_speedup("phase", "gto", "single", "A", "arith", thesis_classes),
                         paper=0.992, note="PACT'15 abstract: phase matches GTO with 99.2 % "
                         "accuracy; arith mean, thesis's list"))
    rows.append(Headline("single-level type B: phase / RR", "×",
                         class_speedup("phase", "lrr", "single", "B", "arith", thesis_classes),
                         paper=0.98, note="PACT'15 abstract: within 98 % of RR; arith mean, "
                         "thesis's list"))
    for label, (_, kernel) in THESIS_KERNELS.items():
        single, two = THESIS_CLASS[label]
        sign = {"A": ">", "B": "<"}
        rows.append(Headline(f"{label}: GTO / RR", "×", kernel_ratio(kernel, "gto", "lrr"),
                             note=f"thesis: single-level {single} ({sign[single]} 1)"))
        rows.append(Headline(f"{label}: TLGTO / TLRR", "×", kernel_ratio(kernel, "tlgto", "tlrr"),
                             note=f"thesis: two-level {two} ({sign[two]} 1)"))
        rows.append(Headline(f"{label}: phase / GTO", "×", kernel_ratio(kernel, "phase", "gto"),
                             note="thesis: per-kernel bars in Fig 3.7 (lost from our source)"))
        rows.append(Headline(f"{label}: tlphase / TLRR", "×",
                             kernel_ratio(kernel, "tlphase", "tlrr"),
                             note="thesis: per-kernel bars in Fig 3.7 (lost from our source)"))
    return rows
