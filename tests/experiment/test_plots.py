"""The report plot style: normalised bars with a 1.0 line and mean groups, linear bar axes from 0,
legends outside the data, no overlapping or clipped text, y labels on every panel, PNG + PDF, and
captions whose whiskers say what they span."""

import math

import pytest

from gpusched.experiment import plots, plotstyle
from gpusched.experiment.query import ResultSet
from gpusched.experiment.registry import Experiment, Metric, Plot

WORKLOADS = ["a_rather_long_workload_name", "beta", "another_long_workload", "delta"]


def _experiment(plot: Plot) -> Experiment:
    from gpusched.experiment.grid import Grid
    grid = Grid(name="t", workloads=["x"], seeds=[0])
    return Experiment(name="t", title="t", grid=grid, quick=grid, plots=[plot],
                      metrics=[Metric("cycles", "A run time with a long metric label", "core cycles")],
                      labels={"sm.warp_sched": "warp scheduler"})


def _results(seeds=(0,)) -> ResultSet:
    rows = []
    for i, w in enumerate(WORKLOADS):
        for s in seeds:
            rows.append({"workload": w, "seed": s, "sm.warp_sched": "lrr", "cycles": 1000.0 * (i + 1) + s})
            rows.append({"workload": w, "seed": s, "sm.warp_sched": "gto", "cycles": 500.0 * (i + 1) + 3 * s})
    return ResultSet(rows)


def _draw(spec: Plot, results: ResultSet, tmp_path, monkeypatch):
    """Render, keeping the figure open for inspection."""
    plt = plotstyle.pyplot()
    kept = []
    monkeypatch.setattr(plt, "close", lambda fig=None: kept.append(fig))
    path = plots.render(_experiment(spec), spec, results, tmp_path)
    return path, kept[-1]


def _boxes(fig, texts):
    renderer = fig.canvas.get_renderer()
    return [t.get_window_extent(renderer) for t in texts if t.get_text() and t.get_visible()]


def test_normalised_bars_have_a_one_line_a_mean_group_and_a_linear_axis(tmp_path, monkeypatch):
    spec = Plot("cycles", "c.png", normalize="lrr", mean=("geo", "arith"))
    path, fig = _draw(spec, _results(), tmp_path, monkeypatch)
    ax = fig.axes[0]
    assert ax.get_yscale() == "linear" and ax.get_ylim()[0] == 0
    assert [t.get_text() for t in ax.get_xticklabels()] == WORKLOADS + ["geo. mean", "arith. mean"]
    heights = {c.get_label(): [b.get_height() for b in c] for c in ax.containers}
    assert heights["lrr"] == pytest.approx([1.0] * 6)
    assert heights["gto"] == pytest.approx([0.5] * 6)                  # every ratio is 0.5
    assert any(line.get_ydata()[0] == 1.0 and line.get_linestyle() == "--" for line in ax.lines)
    assert ax.get_ylabel() and ax.get_legend() is None and fig.legends  # legend outside the axes
    assert path.exists() and path.with_suffix(".pdf").read_bytes().startswith(b"%PDF")


def test_no_text_overlaps_or_leaves_the_figure(tmp_path, monkeypatch):
    _, fig = _draw(Plot("cycles", "c.png", normalize="lrr", mean=("geo",)), _results(),
                   tmp_path, monkeypatch)
    fig.canvas.draw()
    ax = fig.axes[0]
    labels = ax.get_xticklabels()
    rotation = labels[0].get_rotation()
    if rotation == 0:
        ticks = _boxes(fig, labels)
        assert all(not a.overlaps(b) for i, a in enumerate(ticks) for b in ticks[i + 1:])
    else:       # parallel slanted lines: their distance must exceed the text height
        xs = ax.transData.transform([(i, 0) for i in range(len(labels))])[:, 0]
        spacing = min(b - a for a, b in zip(xs, xs[1:]))
        height = labels[0].get_fontsize() * fig.dpi / 72
        assert spacing * math.sin(math.radians(rotation)) > height
    inside = fig.bbox
    texts = [*ax.get_xticklabels(), ax.yaxis.label, ax.xaxis.label, *fig.texts,
             *(t for leg in fig.legends for t in leg.get_texts())]
    for box in _boxes(fig, texts):
        assert inside.x0 - 1 <= box.x0 and box.x1 <= inside.x1 + 1
        assert inside.y0 - 1 <= box.y0 and box.y1 <= inside.y1 + 1


def test_means():
    assert plotstyle.means([1, 4], ["geo", "arith"]) == {"geo": 2.0, "arith": 2.5}
    assert plotstyle.means([0, 4, float("nan")], ["geo", "arith"]) == {"arith": 2.0}


def test_captions_say_what_the_whiskers_span(tmp_path):
    exp = _experiment(Plot("cycles", "c.png"))
    one = plots.caption(exp, Plot("cycles", "c.png"), _results())
    three = plots.caption(exp, Plot("cycles", "c.png", whiskers="workloads", x="sm.warp_sched",
                                    series=None), _results())
    assert one == "No whiskers: one run per point."
    assert "across workloads (4 runs per point)" in three
    norm = plots.caption(exp, Plot("cycles", "c.png", normalize="lrr", mean=("geo",)), _results((0, 1)))
    assert "relative to warp scheduler = lrr" in norm and "geometric mean" in norm
    assert "across seeds (2 runs per point)" in norm


def test_whiskers_of_normalised_bars_are_scaled_by_the_baseline(tmp_path, monkeypatch):
    _, fig = _draw(Plot("cycles", "c.png", normalize="lrr"), _results((0, 1)), tmp_path, monkeypatch)
    ax = fig.axes[0]
    lrr_alpha = (1000 + 1001) / 2
    gto = [c for c in ax.containers if c.get_label() == "gto"][0]
    segs = gto.errorbar.lines[2][0].get_segments()
    assert segs[0][1][1] - segs[0][0][1] == pytest.approx(2 * math.sqrt(4.5) / lrr_alpha)


def test_point_labels_overlap_neither_each_other_nor_other_markers():
    """Crowded points (as the parity plot's lat_l2 / lat_dram and occ / occ4): every name
    placed, none overlapping another or another point's marker."""
    from gpusched.experiment import plotstyle
    plt = plotstyle.pyplot()
    fig, (ax,) = plotstyle.figure(plt, size=(4.0, 4.0))
    pts = [(1000, 1000, "alu_full"), (1040, 1010, "diverge"), (17000, 17200, "lat_l2"),
           (17600, 16600, "lat_dram"), (11400, 11300, "occ"), (11600, 11500, "occ4"),
           (11000, 10700, "sg_bfs")]
    ax.scatter([p[0] for p in pts], [p[1] for p in pts])
    ax.set(xscale="log", yscale="log", xlim=(500, 40000), ylim=(500, 40000))
    plotstyle.label_points(ax, pts)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    texts = [t for t in ax.texts]
    assert sorted(t.get_text() for t in texts) == sorted(p[2] for p in pts)
    from matplotlib.text import Text
    boxes = [Text.get_window_extent(t, renderer) for t in texts]     # the text, not its leader
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    centres = {p[2]: ax.transData.transform(p[:2]) for p in pts}
    for t, box in zip(texts, boxes):
        assert not any(name != t.get_text() and box.contains(*xy) for name, xy in centres.items())
    plt.close(fig)
