"""Concurrent-kernel schedulers of the thesis's ch.5 ([THESIS §4.4-§4.5]) in the GPU model: the
``ck_dispatch`` twin (sim/blocks/ck_dispatch.py) decides, through the ``tb_dispatch`` contract,
which kernels each SM may take CTAs of and how many.

Names: ``ck_baseline`` (spatial: the kernels with CTAs left dealt to the SMs round-robin; an SM
drains its old kernel before it starts its new one), ``ck_sequential`` (left-over: every SM serves
the oldest kernel with CTAs left; tails overlap) and ``ck_interleaved`` (every kernel on every SM,
at most ``share`` CTAs of a kernel per SM while another kernel still has CTAs to issue, its
occupancy limit R_k once it is the only one: the shift of resources; ``ck_interleaved:<share>``
fixes ``share`` for every kernel; a kernel's own launch-side value ``kernel.meta["ck_share"]``
(e.g. its offline-optimal CTA count, [THESIS §4.5]'s Rodinia pairs) takes precedence).

Choices: KSB rows = ``kernels.max_concurrent`` (the thesis's 16 with the Table 5.1 machine, §9.4);
a launch into a full KSB fails and the GPU offers the kernel again when one ends. ``share`` =
max(1, ⌊R_k / 2⌋): the case-study split of the core between two kernels (4 + 4 of 8 CTAs for the
add/stream pairs, §9.4). Row priority in an SM's dispatcher row: launch order. Launch latency and
countdown as FIFO (sim/policies/kernel_sched.py). Needs ``kernels.concurrent_sm = true``.
"""

from __future__ import annotations

from gpusched.config import ConfigError
from sim.blocks.ck_dispatch import CkDispatchTwin
from sim.policies.kernel_sched import FIFOKernelScheduler


class CkKernelScheduler(FIFOKernelScheduler):
    """The ``ck_dispatch`` block as the GPU's kernel scheduler (module doc)."""

    policy = "interleaved"

    def __init__(self, cfg, share: int | None = None):
        """``share``: CTAs per SM of each kernel while sharing (``ck_interleaved:<share>``,
        capped at R_k); None: max(1, ⌊R_k / 2⌋)."""
        super().__init__(cfg)
        self.share = share
        if not cfg.kernels.concurrent_sm:
            raise ConfigError("kernels.concurrent_sm", False,
                              f"must be true for kernel scheduler ck_{self.policy} (kernels share SMs)")
        self.ksb = CkDispatchTwin(len(self.slots), cfg.sm.count, policy=self.policy,
                                  MW=max(2, cfg.sm.max_ctas_per_sm.bit_length()))
        self.completed: dict[int, int] = {}     # run index → cycle its KSB row completed
        self.launch_failures = 0

    def launch(self, now: int, run) -> bool:
        limit = run.occupancy.limit
        want = run.kernel.meta.get("ck_share", self.share)
        share = min(limit, want) if want else max(1, limit // 2)
        k = self.ksb.launch(run.n_ctas, limit, share, run.index)
        if k is None:
            self.launch_failures += 1
            return False
        self.slots[k] = run
        run.slot, run.launched_at = k, now
        run.ready_at = now + self.launch_latency + run.n_ctas * self.tb_latency
        return True

    def dispatch_row(self, now: int, sm) -> list:
        ksb, c = self.ksb, sm.sm_id
        rows = sorted((r.age, k) for k, r in enumerate(ksb.rows) if r.valid)
        return [(self.slots[k], ksb.cap(k)) for _, k in rows
                if now >= self.slots[k].ready_at and ksb.allowed(c, k)]

    def on_cta_start(self, now: int, sm, cta) -> None:
        self.ksb.issue(sm.sm_id, cta.run.slot)

    def on_cta_finish(self, now: int, sm, cta) -> None:
        self.ksb.done(sm.sm_id, cta.run.slot)
        for k in self.ksb.completes():
            self.completed[self.slots[k].index] = now
        self.gpu.request_cta_issue()

    def on_kernel_end(self, now: int, run) -> None:
        if self.completed.get(run.index) != now:
            raise RuntimeError(f"kernel {run.name}: KSB row not completed with its last CTA")

    def report(self) -> dict:
        return {"policy": f"ck_{self.policy}", "launch_failures": self.launch_failures,
                "completed": {str(i): c for i, c in sorted(self.completed.items())}}


class CkBaseline(CkKernelScheduler):
    policy = "baseline"


class CkSequential(CkKernelScheduler):
    policy = "sequential"


CK_KERNEL_SCHEDULERS = {"ck_baseline": CkBaseline, "ck_sequential": CkSequential,
                        "ck_interleaved": CkKernelScheduler}
