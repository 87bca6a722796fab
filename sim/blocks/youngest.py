"""Youngest-first warp scheduler: the ready warp launched last issues (model only).

The worked example of docs/adding-a-scheduler.md: a twin on the warp-scheduler port that keeps
no state beyond the launch ages its base class already tracks.
"""

from __future__ import annotations

from sim.blocks.warp_sched import WarpSchedulerTwin
from sim.policies.names import Family


class YoungestTwin(WarpSchedulerTwin):
    """Grant the ready slot with the largest launch age."""

    def choose(self, inputs: dict) -> int:
        ready, age = inputs.get("ready", 0), self.age
        best = -1
        while ready:
            low = ready & -ready
            w = low.bit_length() - 1
            if best < 0 or age[w] > age[best]:
                best = w
            ready ^= low
        return best


# discovered by sim/policies/discover.py: ``--warp-scheduler youngest``, ``sm.warp_sched``
POLICY_FAMILIES = {"warp_scheduler": [
    Family("youngest", lambda n_slots, a: YoungestTwin(n_slots),
           "youngest ready warp first (model only; the docs' worked example)")]}
