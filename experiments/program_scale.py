"""A program's scale by name, for grids and the characterisation: ``quick`` and ``default`` (the
program's ``INFO`` scales) and ``fill``, the scale at which it fills the machine it runs on.

A program *fills* a machine when a launch of its main kernel (the most warp instructions) has at
least one full wave of CTAs: as many CTAs as the machine's CTA slots for that kernel (SMs × the
per-SM occupancy limit, [GPGPU-Sim issue_block2core()]'s ``max_cta()``). Below that, some SMs idle
or hold fewer CTAs than they could — the regime where the quick scales left OWL with one warp group
per core and IKRA with nothing to steal.

``fill`` climbs a ladder of scales (the program's quick scale doubled each step) and stops at
the first that fills the machine, or at the ladder's top (``TOP`` × the default scale). Each step
runs the program functionally once (cached on disk like every program run), so the search costs
about twice the chosen scale's functional run.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpusched.config import ConfigError

NAMED = {"quick": "quick_scale", "default": "default_scale"}
TOP = 1.0           # the ladder's top: the program's default scale (its documented size)


@dataclass(frozen=True)
class Fill:
    """A program's chosen scale on a preset and what it launches there."""
    workload: str
    scale: float
    kernel: str          # the main kernel (its largest launch is measured)
    ctas: int
    slots: int           # SMs × the kernel's per-SM CTA limit
    fills: bool          # waves >= 1 (False: the ladder's top still leaves slots empty)

    @property
    def waves(self) -> float:
        return self.ctas / self.slots


def main_kernel(workload) -> str:
    """The kernel with the most warp instructions over all its launches (the functional run's
    count; without one, the most CTAs)."""
    work: dict[str, int] = {}
    for k in workload.kernels:
        work[k.name] = work.get(k.name, 0) + k.meta.get("warp_insts", k.n_ctas)
    return max(work, key=lambda name: work[name])


def waves_of(workload, cfg) -> tuple[str, int, int]:
    """(kernel, CTAs, slots) of the largest launch of ``workload``'s main kernel on ``cfg``."""
    from sim.cta import occupancy_limit
    name = main_kernel(workload)
    best = None
    for k in workload.kernels:
        if k.name != name:
            continue
        slots = occupancy_limit(cfg.sm, k, cfg.sm.count, clamp_small_grid=False).limit * cfg.sm.count
        if best is None or k.n_ctas / slots > best[1] / best[2]:
            best = (k.name, k.n_ctas, slots)
    return best


def ladder(quick: float, default: float, top: float = TOP) -> list[float]:
    """quick, 2·quick, 4·quick, … up to ``top`` × default (the last step exactly that)."""
    steps, s = [], quick
    while s < default * top:
        steps.append(s)
        s *= 2
    steps.append(default * top)
    return steps


def program_info(workload: str) -> dict:
    """``INFO`` of ``program:NAME[:options]`` (ConfigError naming ``workload`` otherwise)."""
    from sim.workload.program import load_module, program_path
    if not workload.startswith("program:"):
        raise ConfigError("workload", workload, "a suite program, program:NAME")
    return load_module(program_path(workload)).INFO


def fill(workload: str, preset: str, seed: int = 0, top: float = TOP) -> Fill:
    """The smallest scale on the program's ladder at which it fills ``preset``'s machine."""
    from gpusched.config import resolve_config
    from sim.run import load_workload
    info = program_info(workload)
    cfg = resolve_config(preset, [])
    quick = info.get("quick_scale") or info["default_scale"]
    chosen = None
    for scale in ladder(quick, info["default_scale"], top):
        wl = load_workload(workload, seed=seed, scale=scale, preset=cfg.name)
        kernel, ctas, slots = waves_of(wl, cfg)
        chosen = Fill(workload, scale, kernel, ctas, slots, ctas >= slots)
        if chosen.fills:
            break
    return chosen


def resolve(workload: str, scale: object, preset: str | None = None, seed: int = 0,
            run: bool = True) -> float:
    """``scale`` as a number: a number as it is; ``quick``/``default``, the program's INFO scale;
    ``fill``, the scale that fills ``preset``'s machine. With ``run=False`` (a grid's check)
    ``fill`` is validated without running the program and stands for the ladder's first step."""
    if isinstance(scale, (int, float)) and not isinstance(scale, bool):
        return float(scale)
    if scale not in (*NAMED, "fill"):
        raise ConfigError("params.scale", scale, "a number, or quick, default or fill")
    info = program_info(workload)
    if scale == "fill":
        if preset is None:
            raise ConfigError("params.scale", scale, "fill needs the preset the program runs on")
        if not run:
            return float(info.get("quick_scale") or info["default_scale"])
        return fill(workload, preset, seed).scale
    return float(info[NAMED[scale]])
