"""Concurrent-kernel schedulers of the thesis's ch.5 ([THESIS §5.4]) in the GPU model: the
``ck_dispatch`` twin (sim/blocks/ck_dispatch.py) decides, through the ``tb_dispatch`` contract,
which kernels each SM may take CTAs of and how many.

Names: ``ck_baseline`` (spatial: the kernels with CTAs left dealt to the SMs round-robin; an SM
drains its old kernel before it starts its new one), ``ck_sequential`` (left-over: every SM serves
the oldest kernel with CTAs left; tails overlap) and ``ck_interleaved`` (every kernel on every SM,
at most ``share`` CTAs of a kernel per SM while another kernel still has CTAs to issue, its
occupancy limit R_k once it is the only one: the shift of resources; ``ck_interleaved:<share>``
fixes ``share`` for every kernel; a kernel's own launch-side value ``kernel.meta["ck_share"]``
(e.g. its offline-optimal CTA count, [THESIS §5.4]'s Rodinia pairs) takes precedence).

Choices: KSB rows = ``kernels.max_concurrent`` (the thesis's 16 with the Table 5.1 machine, our
choice); a launch into a full KSB fails and the GPU offers the kernel again when one ends. ``share``
= max(1, ⌊R_k / 2⌋): the case-study split of the core between two kernels (4 + 4 of 8 CTAs for the
add/stream pairs, our choice). Row priority in an SM's dispatcher row: launch order. Launch latency
and countdown as FIFO (sim/policies/kernel_sched.py). Needs ``kernels.concurrent_sm = true``.
"""

from __future__ import annotations

from gpusched.config import ConfigError
from hdl.params.ck_dispatch import KIDW
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
        self.params = {"K": len(self.slots), "NC": cfg.sm.count, "BW": 16,
                       "MW": max(2, cfg.sm.max_ctas_per_sm.bit_length()), "policy": self.policy}
        self.ksb: KsbPort | None = None         # the ck_dispatch block's ports (``attach``)
        self.completed: dict[int, int] = {}     # run index → cycle its KSB row completed
        self.launch_failures = 0

    def attach(self, gpu) -> None:
        super().attach(gpu)
        p = self.params
        self.ksb = KsbPort(gpu.blocks.block(
            "ck_dispatch", "gpu", lambda: p,
            lambda: CkDispatchTwin(p["K"], p["NC"], p["BW"], p["MW"], policy=p["policy"])), p)

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
        return [(self.slots[k], ksb.cap(k)) for k in ksb.by_age()
                if now >= self.slots[k].ready_at and ksb.allowed(c, k)]

    def on_cta_start(self, now: int, sm, cta) -> None:
        self.ksb.issue(sm.sm_id, cta.run.slot)

    def on_cta_finish(self, now: int, sm, cta) -> None:
        for k in self.ksb.done(sm.sm_id, cta.run.slot):
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


class KsbPort:
    """The ``ck_dispatch`` block through its ports (hdl/params/ck_dispatch.py), one block clock
    per model event (a launch, a CTA issued, a CTA done), as the method-level twin applied each
    at once: ``launch`` answers with ``launch_ok`` / ``launch_row``, ``done`` with the rows that
    ``complete``; the dispatcher's view (``allowed``, ``cap``, the valid rows) is the registered
    ``allow`` / ``max_blocks`` / ``valid`` after the last event, read once per event. Row
    priority is launch order, kept here (the rows the host launched)."""

    def __init__(self, block, p: dict):
        self.block, self.K, self.MW = block, p["K"], p["MW"]
        self.kid_mask = (1 << KIDW) - 1
        self.order: list[int] = []          # valid rows, oldest launch first
        self.view: dict | None = None

    def _step(self, **inputs) -> dict:
        out = self.block.step(**inputs)
        self.view = None
        return out

    def _regs(self) -> dict:
        if self.view is None:
            self.view = self.block.peek()
        return self.view

    def launch(self, blocks: int, full: int, share: int, kid: int) -> int | None:
        out = self._step(launch_valid=1, launch_kid=kid & self.kid_mask, launch_blocks=blocks,
                         launch_full=full, launch_share=share)
        if not out["launch_ok"]:
            return None
        self.order.append(out["launch_row"])
        return out["launch_row"]

    def issue(self, c: int, k: int) -> None:
        if not self._step(issue_valid=1, issue_core=c, issue_k=k)["issue_ok"]:
            raise RuntimeError(f"ck_dispatch: core {c} may not take a CTA of row {k}")

    def done(self, c: int, k: int) -> list[int]:
        """The CTA ended; the rows complete now (the host is told)."""
        complete = self._step(done_valid=1, done_core=c, done_k=k)["complete"]
        rows = [k for k in range(self.K) if complete >> k & 1]
        self.order = [k for k in self.order if k not in rows]
        return rows

    def by_age(self) -> list[int]:
        return self.order

    def cap(self, k: int) -> int:
        return self._regs()["max_blocks"] >> (k * self.MW) & ((1 << self.MW) - 1)

    def allowed(self, c: int, k: int) -> bool:
        return bool(self._regs()["allow"] >> (c * self.K + k) & 1)
