"""Stimulus for the warp-scheduler port: warps with random readiness, long-latency stalls,
barriers and relaunches.

Each slot holds a warp or is empty (``valid``). An occupied warp is ready with probability
``p_ready`` unless it is inside a stall; a granted warp starts a long stall (a load: ``mem_wait``)
with probability ``p_long``, lasting 20–400 cycles. Now and then a group of slots (a CTA) waits
at a barrier for a few cycles, or exits and is relaunched, which drives ``launch`` with its CTA
slot, kernel and size and reorders ages. Some cycles use fully random masks to hit patterns no
realistic core would produce.

The phase-aware inputs come from a second generator (so the other inputs' sequence per seed is
what it was before they existed): ``distance`` per slot counts down as the warp issues and
jumps to a new phase length at zero, with frequent ties; ``long_out`` covers every long stall
and stays set for up to 60 cycles after it (loads the warp does not wait on yet), plus a few
independent and fully random bits.
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
        self.rng2 = random.Random(seed * 7919 + 17)
        self.dist = [self._new_phase() for _ in range(n_warps)]
        self.was_long = [False] * n_warps
        self.tail = [0] * n_warps

    def _new_phase(self) -> int:
        r = self.rng2
        return r.choice((4, 8, 12)) if r.random() < 0.3 else r.randrange(512)

    def phase_inputs(self, prev_out: dict | None, valid: int) -> dict:
        """``distance`` and ``long_out`` for this cycle (after the other inputs)."""
        r, w = self.rng2, self.w
        if prev_out and prev_out.get("grant_valid"):
            g = prev_out["grant_idx"]
            self.dist[g] -= r.choice((0, 2, 4, 4, 5, 20))
            if self.dist[g] <= 0:
                self.dist[g] = self._new_phase()
        long_out = distance = 0
        for s in range(w):
            if self.long[s] and not self.was_long[s]:
                self.tail[s] = r.randint(0, 60)
            elif not self.long[s] and self.tail[s]:
                self.tail[s] -= 1
            elif r.random() < 0.002:
                self.tail[s] = r.randint(1, 40)
            self.was_long[s] = self.long[s]
            if self.long[s] or self.tail[s]:
                long_out |= 1 << s
            distance |= self.dist[s] << (9 * s)
        if r.random() < 0.03:
            long_out = r.getrandbits(w)
        if r.random() < 0.02:
            distance = r.getrandbits(9 * w)
        return {"distance": distance, "long_out": long_out & (valid | r.getrandbits(w))}

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
                "warps_per_cta": wpc, "resident_ctas": resident, "sm_id": self.sm_id,
                **self.phase_inputs(prev_out, valid)}
