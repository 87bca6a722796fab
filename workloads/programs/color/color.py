"""Graph colouring (Pannotia's color_max, Jones-Plassmann) on a cond_mat-like or olesnik0-like
graph (kernels: color.cu; graphs: common/pannotia.py). Output: every vertex's colour (the
iteration that coloured it)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from workloads.programs.common import pannotia as pn

INFO = {
    "title": "Graph colouring (Pannotia color_max, Jones-Plassmann)",
    "suite": "Pannotia",
    "papers": {"ikra": "Graph Coloring"},
    "kernels": ("color_find", "color_assign"),
    "default_scale": 1.0,
    "quick_scale": 1 / 64,
    "inputs": "undirected graphs with random distinct vertex priorities; " + pn.DESCRIPTION,
    "options": {"graph": pn.GRAPHS},
    "scale_note": pn.SCALE_NOTE,
    "paper_values": pn.IKRA_INPUTS,
}


def inputs(seed: int, scale: float, graph: str = "cond_mat") -> dict[str, np.ndarray]:
    return pn.prioritised_graph(graph, seed, scale)


def main(ctx, seed: int = 0, scale: float = 1.0, graph: str = "cond_mat") -> dict[str, np.ndarray]:
    g = inputs(seed, scale, graph)
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    n = len(g["row_start"]) - 1
    row, cols, prio = (ctx.to_device(g[k]) for k in ("row_start", "cols", "priority"))
    color = ctx.to_device(np.full(n, -1, np.int32))
    candidate, remaining = ctx.zeros(n, np.int32), ctx.zeros(1, np.int32)
    grid, c = (pn.blocks(n),), 0
    while True:
        remaining.set(np.zeros(1, np.int32))
        mod.launch("color_find", grid=grid, block=(pn.THREADS,),
                   args=(row, cols, prio, color, candidate, np.int32(n)))
        mod.launch("color_assign", grid=grid, block=(pn.THREADS,),
                   args=(color, candidate, remaining, np.int32(c), np.int32(n)))
        c += 1
        if not remaining.get()[0]:
            break
    return {"color": color.get()}


def reference(seed: int, scale: float, graph: str = "cond_mat") -> dict[str, np.ndarray]:
    g = inputs(seed, scale, graph)
    prio = g["priority"]
    color = np.full(len(prio), -1, np.int32)
    c = 0
    while (color < 0).any():
        live = np.where(color < 0, prio, -1)
        best = pn.neighbour_reduce(g, live, np.maximum, -1)
        color[(color < 0) & (prio > best)] = c
        c += 1
    return {"color": color}
