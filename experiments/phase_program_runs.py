"""The ``phase_program`` runner kind of experiments/phase.py: one kernel of a suite program, run
alone, with the warp-state profiler attached.

Why alone: the thesis measures kernels (BP-K1 is backprop's ``bp_layer_forward``, Tables 3.2/3.3),
while a program launches several. The point's ``kernel`` parameter names the kernel; the program's
functional run (cached, shared by every scheduler's point) gives all its launches, and only that
kernel's launches, in launch order, go to the timing model. So every statistic of the run —
cycles, scheduler slots, loads in flight — is that kernel's, and the ``phase`` metrics apply
unchanged. What this drops: the other kernels' effect on the caches (a launch starts with the
lines its own earlier launches left, not those of the kernels in between);
docs/mechanisms/phase-aware.md measures it on one program.

Kept apart from the report module so that editing the report leaves the stored runs valid (a
point's model fingerprint covers its kind's module)."""

from __future__ import annotations

import dataclasses

from gpusched.config import ConfigError
from gpusched.experiment.point import Point
from gpusched.experiment.runners import check_model, register_kind

KIND = "phase_program"


def program_kernels(workload: str) -> tuple[str, ...]:
    """The kernel names a suite program declares (its ``INFO["kernels"]``), without running it."""
    from sim.workload.program import load_module, program_path
    return tuple(getattr(load_module(program_path(workload)), "INFO", {}).get("kernels", ()))


def check_program_kernel(workload: str, kernel: object) -> None:
    """ConfigError unless ``workload`` is a suite program (``program:NAME``) and ``kernel`` one
    of the kernels it declares (the runner kinds that run one kernel of a program)."""
    if not workload.startswith("program:"):
        raise ConfigError("workload", workload, "a suite program (program:NAME)")
    declared = program_kernels(workload)
    if kernel not in declared:
        raise ConfigError("params.kernel", kernel, f"a kernel of {workload}: "
                          + ", ".join(declared))


def only_kernel(workload, name: str):
    """``workload`` with only the launches of kernel ``name`` (launch order kept)."""
    from sim.workload.kernel import Workload
    kernels = [k for k in workload.kernels if k.name == name]
    if not kernels:
        raise ConfigError("params.kernel", name, "a kernel the program launches: "
                          + ", ".join(dict.fromkeys(k.name for k in workload.kernels)))
    return Workload(name=f"{workload.name}:{name}", kernels=kernels,
                    description=f"{workload.description}; kernel {name} only",
                    meta={**workload.meta, "kernel": name,
                          "warp_insts": sum(k.meta.get("warp_insts", 0) for k in kernels)})


def _split(point: Point) -> tuple[Point, str]:
    params = dict(point.params)
    kernel = params.pop("kernel", None)
    return dataclasses.replace(point, params=params, kind="model"), kernel


def check_phase_program(point: Point) -> None:
    """A ``program:NAME`` workload and one of its declared kernels; the rest as ``model``."""
    base, kernel = _split(point)
    check_program_kernel(base.workload, kernel)
    check_model(base)


def run_phase_program(point: Point) -> dict:
    """The ``model`` run of ``point``'s kernel alone, profiled (warp-state loads, decomposition)."""
    from gpusched.config import resolve_config
    from gpusched.experiment.point import override_strings
    from sim.run import load_workload, simulate
    base, kernel = _split(point)
    cfg = resolve_config(base.preset, override_strings(base.overrides))
    params = dict(base.params)
    scale = float(params.pop("scale", 1.0))
    params.setdefault("memory", "hierarchy")
    workload = load_workload(base.workload, seed=base.seed, scale=scale, preset=cfg.name)
    return simulate(cfg, only_kernel(workload, kernel), seed=base.seed,
                    profile=("warp-states",), **params)


register_kind(KIND, run_phase_program, check_phase_program)
