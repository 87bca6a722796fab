"""The ten example kernels (workloads/kernels/examples.cu) match numpy."""

from __future__ import annotations

import pytest

from ptx.host import Context
from workloads.kernels import examples


@pytest.mark.parametrize("name", list(examples.EXAMPLES))
def test_example_matches_numpy(name):
    ctx = Context(progress=False)
    results = examples.run(name, ctx, seed=7, size=48)
    assert examples.mismatches(results) == []
    assert sum(r.warp_insts for r in ctx.launches) > 0
