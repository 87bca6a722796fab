"""Stimulus for OWL's warp schedulers on the warp-scheduler port: one SM's scheduler running
kernels of CTAs ([OWL §2.1] shapes), so that groups, refills and kernel changes all happen.

A kernel has k warps per CTA (1..12) and an occupancy limit N (up to W // k, at most 8 as in
[OWL §2.1]); CTA slot c holds warp slots c*k .. c*k+k-1. At start-up and after every exit the
lowest free CTA slot is refilled a few cycles later (one CTA launch per cycle, ``launch`` with
the CTA slot, kernel, k and N). CTAs exit at random; every few thousand cycles the kernel
changes (new k and N) while old CTAs drain, which leaves stale group ids in running warps.
Warps are ready with probability ``p_ready`` unless stalled; a granted warp starts a long stall
(``mem_wait``, 20-400 cycles) with probability ``p_long``; CTAs wait at barriers now and then.
A few cycles use fully random masks or launch fields (k = 0, N beyond the slots, any CTA slot)
to reach corners no realistic SM produces. ``sm_id`` is random per seed (BLP's core offset).
"""

from __future__ import annotations

import random


class OwlStimulus:
    def __init__(self, n_warps: int, seed: int, p_ready: float = 0.35, p_long: float = 0.3,
                 **_ignored):
        self.w = n_warps
        self.rng = random.Random(seed)
        self.noise = random.Random(seed + 1)     # inputs OWL ignores, apart from rng's stream
        self.sm_id = self.rng.randrange(256)
        self.p_ready, self.p_long = p_ready, p_long
        self.stall = [0] * n_warps
        self.long = [False] * n_warps
        self.kernel = -1
        self.cycle = 0
        self.ctas: dict[int, tuple[int, int]] = {}     # CTA slot -> (first warp slot, k)
        self.refill_at = 0
        self.barrier, self.barrier_left = 0, 0
        self.launch_info = (0, 0, 1, 1)
        self._new_kernel()

    def _new_kernel(self) -> None:
        rng = self.rng
        self.kernel = (self.kernel + 1) % 256
        self.k = rng.randint(1, min(12, self.w))
        self.n_ctas = rng.randint(1, min(8, self.w // self.k))
        self.next_change = self.cycle + rng.randint(1000, 6000)

    def _occupied(self) -> int:
        mask = 0
        for base, k in self.ctas.values():
            mask |= ((1 << k) - 1) << base
        return mask

    def _launch(self) -> int:
        """Refill the lowest free CTA slot of the current kernel if its warp slots are free."""
        free = [c for c in range(self.n_ctas) if c not in self.ctas]
        if not free or self.cycle < self.refill_at:
            return 0
        c = free[0]
        base = c * self.k
        mask = ((1 << self.k) - 1) << base
        if mask & self._occupied():        # an old kernel's CTA still holds those slots
            return 0
        self.ctas[c] = (base, self.k)
        self.launch_info = (c, self.kernel, self.k, self.n_ctas)
        self.refill_at = self.cycle + self.rng.randint(1, 4)
        return mask

    def next(self, prev_out: dict | None) -> dict:
        rng, w = self.rng, self.w
        self.cycle += 1
        if prev_out and prev_out.get("grant_valid"):
            g = prev_out["grant_idx"]
            if rng.random() < self.p_long:
                self.stall[g] = rng.randint(20, 400)
                self.long[g] = True
        if self.cycle >= self.next_change:
            self._new_kernel()
            self.ctas = {c: v for c, v in self.ctas.items() if rng.random() < 0.5}
        elif self.ctas and rng.random() < 0.01:              # a CTA exits
            del self.ctas[rng.choice(sorted(self.ctas))]
        launch = self._launch()
        for s in range(w):
            if launch >> s & 1:
                self.stall[s] = rng.randint(0, 3)
                self.long[s] = False
        valid = self._occupied()
        if self.barrier_left:
            self.barrier_left -= 1
            if not self.barrier_left:
                self.barrier = 0
        elif self.ctas and rng.random() < 0.02:             # one CTA waits at a barrier
            base, k = self.ctas[rng.choice(sorted(self.ctas))]
            self.barrier = ((1 << k) - 1) << base
            self.barrier_left = rng.randint(1, 30)
        ready = mem_wait = 0
        for s in range(w):
            if self.stall[s]:
                self.stall[s] -= 1
                if self.long[s] and valid >> s & 1:
                    mem_wait |= 1 << s
                if not self.stall[s]:
                    self.long[s] = False
            elif valid >> s & 1 and not self.barrier >> s & 1 and rng.random() < self.p_ready:
                ready |= 1 << s
        barrier = self.barrier & valid
        cta, kernel, wpc, resident = self.launch_info
        if rng.random() < 0.03:
            ready = rng.getrandbits(w)
        if rng.random() < 0.002:
            launch |= rng.getrandbits(w)
            cta, wpc, resident = rng.randrange(64), rng.randrange(128), rng.randrange(128)
        return {"ready": ready, "launch": launch, "valid": valid, "mem_wait": mem_wait,
                "barrier": barrier, "launch_cta": cta, "launch_kernel": kernel,
                "warps_per_cta": wpc, "resident_ctas": resident, "sm_id": self.sm_id,
                # the phase-aware policies' inputs: random here, OWL's schedulers ignore them
                "distance": self.noise.getrandbits(9 * w), "long_out": self.noise.getrandbits(w)}
