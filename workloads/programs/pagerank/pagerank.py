"""PageRank (Pannotia's pagerank) on a cond_mat-like or olesnik0-like graph (kernels:
pagerank.cu; graphs: common/pannotia.py). Output: every vertex's rank after 10 iterations."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from workloads.programs.common import pannotia as pn

ITERATIONS = 10
DAMPING = 0.85

INFO = {
    "title": "PageRank (Pannotia pagerank)",
    "suite": "Pannotia",
    "papers": {"ikra": "PageRank"},
    "kernels": ("pagerank_contribute", "pagerank_gather"),
    "default_scale": 1.0,
    "quick_scale": 1 / 64,
    "inputs": "undirected graphs, ranks from 1/n, damping 0.85, 10 iterations; " + pn.DESCRIPTION,
    "options": {"graph": pn.GRAPHS},
    "scale_note": pn.SCALE_NOTE,
    "paper_values": pn.IKRA_INPUTS,
}
# the kernel sums in neighbour order in float32 and nvcc fuses base + damping·sum into an FMA;
# the reference sums in float64: ranks are ~1/n, so a relative 1e-5 covers 10 iterations of
# float32 rounding (≈ 1e-6 each)
TOLERANCE = {"rank": (1e-5, 0.0)}


def inputs(seed: int, scale: float, graph: str = "cond_mat") -> dict[str, np.ndarray]:
    return pn.graph(graph, seed, scale)


def main(ctx, seed: int = 0, scale: float = 1.0, graph: str = "cond_mat") -> dict[str, np.ndarray]:
    g = inputs(seed, scale, graph)
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    n = len(g["row_start"]) - 1
    row, cols = ctx.to_device(g["row_start"]), ctx.to_device(g["cols"])
    rank = ctx.to_device(np.full(n, 1.0 / n, np.float32))
    share = ctx.empty(n, np.float32)
    grid = (pn.blocks(n),)
    for _ in range(ITERATIONS):
        mod.launch("pagerank_contribute", grid=grid, block=(pn.THREADS,),
                   args=(row, rank, share, np.int32(n)))
        mod.launch("pagerank_gather", grid=grid, block=(pn.THREADS,),
                   args=(row, cols, share, rank, np.float32((1 - DAMPING) / n),
                         np.float32(DAMPING), np.int32(n)))
    return {"rank": rank.get()}


def reference(seed: int, scale: float, graph: str = "cond_mat") -> dict[str, np.ndarray]:
    g = inputs(seed, scale, graph)
    n = len(g["row_start"]) - 1
    deg = np.diff(g["row_start"])
    rank = np.full(n, 1.0 / n)
    for _ in range(ITERATIONS):
        share = np.where(deg > 0, rank / np.maximum(deg, 1), 0.0)
        rank = (1 - DAMPING) / n + DAMPING * pn.neighbour_reduce(g, share, np.add, 0.0)
    return {"rank": rank.astype(np.float32)}
