"""The ``phase`` runner kind of experiments/phase.py: a ``model`` run with the warp-state
profiler attached. Kept apart from the report module so that editing the report (tables, plots,
names) leaves the stored runs valid: a point's model fingerprint covers its kind's module
(gpusched/experiment/fingerprint.py)."""

from __future__ import annotations

import dataclasses

from gpusched.experiment.point import Point
from gpusched.experiment.runners import check_model, register_kind, run_model

KIND = "phase"


def run_profiled(point: Point) -> dict:
    """The ``model`` run of ``point`` with the warp-state profiler attached."""
    return run_model(dataclasses.replace(point, params={**point.params,
                                                        "profile": ("warp-states",)}))


register_kind(KIND, run_profiled, check_model)
