"""Maximal independent set (Pannotia's mis, Luby's algorithm) on a cond_mat-like or
olesnik0-like graph (kernels: mis.cu; graphs: common/pannotia.py). Output: every vertex's status
(1 in the set, 2 out)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from workloads.programs.common import pannotia as pn

INFO = {
    "title": "Maximal independent set (Pannotia mis, Luby)",
    "suite": "Pannotia",
    "papers": {"ikra": "MIS"},
    "kernels": ("mis_find", "mis_select", "mis_check"),
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
    status, candidate, remaining = ctx.zeros(n, np.int32), ctx.zeros(n, np.int32), ctx.zeros(1, np.int32)
    grid = (pn.blocks(n),)
    while True:
        remaining.set(np.zeros(1, np.int32))
        mod.launch("mis_find", grid=grid, block=(pn.THREADS,),
                   args=(row, cols, prio, status, candidate, np.int32(n)))
        mod.launch("mis_select", grid=grid, block=(pn.THREADS,),
                   args=(row, cols, status, candidate, np.int32(n)))
        mod.launch("mis_check", grid=grid, block=(pn.THREADS,), args=(status, remaining, np.int32(n)))
        if not remaining.get()[0]:
            break
    return {"status": status.get()}


def reference(seed: int, scale: float, graph: str = "cond_mat") -> dict[str, np.ndarray]:
    g = inputs(seed, scale, graph)
    prio = g["priority"]
    n = len(prio)
    status = np.zeros(n, np.int32)
    big = np.iinfo(np.int32).max
    while (status == 0).any():
        live = np.where(status == 0, prio, big)
        best = pn.neighbour_reduce(g, live, np.minimum, big)
        chosen = (status == 0) & (prio < best)
        status[chosen] = 1
        hit = np.zeros(n, bool)
        src = np.repeat(np.arange(n), np.diff(g["row_start"]))
        hit[g["cols"][chosen[src]]] = True
        status[hit] = 2
    return {"status": status}
