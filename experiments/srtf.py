"""SRTF ([SRTF]): preemptive thread-block scheduling of concurrent kernels with the Simple
Slicing runtime predictor — FIFO, MPMax, SRTF, SRTF/Adaptive and zero-sampling SRTF over the 56
ordered pairs of eight ERCBench-like kernels, arrival offsets +100 cycles, +25 % and +50 % of the
first kernel's standalone runtime, against the analytic SJF / LJF / serial-FIFO references.

Timing: the block-level mode (sim/multiprog/blocklevel.py; our choice where [SRTF] is silent): each
kernel's mean block time and spread are the document's table ([SRTF ERCBench]), its t(r) knee is
calibrated on the cycle-level model (sim/multiprog/calibrate.py), and a subset of pairs (``check``
points) runs in both models to show how far the block-level turnarounds are from the cycle-level
ones. SHA1's 22 M cycles cost the block mode ~1 s. Policies run through the same kernel schedulers,
``kernel_sched`` / ``srtf_pred`` twins and dispatcher as the cycle-level model.

Metrics per workload ([SRTF STP, ANTT]): NTT, STP, ANTT, StrictF; aggregated as geometric means over
workloads at +100 cycles; improvement factors as the document. Predictor accuracy = predicted /
actual total runtime per (kernel, SM) record, kernels alone, under MPMax and under SRTF.
Ablations at +100 cycles: Adaptive's cap of the shortest kernel (2, 4; default 3), the spec's
knee 4 instead of the calibrated knees (FIFO, SRTF, Adaptive), and the SRTF knobs of
experiments/srtf_ablations.py (hysteresis, sampling SM, sample size, Resident variant).
Quick grid: 8 of the 56 pairs at +100 cycles, the alone runs, one check pair, the knobs on 4
of those pairs.

That is ``CATALOGUE`` (``gpusched reproduce srtf --catalogue``). ``EXPERIMENT`` runs the same
study on the program suite in the cycle-level model (experiments/srtf_programs.py).
"""

from __future__ import annotations

import math

from experiments import srtf_ablations as knobs
from experiments.srtf_program_runs import KIND as PROGRAM_KIND  # noqa: F401 (registers it)
from experiments.srtf_programs import paper_ratio_rows, program_experiment, ratio  # noqa: F401
from experiments.srtf_runs import KIND
from experiments.thesis_runs import GridUnion
from gpusched.experiment.grid import Grid
from gpusched.experiment.plots import FigurePlot
from gpusched.experiment.query import ResultSet
from gpusched.experiment.registry import Experiment, Headline, Metric, Table
from sim.multiprog.compose import ordered_pairs
from sim.multiprog.metrics import gmean
from sim.workload.ercbench import ERCB_NAMES

POLICIES = ["srtf_fifo", "mpmax", "srtf", "adaptive", "srtf_zero"]
LABEL = {"srtf_fifo": "FIFO", "mpmax": "MPMax", "srtf": "SRTF", "adaptive": "SRTF/Adaptive",
         "srtf_zero": "SRTF zero-sampling"}
OFFSETS = ["100", "25%", "50%"]
PAIRS = ordered_pairs(list(ERCB_NAMES))
QUICK_PAIRS = ["ercb_aes_e+ercb_jpeg_d", "ercb_jpeg_d+ercb_aes_e", "ercb_sha1+ercb_jpeg_e",
               "ercb_jpeg_e+ercb_sha1", "ercb_sad+ercb_nlm2", "ercb_raytracing+ercb_aes_d",
               "ercb_nlm2+ercb_jpeg_d", "ercb_aes_d+ercb_sad"]
CHECK_KERNELS = ["ercb_jpeg_d", "ercb_aes_e", "ercb_raytracing", "ercb_sad"]
CHECK_POLICIES = ["srtf_fifo", "mpmax", "srtf"]
CHECK_SCALE = 0.1
OVERRIDES = {"kernels.concurrent_sm": True}


def _grid(name: str, pairs: list[str], offsets: list[str], check: list[str],
          ablations: bool = False, knob_pairs: list[str] = ()) -> GridUnion:
    parts = [Grid(name=f"{name}_pairs", workloads=pairs, preset=["gtx480"], kind=KIND,
                  overrides=dict(OVERRIDES),
                  params={"task": ["pair"], "policy": POLICIES, "offset": offsets}),
             Grid(name=f"{name}_alone", workloads=list(ERCB_NAMES), preset=["gtx480"], kind=KIND,
                  overrides=dict(OVERRIDES), params={"task": ["alone"], "policy": ["srtf"]}),
             Grid(name=f"{name}_check", workloads=check, preset=["gtx480"], kind=KIND,
                  overrides=dict(OVERRIDES),
                  params={"task": ["check"], "policy": CHECK_POLICIES, "scale": [CHECK_SCALE]})]
    if ablations:       # knobs at +100 cycles: Adaptive's cap, the spec's knee 4
        parts += [Grid(name=f"{name}_cap", workloads=pairs, preset=["gtx480"], kind=KIND,
                       overrides=dict(OVERRIDES), params={"task": ["pair"], "policy": ["adaptive"],
                                                          "offset": ["100"], "share_cap": [2, 4]}),
                  Grid(name=f"{name}_knee", workloads=pairs, preset=["gtx480"], kind=KIND,
                       overrides=dict(OVERRIDES),
                       params={"task": ["pair"], "policy": ["srtf_fifo", "srtf", "adaptive"],
                               "offset": ["100"], "timing": ["spec"]})]
    if knob_pairs:
        parts.append(knobs.knob_grid(name, list(knob_pairs), OVERRIDES))
    return GridUnion(name=name, workloads=list(dict.fromkeys(pairs + list(ERCB_NAMES) + check)),
                     preset=["gtx480"], seeds=[0], kind=KIND, parts=tuple(parts))


GRID = _grid("srtf", PAIRS, OFFSETS, ordered_pairs(CHECK_KERNELS), ablations=True,
             knob_pairs=PAIRS)
QUICK = _grid("srtf_quick", QUICK_PAIRS, ["100"], ["ercb_jpeg_d+ercb_aes_e"],
              knob_pairs=knobs.QUICK_PAIRS)


# ---- rows and aggregates ------------------------------------------------------------------------

def pair_rows(results: ResultSet, policy: str, offset: str = "100", share_cap: int = 3,
              timing: str = "calibrated") -> list[dict]:
    """Pair runs of ``policy`` at ``offset`` with the given knobs (defaults: the main study)."""
    return [r for r in results.rows if r.get("task") == "pair" and r.get("policy") == policy
            and str(r.get("offset")) == offset and r.get("stp") is not None
            and r.get("share_cap", 3) == share_cap and r.get("timing", "calibrated") == timing]


def gm(policy: str, metric: str, offset: str = "100", **knobs):
    """Geometric mean of ``metric`` over the workloads run under ``policy`` at ``offset``."""
    def ours(results: ResultSet) -> float:
        rows = pair_rows(results, policy, offset, **knobs)
        if not rows:
            raise ValueError(f"no {policy} runs at offset {offset}")
        return gmean(r[metric] for r in rows)
    return ours


def worst(policy: str, metric: str = "antt"):
    return lambda results: max(r[metric] for r in pair_rows(results, policy))


def sharing_count(results: ResultSet) -> float:
    rows = pair_rows(results, "adaptive")
    return sum(1 for r in rows if any(e[2] == "enter" for e in (r.get("sharing") or [])))


def ratios(results: ResultSet, task: str, policy: str | None) -> list[float]:
    """Predicted / actual of every record of ``task`` runs under ``policy`` (None: any; main
    study, +100)."""
    return [x for r in results.rows if r.get("task") == task
            and (policy is None or r.get("policy") == policy)
            and str(r.get("offset", "100")) == "100" and r.get("share_cap", 3) == 3
            and r.get("timing", "calibrated") == "calibrated" for x in (r.get("pred_ratio") or [])]


def within_2x(task: str, policy: str):
    def ours(results: ResultSet) -> float:
        xs = ratios(results, task, policy)
        if not xs:
            raise ValueError("no predictor records")
        return 100.0 * sum(0.5 <= x <= 2.0 for x in xs) / len(xs)
    return ours


def median_delay(kind: str, policy: str = "srtf"):
    def ours(results: ResultSet) -> float:
        xs = sorted(x for r in pair_rows(results, policy) for x in (r.get(f"delays.{kind}") or []))
        if not xs:
            raise ValueError(f"no {kind} delays")
        return float(xs[len(xs) // 2])
    return ours


def check_error(results: ResultSet, fn=max) -> float:
    """Relative NTT error of block mode against the cycle-level model over the check points."""
    errs = [abs(b - c) / c for r in results.rows if r.get("task") == "check"
            for b, c in zip(r.get("block.ntt") or [], r.get("cycle.ntt") or [])]
    if not errs:
        raise ValueError("no check runs")
    return 100.0 * (fn(errs) if fn is max else sum(errs) / len(errs))


def at_100(stat: str):
    """A per-run metric for the tables: ``stat`` of pair runs at +100 cycles, else None."""
    return lambda s: (s.get(stat) if s.get("offset") == "100" and "sjf" in s
                      and s.get("share_cap", 3) == 3 and s.get("timing", "calibrated") == "calibrated"
                      and ":" not in str(s.get("variant", "")) else None)


def _headline() -> list[Headline]:
    H = Headline
    rows = [
        H("STP, FIFO", "", gm("srtf_fifo", "stp"), 1.35, "geo. mean over the pairs at +100 cycles"),
        H("STP, SRTF", "", gm("srtf", "stp"), 1.59),
        H("ANTT, FIFO", "", gm("srtf_fifo", "antt"), 3.66),
        H("ANTT, SRTF", "", gm("srtf", "antt"), 1.63),
    ] + paper_ratio_rows(gm) + [
        H("STP, MPMax", "", gm("mpmax", "stp")),
        H("ANTT, MPMax", "", gm("mpmax", "antt")),
        H("ANTT, SRTF/Adaptive", "", gm("adaptive", "antt")),
        H("StrictF, SRTF", "", gm("srtf", "fairness")),
        H("STP, SRTF zero-sampling", "", gm("srtf_zero", "stp")),
        H("ANTT, SRTF zero-sampling", "", gm("srtf_zero", "antt")),
        H("STP, SJF (analytic)", "", gm("srtf", "sjf.stp")),
        H("STP, LJF (analytic)", "", gm("srtf", "ljf.stp")),
        H("STP, serial FIFO (analytic)", "", gm("srtf", "serial.stp"),
          note="our choice where [SRTF] is silent: the document's FIFO is weaker than this"),
        H("ANTT, SJF (analytic)", "", gm("srtf", "sjf.antt")),
        H("ANTT, LJF (analytic)", "", gm("srtf", "ljf.antt")),
        H("ANTT, serial FIFO (analytic)", "", gm("srtf", "serial.antt")),
        H("workloads in sharing mode (Adaptive)", "", sharing_count),
    ]
    for p in POLICIES:
        rows.append(H(f"worst ANTT, {LABEL[p]}", "", worst(p)))
    for off in OFFSETS[1:]:
        for p in ("srtf_fifo", "srtf"):
            rows += [H(f"STP at +{off}, {LABEL[p]}", "", gm(p, "stp", off)),
                     H(f"ANTT at +{off}, {LABEL[p]}", "", gm(p, "antt", off))]
    for cap in (2, 4):
        rows += [H(f"STP, SRTF/Adaptive cap {cap}", "", gm("adaptive", "stp", share_cap=cap),
                   note="ablation (default cap 3)"),
                 H(f"StrictF, SRTF/Adaptive cap {cap}", "", gm("adaptive", "fairness",
                                                               share_cap=cap))]
    for p in ("srtf_fifo", "srtf", "adaptive"):
        rows += [H(f"STP, {LABEL[p]}, spec knee 4", "", gm(p, "stp", timing="spec"),
                   note="ablation (default: calibrated knees)"),
                 H(f"ANTT, {LABEL[p]}, spec knee 4", "", gm(p, "antt", timing="spec"))]
    rows += [
        H("predictions within 2×, kernels alone", "%", within_2x("alone", "srtf"),
          note="the document: mostly within 2×"),
        H("predictions within 2×, under MPMax", "%", within_2x("pair", "mpmax")),
        H("predictions within 2×, under SRTF", "%", within_2x("pair", "srtf")),
        H("median sampling delay, SRTF", "cycles", median_delay("sampling")),
        H("median hand-off delay, SRTF", "cycles", median_delay("handoff")),
        H("block vs cycle model: mean NTT error", "%", lambda r: check_error(r, None),
          note="check pairs, work × 0.1"),
        H("block vs cycle model: max NTT error", "%", check_error),
    ]
    return rows + knobs.headline()


# ---- figures ------------------------------------------------------------------------------------

PAPER = {("srtf_fifo", "stp"): 1.35, ("srtf", "stp"): 1.59, ("srtf_fifo", "antt"): 3.66,
         ("srtf", "antt"): 1.63, ("mpmax", "stp"): 1.59 / 1.16, ("mpmax", "antt"): 1.63 * 1.3,
         ("srtf_fifo", "fairness"): 0.19, ("adaptive", "fairness"): 0.56,
         ("adaptive", "stp"): 1.35 * 1.12}


def draw_policies(exp, results: ResultSet, plt):
    """Geometric means per policy and offset; dashed SJF, dash-dotted LJF, dotted serial FIFO
    (analytic, +100); ★ the document's value (near-simultaneous arrival) over the +100 bar."""
    from gpusched.experiment import plotstyle
    fig, axes = plotstyle.figure(plt, 3, size=(4.2, 3.4))
    offsets = [o for o in OFFSETS if pair_rows(results, "srtf", o)]
    width = 0.8 / max(1, len(offsets))
    for ax, (metric, label) in zip(axes, [("stp", "STP (higher is better)"),
                                          ("antt", "ANTT (lower is better)"),
                                          ("fairness", "StrictF (higher is fairer)")]):
        for j, off in enumerate(offsets):
            ys = [gmean(r[metric] for r in pair_rows(results, p, off)) if pair_rows(results, p, off)
                  else math.nan for p in POLICIES]
            xs = [i + (j - (len(offsets) - 1) / 2) * width for i in range(len(POLICIES))]
            ax.bar(xs, ys, width, label=f"+{off}" + (" cycles" if off == "100" else ""),
                   color=plotstyle.COLOURS[j])
        for ref, style in (("sjf", "--"), ("ljf", "-."), ("serial", ":")):
            rows = pair_rows(results, "srtf")
            if rows and ref + "." + metric in rows[0]:
                ax.axhline(gmean(r[f"{ref}.{metric}"] for r in rows), color="black", ls=style,
                           lw=1, label={"sjf": "SJF", "ljf": "LJF", "serial": "serial FIFO"}[ref])
        first = -(len(offsets) - 1) / 2 * width          # the +100 bar of each group
        for i, p in enumerate(POLICIES):
            if (p, metric) in PAPER:
                ax.plot([i + first], [PAPER[(p, metric)]], "*", color="#D55E00", ms=9,
                        label="paper" if i == 0 or (p, metric) == ("adaptive", "fairness") else None)
        if metric == "antt":
            from matplotlib.ticker import ScalarFormatter
            ax.set_yscale("log")
            ax.yaxis.set_major_formatter(ScalarFormatter())
            ax.yaxis.set_minor_formatter(ScalarFormatter())
        plotstyle.category_axis(ax, [LABEL[p] for p in POLICIES])
        ax.set_ylabel(label)
    handles, labels = axes[0].get_legend_handles_labels()
    seen = dict(zip(labels, handles))
    plotstyle.legend_below(fig, list(seen.values()), list(seen), title="")
    return fig


def draw_workloads(exp, results: ResultSet, plt):
    """Per workload at +100 cycles, sorted by SJF STP: the band between LJF and SJF (analytic
    envelope) and each policy's STP and ANTT."""
    from gpusched.experiment import plotstyle
    fig, axes = plotstyle.figure(plt, 2, cols=1, size=(14.0, 3.4))
    base = {r["workload"]: r for r in pair_rows(results, "srtf")}
    order = sorted(base, key=lambda w: base[w]["sjf.stp"])
    xs = range(len(order))
    for ax, metric, log in ((axes[0], "stp", False), (axes[1], "antt", True)):
        lo = [base[w][f"ljf.{metric}"] for w in order]
        hi = [base[w][f"sjf.{metric}"] for w in order]
        ax.fill_between(xs, lo, hi, color="0.85", label="LJF–SJF envelope")
        for i, (p, marker) in enumerate(zip(POLICIES[:4], "os^x")):
            by = {r["workload"]: r[metric] for r in pair_rows(results, p)}
            ax.plot(xs, [by.get(w, math.nan) for w in order], marker, ms=4, mfc="none",
                    color=plotstyle.COLOURS[i], label=LABEL[p])
        if log:
            ax.set_yscale("log")
        ax.set_ylabel(metric.upper())
    plotstyle.category_axis(axes[1], [w.replace("ercb_", "") for w in order])
    axes[1].tick_params(axis="x", labelsize=6)
    axes[0].set_xticks([])
    axes[0].set_xlim(axes[1].get_xlim())
    plotstyle.legend_below(fig, *axes[0].get_legend_handles_labels(), title="")
    return fig


def draw_predictor(exp, results: ResultSet, plt):
    """Cumulative distribution of predicted / actual total runtime per (kernel, SM) record;
    dotted: within 2×."""
    from gpusched.experiment import plotstyle
    fig, (ax,) = plotstyle.figure(plt, 1, size=(5.6, 3.6))
    for i, (task, policy, label) in enumerate((("alone", None, "kernels alone"),
                                               ("pair", "mpmax", "under MPMax"),
                                               ("pair", "srtf", "under SRTF"))):
        xs = sorted(ratios(results, task, policy))
        if xs:
            ax.step(xs, [(k + 1) / len(xs) for k in range(len(xs))], where="post",
                    color=plotstyle.COLOURS[i], label=f"{label} ({len(xs):,} records)")
    ax.set_xscale("log")
    for v in (0.5, 2.0):
        ax.axvline(v, color="black", ls=":", lw=1)
    ax.axvline(1.0, color="black", lw=0.6)
    ax.set_xlabel("predicted / actual runtime on the SM")
    ax.set_ylabel("fraction of predictions")
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(loc="upper left")
    return fig


def draw_check(exp, results: ResultSet, plt):
    """NTT of each kernel of the check pairs: block-level mode against the cycle-level model."""
    from gpusched.experiment import plotstyle
    fig, (ax,) = plotstyle.figure(plt, 1, size=(4.6, 4.0))
    top = 1.0
    for i, p in enumerate(CHECK_POLICIES):
        pts = [(c, b) for r in results.rows if r.get("task") == "check" and r.get("policy") == p
               for c, b in zip(r.get("cycle.ntt") or [], r.get("block.ntt") or [])]
        if pts:
            top = max(top, *[max(c, b) for c, b in pts])
            ax.plot(*zip(*pts), "o", ms=4, color=plotstyle.COLOURS[i], label=LABEL[p])
    ax.plot([1, top], [1, top], color="black", lw=0.8)
    from matplotlib.ticker import FixedLocator, NullFormatter, ScalarFormatter
    ax.set_xscale("log")
    ax.set_yscale("log")
    ticks = [t for t in (1, 1.5, 2, 3, 5, 10, 20, 50, 100) if t <= top * 1.1]
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(FixedLocator(ticks))
        axis.set_major_formatter(ScalarFormatter())
        axis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("NTT, cycle-level model")
    ax.set_ylabel("NTT, block-level mode")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="upper left")
    return fig


CATALOGUE = Experiment(
    name="srtf-catalogue",
    title="SRTF: preemptive thread-block scheduling of concurrent kernels ([SRTF], catalogue "
          "stand-ins, block-level mode)",
    grid=GRID,
    quick=QUICK,
    metrics=[Metric("stp", "STP"), Metric("antt", "ANTT"), Metric("fairness", "StrictF"),
             Metric("stp_100", "STP at +100", compute=at_100("stp")),
             Metric("antt_100", "ANTT at +100", compute=at_100("antt")),
             Metric("fairness_100", "StrictF at +100", compute=at_100("fairness")),
             *knobs.METRICS],
    tables=[Table("antt_100", rows="workload", columns="policy",
                  title="ANTT per workload at +100 cycles (worst cases)"),
            Table("stp_100", rows="workload", columns="policy",
                  title="STP per workload at +100 cycles"), *knobs.TABLES],
    plots=[FigurePlot("stp", "policies.png", title="STP, ANTT and StrictF per policy with the "
                      "SJF/LJF envelope", draw=draw_policies,
                      caption="Geometric means over the workloads; lines: analytic references "
                      "at +100 cycles; ★: the document."),
           FigurePlot("stp", "workloads.png", title="Per workload, inside the LJF–SJF envelope",
                      draw=draw_workloads, caption="+100 cycles; grey band: analytic LJF to SJF."),
           FigurePlot("stp", "predictor.png", title="Predictor accuracy", draw=draw_predictor,
                      caption="One point per predictor record (Eq. 2 total on its SM)."),
           FigurePlot("stp", "check.png", title="Block-level mode vs cycle-level model",
                      draw=draw_check, caption="Check pairs at per-block work × 0.1."),
           FigurePlot("stp", "knobs.png", title="Knob ablations against the defaults",
                      draw=knobs.draw_knobs, caption="Geometric means over the same pairs at "
                      "+100 cycles: each variant's change from its defaults in %, bars from 0 "
                      "(no change).")],
    headline=_headline(),
    labels={"policy": "kernel scheduler"},
    description=__doc__,
)

PROGRAM_PLOTS = [p for p in CATALOGUE.plots if p.filename != "knobs.png"]
EXPERIMENT = program_experiment()
