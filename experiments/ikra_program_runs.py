"""The ``ikra_program`` runner kind of experiments/ikra.py: one IKRA policy
(``cta_scheduler``) on one CUDA program of the suite (``program:NAME[:options]``) with the full
memory hierarchy. ``scale`` is a number or ``quick``/``default``, the program's INFO scale.
Each point records its scale and the kernels' thread blocks (``setup``), which decide whether
Steal can fire at all: a thief needs undispatched work, i.e. a kernel with more TBs than the
machine holds at once. Kept apart from the report module so that editing the report leaves
the stored runs valid (a point's fingerprint covers its kind's module)."""

from __future__ import annotations

from experiments.socgpu_runs import resolve_scale as _info_scale
from gpusched.config import ConfigError
from gpusched.experiment.point import Point
from gpusched.experiment.runners import register_kind

KIND = "ikra_program"
PARAMS = {"cta_scheduler", "scale"}
# scale "steal_quick": small inputs whose kernels still hold more TBs than 3 CUs take at once
# (3 × 6 TBs of 256 threads, 48 warps per CU), so a Steal thief can find undispatched work;
# TBs per kernel in the comments (measured, docs/mechanisms/ikra.md)
STEAL_QUICK = {"program:hotspot": 0.0625,                    # 25 TBs × 20 kernels
               "program:srad_v1": 0.0625,
               "program:color:graph=olesnik0": 0.0625,
               "program:sssp:graph=olesnik0": 0.0625}


def resolve_scale(workload: str, scale, preset: str | None = None, run: bool = True) -> float:
    """A number, ``quick``/``default``/``fill`` (experiments/program_scale.py) or ``steal_quick``."""
    if scale == "steal_quick":
        if workload not in STEAL_QUICK:
            raise ConfigError("scale", scale, f"no steal_quick scale for {workload}; known: "
                              + ", ".join(STEAL_QUICK))
        return STEAL_QUICK[workload]
    return _info_scale(workload, scale, preset, run)


def _config(point: Point):
    from gpusched.config import resolve_config
    from gpusched.experiment.point import override_strings
    return resolve_config(point.preset, override_strings(point.overrides))


def run_point(point: Point) -> dict:
    """Simulate the point's policy on its program; stats + ``setup`` (scale, TBs per kernel)."""
    from sim.run import load_workload, simulate
    scale = resolve_scale(point.workload, point.params.get("scale", 1.0), point.preset)
    workload = load_workload(point.workload, seed=point.seed, scale=scale, preset=point.preset)
    tbs = [k.grid[0] * k.grid[1] * k.grid[2] for k in workload.kernels]
    stats = simulate(_config(point), workload, seed=point.seed, memory="hierarchy",
                     cta_scheduler=point.params["cta_scheduler"])
    stats["setup"] = {"scale": scale, "kernels": len(tbs), "tbs_max": max(tbs),
                      "tbs_mean": sum(tbs) / len(tbs)}
    return stats


def check_point(point: Point) -> None:
    """Config, params and program name/options valid (not run: a program's functional
    execution happens once, in the first point that needs it)."""
    from sim.policies import POLICIES
    from sim.workload.program import check_options, load_module, program_path, split_options
    _config(point)
    unknown = set(point.params) - PARAMS
    if unknown:
        raise ConfigError(", ".join(sorted(unknown)), "", "known params: cta_scheduler, scale")
    policy = point.params.get("cta_scheduler")
    if policy not in POLICIES["cta_scheduler"]:
        raise ConfigError("cta_scheduler", policy,
                          "one of " + ", ".join(sorted(POLICIES["cta_scheduler"])))
    if not point.workload.startswith("program:"):
        raise ConfigError("workload", point.workload, "a program:NAME of the suite")
    resolve_scale(point.workload, point.params.get("scale", 1.0), point.preset, run=False)
    check_options(load_module(program_path(point.workload)), point.workload,
                  split_options(point.workload)[1])


register_kind(KIND, run_point, check_point)
