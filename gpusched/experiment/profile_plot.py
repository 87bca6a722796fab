"""The stacked-area plot of warp states over time (thesis Fig 5.3 / 5.8), from a run's
``warp_states`` statistic, in the project's plot style (gpusched/experiment/plotstyle.py)."""

from __future__ import annotations

from pathlib import Path

from . import plotstyle

STATE_LABELS = {"ib_empty": "IB empty", "alu_scoreboard": "ALU scoreboard",
                "mem_scoreboard": "MEM scoreboard", "alu_stall": "ALU stall", "mem_stall": "MEM stall",
                "can_issue_alu": "can issue ALU", "can_issue_mem": "can issue MEM",
                "completed": "completed / barrier"}


def plot_warp_states(ws: dict, png: Path, title: str = "") -> list[Path]:
    """``draw_warp_states`` saved as ``png`` (+ PDF). Returns the PNG and PDF paths."""
    return plotstyle.save(draw_warp_states(ws, plotstyle.pyplot(), title), png)


def draw_warp_states(ws: dict, plt, title: str = ""):
    """One panel per kernel: mean warps per SM in each state per time bin, stacked; a last panel
    with the mean ALU and MEM load per SM. Returns the figure."""
    kernels = ws["kernels"]
    fig, axes = plotstyle.figure(plt, panels=len(kernels) + 1, cols=1, size=(7.0, 2.3))
    width, sms = ws["bin_cycles"], ws["sms"]
    states = ws["states"]
    n = len(kernels[0]["series"]) if kernels else 0
    xs = [(i + 0.5) * width for i in range(n)]
    scale = 1.0 / (width * sms)
    handles = []
    for ax, k in zip(axes, kernels):
        ys = [[b[j] * scale for b in k["series"]] for j in range(len(states))]
        handles = ax.stackplot(xs, ys, colors=plotstyle.COLOURS[:len(states)],
                               labels=[STATE_LABELS[s] for s in states], linewidth=0)
        ax.set_title(f"kernel {k['index']}: {k['name']}", loc="left")
        plotstyle.set_ylabel(ax, "warps per SM")
        ax.set_ylim(bottom=0)
        ax.set_xlim(0, ws["cycles"])
    load = axes[-1]
    for j, (col, name) in enumerate(((len(states), "ALU load"), (len(states) + 1, "MEM load"))):
        ys = [sum(k["series"][i][col] for k in kernels) * scale for i in range(n)]
        load.plot(xs, ys, color=plotstyle.COLOURS[j], label=name, lw=1.2)
    plotstyle.set_ylabel(load, "instructions in flight per SM")
    load.set_xlabel("cycle")
    load.set_xlim(0, ws["cycles"])
    load.set_ylim(bottom=0)
    plotstyle.legend_right(load)
    if title:
        fig.suptitle(title)
    fig.legend(list(handles), [h.get_label() for h in handles], loc="outside lower center", ncols=4,
               frameon=False)     # 8 states: two rows of four (legend_below's one row is too wide)
    return fig


def summary_table(ws: dict):
    """A rich table: per kernel, the share of its warp-cycles in each state and the mean loads."""
    from rich.table import Table
    t = Table(title="warp states (share of each kernel's resident warp-cycles; --profile warp-states)")
    t.add_column("kernel")
    for s in ws["states"]:
        t.add_column(STATE_LABELS[s], justify="right")
    t.add_column("ALU load", justify="right")
    t.add_column("MEM load", justify="right")
    for k in ws["kernels"]:
        total = sum(k["warp_cycles"].values()) or 1
        t.add_row(k["name"], *(f"{100 * k['warp_cycles'][s] / total:.1f}%" for s in ws["states"]),
                  f"{k['alu_load']:.1f}", f"{k['mem_load']:.1f}")
    return t
