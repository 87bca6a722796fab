"""bfs_sdk launches one kernel per BFS level over exactly that level's frontier: the launches'
grids are the frontier sizes of a plain Python BFS (workloads/kernels/examples.py), in
256-thread CTAs, and the visited levels equal its levels."""

from __future__ import annotations

import numpy as np

from workloads import programs
from workloads.kernels.examples import bfs_levels_numpy
from workloads.programs.bfs_sdk import bfs_sdk


def test_one_launch_per_level_sized_to_the_frontier():
    scale = 1 / 64
    outputs, ctx = programs.run_functional("bfs_sdk", 2, scale)
    g = bfs_sdk.inputs(2, scale)
    n = len(g["row_start"]) - 1
    levels = bfs_levels_numpy(g["row_start"], g["cols"], n, bfs_sdk.source(g))
    frontier = np.bincount(levels[levels >= 0])
    assert [r.info.grid[0] for r in ctx.launches] == [-(-int(f) // 256) for f in frontier]
    assert all(r.info.kernel == "bfs_expand" and r.info.block == (256, 1, 1) for r in ctx.launches)
    assert np.array_equal(outputs["frontier_sizes"], frontier)
    assert np.array_equal(outputs["level"], levels)
