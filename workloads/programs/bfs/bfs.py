"""Rodinia-style BFS: two kernels per level (expand the frontier, then update the masks), the
host looping until a level adds no vertex. Input: an R-MAT power-law graph (default) or a
road-like grid, both undirected CSR (workloads/programs/common/graphs.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from workloads.programs.common import graphs

BLOCK = 512                      # Rodinia's bfs: 512 threads per CTA
GRAPHS = ("rmat", "road")

INFO = {
    "title": "Breadth-first search (level-synchronous, two kernels per level)",
    "suite": "Rodinia",
    "papers": {"owl": "BFSR", "socgpu": "bfs"},
    "kernels": ("bfs_expand", "bfs_update"),
    "default_scale": 0.0625,
    "quick_scale": 0.001,
    "inputs": "R-MAT graph (Graph500 a,b,c; average degree 6) or a road-like 2-D grid "
              "(option graph='road'), source a random non-isolated vertex",
    "scale_note": "scale 1 = Rodinia's graph1MW_6 size: 2^20 vertices, about 6 edges per vertex; "
                  "the default 1/16 (65,536 vertices, 128 CTAs of 512 per launch, 8 per SM on "
                  "a 16-SM GPU) keeps the functional run near a minute",
    "paper_values": {"owl": {"pmem": 2.09, "cinv": 64, "row_sharing": 71, "ctas_per_row": 8}},
}


def _vertices_log2(scale: float) -> int:
    return max(6, int(round(20 + np.log2(scale))))


def inputs(seed: int, scale: float, graph: str = "rmat") -> dict[str, np.ndarray]:
    """CSR arrays and the source vertex. R-MAT: edge factor 3, made undirected (degree ~6);
    road: a square grid of about the same vertex count with 5 % of its edges missing."""
    if graph not in GRAPHS:
        raise ValueError(f"graph = {graph!r}: expected one of {', '.join(GRAPHS)}")
    k = _vertices_log2(scale)
    if graph == "rmat":
        g = graphs.rmat(k, 3, seed)
    else:
        side = 1 << (k // 2)
        g = graphs.road(side, (1 << k) // side, seed, weighted=False)
    deg = np.diff(g["row_start"])
    rng = np.random.default_rng(seed + 7)
    source = int(rng.choice(np.flatnonzero(deg > 0)))
    return {"row_start": g["row_start"], "cols": g["cols"], "source": np.array([source], np.int32)}


def main(ctx, seed: int = 0, scale: float = 1.0, graph: str = "rmat") -> dict[str, np.ndarray]:
    inp = inputs(seed, scale, graph)
    n = len(inp["row_start"]) - 1
    src = int(inp["source"][0])
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    frontier = np.zeros(n, np.int8)
    frontier[src] = 1
    cost = np.full(n, -1, np.int32)
    cost[src] = 0
    d_row, d_cols = ctx.to_device(inp["row_start"]), ctx.to_device(inp["cols"])
    d_frontier, d_visited = ctx.to_device(frontier), ctx.to_device(frontier.copy())
    d_next, d_cost, d_again = ctx.zeros(n, np.int8), ctx.to_device(cost), ctx.zeros(1, np.int32)
    grid = (-(-n // BLOCK),)
    sizes = [1]
    while True:
        d_again.set(np.zeros(1, np.int32))
        mod.launch("bfs_expand", grid, (BLOCK,),
                   (d_row, d_cols, d_frontier, d_next, d_visited, d_cost, np.int32(n)))
        mod.launch("bfs_update", grid, (BLOCK,), (d_frontier, d_next, d_visited, d_again, np.int32(n)))
        if not d_again.get()[0]:
            break
        sizes.append(int(np.count_nonzero(d_frontier.get())))   # read for the checks only
    return {"cost": d_cost.get(), "frontier_sizes": np.array(sizes, np.int64)}


def reference(seed: int, scale: float, graph: str = "rmat") -> dict[str, np.ndarray]:
    """Level-synchronous BFS in numpy: each level's frontier is the unvisited neighbours of the
    previous one."""
    inp = inputs(seed, scale, graph)
    row, cols = inp["row_start"], inp["cols"]
    n = len(row) - 1
    cost = np.full(n, -1, np.int32)
    frontier = inp["source"].astype(np.int64)
    cost[frontier] = 0
    sizes, depth = [], 0
    while len(frontier):
        sizes.append(len(frontier))
        starts, ends = row[frontier], row[frontier + 1]
        lengths = ends - starts
        idx = np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(lengths.sum())
        nbrs = np.unique(cols[idx])
        frontier = nbrs[cost[nbrs] < 0]
        depth += 1
        cost[frontier] = depth
    return {"cost": cost, "frontier_sizes": np.array(sizes, np.int64)}


def statistics(seed: int, scale: float, graph: str = "rmat") -> dict:
    """Degree spread and BFS depth of the input (for docs/workloads/rodinia-a.md)."""
    inp = inputs(seed, scale, graph)
    stats = graphs.degree_stats(inp)
    ref = reference(seed, scale, graph)
    stats.update(levels=len(ref["frontier_sizes"]), reached=int((ref["cost"] >= 0).sum()),
                 widest_level=int(ref["frontier_sizes"].max()))
    return stats
