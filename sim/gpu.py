"""The GPU: SMs + memory system + the four scheduling policies, and the cycle loop.

One core cycle ``now`` ([GPGPU-Sim issue_block2core()] order): kernels whose arrival has come are
offered to the kernel scheduler; the memory system ticks (delivering completions); every SM due runs
its cycle; per-cycle policies run; the CTA scheduler places CTAs. Idle cycles are skipped: each SM
knows the next cycle at which it can change (``wake``) and the loop jumps to the earliest of
those, the memory system's ``next_event()``, the next launch countdown or arrival, and any
policy's ``next_wakeup``. Skipped cycles are charged to the issue-slot reason that held. While an
SM holds a memory request the memory system refused, no cycle is skipped, as if the SM re-offered
it every cycle (it may in fact sleep until the request can be accepted, sim/sm_memory.py): the
cycles visited, hence occupancy samples and per-cycle policies, do not depend on that.

Deadlock watchdog: if no warp instruction issues and no CTA is placed for ``watchdog`` cycles
while work remains, ``Deadlock`` is raised naming the SM, warp and wait reason.
"""

from __future__ import annotations

from collections import Counter, deque

from gpusched.config import ConfigError, GPUConfig
from sim.cta import CTA, KernelRun
from sim.blocks.provider import TWINS
from sim.kernel_issue import KernelIssue
from sim.policies.tb_dispatch import TBDispatch
from sim.policies.warp_sched import check_config as check_warp_scheduler_config
from sim.sm import PWR_ACTIVE, PWR_GATED, PWR_PAUSED, PWR_PAUSING, SM, SM_STATE_NAMES, run_sms
from sim.stats import ISSUE_SLOT_REASONS, add_counts
from sim.subcore import NEVER
from sim.warp import WS_BARRIER
from sim.workload.kernel import Workload

PROGRESS_EVERY = 4096      # loop iterations between progress callbacks / watchdog checks


class Deadlock(RuntimeError):
    """No progress for ``watchdog`` cycles while work remains; the message names the culprit."""

    def __init__(self, cycle: int, message: str, sm: int | None = None, warp: int | None = None,
                 reason: str = ""):
        self.cycle, self.sm, self.warp, self.reason = cycle, sm, warp, reason
        super().__init__(message)


def _run_any(sms: list, now: int) -> int:
    """``sim.sm.run_sms`` for any objects with ``wake`` and ``cycle``."""
    soonest = NEVER
    for sm in sms:
        wake = sm.wake
        if wake <= now:
            sm.cycle(now)
            wake = sm.wake
        if wake < soonest:
            soonest = wake
    return soonest


class GPU:
    """Builds the SMs and runs a workload to completion (``run``)."""

    def __init__(self, cfg: GPUConfig, workload: Workload, memory, *, kernel_scheduler, cta_scheduler,
                 cta_limit, sm_controller, rng, blocks=TWINS, watchdog: int = 100_000,
                 sample_interval: int = 1000):
        """``blocks``: the block provider every scheduling point takes its blocks from
        (sim/blocks/provider.py; the twins by default)."""
        if not workload.kernels:
            raise ConfigError("workload", workload.name, "has no kernels")
        check_warp_scheduler_config(cfg)
        self.cfg, self.workload, self.memory, self.rng = cfg, workload, memory, rng
        self.watchdog, self.sample_interval = watchdog, sample_interval
        self.blocks = blocks
        self.kernel_scheduler, self.cta_scheduler = kernel_scheduler, cta_scheduler
        self.cta_limit, self.sm_controller = cta_limit, sm_controller
        self.policies = [kernel_scheduler, cta_scheduler, cta_limit, sm_controller]
        decode_cache: dict = {}
        self.sms = [SM(i, cfg, memory, blocks, self, decode_cache) for i in range(cfg.sm.count)]
        concurrent = cfg.kernels.concurrent_sm
        self.runs = [KernelRun(k, i, cfg.sm, cfg.sm.count, concurrent) for i, k in enumerate(workload.kernels)]
        self.init_arrivals(cfg)
        self.dispatch = TBDispatch(self, len(self.runs))
        self.kernel_wake = NEVER            # next launch-countdown expiry
        self.policy_acted = False           # an SM's state changed from a policy hook
        self.in_tick = False                # the memory system is delivering this cycle's events
        self.n_retrying = 0                 # SMs holding a memory request the memory refused
        self.n_finished = 0
        self.cta_pending = False
        self.now = 0
        self.cycles = 0
        self.samples: list[list[int]] = []
        self.issue_split = KernelIssue(self.sms)      # per-kernel issue-slot breakdown
        self.kernel_issue = self.issue_split.result   # run index -> counts, once it ended
        self.n_ctas_placed = 0
        for p in self.policies:
            p.attach(self)

    def init_arrivals(self, cfg: GPUConfig) -> None:
        """The launch queue: kernels not yet arrived (``arrivals``, workload order), those arrived
        but not yet in a kernel slot (``waiting``), and the last launched kernel of each CUDA
        stream (``kernels.stream_order``)."""
        self.arrivals = deque(self.runs)
        self.waiting: list[KernelRun] = []
        self.stream_order = cfg.kernels.stream_order
        self.stream_last: dict[str, KernelRun] = {}
        self.slot_may_be_free = True        # False after a refused launch, until a kernel ends
        self.offer_due = False              # a kernel ended since the last offer (a stream freed)

    # -- services for policies ----------------------------------------------------------------
    def can_accept(self, sm: SM, run: KernelRun) -> bool:
        """``sm`` is active, allowed by the active-SM controller, below its CTA-count limit and
        has the resources for one CTA of ``run``."""
        return (sm.state == PWR_ACTIVE and self.sm_controller.may_dispatch(sm.sm_id)
                and sm.n_ctas < self.cta_limit.limit(sm, run) and sm.fits(run))

    def launch_cta(self, now: int, sm: SM, run: KernelRun, cta_id: int | None = None) -> CTA:
        """Place a CTA of ``run`` on ``sm``: the next in linear id order, or ``cta_id`` for CTA
        schedulers that choose ids themselves (IKRA); ``run.next_cta`` counts CTAs placed."""
        cta_id = run.next_cta if cta_id is None else cta_id
        run.next_cta += 1
        if run.start < 0:
            run.start = now
            self.catch_up_all(now)
            self.issue_split.kernel_start(run.index)
            self.memory.kernel_boundary(now, None, run.kernel)
            self.emit("on_kernel_start", now, run)
        cta = sm.launch_cta(now, run, cta_id)
        self.dispatch.started(sm, run)
        self.issue_split.block_placed(sm, run.index, self.dispatch.resident_blocks(sm.sm_id, run))
        self.n_ctas_placed += 1
        self.emit("on_cta_start", now, sm, cta)
        return cta

    def request_cta_issue(self) -> None:
        """Ask for a CTA-issue pass (a policy raised a limit or changed SM eligibility)."""
        self.cta_pending = True

    def pause_sm(self, now: int, sm_id: int) -> None:
        """Stop issue on an SM; it keeps its CTAs and acknowledges (on_sm_drained) when drained."""
        sm = self.sms[sm_id]
        if sm.state == PWR_ACTIVE:
            sm.set_state(now, PWR_PAUSING)
            self.policy_acted = True

    def resume_sm(self, now: int, sm_id: int) -> None:
        sm = self.sms[sm_id]
        if sm.state != PWR_ACTIVE:
            sm.set_state(now, PWR_ACTIVE)
            self.cta_pending = True
            self.policy_acted = True

    def gate_sm(self, now: int, sm_id: int) -> None:
        """Power-gate a paused, drained SM (its gated cycles are counted for energy)."""
        sm = self.sms[sm_id]
        if sm.state != PWR_PAUSED:
            raise RuntimeError(f"SM {sm_id} must be paused and drained before power-gating "
                               f"(state {sm.state})")
        sm.set_state(now, PWR_GATED)
        self.policy_acted = True

    def emit(self, hook: str, *args) -> None:
        for p in self.policies:
            getattr(p, hook)(*args)

    # -- events from the SMs ------------------------------------------------------------------
    def cta_finished(self, now: int, sm: SM, cta: CTA) -> None:
        run = cta.run
        run.ctas_done += 1
        self.dispatch.finished(sm, run)
        self.issue_split.block_retired(sm, run.index, self.dispatch.resident_blocks(sm.sm_id, run))
        run.ctas.append((cta.cta_id, sm.sm_id, cta.start, now))
        self.cta_pending = True
        self.emit("on_cta_finish", now, sm, cta)
        if run.finished():
            run.end = now
            self.n_finished += 1
            self.slot_may_be_free = self.offer_due = True
            self.catch_up_all(now)
            self.issue_split.kernel_end(run.index)
            self.memory.kernel_boundary(now, run.kernel, None)
            self.emit("on_kernel_end", now, run)

    def sm_drained(self, now: int, sm: SM) -> None:
        self.emit("on_sm_drained", now, sm)

    # -- statistics ---------------------------------------------------------------------------
    def warp_insts(self) -> int:
        return sum(sm.warp_insts() for sm in self.sms)

    def issue_totals(self) -> list[int]:
        total = [0] * len(ISSUE_SLOT_REASONS)
        for sm in self.sms:
            add_counts(total, sm.issue_counts())
        return total

    def catch_up_all(self, now: int) -> None:
        """Charge every SM's skipped issue slots up to ``now`` (at kernel boundaries)."""
        for sm in self.sms:
            sm.catch_up(now)

    def sample(self, now: int) -> None:
        self.samples.append([now, sum(sm.n_warps for sm in self.sms), sum(sm.n_ctas for sm in self.sms)])

    # -- the loop -----------------------------------------------------------------------------
    def offer_arrivals(self, now: int) -> None:
        """Kernels enter kernel slots in workload order once their arrival cycle has come. A
        refused launch holds back every later kernel until a kernel ends. With
        ``kernels.stream_order``, a kernel whose CUDA stream has an earlier kernel unfinished (in
        a slot or waiting) waits without holding back kernels of other streams (CUDA's stream
        semantics; Accel-Sim launches any kernel of its window whose stream is idle)."""
        arrivals, waiting = self.arrivals, self.waiting
        while arrivals and arrivals[0].kernel.arrival <= now:
            waiting.append(arrivals.popleft())
        self.offer_due = False
        held: list[KernelRun] = []
        for i, run in enumerate(waiting):
            if self.stream_waits(run, held):
                held.append(run)
                continue
            if not self.kernel_scheduler.launch(now, run):
                self.slot_may_be_free = False
                held += waiting[i:]
                break
            stream = run.kernel.meta.get("cuda stream")
            if stream is not None:
                self.stream_last[stream] = run
            self.cta_pending = True
            self.kernel_wake = min(self.kernel_wake, self.kernel_scheduler.next_event(now) or NEVER)
            self.emit("on_kernel_launch", now, run)
        self.waiting = held

    def stream_waits(self, run: KernelRun, held: list[KernelRun]) -> bool:
        """``run``'s CUDA stream has an earlier kernel unfinished (``kernels.stream_order``)."""
        stream = run.kernel.meta.get("cuda stream")
        if not self.stream_order or stream is None:
            return False
        last = self.stream_last.get(stream)
        return ((last is not None and not last.finished())
                or any(r.kernel.meta.get("cuda stream") == stream for r in held))

    def run(self, progress=None) -> None:
        """Simulate until every kernel has finished. ``progress(cycle, warp_insts, ctas_done,
        ctas_total)`` is called now and then."""
        sms, mem, ks = self.sms, self.memory, self.kernel_scheduler
        # the compiled loop takes SM objects only; other SM models (sim.multiprog.blocklevel)
        # run through the same loop written here
        run_all = run_sms if all(type(sm) is SM for sm in sms) else _run_any
        per_cycle = [p for p in self.policies if p.per_cycle]
        n_runs = len(self.runs)
        ctas_total = sum(r.n_ctas for r in self.runs)
        now, iters = 0, 0
        next_sample = 0
        last_progress, last_count = 0, -1
        while True:
            self.now = now
            if self.slot_may_be_free and ((self.offer_due and self.waiting) or (
                    self.arrivals and self.arrivals[0].kernel.arrival <= now)):
                self.offer_arrivals(now)
            self.in_tick = True
            mem.tick(now)
            self.in_tick = False
            soonest = run_all(sms, now)
            for p in per_cycle:
                p.on_cycle(now)
            if now >= self.kernel_wake:
                self.cta_pending = True
                self.kernel_wake = ks.next_event(now) or NEVER
            if self.cta_pending and not self.cta_scheduler.issue(now):
                self.cta_pending = False
            if now >= next_sample:
                self.sample(now)
                next_sample = (now // self.sample_interval + 1) * self.sample_interval
            if self.n_finished == n_runs:
                break
            nxt, benign = now + 1, False
            if not self.cta_pending:
                nxt = soonest
                if per_cycle or self.policy_acted:   # a policy may have woken an SM already passed
                    self.policy_acted = False
                    nxt = min(sm.wake for sm in sms)
                    if nxt <= now:              # poked after it ran this cycle: runs next cycle
                        nxt = now + 1
                if self.n_retrying:     # an SM waits to re-offer a refused memory request: as
                    nxt = now + 1       # when it retried each cycle, visit every cycle
                elif nxt > now + 1:
                    nxt, benign = self.next_event(now, nxt)
            iters += 1
            if benign:              # waiting for a kernel arrival or launch countdown
                last_progress = nxt
            elif iters % PROGRESS_EVERY == 0 or nxt - now > self.watchdog:
                count = self.warp_insts() + self.n_ctas_placed
                if count != last_count:
                    last_count, last_progress = count, now
                if progress is not None:
                    progress(now, self.warp_insts(), sum(r.ctas_done for r in self.runs), ctas_total)
                if nxt - last_progress > self.watchdog:
                    raise self.deadlock(max(now, last_progress + self.watchdog))
            now = nxt
        self.cycles = now + 1
        for sm in sms:
            sm.catch_up(self.cycles)
        if progress is not None:
            progress(now, self.warp_insts(), ctas_total, ctas_total)

    def next_event(self, now: int, nxt: int) -> tuple[int, bool]:
        """The earliest cycle after ``now`` at which anything can change (idle-cycle skipping),
        and whether that is only a kernel arrival / launch countdown (not a stall)."""
        work = [nxt, self.memory.next_event()] + [p.next_wakeup(now) for p in self.policies]
        kernel = [self.kernel_scheduler.next_event(now)]
        if self.slot_may_be_free:       # after a refused launch only a kernel's end changes that
            if self.arrivals:
                kernel.append(max(now + 1, self.arrivals[0].kernel.arrival))
            if self.offer_due and self.waiting:
                kernel.append(now + 1)
        t_work = min((c for c in work if c is not None), default=NEVER)
        t_kernel = min((c for c in kernel if c is not None), default=NEVER)
        busy = any(sm.n_ctas for sm in self.sms)
        if t_kernel < t_work:
            return max(now + 1, t_kernel), not busy
        return max(now + 1, t_work), False

    def deadlock(self, cycle: int) -> Deadlock:
        """Describe who waits on what: barrier waiters first, then any other stuck warp."""
        stuck = [(sm, w) for sm in self.sms for w in sm.slots if w is not None and not w.finished]
        if not stuck:
            left = [f"{r.name} ({r.n_ctas - r.next_cta} CTAs left)" for r in self.runs if r.has_ctas_left()]
            states = ", ".join(f"{SM_STATE_NAMES[s]} ×{n}" for s, n in
                               sorted(Counter(sm.state for sm in self.sms).items()))
            msg = (f"deadlock at cycle {cycle}: no warp resident; kernels waiting for an SM: "
                   f"{', '.join(left) or 'none'}; SMs: {states}")
            return Deadlock(cycle, msg, reason="no SM accepts a CTA")
        stuck.sort(key=lambda p: (p[1].wait_state() != WS_BARRIER, p[0].sm_id, p[1].slot))
        parts = []
        for sm, w in stuck[:1] + [p for p in stuck[1:] if p[1].wait_state() != stuck[0][1].wait_state()][:1]:
            parts.append(f"SM {sm.sm_id} warp {w.slot} (CTA {w.cta.cta_id} of {w.cta.run.name}) "
                         f"{w.describe_wait()}")
        sm, w = stuck[0]
        msg = f"deadlock at cycle {cycle}: " + "; also ".join(parts)
        return Deadlock(cycle, msg, sm=sm.sm_id, warp=w.slot, reason=w.describe_wait())
