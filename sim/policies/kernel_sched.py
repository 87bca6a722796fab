"""Kernel schedulers: which kernel an SM takes CTAs from ([GPGPU-Sim issue_block2core()]).

Protocol (besides the ``Policy`` hooks):

- ``launch(now, run) -> bool``: a kernel arrives; take it into a kernel slot and start its launch
  countdown, or return False (no slot free; the GPU offers it again when a kernel ends).
- ``dispatch_row(now, sm) -> Sequence[(KernelRun, cap)]``: row ``sm`` of the dispatcher's allow
  and cap matrices, the allowed kernels in priority order, each with its residency cap on ``sm``
  (the ``tb_dispatch`` contract, sim/policies/tb_dispatch.py, our cycle contract for [SRTF]; read by
  the dispatcher when ``sm`` takes its turn; may bind the SM to a kernel).
- ``next_event(now) -> int | None``: the next cycle a launch countdown expires.
"""

from __future__ import annotations

from sim.policies.base import Policy


class FIFOKernelScheduler(Policy):
    """GPGPU-Sim's kernel selection, default and concurrent mode ([GPGPU-Sim issue_block2core()];
    "FIFO" is our name).

    Kernels occupy ``kernels.max_concurrent`` slots; a new kernel takes the lowest slot that is
    empty or holds a finished kernel, with a countdown of ``launch_latency + CTAs ×
    tb_launch_latency`` cycles. ``select_kernel`` keeps a global slot pointer: the current kernel
    while it has CTAs left and a zero countdown, else the next such kernel in slot order. Default
    mode: an SM keeps its bound kernel, asks for a new one only when that kernel has no CTAs left
    and the SM holds no CTA, and loses the binding when its last CTA finishes. Concurrent mode
    (``kernels.concurrent_sm``): ``select_kernel`` on every attempt.

    Through ``tb_dispatch``: each SM's row allows that one kernel, capped at its occupancy limit
    R_k (``run.occupancy.limit``, which the SM's own checks already imply), so nothing falls back.

    CUDA stream order (``kernels.stream_order``) is the GPU's launch queue's (sim/gpu.py
    ``offer_arrivals``): a kernel is offered only once its stream is idle.
    """

    def __init__(self, cfg):
        k = cfg.kernels
        self.slots: list = [None] * k.max_concurrent
        self.last = 0
        self.concurrent = k.concurrent_sm
        self.launch_latency, self.tb_latency = k.launch_latency, k.tb_launch_latency

    def launch(self, now: int, run) -> bool:
        for i, held in enumerate(self.slots):
            if held is None or held.finished():
                self.slots[i] = run
                run.slot, run.launched_at = i, now
                run.ready_at = now + self.launch_latency + run.n_ctas * self.tb_latency
                return True
        return False

    @staticmethod
    def selectable(run, now: int) -> bool:
        return run is not None and run.has_ctas_left() and now >= run.ready_at

    def select_kernel(self, now: int):
        """GPGPU-Sim ``select_kernel()``: current slot first, then the following slots."""
        if self.selectable(self.slots[self.last], now):
            return self.slots[self.last]
        n = len(self.slots)
        for i in range(n):
            idx = (i + self.last + 1) % n
            if self.selectable(self.slots[idx], now):
                self.last = idx
                return self.slots[idx]
        return None

    def kernel_for(self, now: int, sm):
        """The one kernel ``sm`` may take blocks of (binding it in default mode), or None."""
        if self.concurrent:
            return self.select_kernel(now)
        run = sm.bound
        if (run is None or not run.has_ctas_left()) and sm.n_ctas == 0:
            new = self.select_kernel(now)
            if new is not None:
                sm.bound = new
            return new
        return run

    def dispatch_row(self, now: int, sm) -> tuple:
        run = self.kernel_for(now, sm)
        return () if run is None else ((run, run.occupancy.limit),)

    def on_cta_finish(self, now: int, sm, cta) -> None:
        if sm.n_ctas == 0:
            sm.bound = None

    def next_event(self, now: int) -> int | None:
        times = [r.ready_at for r in self.slots if r is not None and r.has_ctas_left() and r.ready_at > now]
        return min(times) if times else None


class SMPartitionKernelScheduler(FIFOKernelScheduler):
    """Concurrent kernels by SM partition (spatial multitasking; [THESIS] concurrent kernels).

    Kernel slots and countdowns as FIFO. The kernels that currently have CTAs to hand out split
    the SMs into equal contiguous ranges in slot order (SM i → kernel ⌊i·k/n⌋ of k). An SM holds
    one kernel's CTAs at a time: when its range's kernel changes it drains first, then rebinds.
    Through ``tb_dispatch`` (as FIFO): a row allows the SM's range kernel once the SM may take it.
    """

    def kernel_for(self, now: int, sm):
        runs = [r for r in self.slots if self.selectable(r, now)]
        if not runs:
            return None
        owner = runs[sm.sm_id * len(runs) // len(self.gpu.sms)]
        if sm.bound is owner:
            return owner
        if sm.n_ctas == 0:
            sm.bound = owner
            return owner
        return None
