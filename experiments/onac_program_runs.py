"""The ``onac_program`` runner kind of experiments/onac.py: one kernel of a suite program, its
launches run alone (experiments/phase_program_runs.py ``only_kernel``), under one SM controller
(``all_active``, ONAC / Seq-Det and their ``_skipK`` variants, or ``active_<n>``).

Why one kernel: [THESIS Table 4.4] lists kernels (BP-K2 is backprop's weight update) and
ONAC detects once per launch. Scale: the ``scale`` param, times n / ``sm.count`` for an
``active_<n>`` point when ``sweep`` is true, so each point of an oracle sweep runs about the
same number of CTA waves on its own n SMs (as the catalogue's ``waves``, experiments/
thesis_runs.py; the program's grid grows with its scale). The per-CTA rows become the sorted
completion cycles (``ctas.ends``, single-kernel runs), from which experiments/thesis_runs.py
``steady_of`` takes the steady-state IPC. Kept apart from the report module so that editing the
report leaves the stored runs valid."""

from __future__ import annotations

import dataclasses

from experiments.owl_program_runs import program_scale
from experiments.phase_program_runs import check_program_kernel, only_kernel
from experiments.thesis_runs import n_dispatch_sms
from gpusched.config import ConfigError
from gpusched.experiment.point import Point
from gpusched.experiment.runners import check_model, register_kind

KIND = "onac_program"


def _split(point: Point, run: bool = True) -> tuple[Point, str, bool]:
    params = dict(point.params)
    kernel = params.pop("kernel", None)
    sweep = params.pop("sweep", False)
    params["scale"] = program_scale(point.workload, params.get("scale", 1.0), point.preset, run)
    return dataclasses.replace(point, params=params, kind="model"), kernel, sweep


def check_point(point: Point) -> None:
    """A ``program:NAME`` workload, one of its declared kernels; the rest as ``model``."""
    check_program_kernel(point.workload, point.params.get("kernel"))
    base, _, sweep = _split(point, run=False)
    if not isinstance(sweep, bool):
        raise ConfigError("params.sweep", sweep, "true or false")
    check_model(base)


def run_point(point: Point) -> dict:
    """The ``model`` run of the point's kernel alone (see the module docstring)."""
    from gpusched.config import resolve_config
    from gpusched.experiment.point import override_strings
    from sim.run import load_workload, simulate
    base, kernel, sweep = _split(point)
    cfg = resolve_config(base.preset, override_strings(base.overrides))
    params = dict(base.params)
    scale = float(params.pop("scale"))
    if sweep:
        scale *= n_dispatch_sms(cfg, params.get("sm_controller")) / cfg.sm.count
    params.setdefault("memory", "hierarchy")
    workload = load_workload(base.workload, seed=base.seed, scale=scale, preset=cfg.name)
    stats = simulate(cfg, only_kernel(workload, kernel), seed=base.seed, **params)
    rows = stats.get("ctas", {}).pop("rows", None) or []
    if len(stats["kernels"]) == 1:
        stats["ctas"]["ends"] = sorted(r[4] for r in rows)
    stats["program_scale"] = scale
    return stats


register_kind(KIND, run_point, check_point)
