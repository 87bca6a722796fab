"""Perf-Sat on the program suite ([THESIS §4.3, Table 4.2]): which kernel of which program each
Table 4.2 label names, the grids, the per-kernel table beside Table 4.2 and the headline rows
(experiments/perfsat.py declares the experiment).

Kernels: the programs whose ``INFO["papers"]`` has a ``thesis_ch4`` entry with Table 4.2
values (``paper_values["thesis_ch4"][label]["fermi_opt"]``); a program the table splits (BP-1/2,
B+-1/2, SRAD-1..6) gives one kernel per label, in the program's kernel order. Each point runs
that kernel's launches alone (runner kind ``perfsat_program``) on Table 4.1's M2090 (the
``thesis`` preset with 16 SMs, as the catalogue grid). The oracle sweep ``ctas_1..N_max−1``
plus the baseline at N_max gives N_opt and the ch.4 type by experiments/characterize.py's rule
(``ch4_type``: the 2 % oracle of [THESIS Table 4.2]; whole-run IPC of the kernel's launches).

Accuracy (Fig 4.5's text, our choice): mean_k(1 − |N̄_det,k − N_opt,k| / N_opt,k), N̄_det,k = the
mean over kernel k's (launch, SM) detections of the limit Perf-Sat settled on (or the last it set
when the launch ended first: experiments/perfsat_program_runs.py ``decisions``).
"""

from __future__ import annotations

import math

from experiments.characterize import ch4_type
from experiments.perfsat_program_runs import KIND
from experiments.thesis_runs import GridUnion
from gpusched.experiment.grid import Grid
from gpusched.experiment.query import ResultSet, geomean
from gpusched.experiment.registry import Headline

PRESET = "thesis"
M2090 = {"sm.count": 16}                  # Table 4.1's Fermi: the thesis preset's 16-core half
# Table 4.2 label -> (program, kernel). BP-1 is backprop's forward layer, BP-2 the weight update
# (Rodinia's order); B+-1 find_k, B+-2 find_range_k; SRAD-1..6 srad_v1's six kernels in launch
# order; CFD the flux kernel (192 threads, Table 4.2's 39,936 register bytes); Gaussian the
# 16-thread elimination kernel (Fan2); LUD the internal update (16,129 CTAs in Table 3.2).
KERNELS = {
    "BP-1": ("backprop", "bp_layer_forward"), "BP-2": ("backprop", "bp_adjust_weights"),
    "B+-1": ("btree", "find_k"), "B+-2": ("btree", "find_range_k"),
    "CFD": ("cfd", "cfd_flux"), "Gaussian": ("gaussian", "gauss_eliminate"),
    "LUD": ("lud", "lud_internal"), "Hotspot": ("hotspot", "hotspot_step"),
    "Pathfinder": ("pathfinder", "path_rows"), "NN": ("nn", "nn_distance"),
    "SRAD-1": ("srad_v1", "srad_extract"), "SRAD-2": ("srad_v1", "srad_prepare"),
    "SRAD-3": ("srad_v1", "srad_reduce"), "SRAD-4": ("srad_v1", "srad_coeff"),
    "SRAD-5": ("srad_v1", "srad_update"), "SRAD-6": ("srad_v1", "srad_compress"),
}
# Our N_max per kernel on the M2090 (the baseline's occupancy limit: registers, threads or CTA
# slots of the program's own kernel, which need not be Table 4.2's; a test checks these against
# the occupancy calculator), the top of each kernel's sweep.
OUR_N_MAX = {"BP-1": 6, "BP-2": 5, "B+-1": 6, "B+-2": 6, "CFD": 2, "Gaussian": 8, "LUD": 4,
             "Hotspot": 4, "Pathfinder": 6, "NN": 6, "SRAD-1": 3, "SRAD-2": 3, "SRAD-3": 3,
             "SRAD-4": 2, "SRAD-5": 3, "SRAD-6": 3}
# Scales: Perf-Sat detects afresh at every launch and needs ~25-30 CTA waves at N_max in one
# launch to settle ([THESIS §4.3.2.2]: about 8 windows of One_TB x N_max); the thesis's grids have
# 16 K-98 K CTAs in one launch. Quick: the single-launch kernels at about 32 waves at N_max on the
# quarter chip (4 SMs: the grid of a program is fixed by its scale, so fewer cores give more waves);
# full: the 16-SM M2090 at 4x those scales (single-launch kernels again ~32 waves) and the
# multi-launch programs at what their functional run affords (docs/mechanisms/perf-sat.md, On
# the program suite, lists CTAs and waves per launch).
QUICK_SCALE = {"backprop": 0.2, "btree": 0.08, "nn": 1.0, "hotspot": 0.25, "pathfinder": 0.1,
               "srad_v1": 0.25, "lud": 0.1, "gaussian": 0.05, "cfd": 0.05}
FULL_SCALE = {prog: 4 * s for prog, s in QUICK_SCALE.items()}
QUICK_LABELS = ["NN", "B+-2", "B+-1", "BP-2", "BP-1"]      # cheapest first
QUARTER_CHIP = {"sm.count": 4, "dram.channels": 3, "l2.slices": 3, "dram.bank_bit": 13,
                "dram.row_bit": 16}   # as the catalogue quick grid: the same bandwidth per SM


def paper_row(label: str) -> dict:
    """Table 4.2's row of ``label`` from its program's ``INFO["paper_values"]``."""
    from workloads import programs
    prog = KERNELS[label][0]
    return programs.load(prog).INFO["paper_values"]["thesis_ch4"][label]


def n_max(label: str, scale: float) -> int:
    """The baseline occupancy limit of ``label``'s kernel on the M2090 ([GPGPU-Sim
    issue_block2core()])."""
    from gpusched.config import resolve_config
    from sim.cta import occupancy_limit
    from sim.run import load_workload
    prog, kernel = KERNELS[label]
    cfg = resolve_config(PRESET, [f"{k}={v}" for k, v in M2090.items()])
    wl = load_workload(f"program:{prog}", scale=scale, preset=PRESET)
    k = next(k for k in wl.kernels if k.name == kernel)
    return occupancy_limit(cfg.sm, k, cfg.sm.count, clamp_small_grid=False).limit


def grid(name: str, labels: list[str], scales: dict[str, float],
         machine: dict | None = None) -> GridUnion:
    """One part per kernel: the baseline, Perf-Sat and the fixed limits 1..N_max − 1."""
    machine = M2090 if machine is None else machine
    parts = []
    for label in labels:
        prog, kernel = KERNELS[label]
        limits = ["max_occupancy", "perf_sat"] + [f"ctas_{n}" for n in range(1, OUR_N_MAX[label])]
        parts.append(Grid(name=f"{name}_{label}", kind=KIND, preset=[PRESET],
                          workloads=[f"program:{prog}"], seeds=[0],
                          overrides={k: [v] for k, v in machine.items()}, source=__file__,
                          params={"kernel": [kernel], "cta_limit": limits,
                                  "scale": [scales[prog]]}))
    return GridUnion(name=name, workloads=list(dict.fromkeys(w for p in parts
                                                             for w in p.workloads)),
                     preset=[PRESET], seeds=[0], kind=KIND, source=__file__, parts=tuple(parts))


# ---- per-kernel analysis ------------------------------------------------------------------------

def _where(label: str, policy: str) -> dict:
    prog, kernel = KERNELS[label]
    return {"workload": f"program:{prog}", "kernel": kernel, "cta_limit": policy}


def _val(results: ResultSet, label: str, policy: str, column: str) -> float:
    return results.mean(column, _where(label, policy))


def labels_in(results: ResultSet) -> list[str]:
    """Table 4.2 labels with a Perf-Sat run and a baseline in ``results``."""
    return [lab for lab in KERNELS if not math.isnan(_val(results, lab, "perf_sat", "cycles"))
            and not math.isnan(_val(results, lab, "max_occupancy", "cycles"))]


def curve(results: ResultSet, label: str) -> dict[int, float]:
    """CTA limit → IPC of the kernel's launches (fixed limits below N_max, the baseline at it)."""
    out = {}
    top = _val(results, label, "max_occupancy", "n_max")
    for policy in results.select(**{k: v for k, v in _where(label, "").items()
                                    if k != "cta_limit"}).levels("cta_limit"):
        if str(policy).startswith("ctas_") and int(str(policy)[5:]) < top:
            n = int(str(policy)[5:])
        elif policy == "max_occupancy":
            n = int(top)
        else:
            continue
        v = _val(results, label, policy, "ipc")
        if not math.isnan(v):
            out[n] = v
    return out


def kernel_row(results: ResultSet, label: str) -> dict:
    """Our Table 4.2 columns of ``label`` and Perf-Sat's decision and accuracy."""
    c = curve(results, label)
    top = int(_val(results, label, "max_occupancy", "n_max"))
    kind, opt = ch4_type(c, top) if len(c) > 1 else ("", top)
    det = _val(results, label, "perf_sat", "n_det")
    return {"n_max": top, "n_opt": opt, "type": kind, "n_det": det,
            "accuracy": 100 * (1 - abs(det - opt) / opt),
            "settled": 100 * _val(results, label, "perf_sat", "settled"),
            "retained": 100 * _val(results, label, "max_occupancy", "cycles")
            / _val(results, label, "perf_sat", "cycles"),
            "saving": 100 * (1 - det / top)}


def mean_of(values: list[float], kind: str, strict: bool = False) -> float:
    """Arithmetic, harmonic or geometric mean; the last two are nan (``strict``: ValueError)
    when a value is ≤ 0 (a negative accuracy)."""
    vals = [v for v in values if not math.isnan(v)]
    if not vals:
        return float("nan")
    if kind == "arith":
        return sum(vals) / len(vals)
    if any(v <= 0 for v in vals):
        if strict:
            raise ValueError(f"not defined: a value ≤ 0 (min {min(vals):.1f})")
        return float("nan")
    return geomean(vals) if kind == "geo" else len(vals) / sum(1 / v for v in vals)


def over_kernels(column: str, kind: str = "arith"):
    def ours(results: ResultSet) -> float:
        labels = labels_in(results)
        if not labels:
            raise ValueError("no kernel with a Perf-Sat run and a baseline")
        return mean_of([kernel_row(results, lab)[column] for lab in labels], kind, strict=True)
    return ours


def accuracy_vs_paper_opt(results: ResultSet) -> float:
    """The accuracy formula with Table 4.2's Fermi Opt as N_opt (second reading)."""
    vals = []
    for lab in labels_in(results):
        opt = paper_row(lab)["fermi_opt"]
        vals.append(100 * (1 - abs(kernel_row(results, lab)["n_det"] - opt) / opt))
    return mean_of(vals, "arith")


def agreement(column: str, paper_key: str):
    def ours(results: ResultSet) -> float:
        labels = labels_in(results)
        same = [kernel_row(results, lab)[column] == paper_row(lab)[paper_key] for lab in labels]
        return 100 * sum(same) / len(same) if same else float("nan")
    return ours


def table42(results: ResultSet) -> list[str]:
    """Per-kernel table beside Table 4.2's Fermi columns."""
    lines = ["### Table 4.2 beside ours (Fermi, M2090: thesis preset, 16 SMs)", "",
             "Paper: [THESIS Table 4.2], Fermi Max / Opt / type; accuracy per Fig 4.5's "
             "text is the paper's mean only (94.25 %). Ours: N_max = the baseline's occupancy "
             "limit, N_opt and type from the CTA-limit sweep (2 % rule, "
             "experiments/characterize.py), N̄_det = Perf-Sat's mean decision over (launch, SM).",
             "", "| kernel | program:kernel | Max paper | Max ours | Opt paper | Opt ours | "
             "type paper | type ours | N̄_det | settled % | accuracy % | perf. retained % |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    labels = labels_in(results)
    for lab in labels:
        p, r = paper_row(lab), kernel_row(results, lab)
        prog, kernel = KERNELS[lab]
        lines.append(f"| {lab} | {prog}:{kernel} | {p['fermi_max']} | {r['n_max']} | "
                     f"{p['fermi_opt']} | {r['n_opt']} | {p['fermi_type']} | {r['type']} | "
                     f"{r['n_det']:.2f} | {r['settled']:.0f} | {r['accuracy']:.1f} | "
                     f"{r['retained']:.1f} |")
    accs = [kernel_row(results, lab)["accuracy"] for lab in labels]
    for kind in ("arith", "harm", "geo"):
        lines.append(f"| **{kind} mean** ({len(labels)}) | | | | | | | | | | "
                     f"{mean_of(accs, kind):.1f} | |")
    return lines


def headline() -> list[Headline]:
    acc = "mean_k 1 − |N̄_det − N_opt|/N_opt over the kernels run (Fig 4.5's text, our choice)"
    return [
        Headline("Perf-Sat accuracy (arithmetic mean)", "%", over_kernels("accuracy"),
                 paper=94.25, note=acc + "; the thesis: 94.25 % Fermi, 85.12 % Kepler"),
        Headline("Perf-Sat accuracy (harmonic mean)", "%", over_kernels("accuracy", "harm"),
                 note="paper: not given"),
        Headline("Perf-Sat accuracy (geometric mean)", "%", over_kernels("accuracy", "geo"),
                 note="paper: not given"),
        Headline("Perf-Sat accuracy against Table 4.2's Fermi Opt", "%", accuracy_vs_paper_opt,
                 note="second reading: the thesis's N_opt instead of our oracle's"),
        Headline("Perf-Sat resource saving (1 − N̄_det/N_max)", "%", over_kernels("saving"),
                 paper=18.32, note="arithmetic mean over kernels"),
        Headline("Perf-Sat performance retained", "%", over_kernels("retained"), paper=99.0,
                 note="paper: < 1 % loss; baseline cycles / Perf-Sat cycles, arithmetic mean"),
        Headline("Perf-Sat detections that settled", "%", over_kernels("settled"),
                 note="per (launch, SM); the rest ended with their launch"),
        Headline("kernels whose ch.4 type is Table 4.2's (Fermi)", "%",
                 agreement("type", "fermi_type"), paper=100.0,
                 note="type by experiments/characterize.py ch4_type"),
        Headline("kernels whose N_opt is Table 4.2's (Fermi)", "%",
                 agreement("n_opt", "fermi_opt"), paper=100.0),
        Headline("kernels whose N_max is Table 4.2's (Fermi)", "%",
                 agreement("n_max", "fermi_max"), paper=100.0),
    ]
