"""The ``owl_program`` runner kind of experiments/owl.py: one OWL *scheme* (experiments/owl_runs.py
``SCHEMES``) on one suite program (``program:NAME``). A program's size is its own: the ``scale``
param may name the program's ``INFO["quick_scale"]`` (``quick``) or ``INFO["default_scale"]``
(``default``) instead of a number, so one grid runs every program at its documented size. Kept
apart from the report module so that editing tables leaves the stored runs valid."""

from __future__ import annotations

import dataclasses

from experiments.owl_runs import check_point as check_owl_point
from experiments.owl_runs import run_point as run_owl_point
from gpusched.config import ConfigError
from gpusched.experiment.point import Point
from gpusched.experiment.runners import register_kind

PROGRAM_KIND = "owl_program"
NAMED_SCALES = {"quick": "quick_scale", "default": "default_scale"}


def program_info(workload: str) -> dict:
    """``INFO`` of the suite program ``program:NAME``."""
    from workloads import programs
    name = workload.removeprefix("program:")
    if not workload.startswith("program:") or name not in programs.names():
        raise ConfigError("workload", workload, "a suite program, program:NAME")
    return programs.load(name).INFO


def program_scale(workload: str, scale: object) -> float:
    """The numeric scale of ``scale`` (a number, or ``quick`` / ``default``) for ``workload``."""
    if isinstance(scale, (int, float)) and not isinstance(scale, bool):
        return float(scale)
    if scale not in NAMED_SCALES:
        raise ConfigError("params.scale", scale, "a number, quick or default")
    return float(program_info(workload)[NAMED_SCALES[scale]])


def _numeric(point: Point) -> Point:
    scale = program_scale(point.workload, point.params.get("scale", 1.0))
    return dataclasses.replace(point, params={**point.params, "scale": scale}, kind="owl")


def run_point(point: Point) -> dict:
    """The owl runner's run of the point at the program's numeric scale (``program_scale`` in stats)."""
    numeric = _numeric(point)
    stats = run_owl_point(numeric)
    stats["program_scale"] = numeric.params["scale"]
    return stats


def check_point(point: Point) -> None:
    check_owl_point(_numeric(point))


register_kind(PROGRAM_KIND, run_point, check_point)
