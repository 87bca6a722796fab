"""The heartwall program's video and tracker behave like the application: the tracked wall
points follow the tissue's true motion (the video moves its texture with the wall)."""

from __future__ import annotations

import numpy as np

from workloads.programs.heartwall import heartwall as hw


def _true_positions(x, y, frame):
    """Where the tissue under each frame-0 point sits in ``frame`` (radial motion)."""
    c = hw.SIDE / 2
    angle, radius = np.arctan2(y - c, x - c), np.hypot(x - c, y - c)
    grid = np.linspace(1, 120, 12000)
    r = [grid[np.argmin(np.abs(hw._material_radius(grid, np.full_like(grid, a), frame) - r0))]
         for a, r0 in zip(angle, radius)]
    return c + np.array(r) * np.cos(angle), c + np.array(r) * np.sin(angle)


def test_tracked_points_follow_the_wall_within_a_pixel_on_average():
    scale = 0.3                                     # 6 frames, all 56 points
    inp = hw.inputs(2, scale)
    track = hw.reference(2, scale)
    last = len(inp["video"]) - 1
    tx, ty = _true_positions(inp["x"].astype(float), inp["y"].astype(float), last)
    moved = np.hypot(tx - inp["x"], ty - inp["y"])
    error = np.hypot(track["track_x"][last] - tx, track["track_y"][last] - ty)
    assert moved.mean() > 2.0                       # the wall did move
    assert error.mean() < 1.0
