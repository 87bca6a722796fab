"""Stimulus for the warp-scheduler port: warps with random readiness, long-latency stalls,
barriers and relaunches.

Each slot holds a warp or is empty (``valid``). An occupied warp is ready with probability
``p_ready`` unless it is inside a stall; a granted warp starts a long stall (a load: ``mem_wait``)
with probability ``p_long``, lasting 20–400 cycles. Now and then a group of slots (a CTA) waits
at a barrier for a few cycles, or exits and is relaunched, which drives ``launch`` with its CTA
slot, kernel and size and reorders ages. Some cycles use fully random masks to hit patterns no
realistic core would produce.
"""

from __future__ import annotations

import random


class WarpSchedStimulus:
    def __init__(self, n_warps: int, seed: int, p_ready: float = 0.35, p_long: float = 0.3,
                 **_ignored):
        self.w = n_warps
        self.rng = random.Random(seed)
        self.sm_id = self.rng.randrange(256)
        self.p_ready, self.p_long = p_ready, p_long
        self.stall = [0] * n_warps
        self.long = [False] * n_warps
        self.occupied = [True] * n_warps
        self.pending_launch = 0
        self.barrier, self.barrier_left = 0, 0
        self.launch_info = (0, 0, 1, 1)

    def next(self, prev_out: dict | None) -> dict:
        rng, w = self.rng, self.w
        if prev_out and prev_out.get("grant_valid"):
            g = prev_out["grant_idx"]
            if rng.random() < self.p_long:
                self.stall[g] = rng.randint(20, 400)
                self.long[g] = True
        launch = self.pending_launch
        self.pending_launch = 0
        for s in range(w):
            if launch >> s & 1:
                self.occupied[s] = True
                self.stall[s] = rng.randint(0, 3)
                self.long[s] = False
        if self.barrier_left:
            self.barrier_left -= 1
            if not self.barrier_left:
                self.barrier = 0
        elif rng.random() < 0.02:      # a group of slots waits at a barrier for a few cycles
            size = rng.randint(1, min(4, w))
            self.barrier = ((1 << size) - 1) << rng.randrange(0, w - size + 1)
            self.barrier_left = rng.randint(1, 30)
        if rng.random() < 0.01:  # a CTA of 1..4 consecutive slots exits; relaunch later
            size = rng.randint(1, min(4, w))
            base = rng.randrange(0, w - size + 1)
            mask = ((1 << size) - 1) << base
            for s in range(base, base + size):
                self.occupied[s] = False
            self.pending_launch |= mask if rng.random() < 0.9 else 0
        ready = valid = mem_wait = 0
        for s in range(w):
            if self.occupied[s]:
                valid |= 1 << s
            if self.stall[s]:
                self.stall[s] -= 1
                if self.long[s] and self.occupied[s]:
                    mem_wait |= 1 << s
                if not self.stall[s]:
                    self.long[s] = False
            elif self.occupied[s] and not self.barrier >> s & 1 and rng.random() < self.p_ready:
                ready |= 1 << s
        barrier = self.barrier & valid
        if rng.random() < 0.05:
            ready = rng.getrandbits(w)
        if rng.random() < 0.02:
            valid, mem_wait, barrier = (rng.getrandbits(w) for _ in range(3))
        if rng.random() < 0.002:
            launch |= rng.getrandbits(w)
        if launch:
            self.launch_info = (rng.randrange(64), rng.randrange(256), rng.randint(1, 32),
                                rng.randint(1, 64))
        cta, kernel, wpc, resident = self.launch_info
        return {"ready": ready, "launch": launch, "valid": valid, "mem_wait": mem_wait,
                "barrier": barrier, "launch_cta": cta, "launch_kernel": kernel,
                "warps_per_cta": wpc, "resident_ctas": resident, "sm_id": self.sm_id}
