"""Per-SM CTA-count controllers: how many CTAs an SM may hold (Perf-Sat lowers it, [THESIS]).

Protocol (besides the ``Policy`` hooks): ``limit(sm, run) -> int``, the most CTAs ``sm`` may hold
while it is offered a CTA of ``run``. The SM's own resources (threads, registers, shared memory,
CTA and warp slots) are checked separately. A controller that raises a limit calls
``gpu.request_cta_issue()`` so the CTA scheduler looks again.
"""

from __future__ import annotations

from sim.policies.base import Policy


class MaxOccupancy(Policy):
    """Baseline: the occupancy limit of [GPGPU-Sim issue_block2core()] (with the small-grid clamp in
    default kernel mode); in concurrent mode only the SM's running resource totals limit it."""

    def __init__(self, cfg):
        self.concurrent = cfg.kernels.concurrent_sm
        self.cta_slots = cfg.sm.max_ctas_per_sm

    def limit(self, sm, run) -> int:
        return self.cta_slots if self.concurrent else run.occupancy.limit
