"""Figures of the concurrent-kernel reproduction (experiments/concurrent.py): Table 5.2's
speedups per pair, the [THESIS §5.3.1] micro-benchmarks, utilisation interleaved vs alone, and the
warp-state plots (Fig 5.3 / 5.8) drawn by gpusched/experiment/profile_plot.py."""

from __future__ import annotations

import math

from gpusched.experiment import plotstyle
from gpusched.experiment.query import ResultSet

# [THESIS §5.3.1]: add_x_loops at x = 10 / 20, stream_x_words DRAM utilisation at saturation
THESIS_ADD = {10: 133_750, 20: 265_500}
THESIS_STREAM_UTIL = 70.0


def _short(pair: str) -> str:
    a, s = pair.split("+")
    if a.startswith("program:"):
        return "+".join(m.removeprefix("program:").split("@")[0] for m in (a, s))
    if a.startswith("perfsat_"):
        return f"{a[8:]}+{s[8:]}"
    return f"add{a.split('_')[1]}+str{s.split('_')[1]}"


def draw_pairs(exp, results: ResultSet, plt):
    """Per pair: max speedup (ideal), interleaved, spatial and measured left-over, each over
    the sum of the standalone runs."""
    from experiments import concurrent as c
    every = c.pairs(results) + c.pairs(results, rodinia=True)
    fig, (ax,) = plotstyle.figure(plt, 1, size=(max(5.0, 0.9 * len(every)), 3.6))
    order = sorted(c.pairs(results), key=lambda p: c.metrics_of(results, p)["max_speedup"]) \
        + c.pairs(results, rodinia=True)
    bars = [("max speedup (ideal)", lambda p: c.metrics_of(results, p)["max_speedup"]),
            ("interleaved", lambda p: c.metrics_of(results, p)["achieved"]),
            ("spatial", lambda p: c.metrics_of(results, p, c.SPATIAL)["achieved"]
             if c.row(results, p, c.SPATIAL) else math.nan),
            ("left-over", lambda p: c.metrics_of(results, p)["sequential"]
             / c.row(results, p, c.SEQ)["cycles"] if c.row(results, p, c.SEQ) else math.nan)]
    width = 0.8 / len(bars)
    for j, (label, fn) in enumerate(bars):
        xs = [i + (j - (len(bars) - 1) / 2) * width for i in range(len(order))]
        ax.bar(xs, [fn(p) for p in order], width, label=label, color=plotstyle.COLOURS[j])
    ax.axhline(1.0, color="black", lw=0.8, ls="--")
    ax.axhline(1.57, color="#D55E00", lw=1, ls=":", label="thesis best (1.57×)")
    plotstyle.category_axis(ax, [_short(p) for p in order])
    ax.set_ylabel("speedup over sequential (Σ alone)")
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=3,
               frameon=False)           # five entries: one row is wider than a two-pair figure
    return fig


def _alone(results: ResultSet, prefix: str) -> list[tuple[int, dict, float]]:
    """(x, run, k cycles per 640 CTAs) of the ``prefix`` kernels alone, by x."""
    from experiments import concurrent as c
    pts = []
    for w in results.levels("workload"):
        if w.startswith(prefix) and "+" not in w and c.row(results, w, c.SEQ):
            pts.append((int(w.split("_")[1]), c.row(results, w, c.SEQ),
                        c.full_grid_cycles(results, w) / 1e3))
    return sorted(pts, key=lambda p: p[0])


def draw_micro(exp, results: ResultSet, plt):
    """add_x_loops cycles vs x; stream_x_words cycles and DRAM utilisation vs x (alone)."""
    fig, axes = plotstyle.figure(plt, 3, size=(3.6, 3.2))
    adds, streams = _alone(results, "add_"), _alone(results, "stream_")
    ax = axes[0]
    ax.plot([p[0] for p in adds], [p[2] for p in adds], "o-",
            color=plotstyle.COLOURS[0], label="ours")
    ax.plot(list(THESIS_ADD), [v / 1e3 for v in THESIS_ADD.values()], "*", ms=10,
            color="#D55E00", label="thesis")
    ax.set_xlabel("x (loop iterations)")
    ax.set_ylabel("add_x_loops, k cycles (640 CTAs)")
    ax.set_ylim(bottom=0)
    ax.legend(loc="upper left")
    ax = axes[1]
    ax.plot([p[0] for p in streams], [p[2] for p in streams], "o-",
            color=plotstyle.COLOURS[1])
    ax.set_xlabel("x (words per thread)")
    ax.set_ylabel("stream_x_words, k cycles (640 CTAs)")
    ax.set_ylim(bottom=0)
    ax = axes[2]
    ax.plot([p[0] for p in streams], [100 * p[1]["mem_util"] for p in streams], "o-",
            color=plotstyle.COLOURS[1], label="ours")
    ax.axhline(THESIS_STREAM_UTIL, color="#D55E00", ls=":", label="thesis (≈70 %, x ≥ 3)")
    ax.set_xlabel("x (words per thread)")
    ax.set_ylabel("stream_x_words DRAM, % of peak")
    ax.set_ylim(0, 105)
    ax.legend(loc="lower right")
    return fig


def draw_utilisation(exp, results: ResultSet, plt):
    """Per pair: compute and DRAM utilisation of the interleaved run and of each kernel
    alone (Figs 5.11 / 5.12)."""
    from experiments import concurrent as c
    fig, axes = plotstyle.figure(plt, 2, size=(max(4.5, 0.8 * len(c.pairs(results))), 3.4))
    order = c.pairs(results)
    for ax, column, label in ((axes[0], "compute_util", "compute, % of peak IPC"),
                              (axes[1], "mem_util", "DRAM, % of peak bandwidth")):
        series = [("add alone", lambda p: c.row(results, p.split("+")[0], c.SEQ)),
                  ("stream alone", lambda p: c.row(results, p.split("+")[1], c.SEQ)),
                  ("interleaved", lambda p: c.row(results, p, c.INTER))]
        width = 0.8 / len(series)
        for j, (name, fn) in enumerate(series):
            xs = [i + (j - 1) * width for i in range(len(order))]
            ax.bar(xs, [100 * fn(p)[column] if fn(p) else math.nan for p in order], width,
                   label=name, color=plotstyle.COLOURS[j])
        plotstyle.category_axis(ax, [_short(p) for p in order])
        ax.set_ylabel(label)
        ax.set_ylim(0, 105)
    plotstyle.legend_below(fig, *axes[0].get_legend_handles_labels(), title="")
    return fig


def unflatten(row: dict, prefix: str) -> dict:
    """The nested dict a run's stats had under ``prefix`` (rows hold dotted keys)."""
    out: dict = {}
    for key, value in row.items():
        if key.startswith(prefix + "."):
            node = out
            *path, last = key[len(prefix) + 1:].split(".")
            for p in path:
                node = node.setdefault(p, {})
            node[last] = value
    return out


def draw_warp_states(exp, results: ResultSet, plt, policy: str, pair: str):
    """The profiled run of ``pair`` under ``policy``: gpusched/experiment/profile_plot.py's stacked areas."""
    from experiments import concurrent as c
    from gpusched.experiment.profile_plot import draw_warp_states as draw
    r = c.row(results, pair, policy)
    if r is None or not any(k.startswith("warp_states.") for k in r):
        raise ValueError(f"no profiled run of {pair} under {policy}")
    return draw(unflatten(r, "warp_states"), plt)
