"""SSSP (Pannotia's Dijkstra) by frontier relaxation on a cond_mat-like or olesnik0-like graph
(kernels: sssp.cu; graphs: common/pannotia.py). Output: every vertex's distance from the source
(INF where unreachable) and the number of iterations."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from workloads.programs.common import pannotia as pn

INF = 0x3FFFFFFF

INFO = {
    "title": "SSSP (Pannotia Dijkstra, frontier relaxation)",
    "suite": "Pannotia",
    "papers": {"ikra": "Dijkstra"},
    "kernels": ("sssp_relax", "sssp_update"),
    "default_scale": 1.0,
    "quick_scale": 1 / 64,
    "inputs": "weighted (1..255 on cond_mat, 1..100 on olesnik0) undirected graphs; " + pn.DESCRIPTION,
    "options": {"graph": pn.GRAPHS},
    "scale_note": pn.SCALE_NOTE,
    "paper_values": pn.IKRA_INPUTS,
}


def inputs(seed: int, scale: float, graph: str = "cond_mat") -> dict[str, np.ndarray]:
    return pn.graph(graph, seed, scale, weighted=True)


def main(ctx, seed: int = 0, scale: float = 1.0, graph: str = "cond_mat") -> dict[str, np.ndarray]:
    g = inputs(seed, scale, graph)
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    n = len(g["row_start"]) - 1
    src = pn.source(g)
    cost0 = np.full(n, INF, np.int32)
    cost0[src] = 0
    frontier0 = np.zeros(n, np.int32)
    frontier0[src] = 1
    row, cols, w = (ctx.to_device(g[k]) for k in ("row_start", "cols", "weights"))
    cost, tentative, frontier = ctx.to_device(cost0), ctx.to_device(cost0), ctx.to_device(frontier0)
    changed = ctx.zeros(1, np.int32)
    grid, iterations = (pn.blocks(n),), 0
    while True:
        changed.set(np.zeros(1, np.int32))
        mod.launch("sssp_relax", grid=grid, block=(pn.THREADS,),
                   args=(row, cols, w, cost, tentative, frontier, np.int32(n)))
        mod.launch("sssp_update", grid=grid, block=(pn.THREADS,),
                   args=(cost, tentative, frontier, changed, np.int32(n)))
        iterations += 1
        if not changed.get()[0]:
            break
    return {"cost": cost.get(), "iterations": np.array([iterations])}


def reference(seed: int, scale: float, graph: str = "cond_mat") -> dict[str, np.ndarray]:
    g = inputs(seed, scale, graph)
    return {"cost": pn.dijkstra(g, pn.source(g), INF)}
