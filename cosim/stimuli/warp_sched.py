"""Stimulus for the warp arbiter: warps with random readiness, long-latency stalls and relaunches.

Each slot holds a warp or is empty. An occupied warp is ready with probability ``p_ready`` unless
it is inside a long-latency stall; a granted warp starts a long stall (a load) with probability
``p_long``, lasting 20–400 cycles. Now and then a group of slots (a CTA) exits and is relaunched,
which drives the ``launch`` port and reorders GTO ages. Some cycles use fully random masks to hit
patterns no realistic core would produce.
"""

from __future__ import annotations

import random


class WarpSchedStimulus:
    def __init__(self, n_warps: int, seed: int, p_ready: float = 0.35, p_long: float = 0.3,
                 **_ignored):
        self.w = n_warps
        self.rng = random.Random(seed)
        self.p_ready, self.p_long = p_ready, p_long
        self.stall = [0] * n_warps
        self.occupied = [True] * n_warps
        self.pending_launch = 0

    def next(self, prev_out: dict | None) -> dict:
        rng, w = self.rng, self.w
        if prev_out and prev_out.get("grant_valid"):
            g = prev_out["grant_idx"]
            if rng.random() < self.p_long:
                self.stall[g] = rng.randint(20, 400)
        launch = self.pending_launch
        self.pending_launch = 0
        for s in range(w):
            if launch >> s & 1:
                self.occupied[s] = True
                self.stall[s] = rng.randint(0, 3)
        if rng.random() < 0.01:  # a CTA of 1..4 consecutive slots exits; relaunch later
            size = rng.randint(1, min(4, w))
            base = rng.randrange(0, w - size + 1)
            mask = ((1 << size) - 1) << base
            for s in range(base, base + size):
                self.occupied[s] = False
            self.pending_launch |= mask if rng.random() < 0.9 else 0
        ready = 0
        for s in range(w):
            if self.stall[s]:
                self.stall[s] -= 1
            elif self.occupied[s] and rng.random() < self.p_ready:
                ready |= 1 << s
        if rng.random() < 0.05:
            ready = rng.getrandbits(w)
        if rng.random() < 0.002:
            launch |= rng.getrandbits(w)
        return {"ready": ready, "launch": launch}
