"""IKRA CTA schedulers (ikra.md §2.3–§2.5) in the GPU model: the ``cta_sched`` twin at the
CTA-scheduler point.

``IkraCtaScheduler(cfg, policy=..., qdepth=32, id_w=32)`` drives ``sim.blocks.cta_sched.
CtaSchedTwin`` through its cycle-level API (the §2.5/§2.6 ports), one call per cycle while a
kernel is in the twin:

- launch handshake: the next kernel the kernel scheduler released (its launch countdown over) is
  presented with its grid dims while ``launch_ready`` (previous kernel fully retired; one kernel
  at a time, §2.1); the twin then spends ``ID_W + 2`` cycles initialising;
- ``slot_free[i]`` = ``gpu.can_accept(SM i, kernel)`` (occupancy limit, CTA-count limit, SM state),
  computed after this cycle's SMs ran; never from ``tb_valid`` (§2.5);
- every transfer ``(cu, tb_id, src)`` places exactly CTA ``tb_id`` on SM ``cu`` in this cycle;
- ``tb_done[i]`` = CTAs of the kernel that finished on SM i in this cycle.

Cycle skipping is exact: the policy asks for every cycle (``next_wakeup = now + 1``) unless the
twin is provably quiescent, i.e. running, initialised, no SM can take a CTA, no retirement and
no delayed stolen TB pending. Such a cycle changes no twin register (no transfer, no steal: a
thief needs a free slot; ``retired`` unchanged), and any event that could free a slot (a CTA
finishing, an SM resumed, a limit raised) makes the GPU visit that cycle. ``every_cycle=True``
disables the skipping (used by the tests to check that it changes nothing).

Statistics: ``stats`` (the twin's §7.1 counters plus transfers per ``tb_src``; G, C, R and F
report every transfer as ``chunk``) and ``steal_log`` (per kernel index, the CTA ids stolen
during that launch).

The kernel scheduler (FIFO) only admits kernels and runs their launch countdowns; which kernel
runs next is the launch order. ``on_cta_finish`` rejects CTAs of any other kernel.
"""

from __future__ import annotations

from collections import deque

from hdl.ikra.params import POLICIES as IKRA_POLICIES
from sim.blocks.cta_sched import CtaSchedTwin
from sim.policies.base import Policy

SRC_NAMES = ("chunk", "queue", "stolen_queue", "stolen_chunk")   # tb_src encoding (§2.6)


class IkraCtaScheduler(Policy):
    """G / C / R / F / S CTA scheduler of ikra.md §2.3 driven cycle by cycle (see module doc)."""

    per_cycle = True
    default_policy = "steal"

    def __init__(self, cfg, policy: str | None = None, qdepth: int = 32, id_w: int = 32,
                 steal_extra_latency: int = 0, every_cycle: bool = False):
        self.policy = policy or self.default_policy
        self.n = cfg.sm.count
        self.twin = CtaSchedTwin(self.n, id_w, qdepth, self.policy, steal_extra_latency)
        self.every_cycle = every_cycle
        self.pending: deque = deque()       # runs released by the kernel scheduler, in order
        self.current = None                 # the run inside the twin (launched, not retired)
        self.done = [0] * self.n            # tb_done of this cycle
        self.quiet = False                  # twin provably unchanged until the next event
        self.src_counts = [0] * len(SRC_NAMES)
        self.steal_log: dict[int, list[int]] = {}

    def attach(self, gpu) -> None:
        super().attach(gpu)
        self.sms = gpu.sms

    # -- Policy hooks ----------------------------------------------------------------------------
    def on_kernel_launch(self, now: int, run) -> None:
        self.pending.append(run)

    def on_cta_finish(self, now: int, sm, cta) -> None:
        if cta.run is not self.current:
            raise RuntimeError(f"IKRA: CTA of {cta.run.name} finished while {self.current} runs")
        self.done[sm.sm_id] += 1
        self.quiet = False

    def issue(self, now: int) -> int:
        """All placement happens in ``on_cycle`` (the twin decides); nothing to do here."""
        self.quiet = False                  # a limit or an SM state may have changed
        return 0

    def next_wakeup(self, now: int) -> int | None:
        tw = self.twin
        if tw.active:
            return None if self.quiet and not self.every_cycle else now + 1
        if self.pending:
            return max(now + 1, self.pending[0].ready_at)
        return None

    def on_cycle(self, now: int) -> None:
        """One twin cycle: launch handshake, slot_free / tb_done in, transfers out (§2.5)."""
        tw = self.twin
        launch = None
        if tw.launch_ready and self.pending and self.pending[0].ready_at <= now:
            self.current = self.pending.popleft()
            launch = self.current.kernel.grid
        run = self.current
        if tw.running:
            free = [int(self.gpu.can_accept(sm, run)) for sm in self.sms]
        else:
            free = [0] * self.n
        done, self.done = self.done, [0] * self.n
        for cu, tb, src in tw.cycle(free, done, launch):
            self.place(now, cu, run, tb)
            self.src_counts[src] += 1
        if tw.steal_log:
            self.steal_log.setdefault(run.index, []).extend(tb for _, _, _, tb in tw.steal_log)
        if not tw.active:
            self.current = None
            self.quiet = False
        else:
            self.quiet = (tw.running and not any(tw.stolen_wait)
                          and not any(self.gpu.can_accept(sm, run) for sm in self.sms))

    # -- placement -------------------------------------------------------------------------------
    def place(self, now: int, cu: int, run, tb: int) -> None:
        """Place exactly CTA ``tb`` of ``run`` on SM ``cu``."""
        self.gpu.launch_cta(now, self.sms[cu], run, cta_id=tb)

    @property
    def stats(self) -> dict:
        """The twin's counters (steals by source, lost races, overflows, launches, reinits) and
        transfers per ``tb_src`` (§7.1 scheduler statistics)."""
        return {**self.twin.stats, **{f"src_{n}": c for n, c in zip(SRC_NAMES, self.src_counts)}}


    def report(self) -> dict:
        """Scheduler statistics and, per launch, the CTA ids stolen in it."""
        return {"policy": self.policy, "stats": self.stats,
                "stolen": {str(k): v for k, v in sorted(self.steal_log.items())}}


def ikra_scheduler_class(policy: str) -> type[IkraCtaScheduler]:
    """A subclass fixed to ``policy`` (named e.g. ``IkraStealCtaScheduler``), for the registry."""
    if policy not in IKRA_POLICIES:
        raise ValueError(f"IKRA policy {policy!r}: allowed: {', '.join(IKRA_POLICIES)}")
    name = f"Ikra{policy.capitalize()}CtaScheduler"
    return type(name, (IkraCtaScheduler,), {"default_policy": policy, "__doc__":
                                            f"IKRA `{policy}` CTA scheduler (ikra.md §2.3)."})


IKRA_CTA_SCHEDULERS: dict[str, type[IkraCtaScheduler]] = {
    f"ikra_{p}": ikra_scheduler_class(p) for p in IKRA_POLICIES}
