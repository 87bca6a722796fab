"""Block-level timing mode (our choice where [SRTF] is silent): the GPU loop, kernel slots, CTA
issue, dispatcher contract and kernel schedulers of the cycle-level model, with each SM reduced to
its resident blocks and their progress.

A resident block has ``work`` (cycles at its kernel's full residency R) and completes
``1/t(r_eff)`` of it per cycle, relative: speed = max(R, knee) / max(r_eff, knee), i.e. block
time t(r) = t_R · max(r, knee) / max(R, knee). ``r_eff`` of a block of kernel k on an SM = the
resident blocks of k + those of every other kernel weighted by their warps per block over k's;
it is re-evaluated whenever a block starts or ends on that SM. A block placed in cycle c
progresses from c and retires in the first cycle its work is done.

Block work = t_R × a lognormal factor (mean 1, σ from the kernel's %RSD, capped at ``cap`` × mean
when given), drawn from (kernel seed, block id) so it does not depend on placement — the very
draw of the cycle-level ``Work("data")`` loop factor, so both modes run the same blocks — × 1.1–1.3 for
the first block of a kernel on each SM (startup; drawn from (kernel seed, SM)). Kernels carry the
record as ``kernel.meta["block_timing"]`` (``t_R``, ``R``, ``sigma``, ``knee``, ``cap``,
``first``; sim/workload/ercbench.py makes them; ``timing_from_cycle_run`` derives one from a
cycle-level run).

The run is event-driven (an SM wakes only when its next block retires), so a 22 M-cycle SHA1
pair costs about as much as its ~3,000 blocks. Everything the kernel scheduler sees (arrivals,
launch countdowns, block starts and ends, per-SM resources) is as in the cycle-level model; only
the block durations come from the record. Warp slots are counted, not placed.
"""

from __future__ import annotations

import math
import random

from gpusched.config import ConfigError, GPUConfig
from sim.cta import CTA, KernelRun
from sim.blocks.provider import TWINS
from sim.gpu import GPU
from sim.policies import make_policy
from sim.policies.tb_dispatch import TBDispatch
from sim.sm import PWR_ACTIVE
from sim.stats import ISSUE_SLOT_REASONS
from sim.subcore import NEVER
from sim.workload.kernel import Workload
from sim.workload.patterns import mix_seed
from sim.workload.synthetic import _CTA_SALT

_BLOCK_SALT = _CTA_SALT   # the cycle-level ``Work("data")`` draw: the same factor per block
_FIRST_SALT = 0xF125
FINISH_EPS = 1e-9


def block_factor(seed: int, block: int, sigma: float, cap: float) -> float:
    """Lognormal per-block work factor, mean 1 (before the cap)."""
    if sigma <= 0:
        return 1.0
    g = random.Random(mix_seed(seed, block, _BLOCK_SALT)).gauss(0.0, sigma)
    f = math.exp(g - sigma * sigma / 2)
    return min(f, cap) if cap > 0 else f


class NullMemory:
    """No memory system: blocks carry their own durations."""

    def tick(self, now: int) -> None:
        pass

    def next_event(self):
        return None

    def kernel_boundary(self, now, old, new) -> None:
        pass


class NullIssue:
    """No issue slots to split between kernels."""
    result: dict = {}

    def kernel_start(self, *a) -> None:
        pass

    block_placed = block_retired = kernel_end = kernel_start


class BlockSM:
    """An SM as the schedulers see it (resources, CTA slots, ``wake``/``cycle``) whose blocks
    retire after their timed work (module doc)."""

    def __init__(self, sm_id: int, cfg: GPUConfig, gpu: "BlockGPU"):
        sm = cfg.sm
        self.sm_id, self.gpu = sm_id, gpu
        self.state = PWR_ACTIVE
        self.wake = NEVER
        self.bound = None
        self.max_ctas, self.warps_cap = sm.max_ctas_per_sm, sm.warps_per_sm
        self.threads_cap, self.regs_cap, self.smem_cap = sm.threads_per_sm, sm.regs_per_sm, sm.smem_per_sm
        self.ctas: list = [None] * sm.max_ctas_per_sm
        self.n_ctas = self.n_warps = self.threads_used = self.regs_used = self.smem_used = 0
        self.blocks: list[list] = []            # [cta, remaining work, speed, done_at]
        self.last = 0
        self.started: set[int] = set()          # run indices that placed a block here
        self.retired = 0
        self.slots: list = []                   # no warps (GPU.deadlock reads this)

    # -- what the schedulers ask --------------------------------------------------------------
    def fits(self, run: KernelRun) -> bool:
        return (self.n_ctas < self.max_ctas and self.n_warps + run.warps_per_cta <= self.warps_cap
                and self.threads_used + run.padded_threads <= self.threads_cap
                and self.regs_used + run.regs_per_cta <= self.regs_cap
                and self.smem_used + run.smem_per_cta <= self.smem_cap)

    def launch_cta(self, now: int, run: KernelRun, cta_id: int) -> CTA:
        self._advance(now)
        slot = self.ctas.index(None)
        cta = CTA(run, cta_id, self.sm_id, slot, 0, now)
        tm = self.gpu.timing[run.index]
        work = tm["t_R"] * block_factor(run.kernel.meta.get("seed", 0), cta_id, tm["sigma"], tm["cap"])
        if run.index not in self.started:
            self.started.add(run.index)
            lo, hi = tm["first"]
            u = random.Random(mix_seed(run.kernel.meta.get("seed", 0), self.sm_id, _FIRST_SALT)).random()
            work *= 1.0 + lo + (hi - lo) * u
        self.ctas[slot] = cta
        self.n_ctas += 1
        self.n_warps += run.warps_per_cta
        self.threads_used += run.padded_threads
        self.regs_used += run.regs_per_cta
        self.smem_used += run.smem_per_cta
        self.blocks.append([cta, work, 1.0, NEVER])
        self._retime(now)
        return cta

    # -- progress -----------------------------------------------------------------------------
    def _advance(self, now: int) -> None:
        dt = now - self.last
        if dt > 0:
            for b in self.blocks:
                b[1] -= dt * b[2]
        self.last = max(self.last, now)

    def _retime(self, now: int) -> None:
        """Speeds from the SM's current mix, then each block's retirement cycle."""
        count: dict[int, int] = {}
        warps: dict[int, int] = {}
        for b in self.blocks:
            run = b[0].run
            count[run.index] = count.get(run.index, 0) + 1
            warps[run.index] = run.warps_per_cta
        soonest = NEVER
        for b in self.blocks:
            run = b[0].run
            k, wk = run.index, run.warps_per_cta
            r_eff = sum(n * (warps[j] / wk if j != k else 1) for j, n in count.items())
            tm = self.gpu.timing[k]
            knee = tm["knee"]
            b[2] = max(tm["R"], knee) / max(r_eff, knee)
            left = max(0.0, b[1]) / b[2]
            b[3] = now + max(0, math.ceil(left - FINISH_EPS * max(1.0, left)))
            soonest = min(soonest, b[3])
        self.wake = max(soonest, now + 1) if self.blocks else NEVER

    def cycle(self, now: int) -> None:
        self._advance(now)
        done = sorted((b for b in self.blocks if b[3] <= now), key=lambda b: b[0].cta_slot)
        if not done:
            self._retime(now)
            return
        for b in done:
            self.blocks.remove(b)
            cta = b[0]
            run = cta.run
            self.ctas[cta.cta_slot] = None
            self.n_ctas -= 1
            self.n_warps -= run.warps_per_cta
            self.threads_used -= run.padded_threads
            self.regs_used -= run.regs_per_cta
            self.smem_used -= run.smem_per_cta
            self.retired += 1
            self.gpu.cta_finished(now, self, cta)
        self._retime(now)

    # -- what the GPU loop and statistics read ------------------------------------------------
    def catch_up(self, upto: int) -> None:
        pass

    def warp_insts(self) -> int:
        return self.retired

    def issue_counts(self) -> list[int]:
        return [0] * len(ISSUE_SLOT_REASONS)

    def set_state(self, now: int, state: int) -> None:
        self.state = state


class BlockGPU(GPU):
    """``GPU`` whose SMs are ``BlockSM``s and whose memory system is absent (module doc)."""

    def __init__(self, cfg: GPUConfig, workload: Workload, *, kernel_scheduler, cta_scheduler,
                 cta_limit, sm_controller, rng, sample_interval: int = 1 << 40,
                 work_scale: float = 1.0):
        if not workload.kernels:
            raise ConfigError("workload", workload.name, "has no kernels")
        self.cfg, self.workload, self.memory, self.rng = cfg, workload, NullMemory(), rng
        self.watchdog, self.sample_interval = 1 << 50, sample_interval
        self.blocks = TWINS
        self.kernel_scheduler, self.cta_scheduler = kernel_scheduler, cta_scheduler
        self.cta_limit, self.sm_controller = cta_limit, sm_controller
        self.policies = [kernel_scheduler, cta_scheduler, cta_limit, sm_controller]
        self.sms = [BlockSM(i, cfg, self) for i in range(cfg.sm.count)]
        concurrent = cfg.kernels.concurrent_sm
        self.runs = [KernelRun(k, i, cfg.sm, cfg.sm.count, concurrent) for i, k in enumerate(workload.kernels)]
        self.timing = [timing_of(run, cfg, work_scale) for run in self.runs]
        self.init_arrivals(cfg)
        self.dispatch = TBDispatch(self, len(self.runs))
        self.kernel_wake = NEVER
        self.policy_acted = False
        self.in_tick = False
        self.n_retrying = 0
        self.n_finished = 0
        self.cta_pending = False
        self.now = 0
        self.cycles = 0
        self.samples: list[list[int]] = []
        self.issue_split = NullIssue()
        self.kernel_issue = {}
        self.n_ctas_placed = 0
        for p in self.policies:
            p.attach(self)


def timing_of(run: KernelRun, cfg: GPUConfig, work_scale: float = 1.0) -> dict:
    """The kernel's block-timing record, R defaulting to its occupancy limit on ``cfg``, t_R ×
    ``work_scale`` (quick runs: shorter blocks, same grid)."""
    tm = run.kernel.meta.get("block_timing")
    if not tm:
        raise ConfigError("mode", "block", f"kernel {run.name} has no block-timing record "
                          "(meta['block_timing']; see sim/multiprog/blocklevel.py)")
    out = {"R": run.occupancy.limit, "sigma": 0.0, "knee": 1, "cap": 0.0, "first": (0.0, 0.0)}
    out.update(tm)
    out["t_R"] = out["t_R"] * work_scale
    if out["t_R"] <= 0:
        raise ConfigError("block_timing.t_R", out["t_R"], f"must be > 0 (kernel {run.name})")
    return out


def simulate_blocks(cfg: GPUConfig, workload: Workload, seed: int = 0, progress=None,
                    **policies) -> BlockGPU:
    """Run ``workload`` in block-level timing mode under ``policies`` (names, factories or
    instances as ``sim.run.simulate``); returns the finished ``BlockGPU`` (runs, policies)."""
    made = {kind: make_policy(kind, policies.get(kind), cfg)
            for kind in ("kernel_scheduler", "cta_scheduler", "cta_limit", "sm_controller")}
    gpu = BlockGPU(cfg, workload, rng=random.Random(seed), **made)
    gpu.run(progress)
    return gpu
