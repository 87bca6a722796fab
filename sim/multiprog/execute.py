"""Run one multiprogram (or standalone) workload in either timing mode and keep what the
multiprogram metrics need: per kernel its arrival, first block, end and block rows; for the
SRTF-family kernel schedulers also every predictor record (cycle, SM, kernel, predicted total)
and the controller's sampling starts and switches, with their cycles.

``mode``: ``cycle`` (the cycle-level GPU model, ``memory`` as ``sim.run``) or ``block`` (the
block-level timing mode, sim/multiprog/blocklevel.py). ``kernel_scheduler``: any registered name
(``fifo``, ``sm_partition``, ``srtf`` …), a factory ``cfg -> policy`` or an instance.
"""

from __future__ import annotations

import random

from gpusched.config import ConfigError, GPUConfig
from sim.workload.kernel import Workload

MODES = ("block", "cycle")


def scales(mode: str, scale: float) -> tuple[float, float]:
    """(build scale, block-mode work scale) for a study's ``scale``: the cycle-level model
    builds the catalogue workload at ``scale`` (grid and work, the catalogue's convention); the
    block-level mode builds it whole (streams are never run) and shortens each block instead,
    so quick runs keep the waves per SM (our choice where [SRTF] is silent)."""
    return (1.0, scale) if mode == "block" else (scale, 1.0)


class ControllerLog:
    """Wraps a ``KernelSchedTwin``'s event methods to time-stamp predictor records, sampling
    starts and switches (the twin itself keeps no cycles)."""

    EVENTS = ("arrive", "update", "end", "dispatched_all", "block_done")

    def __init__(self, ks, gpu):
        self.ks, self.gpu = ks, gpu
        self.records: list[tuple[int, int, int, int]] = []   # (cycle, sm, run index, pred)
        self.samples: list[tuple[int, int]] = []             # (cycle, run index) sampling starts
        self.switches: list[tuple[int, int, int]] = []       # (cycle, from run, to run)
        ctrl = ks.ctrl
        for name in self.EVENTS:
            setattr(ctrl, name, self._wrap(getattr(ctrl, name), name))

    def _run_of(self, slot):
        held = self.ks.slots[slot] if slot is not None and 0 <= slot < len(self.ks.slots) else None
        return held.index if held is not None else -1

    def _wrap(self, fn, name):
        ctrl = self.ks.ctrl

        def logged(*args, **kw):
            samp, n_sw = ctrl.samp, len(ctrl.switches)
            out = fn(*args, **kw)
            now = self.gpu.now
            if name == "update":
                sm, k, _rem, pred = args[:4]
                self.records.append((now, sm, self._run_of(k), pred))
            if ctrl.samp is not None and ctrl.samp != samp:
                self.samples.append((now, self._run_of(ctrl.samp)))
            for old, new, _why in ctrl.switches[n_sw:]:
                self.switches.append((now, self._run_of(old), self._run_of(new)))
            return out
        return logged


def build_gpu(cfg: GPUConfig, workload: Workload, mode: str, seed: int, kernel_scheduler,
              memory: str = "fixed", work_scale: float = 1.0):
    """The GPU (cycle-level or block-level) with the kernel scheduler in place, not yet run."""
    from sim.policies import make_policy
    policies = {"kernel_scheduler": make_policy("kernel_scheduler", kernel_scheduler, cfg),
                **{kind: make_policy(kind, None, cfg)
                   for kind in ("cta_scheduler", "cta_limit", "sm_controller")}}
    if mode == "block":
        from sim.multiprog.blocklevel import BlockGPU
        return BlockGPU(cfg, workload, rng=random.Random(seed), work_scale=work_scale, **policies)
    if mode == "cycle":
        from sim.gpu import GPU
        from sim.run import DEFAULT_WATCHDOG, make_memory
        return GPU(cfg, workload, make_memory(cfg, memory), rng=random.Random(seed),
                   watchdog=DEFAULT_WATCHDOG, **policies)
    raise ConfigError("mode", mode, "allowed: " + ", ".join(MODES))


def run_trace(cfg: GPUConfig, workload: Workload, mode: str = "block", seed: int = 0,
              kernel_scheduler="fifo", memory: str = "fixed", progress=None,
              work_scale: float = 1.0) -> dict:
    """Run and return the JSON-ready trace (module doc); ``work_scale``: block mode's t_R
    factor."""
    gpu = build_gpu(cfg, workload, mode, seed, kernel_scheduler, memory, work_scale)
    ks = gpu.kernel_scheduler
    log = ControllerLog(ks, gpu) if hasattr(ks, "ctrl") else None
    gpu.run(progress)
    kernels = [{"name": r.name, "member": r.kernel.meta.get("member", r.name),
                "arrival": r.kernel.arrival, "start": r.start, "end": r.end,
                "blocks": [[sm, start, end] for _cta, sm, start, end in r.ctas]}
               for r in gpu.runs]
    report = ks.report()
    out = {"mode": mode, "cycles": gpu.cycles, "kernels": kernels,
           "kernel_scheduler": report if report is not None else {"policy": type(ks).__name__}}
    if log is not None:
        out.update(records=[list(r) for r in log.records], samples=[list(s) for s in log.samples],
                   switches=[list(s) for s in log.switches])
    return out


def member_turnaround(trace: dict) -> dict[str, int]:
    """Member → turnaround: its last kernel's end minus its first kernel's arrival (our choice where
    [SRTF] is silent item 16; copies and host overheads excluded)."""
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    for k in trace["kernels"]:
        m = k["member"]
        first[m] = min(first.get(m, k["arrival"]), k["arrival"])
        last[m] = max(last.get(m, k["end"]), k["end"])
    return {m: last[m] - first[m] for m in first}
