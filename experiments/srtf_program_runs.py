"""Runner kind ``srtf_program`` for the SRTF reproduction on the program suite (experiments/srtf.py
``EXPERIMENT``): one point = one multiprogram workload of suite programs under one kernel
scheduler, in the cycle-level model with the memory hierarchy, through sim/multiprog.

Point: ``workload`` = ``A+B`` of program members (``program:NAME[~KERNEL]``, sim/multiprog/
compose.py; [SRTF ERCBench]'s kernels are one kernel of a program each) or one member alone;
``preset`` gtx480 with ``kernels.concurrent_sm = true``; params ``task`` (``pair``: the
workload's metrics; ``alone``: one member alone under FIFO, its Table 5 columns and predictor
records; ``check``: the pair in the cycle-level model and in the block-level mode, whose
records are measured from each member's own standalone cycle-level run, ``block_record``),
``policy`` (kernel scheduler), ``offset`` (``100`` cycles, ``25%`` …) and ``scale`` (every
member's program scale: the programs' grids at scale 1 are the paper's, so one scale keeps
Table 5's proportions of blocks between kernels).

Every input is checked before the sweep starts (one line naming the field). Kept apart from the
report module so that editing the report leaves the stored runs valid.
"""

from __future__ import annotations

import statistics

from experiments.srtf_runs import pair_inputs
from gpusched.config import ConfigError
from gpusched.experiment.point import Point
from gpusched.experiment.runners import register_kind

KIND = "srtf_program"
PARAMS = ("task", "policy", "offset", "scale")
MEMORY = "hierarchy"


def _inputs(point: Point):
    cfg, _, task, policy, offset, scale = pair_inputs(point, PARAMS)
    return cfg, task, policy, offset, scale


def check_point(point: Point) -> None:
    from sim.multiprog.compose import PROGRAM
    from sim.multiprog.study import check_inputs
    cfg, task, policy, offset, scale = _inputs(point)
    names = check_inputs(cfg, point.workload, offset, policy, "cycle", 3, scale)
    bad = [n for n in names if not n.startswith(PROGRAM) or "@" in n]
    if bad:
        raise ConfigError("workload", bad[0], "program:NAME[~KERNEL] (the scale is the point's)")
    if task == "alone" and len(names) != 1:
        raise ConfigError("workload", point.workload, "task alone runs one program")
    if task != "alone" and len(names) < 2:
        raise ConfigError("workload", point.workload, f"task {task} needs A+B")
    if task == "check" and offset.endswith("%"):
        raise ConfigError("offset", offset, "the check runs at an offset in cycles")


def run_alone(cfg, member: str, seed: int, scale: float) -> dict:
    """``member`` alone under FIFO (its T^SP run): [SRTF] Table 5's columns — R, threads per
    block, blocks, standalone cycles, mean block time and its %RSD — and the predictor's records
    (FIFO is an SRTF-family scheduler: the predictors run, nothing is switched)."""
    from sim.cta import KernelRun
    from sim.multiprog import metrics
    from sim.multiprog.compose import Member, compose
    from sim.multiprog.execute import member_turnaround, run_trace
    from sim.multiprog.study import STANDALONE_SCHEDULER
    wl = compose([Member(member)], seed, scale, cfg.kernels.max_concurrent, preset=cfg.name)
    trace = run_trace(cfg, wl, "cycle", seed, STANDALONE_SCHEDULER, MEMORY)
    times = [e - s for k in trace["kernels"] for _sm, s, e in k["blocks"]]
    k = wl.kernels[0]
    mean = statistics.mean(times)
    acc = metrics.predictor_accuracy(trace)
    return {"table5": {"R": KernelRun(k, 0, cfg.sm, cfg.sm.count, True).occupancy.limit,
                       "threads": k.block[0] * k.block[1] * k.block[2], "blocks": len(times),
                       "standalone": member_turnaround(trace)[member], "block_time": mean,
                       "rsd": 100 * statistics.pstdev(times) / mean},
            "cycles": trace["cycles"], "predictions": len(acc),
            "pred_ratio": [round(r["ratio"], 4) for r in acc]}


def block_record(cfg, member: str, seed: int, scale: float) -> dict:
    """The block-level timing record of single-kernel ``member`` from its standalone
    cycle-level run: R its occupancy limit, the per-block spread (lognormal σ from the %RSD),
    the spec's knee 4 (our choice where [SRTF] is silent; capped at R) and t_R fitted so that the
    block-level standalone runtime equals the cycle-level one (as sim/multiprog/calibrate.py does
    for the catalogue's kernels). Cached beside the T^SP runs."""
    import math

    from sim.multiprog.calibrate import _cached
    from sim.multiprog.execute import member_turnaround, run_trace
    from sim.multiprog.standalone import DEFAULT_CACHE, cache_key
    from sim.multiprog.study import STANDALONE_SCHEDULER

    def compute() -> dict:
        from sim.multiprog.compose import Member, compose
        alone = run_alone(cfg, member, seed, scale)["table5"]
        probe = {"t_R": alone["block_time"], "R": alone["R"], "knee": min(4, alone["R"]),
                 "sigma": math.sqrt(math.log(1 + (alone["rsd"] / 100) ** 2)), "cap": 0.0,
                 "first": [0.0, 0.0]}
        wl = compose([Member(member)], seed, scale, cfg.kernels.max_concurrent,
                     {k: probe for k in _kernel_names(cfg, member, seed, scale)}, cfg.name)
        blk = member_turnaround(run_trace(cfg, wl, "block", seed, STANDALONE_SCHEDULER))[member]
        return {**probe, "t_R": probe["t_R"] * alone["standalone"] / blk}
    key = "rec-" + cache_key(member, cfg, "cycle", seed, scale, STANDALONE_SCHEDULER, MEMORY)
    return _cached(DEFAULT_CACHE, key, compute)


def _kernel_names(cfg, member: str, seed: int, scale: float) -> list[str]:
    from sim.multiprog.compose import build_member
    return [k.name for k in build_member(member, seed, scale, cfg.name)]


def check_pair(cfg, workload: str, policy: str, offset: str, seed: int, scale: float) -> dict:
    """``workload`` in both models: T^SP, T^MP, NTT and STP of each (sim/multiprog/calibrate.py
    ``check_pair``'s form, on program members)."""
    from sim.multiprog import metrics
    from sim.multiprog.compose import Member, compose
    from sim.multiprog.execute import member_turnaround, run_trace
    from sim.multiprog.study import STANDALONE_SCHEDULER, make_scheduler, run_workload
    names = workload.split("+")
    cycle = run_workload(cfg, workload, offset, policy, "cycle", seed, scale, memory=MEMORY)
    out = {"cycle": {k: cycle[k] for k in ("t_sp", "t_mp", "ntt", "stp", "antt")}}
    records = {k: block_record(cfg, n, seed, scale) for n in names
               for k in _kernel_names(cfg, n, seed, scale)}
    t_sp = {n: member_turnaround(run_trace(cfg, compose(
        [Member(n)], seed, scale, cfg.kernels.max_concurrent, records, cfg.name), "block", seed,
        STANDALONE_SCHEDULER))[n] for n in names}
    members = [Member(n, 0 if i == 0 else cycle["offset_cycles"]) for i, n in enumerate(names)]
    wl = compose(members, seed, scale, cfg.kernels.max_concurrent, records, cfg.name)
    t_mp = member_turnaround(run_trace(cfg, wl, "block", seed, make_scheduler(policy, t_sp)))
    ntts = [metrics.ntt(t_mp[n], t_sp[n]) for n in names]
    out["block"] = {"t_sp": [t_sp[n] for n in names], "t_mp": [t_mp[n] for n in names],
                    "ntt": ntts, "stp": metrics.stp(ntts), "antt": metrics.antt(ntts)}
    return out


def run_point(point: Point) -> dict:
    from sim.multiprog.study import run_workload
    cfg, task, policy, offset, scale = _inputs(point)
    if task == "alone":
        return {**run_alone(cfg, point.workload, point.seed, scale), "variant": policy}
    if task == "check":
        return check_pair(cfg, point.workload, policy, offset, point.seed, scale)
    out = run_workload(cfg, point.workload, offset, policy, "cycle", point.seed, scale,
                       memory=MEMORY)
    for clash in ("workload", "seed", "scale", "kernel_scheduler", "mode"):
        out.pop(clash, None)            # inputs already in the point
    out["variant"] = policy
    return out


register_kind(KIND, run_point, check_point)
