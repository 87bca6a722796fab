"""The ``owl_program`` runner kind of experiments/owl.py: one OWL *scheme* (experiments/owl_runs.py
``SCHEMES``) on one suite program (``program:NAME``). A program's size is its own: the ``scale``
param may name the program's ``INFO["quick_scale"]`` (``quick``), ``INFO["default_scale"]``
(``default``) or the scale that fills the preset's machine (``fill``) instead of a number, so one
grid runs every program at a size stated once. Kept
apart from the report module so that editing tables leaves the stored runs valid."""

from __future__ import annotations

import dataclasses

from experiments.owl_runs import check_point as check_owl_point
from experiments.owl_runs import run_point as run_owl_point
from gpusched.experiment.point import Point
from gpusched.experiment.runners import register_kind

PROGRAM_KIND = "owl_program"


def program_scale(workload: str, scale: object, preset: str | None = None,
                  run: bool = True) -> float:
    """The numeric scale of ``scale`` (a number, or quick / default / fill) for ``workload``
    (experiments/program_scale.py; ``run=False``: checked, not run)."""
    from experiments.program_scale import resolve
    return resolve(workload, scale, preset, run=run)


def _numeric(point: Point, run: bool = True) -> Point:
    scale = program_scale(point.workload, point.params.get("scale", 1.0), point.preset, run)
    return dataclasses.replace(point, params={**point.params, "scale": scale}, kind="owl")


def run_point(point: Point) -> dict:
    """The owl runner's run of the point at the program's numeric scale (``program_scale`` in stats)."""
    numeric = _numeric(point)
    stats = run_owl_point(numeric)
    stats["program_scale"] = numeric.params["scale"]
    return stats


def check_point(point: Point) -> None:
    check_owl_point(_numeric(point, run=False))


register_kind(PROGRAM_KIND, run_point, check_point)
