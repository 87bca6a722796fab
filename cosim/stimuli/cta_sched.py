"""Closed-loop stimulus for ``cta_sched``: kernel sequences on P CUs that run and retire TBs.

- Kernels: 1-, 2- or 3-D grids, N from 1 to a few thousand (small grids, N < P included); half
  of the launches repeat the previous dims (so R / F / S reuse and S's kept queues matter), some
  keep N but reshape the dims (S must re-chunk). ``launch_valid`` is held, with the next dims,
  while a kernel still runs (must be ignored) and after random idle gaps.
- CUs: each has 2–8 slots; per kernel each CU gets a speed factor and a ``slot_free``
  probability: half the kernels nearly balanced (few steals, so queues survive launches and get
  robbed later), half skewed (chunks drain unevenly, many steals and queue overflows). A TB transferred in cycle t (seen in
  the previous outputs: ``tb_valid & slot_free``) retires 1..~120 cycles later via ``tb_done``;
  some kernels make TB work grow with the id (the Work-Stealing microbenchmark).
- ``max_n`` caps N (short tests use ~120 so that many kernels fit in a few thousand cycles).
"""

from __future__ import annotations

import heapq
import random

from hdl.ikra.params import TB_DONE_W, pack


class CtaSchedStimulus:
    def __init__(self, n_cus: int, id_w: int, seed: int, max_n: int = 3000, **_ignored):
        self.p, self.id_w = n_cus, id_w
        self.rng = random.Random(seed)
        self.max_n = min(max_n, (1 << id_w) - 1)
        self.cycle = 0
        self.slots = [self.rng.randint(2, 8) for _ in range(n_cus)]
        self.busy = [0] * n_cus
        self.retire_heap: list[tuple[int, int]] = []      # (cycle, cu)
        self.prev_in: dict | None = None
        self.dims = None
        self.next_dims = self._new_dims()
        self.launch_at = self.rng.randint(0, 5)
        self.speed = [1.0] * n_cus
        self.p_free = [1.0] * n_cus
        self.grow = False

    def _new_dims(self) -> tuple[int, int, int]:
        rng = self.rng
        if self.dims and rng.random() < 0.5:
            return self.dims
        if self.dims and rng.random() < 0.15:            # same N, other shape
            gx, gy, gz = self.dims
            return (gy, gx, gz) if gx != gy else (gx * gy, 1, gz)
        r = rng.random()
        n = rng.randint(1, 2 * self.p) if r < 0.3 else (
            rng.randint(1, 300) if r < 0.9 else rng.randint(1, self.max_n))
        n = min(n, self.max_n)
        dim = rng.choice((1, 2, 3))
        if dim == 1:
            return (n, 1, 1)
        gy = rng.randint(1, max(1, min(16, n)))
        gz = rng.randint(1, max(1, min(8, n // gy))) if dim == 3 else 1
        return (max(1, n // (gy * gz)), gy, gz)

    def _new_kernel_profile(self) -> None:
        rng = self.rng
        if rng.random() < 0.5:      # nearly balanced: few steals, so queues survive launches
            self.speed = [rng.uniform(0.8, 1.2) for _ in range(self.p)]
            self.p_free = [rng.uniform(0.8, 1.0) for _ in range(self.p)]
        else:
            self.speed = [rng.choice((0.3, 1.0, 1.0, 2.0, 3.0)) for _ in range(self.p)]
            self.p_free = [rng.choice((0.4, 0.7, 1.0, 1.0)) for _ in range(self.p)]
        self.grow = rng.random() < 0.2

    def next(self, prev_out: dict | None) -> dict:
        rng, p = self.rng, self.p
        now = self.cycle
        self.cycle += 1
        if prev_out is not None and self.prev_in is not None:
            got = prev_out["tb_valid"] & self.prev_in["slot_free"]
            mask = (1 << self.id_w) - 1
            for i in range(p):
                if got >> i & 1:
                    tb = (prev_out["tb_id"] >> (i * self.id_w)) & mask
                    work = rng.randint(1, 20) * self.speed[i]
                    if self.grow:
                        work += tb % 64
                    heapq.heappush(self.retire_heap, (now + max(1, int(work)), i))
                    self.busy[i] += 1
            if self.prev_in["launch_valid"] and prev_out["launch_ready"]:
                self.dims = self.next_dims
                self.next_dims = self._new_dims()
                self.launch_at = now + rng.choice((0, 0, 1, 3, 20, 200))
                self._new_kernel_profile()
        done = [0] * p
        while self.retire_heap and self.retire_heap[0][0] <= now:
            _, i = self.retire_heap[0]
            if done[i] == (1 << TB_DONE_W) - 1:
                break
            heapq.heappop(self.retire_heap)
            done[i] += 1
            self.busy[i] -= 1
        free = 0
        for i in range(p):
            if self.busy[i] < self.slots[i] and rng.random() < self.p_free[i]:
                free |= 1 << i
        launch = int(now >= self.launch_at)
        gx, gy, gz = self.next_dims
        inputs = {"launch_valid": launch, "grid_x": gx, "grid_y": gy, "grid_z": gz,
                  "slot_free": free, "tb_done": pack(done, TB_DONE_W)}
        self.prev_in = inputs
        return inputs
