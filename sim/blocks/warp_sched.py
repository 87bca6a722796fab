"""Twin of ``hdl.warp_sched.WarpSched``: LRR / GTO warp arbiter with identical port timing.

``step(ready, launch)`` returns this cycle's outputs (a same-cycle pick from ``ready`` and the
state) and then advances the state as the clock edge would. Masks are Python ints (bit w = slot w).
GTO keeps a launch sequence number per slot instead of the RTL's age matrix; both order slots the
same way (launched slots become youngest, lower slot first within one cycle).
"""

from __future__ import annotations

from hdl.warp_sched import check_params


class WarpSchedTwin:
    """Behavioral LRR / GTO arbiter for ``n_warps`` slots."""

    def __init__(self, n_warps: int, policy: str):
        check_params(n_warps, policy)
        self.n_warps, self.policy = n_warps, policy
        self.lrr = policy == "lrr"
        self.last = n_warps - 1 if policy == "lrr" else 0
        self.age = list(range(n_warps))        # smaller = older
        self.next_age = n_warps

    def pick(self, ready: int) -> int:
        """Slot that issues for this ready mask, or -1; no state change."""
        if not ready:
            return -1
        last = self.last
        if self.lrr:
            upper = ready >> (last + 1)
            if upper:
                return last + 1 + ((upper & -upper).bit_length() - 1)
            return (ready & -ready).bit_length() - 1
        if (ready >> last) & 1:
            return last
        age = self.age
        best, best_age = -1, None
        while ready:                       # visit set bits only, lowest slot first
            low = ready & -ready
            w = low.bit_length() - 1
            if best_age is None or age[w] < best_age:
                best, best_age = w, age[w]
            ready ^= low
        return best

    def grant(self, ready: int, launch: int = 0) -> int:
        """``step`` without building the output dict (the model's fast path): the granted slot
        or -1, with the same state update."""
        if ready:
            last = self.last
            if self.lrr:
                upper = ready >> (last + 1)
                g = (last + 1 + ((upper & -upper).bit_length() - 1) if upper
                     else (ready & -ready).bit_length() - 1)
            elif (ready >> last) & 1:
                g = last
            else:
                g = self.pick(ready)
            self.last = g
        else:
            g = -1
        if launch:
            age = self.age
            while launch:
                low = launch & -launch
                age[low.bit_length() - 1] = self.next_age
                self.next_age += 1
                launch ^= low
        return g

    def step(self, ready: int, launch: int = 0) -> dict[str, int]:
        """One clock cycle: outputs for (ready, launch), then the edge's state update."""
        g = self.pick(ready)
        if g >= 0:
            self.last = g
        while launch:                      # launched slots in slot order become youngest
            low = launch & -launch
            self.age[low.bit_length() - 1] = self.next_age
            self.next_age += 1
            launch ^= low
        if g < 0:
            return {"grant": 0, "grant_valid": 0, "grant_idx": 0}
        return {"grant": 1 << g, "grant_valid": 1, "grant_idx": g}
