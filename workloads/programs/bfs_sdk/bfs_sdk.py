"""BFS with a frontier queue (OWL's "BFS", the CUDA-SDK-era benchmark, distinct from Rodinia's
two-kernel BFSR) on an R-MAT graph (kernel: bfs_sdk.cu). Outputs: every vertex's level (-1 if
unreachable) and the frontier size of every level."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from workloads.programs.common import graphs

THREADS = 256
LOG2_AT_SCALE_1 = 16
EDGE_FACTOR = 8

INFO = {
    "title": "BFS, frontier queue with atomics (CUDA SDK / third party)",
    "suite": "CUDA SDK",
    "papers": {"owl": "BFS"},
    "kernels": ("bfs_expand",),
    "default_scale": 1.0,
    "quick_scale": 1 / 64,
    "inputs": "an R-MAT graph (Graph500 a=0.57, b=c=0.19, edge factor 8, undirected): 65,536 "
              "vertices and 955 K directed edges at scale 1 (mean degree 14.6, max 6234, degree "
              "CV 5.3, 39 % isolated); the source is the first vertex with edges",
    "scale_note": "scale 1 = 65,536 vertices; 40,229 reached in 7 levels, frontiers 1, 5, 1348, "
                  "30,023, 8751, 98, 3 (the widest level launches 118 CTAs); "
                  "scale s has 2^round(16 + log2 s) vertices",
    "paper_values": {"owl": {"pmem": 2.77, "cinv": 81, "row_sharing": 23, "ctas_per_row": 5}},
}


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    log2 = max(6, LOG2_AT_SCALE_1 + int(round(np.log2(scale))))
    return graphs.rmat(log2, EDGE_FACTOR, seed)


def source(g: dict) -> int:
    return int(np.argmax(np.diff(g["row_start"]) > 0))


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    g = inputs(seed, scale)
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    n = len(g["row_start"]) - 1
    src = source(g)
    level0 = np.full(n, -1, np.int32)
    level0[src] = 0
    row, cols, level = ctx.to_device(g["row_start"]), ctx.to_device(g["cols"]), ctx.to_device(level0)
    queues = [ctx.to_device(np.full(n, src, np.int32)), ctx.empty(n, np.int32)]
    tail = ctx.zeros(1, np.int32)
    sizes, depth = [1], 0
    while sizes[-1]:
        tail.set(np.zeros(1, np.int32))
        mod.launch("bfs_expand", grid=(-(-sizes[-1] // THREADS),), block=(THREADS,),
                   args=(row, cols, level, queues[0], np.int32(sizes[-1]), queues[1], tail,
                         np.int32(depth)))
        sizes.append(int(tail.get()[0]))
        queues.reverse()
        depth += 1
    return {"level": level.get(), "frontier_sizes": np.array(sizes[:-1], np.int32)}


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    """Level-synchronous BFS in numpy."""
    g = inputs(seed, scale)
    row, cols = g["row_start"], g["cols"]
    level = np.full(len(row) - 1, -1, np.int32)
    frontier = np.array([source(g)])
    level[frontier] = 0
    sizes, depth = [], 0
    while len(frontier):
        sizes.append(len(frontier))
        nbrs = np.unique(np.concatenate([cols[row[v]:row[v + 1]] for v in frontier]))
        frontier = nbrs[level[nbrs] < 0]
        depth += 1
        level[frontier] = depth
    return {"level": level, "frontier_sizes": np.array(sizes, np.int32)}
