"""The one plotting style of every report: figures, bars, axes, legends and files.

Rules (docs/plots.md): bars on linear axes from zero; normalised bars carry a dashed line at 1.0
and a mean group (geometric and/or arithmetic, as the paper averages); category labels rotate
when they would overlap; legends sit under the panels, never over data; every panel has its y
label; each figure is saved as PNG (for report.md) and PDF (vector, for papers).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Iterable, Sequence

# colour-blind-safe (Okabe-Ito), in series order
COLOURS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
PANEL = (5.6, 3.4)          # inches per panel (width, height)
MEAN_NAMES = {"geo": "geo. mean", "arith": "arith. mean"}
VECTOR_FORMAT = "pdf"


def pyplot():
    """matplotlib.pyplot on the Agg backend (headless, same bytes everywhere) with our rcParams."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({
        "figure.dpi": 130, "savefig.dpi": 130, "font.size": 9, "axes.titlesize": 10,
        "axes.labelsize": 9, "legend.fontsize": 8, "xtick.labelsize": 8, "ytick.labelsize": 8,
        "axes.spines.top": False, "axes.spines.right": False, "axes.grid": True,
        "axes.grid.axis": "y", "grid.alpha": 0.3, "axes.prop_cycle": matplotlib.cycler(color=COLOURS),
        "svg.fonttype": "none", "pdf.fonttype": 42})
    return plt


def figure(plt, panels: int = 1, cols: int | None = None, size: tuple[float, float] = PANEL,
           sharey: bool = False):
    """A figure with ``panels`` axes in a grid (constrained layout: nothing clipped or overlapping);
    returns ``(fig, [axes…])`` in reading order, unused cells removed."""
    cols = cols or panels
    rows = math.ceil(panels / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(size[0] * cols, size[1] * rows), squeeze=False,
                             layout="constrained", sharey=sharey)
    flat = [ax for row in axes for ax in row]
    for ax in flat[panels:]:
        ax.remove()
    return fig, flat[:panels]


def category_axis(ax, labels: Sequence[str], xlabel: str = "") -> None:
    """Category ticks at 0…n-1; rotated 30° (anchored right) when they would not fit side by side."""
    labels = [str(t) for t in labels]
    width_in = ax.get_position().width * ax.figure.get_figwidth()
    crowded = sum(len(t) for t in labels) * 0.075 > width_in or max(map(len, labels), default=0) > 14
    ax.set_xticks(range(len(labels)), labels, rotation=30 if crowded else 0,
                  ha="right" if crowded else "center", rotation_mode="anchor")
    ax.set_xlim(-0.6, len(labels) - 0.4)
    if xlabel:
        ax.set_xlabel(xlabel)


def set_ylabel(ax, text: str) -> None:
    """The y label, wrapped onto two or more lines when it is longer than the panel is high."""
    import textwrap
    height_in = ax.get_position().height * ax.figure.get_figheight()
    chars = max(12, int(height_in * 72 / (0.62 * 9)))      # ~0.62 em per character at 9 pt
    ax.set_ylabel("\n".join(textwrap.wrap(text, chars)) if len(text) > chars else text)


def means(values: Iterable[float], kinds: Sequence[str]) -> dict[str, float]:
    """{"geo": geometric mean, "arith": arithmetic mean} of the finite values (positive for geo)."""
    vals = [v for v in values if v is not None and math.isfinite(v)]
    out = {}
    for kind in kinds:
        if kind == "geo" and vals and all(v > 0 for v in vals):
            out[kind] = math.exp(sum(map(math.log, vals)) / len(vals))
        elif kind == "arith" and vals:
            out[kind] = sum(vals) / len(vals)
    return out


def bars(ax, groups: Sequence[str], series: Sequence[str | None],
         value: dict[tuple[str, str | None], float | None],
         error: dict[tuple[str, str | None], float] | None = None, *, mean: Sequence[str] = (),
         reference: float | None = None, ylabel: str, xlabel: str = "",
         value_labels: str | None = None) -> list:
    """Grouped bars on a linear axis from 0: one group per ``groups`` entry, one bar per series.
    ``mean``: append a group per kind ("geo", "arith") averaging each series over the groups.
    ``reference``: a dashed line (1.0 for normalised bars). ``value_labels``: a format
    (``"{:.3f}"``) to print each bar's value above it, for differences a linear axis hides.
    Returns the legend handles."""
    groups = list(groups)
    extra = []
    for kind in mean:
        extra.append(MEAN_NAMES[kind])
        for s in series:
            m = means([value.get((g, s)) for g in groups], [kind])
            value = {**value, (MEAN_NAMES[kind], s): m.get(kind)}
    labels = groups + extra
    width = 0.8 / max(1, len(series))
    handles = []
    for i, s in enumerate(series):
        xs = [j - 0.4 + width * (i + 0.5) for j in range(len(labels))]
        ys = [value.get((g, s)) for g in labels]
        ys = [float("nan") if v is None else v for v in ys]
        errs = [(error or {}).get((g, s), 0.0) for g in labels]
        h = ax.bar(xs, ys, width * 0.95, yerr=errs if any(errs) else None, capsize=2.5,
                   color=COLOURS[i % len(COLOURS)], label="" if s is None else str(s),
                   error_kw={"elinewidth": 0.8})
        if value_labels:
            ax.bar_label(h, [value_labels.format(v) if v == v else "" for v in ys], fontsize=6.5,
                         padding=1.5, rotation=90 if len(series) * len(labels) > 8 else 0)
        handles.append(h)
    if extra:
        ax.axvline(len(groups) - 0.5, color="0.6", lw=0.8, ls=":")
    if reference is not None:
        ax.axhline(reference, color="0.2", lw=0.9, ls="--", zorder=0.5)
    ax.set_ylim(bottom=0)
    if value_labels:            # room above the tallest bar for its label
        ax.set_ylim(top=ax.get_ylim()[1] * 1.1)
    set_ylabel(ax, ylabel)
    category_axis(ax, labels, xlabel)
    return handles


def legend_right(ax) -> None:
    """The panel's own legend, to the right of its axes (outside the data area)."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False, borderaxespad=0)


def legend_below(fig, handles: list, labels: Sequence[str] | None = None, title: str = "") -> None:
    """One legend row under the figure's panels (outside the data area, clear of the title)."""
    labels = list(labels) if labels is not None else [h.get_label() for h in handles]
    if not handles or all(not t for t in labels):
        return
    fig.legend(handles, labels, loc="outside lower center", ncols=min(len(handles), 6),
               frameon=False, title=title or None)


def label_points(ax, points: Sequence[tuple[float, float, str]], fontsize: float = 6.5,
                 marker_pt: float = 4.0,
                 obstacles: Sequence[tuple[float, float]] = ()) -> None:
    """Name each point (x, y, text) beside it without two names overlapping each other or
    another point's marker: the first free place, trying right of the point, then left, each
    nearer first and stepping up and down by a line; a name moved off its point gets a thin
    leader line; ``obstacles`` are other markers (x, y) to keep clear of. Call once the axes'
    limits and scales are final."""
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    to_px = ax.transData.transform
    scale = fig.dpi / 72.0                          # points → pixels
    centres = [to_px((x, y)) for x, y, _ in points] + [to_px(p) for p in obstacles]
    r = marker_pt * scale
    placed: list = []
    line = fontsize * 1.25
    steps = [0] + [k * sign for k in range(1, 10) for sign in (-1, 1)]
    frame = ax.get_window_extent(renderer)

    def clear(box, own: int) -> bool:
        if any(box.overlaps(b) for b in placed):
            return False
        if not (frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0
                and box.y1 <= frame.y1):
            return False
        return not any(i != own and box.x0 - r < cx < box.x1 + r and box.y0 - r < cy < box.y1 + r
                       for i, (cx, cy) in enumerate(centres))

    order = sorted(range(len(points)), key=lambda i: (-centres[i][1], centres[i][0]))
    for i in order:
        x, y, text = points[i]
        chosen = None
        for side in (1, -1):
            for k in steps:
                dx, dy = 4 * side, -3 + k * line
                t = ax.annotate(text, (x, y), xytext=(dx, dy), textcoords="offset points",
                                fontsize=fontsize, ha="left" if side > 0 else "right",
                                va="center")
                box = t.get_window_extent(renderer)
                if clear(box, i):
                    chosen = (t, box, k != 0)
                    break
                t.remove()
            if chosen:
                break
        if chosen is None:                           # crowded everywhere: the default place
            t = ax.annotate(text, (x, y), xytext=(4, -3), textcoords="offset points",
                            fontsize=fontsize, va="center")
            chosen = (t, t.get_window_extent(renderer), False)
        t, box, moved = chosen
        placed.append(box)
        if moved:
            t.arrow_patch = None
            t.remove()
            dx, dy = t.xyann
            ax.annotate(text, (x, y), xytext=(dx, dy), textcoords="offset points",
                        fontsize=fontsize, ha=t.get_ha(), va="center",
                        arrowprops={"arrowstyle": "-", "lw": 0.4, "color": "0.45",
                                    "shrinkA": 0, "shrinkB": 2})


def save(fig, png: Path) -> list[Path]:
    """Write ``png`` and its vector twin (same stem, .pdf); close the figure; return both paths."""
    png = Path(png)
    vector = png.with_suffix("." + VECTOR_FORMAT)
    fig.savefig(png)
    fig.savefig(vector, metadata={"CreationDate": None} if VECTOR_FORMAT == "pdf" else None)
    import matplotlib.pyplot as plt
    plt.close(fig)
    return [png, vector]
