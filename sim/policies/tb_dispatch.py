"""The thread-block dispatcher contract ``tb_dispatch`` (our cycle contract for [SRTF]), common to
all kernel schedulers.

A kernel scheduler steers dispatch only through three things per SM ``s`` and kernel ``k``:

- ``allow[s][k]``: may ``s`` take blocks of ``k`` at all;
- ``cap[s][k]``: the most blocks of ``k`` that may be resident on ``s`` at once;
- a priority order over the allowed kernels, with fallback: the first kernel in that order that
  has undispatched blocks, is below its cap on ``s`` and whose block fits on ``s`` gets one.

The kernel scheduler states row ``s`` of those matrices as ``dispatch_row(now, sm)``: the allowed
kernels of ``sm`` in priority order, each with its cap (protocol in sim/policies/kernel_sched.py).
The CTA scheduler decides *which SM* tries to dispatch in a cycle and asks ``pick(now, sm)`` for
*which kernel* it takes a block of; "fits" is ``gpu.can_accept`` (SM state, active-SM controller,
CTA-count limit, threads / registers / shared memory / CTA and warp slots). The dispatcher keeps
the per-(SM, kernel) resident-block counts the caps are compared with, and reports
``all_dispatched(run)`` and ``kernel_end(run)``.

The row is read at the moment the SM takes its turn, so a policy whose state moves within a
cycle (FIFO's slot pointer after a kernel's last block went out) is seen as it is then. How many
SMs dispatch per cycle and in which order is the CTA scheduler's business (the baseline RR
scheduler serves one SM per cluster per cycle, in its circular order).
"""

from __future__ import annotations

from collections.abc import Sequence


class TBDispatch:
    """Per-(SM, kernel) resident-block counts and the pick of one SM's next kernel (module doc).

    Kernels are identified by their run index in the workload (``KernelRun.index``), so a count
    never mixes two kernels that held the same kernel slot one after the other.
    """

    def __init__(self, gpu, n_runs: int):
        self.gpu = gpu
        self.resident: list[list[int]] = [[0] * n_runs for _ in gpu.sms]

    def pick(self, now: int, sm):
        """The kernel whose next block ``sm`` takes now, or None: the first entry of the kernel
        scheduler's row for ``sm`` with blocks left, below its cap and fitting on ``sm``."""
        counts = self.resident[sm.sm_id]
        can_accept = self.gpu.can_accept
        for run, cap in self.gpu.kernel_scheduler.dispatch_row(now, sm):
            if run.next_cta < run.n_ctas and counts[run.index] < cap and can_accept(sm, run):
                return run
        return None

    def started(self, sm, run) -> None:
        """A block of ``run`` was placed on ``sm``."""
        self.resident[sm.sm_id][run.index] += 1

    def finished(self, sm, run) -> None:
        """A block of ``run`` retired on ``sm``."""
        self.resident[sm.sm_id][run.index] -= 1

    def resident_blocks(self, sm_id: int, run) -> int:
        """Blocks of ``run`` resident on SM ``sm_id`` now."""
        return self.resident[sm_id][run.index]

    def kernels_on(self, sm_id: int, runs: Sequence) -> list:
        """The runs among ``runs`` with at least one block resident on SM ``sm_id``."""
        counts = self.resident[sm_id]
        return [r for r in runs if counts[r.index]]

    @staticmethod
    def all_dispatched(run) -> bool:
        """Every block of ``run`` has been placed (the ``all_dispatched[k]`` report)."""
        return run.next_cta >= run.n_ctas

    @staticmethod
    def kernel_end(run) -> bool:
        """Every block of ``run`` has retired (the ``kernel_end[k]`` report)."""
        return run.finished()
