"""experiments/owl_fill_subset.toml is a part of `gpusched reproduce owl`'s full grid: its points
have the full grid's keys, so runs stored by sweeping it are reused by the reproduction."""

from __future__ import annotations

from pathlib import Path

import experiments.owl  # noqa: F401  (registers the owl runner kinds)
from gpusched.experiment.grid import load_grid
from gpusched.experiment.registry import get_experiment

SUBSET = Path(__file__).parents[2] / "experiments" / "owl_fill_subset.toml"


def test_subset_points_are_full_grid_points():
    subset = load_grid(SUBSET).points()
    full = {p.key for p in get_experiment("owl", False).grid.points()}
    assert subset and all(p.key in full for p in subset)
