"""Closed-loop stimulus for Perf-Sat: one SM whose CTAs follow the controller's limit.

Per kernel: a random N_max (1..2^n_bits − 1), random CTA lifetimes, and a random stall(N) curve
with a minimum at a random N_opt (a U shape: scoreboard stalls fall and pipeline stalls rise with
N, [THESIS §4.3.1.3–§4.3.2.1]), sometimes monotone (C-strong: minimum at N_max). Each cycle each of
the two schedulers is stalled with probability stall(resident CTAs); the dispatcher tops the
resident CTAs up to ``cta_limit`` from the previous cycle (lowering the limit only stops new issue,
[THESIS §4.3.2.2]; our choice). A new kernel starts some time after ``done``, rarely in the middle
of a detection; rare spurious inputs (stalls = 3, extra completions) stress the corners.
"""

from __future__ import annotations

import random


class PerfSatStimulus:
    def __init__(self, n_bits: int, seed: int, life: tuple[int, int] = (20, 200),
                 restart_prob: float = 1e-5, edge_prob: float = 0.002, **_ignored):
        self.rng = random.Random(seed)
        self.n_cap = (1 << n_bits) - 1
        self.life = life
        self.restart_prob, self.edge_prob = restart_prob, edge_prob
        self.ctas: list[int] = []       # remaining cycles of each resident CTA
        self.start_in = 0
        self.kernels = 0
        self.stall_of: list[float] = [0.0]
        self.n_max = 1
        self.cta_life = life[0]

    def _new_kernel(self) -> None:
        rng = self.rng
        self.kernels += 1
        self.n_max = rng.randint(1, min(15, self.n_cap)) if rng.random() < 0.9 else \
            rng.randint(0, self.n_cap)
        nm = max(1, self.n_max)
        n_opt = nm if rng.random() < 0.3 else rng.randint(1, nm)
        base, k = rng.uniform(0.05, 0.5), rng.uniform(0.2, 2.0)
        self.stall_of = [min(1.0, base + k * ((n - n_opt) / nm) ** 2) for n in range(self.n_cap + 2)]
        self.cta_life = rng.randint(*self.life)
        self.ctas = []

    def next(self, prev_out: dict | None) -> dict:
        rng = self.rng
        start = 0
        if prev_out is None or prev_out["state"] == 0 or prev_out["done"]:
            if self.start_in <= 0:
                self.start_in = rng.randint(1, 4000 if prev_out and prev_out["done"] else 5)
            self.start_in -= 1
            start = int(self.start_in == 0)
        elif rng.random() < self.restart_prob:
            start = 1
        if start:
            self._new_kernel()
        limit = prev_out["cta_limit"] if prev_out and not start else max(1, (self.n_max + 1) // 2)
        cta_done = 0
        for j in range(len(self.ctas)):
            self.ctas[j] -= 1
        if self.ctas and min(self.ctas) <= 0:
            self.ctas.remove(min(self.ctas))
            cta_done = 1
        while self.kernels and len(self.ctas) < limit:
            self.ctas.append(rng.randint(self.cta_life // 2, self.cta_life * 2))
        p = self.stall_of[min(len(self.ctas), len(self.stall_of) - 1)]
        stalls = (rng.random() < p) + (rng.random() < p)
        if rng.random() < self.edge_prob:
            stalls, cta_done = 3, rng.randint(0, 1)
        return {"kernel_start": start, "n_max": self.n_max, "cta_done": cta_done,
                "stalls": stalls}
