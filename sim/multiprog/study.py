"""One multiprogram run with its metrics: ``run_workload("A+B", offset, kernel_scheduler, …)``
composes the workload (sim/multiprog/compose.py), measures or reads each member's T^SP
(sim/multiprog/standalone.py), runs it and returns NTT per member, STP, ANTT, StrictF, the
predictor records' accuracy and the sampling / hand-off delays (sim/multiprog/metrics.py);
for two members also the analytic SJF, LJF and serial-FIFO references from the same T^SP.

``check_inputs`` validates everything before any simulation, each error one ConfigError naming
the field: an unknown member, more kernels than ``kernels.max_concurrent``, an offset that is not
before the first member's standalone end, a sharing cap below 1, an unknown mode or scheduler.

Kernel schedulers: any registered name; ``srtf_zero`` (zero-sampling SRTF, [SRTF zero-sampling]) is built
here from the members' T^SP. ``share_cap`` sets SRTF/Adaptive's cap of the shortest kernel.
"""

from __future__ import annotations

from gpusched.config import ConfigError, GPUConfig
from sim.multiprog import metrics
from sim.multiprog.compose import Member, compose, parse_members, parse_offset, resolve_offset
from sim.multiprog.execute import MODES, member_turnaround, run_trace, scales
from sim.multiprog.standalone import DEFAULT_CACHE, standalone_runtime

ORACLE_SCHEDULERS = ("srtf_zero",)
STANDALONE_SCHEDULER = "srtf_fifo"     # T^SP: alone, every block at cap R ([SRTF FIFO])


def check_inputs(cfg: GPUConfig, workload: str, offset="100", kernel_scheduler: str = "srtf",
                 mode: str = "block", share_cap: int = 3, scale: float = 1.0) -> list[str]:
    """The members of ``workload`` after every input check (module doc)."""
    if mode not in MODES:
        raise ConfigError("mode", mode, "allowed: " + ", ".join(MODES))
    names = parse_members(workload) if "+" in workload else [workload]
    if len(names) == 1:
        from sim.multiprog.compose import check_member
        check_member(names[0])
    parse_offset(offset)
    if not isinstance(scale, (int, float)) or not 0 < scale <= 1000:
        raise ConfigError("scale", scale, "a number in (0, 1000]")
    if not isinstance(share_cap, int) or isinstance(share_cap, bool) or share_cap < 1:
        raise ConfigError("share_cap", share_cap, "blocks per SM, an integer >= 1")
    if kernel_scheduler not in ORACLE_SCHEDULERS:
        from sim.policies import resolve_policy
        resolve_policy("kernel_scheduler", kernel_scheduler)
    from sim.multiprog.compose import PROGRAM, slots_needed
    if mode == "block" and any(n.startswith(PROGRAM) for n in names):
        raise ConfigError("mode", mode, "program members run in the cycle-level model (mode "
                          "cycle): block mode needs each kernel's block-timing record")
    n_kernels = sum(slots_needed(n) for n in names)
    if n_kernels > cfg.kernels.max_concurrent:
        raise ConfigError("kernels.max_concurrent", cfg.kernels.max_concurrent,
                          f"{workload} launches {n_kernels} kernels together; raise it to at "
                          f"least {n_kernels}")
    return names


def make_scheduler(name: str, standalone: dict[str, int], share_cap: int = 3):
    """A kernel-scheduler factory ``cfg -> policy`` for ``name`` (srtf_zero gets T^SP)."""
    from sim.policies import make_policy
    from sim.policies.srtf import ZeroSamplingKernelScheduler

    def factory(cfg):
        ks = (ZeroSamplingKernelScheduler(cfg, standalone) if name == "srtf_zero"
              else make_policy("kernel_scheduler", name, cfg))
        if hasattr(ks, "ctrl"):
            ks.ctrl.share_cap = share_cap
        return ks
    return factory


def run_workload(cfg: GPUConfig, workload: str, offset="100", kernel_scheduler: str = "srtf",
                 mode: str = "block", seed: int = 0, scale: float = 1.0, share_cap: int = 3,
                 memory: str = "fixed", cache_dir=DEFAULT_CACHE, keep_ratios: bool = True,
                 timing: dict | None = None) -> dict:
    """Run ``workload`` (``A+B…`` or one member alone) and return its metrics (module doc);
    ``timing``: block-timing fields per kernel name (``compose``)."""
    names = check_inputs(cfg, workload, offset, kernel_scheduler, mode, share_cap, scale)
    t_sp = {n: standalone_runtime(n, cfg, mode, seed, scale, STANDALONE_SCHEDULER, memory,
                                  cache_dir, timing) for n in names}
    shift = resolve_offset(offset, t_sp[names[0]]) if len(names) > 1 else 0
    members = [Member(n, 0 if i == 0 else shift) for i, n in enumerate(names)]
    build, work = scales(mode, scale)
    wl = compose(members, seed, build, cfg.kernels.max_concurrent, timing, cfg.name)
    trace = run_trace(cfg, wl, mode, seed, make_scheduler(kernel_scheduler, t_sp, share_cap),
                      memory, work_scale=work)
    t_mp = member_turnaround(trace)
    ntts = [metrics.ntt(t_mp[n], t_sp[n]) for n in names]
    out = {"workload": workload, "members": names, "offset": str(offset), "offset_cycles": shift,
           "kernel_scheduler": kernel_scheduler, "mode": mode, "seed": seed, "scale": scale,
           "t_sp": [t_sp[n] for n in names], "t_mp": [t_mp[n] for n in names],
           "cycles": trace["cycles"], **metrics.summary(ntts)}
    if len(names) == 2:
        for label, shortest in (("sjf", True), ("ljf", False)):
            o = metrics.oracle_ntts(t_sp[names[0]], t_sp[names[1]], shift, shortest)
            out[label] = metrics.summary(o)
        out["serial"] = metrics.summary(metrics.serial_ntts(t_sp[names[0]], t_sp[names[1]],
                                                            shift, True))
    acc = metrics.predictor_accuracy(trace)
    out["predictions"] = len(acc)
    if keep_ratios:
        out["pred_ratio"] = [round(r["ratio"], 4) for r in acc]
    out["delays"] = metrics.delays(trace)
    out["switches"] = len(trace.get("switches", []))
    report = trace["kernel_scheduler"]
    if "sharing" in report:
        out["sharing"] = report["sharing"]
    return out
