"""Per-kernel issue-slot breakdown: each kernel counts the slots of the SMs holding its blocks.

Issue slots are counted per scheduler (sim/stats.py), not per warp, so they are split between
kernels at SM granularity: between two changes of the set of kernels with a block on an SM, that
SM's slots count for each kernel in the set. An SM holding no block counts for every kernel in
flight (first block placed, last block not yet retired), so a kernel running alone gets the
GPU-wide totals over its [start, end] window, idle SMs of its tail included. Kernels whose
windows overlap no longer count each other's SMs; an SM holding blocks of several kernels at
once (``kernels.concurrent_sm``) counts for each of them, since its stall reasons are not per
kernel. Slots an SM has not yet charged when its last block of a kernel retires (cycles it
skipped, charged at its next cycle) go to the SM's new set.
"""

from __future__ import annotations

from sim.stats import ISSUE_SLOT_REASONS


class KernelIssue:
    """Accumulates per-kernel issue-slot counts; ``result[index]`` is set when a kernel ends."""

    def __init__(self, sms):
        self.sms = sms
        self.last = [sm.issue_counts() for sm in sms]       # counts at the SM's last settle
        self.owners: list[list[int]] = [[] for _ in sms]   # kernels with a block on the SM
        self.in_flight: list[int] = []
        self.counts: dict[int, list[int]] = {}
        self.result: dict[int, list[int]] = {}

    def settle(self, sm) -> None:
        """Credit the SM's slots since its last settle to its owners (or the kernels in flight)."""
        i = sm.sm_id
        now_counts = sm.issue_counts()
        before = self.last[i]
        targets = self.owners[i] or self.in_flight
        if targets:
            delta = [a - b for a, b in zip(now_counts, before)]
            for k in targets:
                acc = self.counts[k]
                for j, v in enumerate(delta):
                    acc[j] += v
        self.last[i] = now_counts

    def kernel_start(self, index: int) -> None:
        """First block of kernel ``index`` about to be placed (all SMs caught up)."""
        for sm in self.sms:
            self.settle(sm)
        self.in_flight.append(index)
        self.counts[index] = [0] * len(ISSUE_SLOT_REASONS)

    def kernel_end(self, index: int) -> None:
        """Last block of kernel ``index`` retired (all SMs caught up): its breakdown is final."""
        for sm in self.sms:
            self.settle(sm)
        self.in_flight.remove(index)
        self.result[index] = self.counts.pop(index)

    def block_placed(self, sm, index: int, resident: int) -> None:
        """A block of ``index`` was placed on ``sm``; ``resident`` of it are there now."""
        if resident == 1:
            self.settle(sm)
            self.owners[sm.sm_id].append(index)

    def block_retired(self, sm, index: int, resident: int) -> None:
        if resident == 0:
            self.settle(sm)
            self.owners[sm.sm_id].remove(index)
