"""Runner kind ``srtf_mp`` for the SRTF reproduction (experiments/srtf.py): one point = one
multiprogram workload under one kernel scheduler, through sim/multiprog.

Point: ``workload`` = ``A+B`` (or one kernel alone), ``preset`` gtx480 with
``kernels.concurrent_sm = true``; params ``task`` (``pair``: block-level run with metrics;
``alone``: one kernel alone, for predictor accuracy; ``check``: the same pair in the cycle-level
model and in block mode, sim/multiprog/calibrate.py), ``policy`` (kernel scheduler),
``offset`` (``100`` cycles, ``25%`` …), ``scale`` (block mode: per-block work; check: the
cycle-level work scale), ``share_cap`` (SRTF/Adaptive's cap), ``timing`` (``calibrated``: knees
from the cycle-level model, the default; ``spec``: the knee 4 we chose where [SRTF] is silent).

Every input is checked before the sweep starts (one line naming the field); a cycle offset is
checked against the first kernel's standalone runtime, which needs the calibration (cached in
``results/standalone``, shared with the workers).
"""

from __future__ import annotations

from gpusched.config import ConfigError
from gpusched.experiment.point import Point, override_strings
from gpusched.experiment.runners import register_kind

KIND = "srtf_mp"
TASKS = ("pair", "alone", "check")
PARAMS = ("task", "policy", "offset", "scale", "share_cap", "timing")
TIMINGS = ("calibrated", "spec")


def pair_inputs(point: Point, params: tuple[str, ...]):
    """(config, params, task, policy, offset, scale) of a multiprogram point whose params are
    ``params``: unknown params, an unknown task and SMs not shared between kernels are one-line
    errors (shared by this kind and ``srtf_program``)."""
    from gpusched.config import resolve_config
    cfg = resolve_config(point.preset, override_strings(point.overrides))
    p = dict(point.params)
    unknown = set(p) - set(params)
    if unknown:
        name = sorted(unknown)[0]
        raise ConfigError(name, p[name], "unknown parameter; known: " + ", ".join(params))
    task = p.get("task", "pair")
    if task not in TASKS:
        raise ConfigError("task", task, "allowed: " + ", ".join(TASKS))
    if not cfg.kernels.concurrent_sm:
        raise ConfigError("kernels.concurrent_sm", False, "must be true (kernels share SMs)")
    return cfg, p, task, p.get("policy", "srtf"), str(p.get("offset", "100")), \
        float(p.get("scale", 1.0))


def _inputs(point: Point):
    cfg, p, task, policy, offset, scale = pair_inputs(point, PARAMS)
    timing = p.get("timing", "calibrated")
    if timing not in TIMINGS:
        raise ConfigError("timing", timing, "allowed: " + ", ".join(TIMINGS))
    return cfg, task, policy, offset, scale, p.get("share_cap", 3), timing


def _timing(cfg, names, timing: str, seed: int):
    if timing == "spec":
        return None
    from sim.multiprog.calibrate import calibrated_knees
    from sim.workload.ercbench import ERCB
    return calibrated_knees([n for n in names if n in ERCB], cfg, seed) or None


def check_srtf(point: Point) -> None:
    from sim.multiprog.compose import resolve_offset
    from sim.multiprog.standalone import standalone_runtime
    from sim.multiprog.study import STANDALONE_SCHEDULER, check_inputs
    cfg, task, policy, offset, scale, cap, timing = _inputs(point)
    names = check_inputs(cfg, point.workload, offset, policy, "block", cap, scale)
    if task == "alone" and len(names) != 1:
        raise ConfigError("workload", point.workload, "task alone runs one kernel")
    if task != "alone" and len(names) < 2:
        raise ConfigError("workload", point.workload, f"task {task} needs A+B")
    if task == "check":
        from sim.workload.ercbench import ERCB
        bad = [n for n in names if n not in ERCB]
        if bad:
            raise ConfigError("workload", bad[0], "the check runs ERCBench-like kernels only")
        return
    if len(names) > 1 and not offset.endswith("%"):
        t = standalone_runtime(names[0], cfg, "block", point.seed, scale, STANDALONE_SCHEDULER,
                               timing=_timing(cfg, names, timing, point.seed))
        resolve_offset(offset, t)


def run_srtf(point: Point) -> dict:
    from sim.multiprog.study import run_workload
    cfg, task, policy, offset, scale, cap, timing = _inputs(point)
    if task == "check":
        from sim.multiprog.calibrate import check_pair
        return check_pair(point.workload, policy, cfg, int(offset), point.seed, scale)
    names = point.workload.split("+")
    out = run_workload(cfg, point.workload, offset, policy, "block", point.seed, scale, cap,
                       timing=_timing(cfg, names, timing, point.seed))
    for clash in ("workload", "seed", "scale", "kernel_scheduler", "mode"):
        out.pop(clash, None)            # inputs already in the point
    # for per-run metrics (tables) that see stats only
    out.update(share_cap=cap, timing=timing, variant=policy)
    return out


register_kind(KIND, run_srtf, check_srtf)
