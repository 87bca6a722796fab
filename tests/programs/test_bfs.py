"""BFS's per-level frontier sizes, as the device's masks give them level by level, equal those of
a plain queue-based BFS in Python, on both input graphs (R-MAT and road-like)."""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest

from ptx.host import Context
from workloads.programs.bfs import bfs


def queue_bfs(row_start, cols, source):
    """Vertex counts per BFS level, by the textbook FIFO algorithm."""
    depth = {source: 0}
    queue = deque([source])
    while queue:
        v = queue.popleft()
        for u in cols[row_start[v]:row_start[v + 1]].tolist():
            if u not in depth:
                depth[u] = depth[v] + 1
                queue.append(u)
    return np.bincount(list(depth.values())), depth


@pytest.mark.parametrize("graph", bfs.GRAPHS)
def test_frontier_sizes_equal_a_python_bfs(graph):
    seed, scale = 4, 0.001
    inp = bfs.inputs(seed, scale, graph)
    sizes, depth = queue_bfs(inp["row_start"], inp["cols"], int(inp["source"][0]))
    out = bfs.main(Context(progress=False), seed=seed, scale=scale, graph=graph)
    assert out["frontier_sizes"].tolist() == sizes.tolist()
    want = np.full(len(inp["row_start"]) - 1, -1)
    want[list(depth)] = list(depth.values())
    assert np.array_equal(out["cost"], want)


def test_the_two_graphs_differ_in_shape():
    """R-MAT: skewed degrees and few levels; road: near-uniform degrees and many levels."""
    rmat, road = bfs.statistics(1, 0.004, "rmat"), bfs.statistics(1, 0.004, "road")
    assert rmat["max_degree"] > 10 * rmat["mean_degree"]
    assert road["max_degree"] <= 4
    assert road["levels"] > 4 * rmat["levels"]


def test_unknown_graph_is_refused():
    with pytest.raises(ValueError, match="graph"):
        bfs.inputs(0, 0.001, "grid")
