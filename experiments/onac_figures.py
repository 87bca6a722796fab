"""Figures of the ONAC experiment (experiments/onac.py), drawn through ``FigurePlot``: the
detectors' estimates over time next to the oracle, IPC scaling with the oracle's threshold, and a
per-kernel summary of energy, performance and detection time.

Each ``draw_*(exp, results, plt)`` returns a matplotlib figure; kernels or controllers missing
from the results are skipped, so a partial sweep still draws. The detectors drawn are the
headline's (``ONAC`` / ``SEQ_DET`` of experiments/onac.py: detection after the measured 3-wave
ramp-up); the spec-default (1-wave) runs appear only in the headline table.
"""

from __future__ import annotations

import math

from gpusched.experiment import plotstyle
from gpusched.experiment.query import ResultSet

TRACE = "policy_reports.sm_controller.trace"


def _styles() -> dict[str, tuple[str, str, str]]:
    """Headline controller → (label, colour, line style)."""
    from experiments.onac import ONAC, RAMP_SKIP, SEQ_DET
    return {ONAC: (f"ONAC ({RAMP_SKIP}-wave skip)", plotstyle.COLOURS[0], "-"),
            SEQ_DET: (f"Seq-Det ({RAMP_SKIP}-wave skip)", plotstyle.COLOURS[1], "--")}


def _run(results: ResultSet, workload: str, controller: str) -> dict | None:
    rows = results.select(workload=workload, sm_controller=controller).rows
    return rows[0] if rows else None


def _trace(row: dict | None) -> dict | None:
    trace = (row or {}).get(TRACE)
    return trace[0] if trace else None


def _plot_kernels(results: ResultSet) -> list[str]:
    """One saturating (the calibration reference if present) and one scaling kernel."""
    from experiments.onac import REFERENCE, TYPE_A, TYPE_B
    present = set(results.levels("workload"))
    a = [w for w in [REFERENCE] + TYPE_A if w in present][:1]
    b = [w for w in TYPE_B if w in present][:1]
    return a + b or sorted(present)[:2]


def _n_sms(results: ResultSet, workload: str) -> int:
    row = _run(results, workload, "all_active")
    return len(row["sm.warp_insts"]) if row else 0


def _oracle(results: ResultSet, workload: str) -> int | None:
    from experiments.onac import oracle_of
    try:
        return oracle_of(results, workload)
    except ValueError:
        return None


def draw_estimates(exp, results: ResultSet, plt):
    """Top: N under test over time for the headline ONAC and Seq-Det, with the oracle N, on one
    saturating and one scaling kernel. Bottom: each sample's chip IPC / its own IPC_all sample
    at the N tested, over the oracle sweep's IPC(N)."""
    from experiments.onac import THRESHOLD, oracle_curve
    kernels = _plot_kernels(results)
    cols = max(1, len(kernels))
    fig, flat = plotstyle.figure(plt, 2 * cols, cols=cols, size=(6.4, 3.3))
    for col, w in enumerate(kernels):
        top, bottom = flat[col], flat[cols + col]
        oracle, m = _oracle(results, w), _n_sms(results, w)
        end = 0.0
        for ctrl, (label, color, ls) in _styles().items():
            t = _trace(_run(results, w, ctrl))
            if not t or not t["samples"]:
                continue
            xs = [t["start"]] + [s["cycle"] for s in t["samples"]]
            ns = [s["n"] for s in t["samples"]]
            top.step([x / 1e3 for x in xs], ns + ns[-1:], where="post", color=color, ls=ls,
                     label=f"{label} (N={t['n_opt']})")
            if t["decided"] is not None:
                top.plot([t["decided"] / 1e3], [t["n_opt"]], "o", color=color)
                end = max(end, t["decided"])
            full = t["samples"][0]["ipc"]
            bottom.plot([s["n"] for s in t["samples"]], [s["ipc"] / full for s in t["samples"]],
                        "o", color=color, mfc="none", label=f"{label} samples")
            for i, s in enumerate(t["samples"]):
                bottom.annotate(str(i), (s["n"], s["ipc"] / full), fontsize=7, color=color,
                                xytext=(3, 3), textcoords="offset points")
        if oracle is not None:
            top.axhline(oracle, color="k", ls=":", label=f"oracle N={oracle}")
        top.set_xlim(0, end * 1.1 / 1e3 if end else None)
        top.set_ylim(0, (m or 32) + 1)
        top.set_xlabel("cycle (thousands)")
        top.set_ylabel("active SMs in the sample")
        top.set_title(f"{w}: estimates over time")
        plotstyle.legend_right(top)
        curve = oracle_curve(results, w)
        if curve:
            full = curve[max(curve)]
            ns = sorted(curve)
            bottom.plot(ns, [curve[n] / full for n in ns], "-", color="gray",
                        label="oracle sweep (steady IPC)")
        bottom.axhline(THRESHOLD, color="k", ls=":", label=f"{THRESHOLD:.0%} threshold")
        if oracle is not None:
            bottom.axvline(oracle, color="k", ls=":", lw=0.8)
        bottom.set_xlabel("active SMs")
        bottom.set_ylabel("IPC / IPC(all SMs)")
        bottom.set_title(f"{w}: samples (numbered in order) vs oracle")
        plotstyle.legend_right(bottom)
    return fig


def draw_scaling(exp, results: ResultSet, plt):
    """Steady IPC(N) / IPC(all) of every kernel, with the threshold and the chosen Ns."""
    from experiments.onac import THRESHOLD, oracle_curve
    fig, (ax,) = plotstyle.figure(plt, size=(7.5, 4.0))
    for w in results.levels("workload"):
        curve = oracle_curve(results, w)
        if not curve:
            continue
        full, ns = curve[max(curve)], sorted(curve)
        line, = ax.plot(ns, [curve[n] / full for n in ns], "-", label=w)
        oracle = _oracle(results, w)
        ax.plot([oracle], [curve[oracle] / full], "s", color=line.get_color(), ms=8)
        for ctrl, marker, dx in zip(_styles(), "^v", (-0.15, 0.15)):
            n = results.mean("n_chosen", {"workload": w, "sm_controller": ctrl})
            if not math.isnan(n) and int(n) in curve:   # nudged sideways: Ns often coincide
                ax.plot([n + dx], [curve[int(n)] / full], marker, color=line.get_color(),
                        ms=8, mec="k")
    ax.axhline(THRESHOLD, color="k", ls=":", lw=1)
    ax.set_xlabel("active SMs")
    ax.set_ylabel("steady IPC / IPC(all SMs)")
    from experiments.onac import RAMP_SKIP
    ax.set_title(f"IPC scaling (■ oracle N, ▲ ONAC N, ▼ Seq-Det N, {RAMP_SKIP}-wave skip; "
                 f"dotted: {THRESHOLD:.0%})")
    ax.set_ylim(bottom=0)
    plotstyle.legend_right(ax)
    return fig


def draw_summary(exp, results: ResultSet, plt):
    """Per kernel: energy and performance relative to all SMs, and detection time, for the
    headline detectors."""
    from experiments.onac import STATIC_SHARE, energy_saving, perf_retained
    styles = _styles()
    kernels = [w for w in results.levels("workload") if any(_run(results, w, c) for c in styles)]
    panels = [
        (f"energy / all SMs (static {STATIC_SHARE:.0%})",
         lambda w, c: 1 - energy_saving(results, w, c) / 100),
        ("performance / all SMs", lambda w, c: perf_retained(results, w, c) / 100),
        ("detection time (% of run)",
         lambda w, c: 100 * results.mean("detect_cycles", {"workload": w, "sm_controller": c})
         / results.mean("cycles", {"workload": w, "sm_controller": c})),
    ]
    fig, axes = plotstyle.figure(plt, 3, size=(4.6, 3.4))
    short = [w.replace("onac_", "") for w in kernels]
    handles = []
    for p, (ax, (ylabel, value)) in enumerate(zip(axes, panels)):
        cells = {}
        for ctrl in styles:
            for w, name in zip(kernels, short):
                try:
                    cells[(name, ctrl)] = value(w, ctrl)
                except (ValueError, ZeroDivisionError):
                    cells[(name, ctrl)] = None
        handles = plotstyle.bars(ax, short, list(styles), cells, reference=1.0 if p < 2 else None,
                                 ylabel=ylabel, xlabel="kernel",
                                 value_labels="{:.3f}" if p < 2 else "{:.1f}")
    plotstyle.legend_below(fig, handles, [label for label, _, _ in styles.values()],
                           title="SM controller")
    return fig
