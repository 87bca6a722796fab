"""K-means with IKRA's 64-thread CTAs assigns exactly as with Rodinia's 256 (the kernel is
shape-agnostic), on a grid four times as long."""

from __future__ import annotations

import numpy as np

from ptx.host import Context
from workloads.programs.kmeans import kmeans


def test_ikra_block_size_gives_the_same_clustering():
    ctx = Context(progress=False)
    out = kmeans.main(ctx, seed=2, scale=0.02, block=64)
    want = kmeans.reference(2, 0.02)
    assert np.array_equal(out["membership"], want["membership"])
    assert np.array_equal(out["iterations"], want["iterations"])
    n = len(kmeans.inputs(2, 0.02)["points"])
    assert ctx.launches[-1].info.grid[0] == -(-n // 64)
    assert ctx.launches[-1].info.block[0] == 64
