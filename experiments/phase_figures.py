"""The runtime-decomposition figure of the phase experiment (experiments/phase.py), drawn
through ``FigurePlot``: per level (single, two-level) and kernel class (A: GTO-favouring, B:
RR-favouring), each scheduler's runtime split into compute only, overlap, memory only and idle
cycles ([THESIS §3.5]), as a share of RR's runtime (arithmetic mean over the class's kernels),
so a bar's height is 1 / speedup."""

from __future__ import annotations

from gpusched.experiment import plotstyle
from gpusched.experiment.query import ResultSet

PARTS = (("compute only", "dec_compute_only"), ("overlap", "dec_overlap"),
         ("memory only", "dec_memory_only"), ("idle", "dec_idle"))


def stack(results: ResultSet, kernels: list[str], sched: str, rr: str) -> list[float] | None:
    """The four parts of ``sched``'s runtime over RR's, mean over ``kernels``; None if missing."""
    from experiments.phase import AXIS, row_axis
    sums, row = [0.0] * len(PARTS), row_axis(results)
    for w in kernels:
        where = {AXIS: sched, row: w}
        rel = results.mean("cycles", where) / results.mean("cycles", {AXIS: rr, row: w})
        shares = [results.mean(col, where) for _, col in PARTS]
        if rel != rel or any(s != s for s in shares):
            return None
        for i, s in enumerate(shares):
            sums[i] += rel * s / 100.0
    return [s / len(kernels) for s in sums] if kernels else None


def draw_decomposition(exp, results: ResultSet, plt):
    """Two panels (single-level, two-level): stacked bars per class and scheduler."""
    from experiments.phase import AXIS, LEVELS, SINGLE, TWO_LEVEL, classify
    fig, axes = plotstyle.figure(plt, 2, size=(4.2, 3.4), sharey=True)
    handles = []
    for ax, (level, scheds) in zip(axes, (("single", SINGLE), ("two", TWO_LEVEL))):
        rr = LEVELS[level][1]
        classes = classify(results, level)
        labels, x = [], 0
        for kind in ("A", "B"):
            for sched in scheds:
                parts = stack(results, classes[kind], sched, rr)
                labels.append(f"{kind}: {exp.display(AXIS, sched)}")
                bottom = 0.0
                for i, value in enumerate(parts or []):
                    bar = ax.bar(x, value, bottom=bottom, color=plotstyle.COLOURS[i], width=0.7)
                    if len(handles) < len(PARTS):
                        handles.append(bar)
                    bottom += value
                x += 1
        ax.axhline(1.0, color="grey", linestyle="--", linewidth=0.8)
        plotstyle.category_axis(ax, labels, xlabel=f"{level}-level: class and scheduler")
        ax.set_title(f"{level}-level (A: {len(classes['A'])}, B: {len(classes['B'])} kernels)")
    plotstyle.set_ylabel(axes[0], "runtime / RR's")
    plotstyle.legend_below(fig, handles, [name for name, _ in PARTS], title="cycles per SM")
    return fig
