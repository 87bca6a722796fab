"""PNG plots for reports (matplotlib, Agg backend: no display needed, same bytes headless)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .query import ResultSet
from .registry import Experiment, Plot


@dataclass(frozen=True)
class FigurePlot(Plot):
    """A plot the experiment draws itself (layouts the bar/line charts cannot express, e.g.
    traces over time or several panels): ``draw(exp, results, plt)`` returns a matplotlib
    figure, saved as ``filename``. ``metric`` only names the plot here."""
    draw: Callable | None = None


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def render(exp: Experiment, spec: Plot, results: ResultSet, out_dir: Path) -> Path:
    """Draw one declared plot into ``out_dir/spec.filename`` and return its path."""
    plt = _pyplot()
    if isinstance(spec, FigurePlot) and spec.draw is not None:
        fig = spec.draw(exp, results, plt)
        path = out_dir / spec.filename
        fig.savefig(path)
        plt.close(fig)
        return path
    metric = exp.metric(spec.metric)
    xs = results.levels(spec.x)
    series = results.levels(spec.series) if spec.series else [None]
    fig, ax = plt.subplots(figsize=(max(5.0, 1.2 * len(xs) * max(1, len(series)) ** 0.5), 3.6),
                           dpi=120)
    for i, level in enumerate(series):
        means, errs = [], []
        for x in xs:
            where = {spec.x: x} | ({spec.series: level} if spec.series else {})
            means.append(results.mean(metric.name, where))
            errs.append(results.std(metric.name, where))
        name = str(level) if level is not None else metric.label
        if spec.style == "bar":
            width = 0.8 / len(series)
            positions = [j - 0.4 + width * (i + 0.5) for j in range(len(xs))]
            ax.bar(positions, means, width, yerr=errs if any(errs) else None, capsize=3,
                   label=name)
        else:
            ax.errorbar(range(len(xs)), means, yerr=errs if any(errs) else None, marker="o",
                        capsize=3, label=name)
    labels = [str(x) for x in xs]
    crowded = sum(len(t) for t in labels) > 60     # long names side by side would overlap
    ax.set_xticks(range(len(xs)), labels, rotation=30 if crowded else 0,
                  ha="right" if crowded else "center")
    ax.set_xlabel(exp.label(spec.x))
    ax.set_ylabel(metric.axis_label())
    if spec.log_y:
        ax.set_yscale("log")
    ax.set_title(spec.title or f"{metric.label} by {exp.label(spec.x)}")
    if spec.series:
        ax.legend(title=exp.label(spec.series), fontsize="small")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    path = out_dir / spec.filename
    fig.savefig(path)
    plt.close(fig)
    return path
