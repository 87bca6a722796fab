"""Fixed active-SM count: only SMs 0..n−1 receive CTAs, the others are power-gated for the whole
run. The oracle sweep of the ONAC experiment ([THESIS §4.4]: N_oracle is found offline by
running at every core count) uses it; it is not a mechanism of the thesis.

The gated SMs go through the normal power-state protocol (sim/policies/active_sm.py): they are
paused when the first kernel enters a slot (before any CTA is placed, so they hold none),
acknowledge once drained and are then gated, so their static energy is not counted
([THESIS §4.4]). Which SMs stay on: the lowest ids (our choice of core 0 for the 1-core
sample, extended).

Registered as the family ``fixed:<N>`` (``--sm-controller fixed:8``; the older ``active_8`` still
works).
"""

from __future__ import annotations

from gpusched.config import ConfigError
from sim.policies.base import Policy
from sim.sm import PWR_PAUSED

class FixedActive(Policy):
    """Active-SM controller that keeps exactly ``n_active`` SMs on (the lowest ids)."""

    def __init__(self, cfg, n_active: int):
        if not 1 <= n_active <= cfg.sm.count:
            raise ConfigError("sm_controller", f"fixed:{n_active}",
                              f"needs 1 <= N <= sm.count = {cfg.sm.count}")
        self.n_active, self.m = n_active, cfg.sm.count
        self.gating = False

    def may_dispatch(self, sm_id: int) -> bool:
        return sm_id < self.n_active

    def on_kernel_launch(self, now: int, run) -> None:
        if self.gating:
            return
        self.gating = True
        for i in range(self.n_active, self.m):
            self.gpu.pause_sm(now, i)

    def on_sm_drained(self, now: int, sm) -> None:
        if sm.sm_id >= self.n_active and sm.state == PWR_PAUSED:
            self.gpu.gate_sm(now, sm.sm_id)

    def report(self) -> dict:
        return {"n_active": self.n_active}
