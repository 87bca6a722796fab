"""Pathfinder's pyramid gives the row-by-row dynamic programme's costs at several heights,
including a last launch with fewer rows than the height, and Rodinia's run shape (pyramid 20)."""

from __future__ import annotations

import numpy as np
import pytest

from ptx.host import Context
from workloads.programs.pathfinder import pathfinder


@pytest.mark.parametrize("pyramid, rows", [(3, 10), (20, 45)])
def test_pyramid_heights_match_the_row_recurrence(pyramid, rows):
    ctx = Context(progress=False)
    out = pathfinder.main(ctx, seed=1, scale=0.01, pyramid=pyramid, rows=rows)
    assert np.array_equal(out["cost"], pathfinder.reference(1, 0.01, rows)["cost"])
    assert len(ctx.launches) == -(-(rows - 1) // pyramid)
