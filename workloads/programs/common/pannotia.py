"""The two input graphs of the Pannotia-style programs (sssp, color, mis, pagerank), as IKRA
used them (the IKRA paper's evaluation inputs): ``cond_mat`` (a collaboration network: power-law degrees, 66 TBs
of 256 vertices) and ``olesnik0`` (a FEM matrix: banded, balanced degrees, 345 TBs). Ours are
generated look-alikes of the same vertex counts; ``scale`` multiplies the vertex count.

Each program takes the choice as ``graph=NAME`` in ``inputs``/``main``/``reference``; the file
``NAME_olesnik0.py`` beside each program runs it on olesnik0 for ``gpusched run --program``.
"""

from __future__ import annotations

import heapq

import numpy as np

from . import graphs

GRAPHS = ("cond_mat", "olesnik0")
THREADS = 256                      # one thread per vertex, 256-thread TBs (Pannotia)
COND_MAT_LOG2 = 14                 # 16,384 vertices ≈ cond_mat's 16,726 (64 TBs against 66)
OLESNIK0_VERTICES = 88263          # 345 TBs
OLESNIK0_BAND = 32                 # links reach n / 32 ids ahead: 39 BFS levels from vertex 0

DESCRIPTION = ("graph=cond_mat (default): R-MAT power-law graph (a=0.45, b=c=0.22, edge factor "
               "3), 16,384 vertices, ≈ 98 K directed edges, mean degree 6.0, max ≈ 350, degree "
               "CV ≈ 1.9, 21 % isolated; graph=olesnik0: banded balanced graph, 88,263 vertices, "
               "4 forward links within n/32 (2758) ids each, ≈ 700 K directed edges, mean degree 7.9, "
               "max 20, CV 0.26 (sizes at scale 1)")

SCALE_NOTE = "scale 1 = IKRA's graph sizes (64 TBs on cond_mat against 66, 345 on olesnik0)"
# IKRA's two inputs as its evaluation lists them (the same for every Pannotia-style program)
IKRA_INPUTS = {"ikra": {g: {"input": g, "tb_size": THREADS, "tbs_per_kernel": tbs}
                        for g, tbs in (("cond_mat", 66), ("olesnik0", 345))}}


def check_graph(graph: str) -> None:
    if graph not in GRAPHS:
        raise ValueError(f"graph: {graph!r} is not one of {', '.join(GRAPHS)}")


def graph(name: str, seed: int, scale: float, weighted: bool = False) -> dict[str, np.ndarray]:
    """The CSR arrays of input ``name`` at ``scale`` (weights 1..255 or 1..100 if weighted)."""
    check_graph(name)
    if name == "cond_mat":
        log2 = max(6, COND_MAT_LOG2 + int(round(np.log2(scale))))
        return graphs.rmat(log2, 3, seed, a=0.45, b=0.22, c=0.22, weighted=weighted)
    n = max(256, int(OLESNIK0_VERTICES * scale))
    return graphs.banded(n, max(8, n // OLESNIK0_BAND), 4, seed, weighted=weighted)


def priorities(n: int, seed: int) -> np.ndarray:
    """Random vertex priorities for colouring and MIS (distinct, so no ties)."""
    return np.random.default_rng(seed + 17).permutation(n).astype(np.int32)


def prioritised_graph(name: str, seed: int, scale: float) -> dict[str, np.ndarray]:
    """``graph`` plus each vertex's random ``priority`` (colouring's and MIS's input)."""
    g = graph(name, seed, scale)
    return {**g, "priority": priorities(len(g["row_start"]) - 1, seed)}


def source(g: dict) -> int:
    """Vertex 0, or the first vertex with edges if 0 is isolated."""
    deg = np.diff(g["row_start"])
    return int(np.argmax(deg > 0))


def blocks(n: int) -> int:
    return max(1, -(-n // THREADS))


def dijkstra(g: dict, src: int, inf: int) -> np.ndarray:
    row, cols, w = g["row_start"], g["cols"], g["weights"]
    dist = np.full(len(row) - 1, inf, np.int64)
    dist[src] = 0
    heap = [(0, src)]
    while heap:
        d, v = heapq.heappop(heap)
        if d > dist[v]:
            continue
        for e in range(row[v], row[v + 1]):
            u, nd = int(cols[e]), d + int(w[e])
            if nd < dist[u]:
                dist[u] = nd
                heapq.heappush(heap, (nd, u))
    return dist.astype(np.int32)


def neighbour_reduce(g: dict, values: np.ndarray, ufunc, empty) -> np.ndarray:
    """ufunc over each vertex's neighbours' values (``empty`` for vertices without any)."""
    row = g["row_start"]
    deg = np.diff(row)
    out = np.full(len(deg), empty, values.dtype)
    if len(g["cols"]):
        out[deg > 0] = ufunc.reduceat(values[g["cols"]], row[:-1][deg > 0])
    return out
