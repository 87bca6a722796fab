"""HotSpot's pyramid (ghost-zone) tiling gives the plain stencil's temperatures at every pyramid
height, including a last launch with fewer steps than the height."""

from __future__ import annotations

import numpy as np
import pytest

from ptx.host import Context
from workloads import programs
from workloads.programs.hotspot import hotspot


@pytest.mark.parametrize("pyramid", [2, 3])
def test_pyramid_heights_match_the_stencil(pyramid):
    ctx = Context(progress=False)
    out = hotspot.main(ctx, seed=2, scale=0.0625, pyramid=pyramid)
    want = hotspot.reference(2, 0.0625)
    assert programs.compare(out, want, hotspot.TOLERANCE) == []
    assert len(ctx.launches) == -(-hotspot.ITERATIONS // pyramid)
    inner = hotspot.TILE - 2 * pyramid
    side = out["temperature"].shape[0]
    assert ctx.launches[0].info.grid[:2] == (-(-side // inner),) * 2


def test_the_power_map_is_a_floorplan():
    """24 units of distinct power density, 60 W in total."""
    power = hotspot.inputs(1, 1.0)["power"]
    assert abs(float(power.sum(dtype=np.float64)) - 60.0) < 1e-3
    assert len(np.unique(power)) == 24
