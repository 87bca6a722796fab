"""Report plots (matplotlib, Agg backend), drawn in the one style of ``plotstyle``: PNG for
report.md plus a PDF beside it for papers."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from . import plotstyle
from .query import ResultSet
from .registry import Experiment, Plot


@dataclass(frozen=True)
class FigurePlot(Plot):
    """A plot the experiment draws itself (layouts the bar/line charts cannot express, e.g.
    traces over time or several panels): ``draw(exp, results, plt)`` returns a matplotlib
    figure (made with ``plotstyle.figure``), saved as ``filename`` (+ PDF). ``metric`` only
    names the plot here; ``caption`` says what its whiskers or bands mean."""
    draw: Callable | None = None
    caption: str = ""


def _pyplot():
    return plotstyle.pyplot()


def _cell(results: ResultSet, metric: str, where: dict) -> tuple[float | None, float, int]:
    """Mean, standard deviation and number of runs of ``metric`` over the rows ``where``."""
    n = len(results.select(where).values(metric))
    mean = results.mean(metric, where)
    return (None if math.isnan(mean) else mean), results.std(metric, where), n


def _bar_values(exp: Experiment, spec: Plot, results: ResultSet):
    """{(x, series): value}, {(x, series): error} and the largest run count behind one bar."""
    metric = exp.metric(spec.metric).name
    xs = results.levels(spec.x)
    series = results.levels(spec.series) if spec.series else [None]
    value, error, most = {}, {}, 0
    for x in xs:
        base = None
        if spec.normalize is not None:
            base = _cell(results, metric, {spec.x: x, spec.series: spec.normalize})[0]
        for s in series:
            where = {spec.x: x} | ({spec.series: s} if spec.series else {})
            mean, std, n = _cell(results, metric, where)
            most = max(most, n)
            if spec.normalize is not None:
                mean = mean / base if mean is not None and base else None
                std = std / base if base else 0.0
            value[(str(x), s)], error[(str(x), s)] = mean, std
    # groups and series with no value at all (a metric defined on some runs only) are left out
    xs = [x for x in xs if any(value[(str(x), s)] is not None for s in series)] or xs
    series = [s for s in series if any(value[(str(x), s)] is not None for x in xs)] or series
    return [str(x) for x in xs], series, value, error, most


def caption(exp: Experiment, spec: Plot, results: ResultSet) -> str:
    """What a declared plot shows: normalisation, mean group, and what its whiskers mean."""
    if isinstance(spec, FigurePlot):
        return spec.caption
    metric = exp.metric(spec.metric)
    parts = []
    if spec.normalize is not None:
        parts.append(f"{metric.label} relative to {exp.label(spec.series)} = "
                     f"{exp.display(spec.series, spec.normalize)} (dashed line: 1.0)")
    elif spec.reference is not None:
        parts.append(f"dashed line at {spec.reference:g}")
    if spec.mean:
        parts.append(" and ".join({"geo": "geometric", "arith": "arithmetic"}[k] for k in spec.mean)
                     + f" mean over the {exp.label(spec.x)}s in the last group")
    most = _bar_values(exp, spec, results)[4] if results.rows else 0
    if most > 1:
        parts.append(f"whiskers: ±1 standard deviation across {spec.whiskers} ({most} runs per point)")
    else:
        parts.append("no whiskers: one run per point")
    text = "; ".join(parts) + "."
    return text[0].upper() + text[1:]


def render(exp: Experiment, spec: Plot, results: ResultSet, out_dir: Path) -> Path:
    """Draw one declared plot into ``out_dir/spec.filename`` (+ its PDF) and return the PNG path."""
    plt = _pyplot()
    path = out_dir / spec.filename
    if isinstance(spec, FigurePlot) and spec.draw is not None:
        plotstyle.save(spec.draw(exp, results, plt), path)
        return path
    metric = exp.metric(spec.metric)
    xs, series, value, error, _ = _bar_values(exp, spec, results)
    ylabel = (f"{metric.label} / {exp.display(spec.series, spec.normalize)}"
              if spec.normalize is not None else metric.axis_label())
    shown = [exp.display(spec.x, x) for x in xs]       # the paper's names on the axis
    groups = len(xs) + len(spec.mean)
    width = max(plotstyle.PANEL[0], 0.45 * groups * max(1, len(series)) ** 0.6 + 1.2)
    fig, (ax,) = plotstyle.figure(plt, size=(min(width, 11.0), plotstyle.PANEL[1]))
    if spec.style == "bar":
        value = {(exp.display(spec.x, x), s): v for (x, s), v in value.items()}
        error = {(exp.display(spec.x, x), s): v for (x, s), v in error.items()}
        handles = plotstyle.bars(ax, shown, series, value, error, mean=spec.mean,
                                 reference=1.0 if spec.normalize is not None else spec.reference,
                                 ylabel=ylabel, xlabel=exp.label(spec.x))
    else:
        handles = []
        for i, s in enumerate(series):
            ys = [value[(x, s)] for x in xs]
            errs = [error[(x, s)] for x in xs]
            handles.append(ax.errorbar(range(len(xs)), [math.nan if y is None else y for y in ys],
                                       yerr=errs if any(errs) else None, marker="o", capsize=2.5,
                                       color=plotstyle.COLOURS[i % len(plotstyle.COLOURS)],
                                       label="" if s is None else str(s)))
        if spec.reference is not None:
            ax.axhline(spec.reference, color="0.2", lw=0.9, ls="--", zorder=0.5)
        if spec.log_y:
            ax.set_yscale("log")
        plotstyle.set_ylabel(ax, ylabel)
        plotstyle.category_axis(ax, shown, exp.label(spec.x))
    fig.suptitle(spec.title or f"{metric.label} by {exp.label(spec.x)}")
    if spec.series:
        plotstyle.legend_below(fig, handles, [exp.display(spec.series, s) for s in series],
                               title=exp.label(spec.series))
    plotstyle.save(fig, path)
    return path
