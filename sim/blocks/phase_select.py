"""Twin of ``hdl.phase_select.PhaseAwareSelect``: the single-level phase-aware warp scheduler
([THESIS §3.4.2.2]), same port timing.

Each cycle the ready warp whose next instruction has the smallest phase distance (the port's
``distance`` input) issues; ties go to the oldest warp (launch order, the base class's ages).
The only state is the age order, which moves on ``launch`` alone, so cycles without a ready
warp or a launch can be skipped (not an every-cycle policy).
"""

from __future__ import annotations

from hdl.params.warp_sched import DIST_BITS, check_params

from .warp_sched import WarpSchedulerTwin

DIST_MASK = (1 << DIST_BITS) - 1


def slot_distance(distance: int, slot: int) -> int:
    """The ``distance`` field of one slot."""
    return distance >> (slot * DIST_BITS) & DIST_MASK


class PhaseAwareSelectTwin(WarpSchedulerTwin):
    """Smallest phase distance first, then the oldest (reads ready, launch, distance)."""

    def __init__(self, n_warps: int):
        check_params(n_warps, "phase")
        super().__init__(n_warps)

    def choose(self, inputs: dict) -> int:
        ready = inputs.get("ready", 0)
        distance = inputs.get("distance", 0)
        age = self.age
        best, best_key = -1, None
        while ready:
            low = ready & -ready
            w = low.bit_length() - 1
            key = (slot_distance(distance, w), age[w])
            if best_key is None or key < best_key:
                best, best_key = w, key
            ready ^= low
        return best
