"""Closed-loop SM-array stimulus for the SWM detectors (ONAC, Seq-Det): random IPC(N) curves.

Each kernel (one ``start``) draws a chip IPC curve IPC(N), N = number of sampled SMs:

- concave saturating (most kernels): ``a·N / (1 + (a·N/roof)^p)^(1/p)``, a smoothed
  min(a·N, roof), with random per-SM slope a, roof and knee sharpness p (our synthetic
  [THESIS §4.4.1] curves: type A saturates below M, type B scales to M);
- linear (type B), rise-then-fall (exercises the non-positive-slope guard), or random per N.

The SMs answer the 4-phase handshakes after random delays (in-flight drains, sample windows);
a sampled SM reports ``cycles`` (a random 4-wave window) and ``instr`` = per-SM IPC × cycles with
multiplicative noise. Rare edge values (0 cycles, saturated counts) and rare restarts in the
middle of a detection stress the corners. Paused SMs stay busy; an inactive SM becomes idle
after a random drain.
"""

from __future__ import annotations

import random
from typing import Callable

from hdl.params.swm import SwmWidths


def concave_curve(a: float, roof: float, p: float) -> Callable[[int], float]:
    """Smoothed min(a·N, roof): rising, concave, saturating."""
    return lambda n: a * n / (1.0 + (a * n / roof) ** p) ** (1.0 / p)


def random_curve(rng: random.Random, m: int) -> Callable[[int], float]:
    kind = rng.random()
    a = rng.uniform(0.2, 1.0)
    if kind < 0.7:
        return concave_curve(a, a * rng.uniform(1.5, 1.3 * m), rng.uniform(1.5, 10.0))
    if kind < 0.8:
        return lambda n: a * n
    if kind < 0.9:
        peak = rng.randint(1, m)
        return lambda n: a * min(n, peak) - 0.05 * a * max(0, n - peak)
    table = [rng.uniform(0.0, a * m) for _ in range(m + 1)]
    return lambda n: table[n]


class SwmStimulus:
    """``next(prev_out) -> inputs`` for OnacCtrl / SeqDetCtrl with ``n_sms`` SMs."""

    def __init__(self, n_sms: int, seed: int, count_bits: int = 24, ipc_bits: int = 16,
                 ipc_frac: int = 10, noise: float = 0.02, max_delay: int = 12,
                 curve: Callable[[int], float] | None = None, window: tuple[int, int] | None = None,
                 restart_prob: float = 5e-5, edge_prob: float = 0.01,
                 kernel_limit: int | None = None, **_ignored):
        self.w = SwmWidths(n_sms, count_bits, ipc_bits, ipc_frac)
        self.rng = random.Random(seed)
        self.noise, self.max_delay = noise, max_delay
        self.fixed_curve = curve
        self.curve = curve or random_curve(self.rng, n_sms)
        hi = (1 << count_bits) - 1
        self.window = window or (min(64, hi), min(1 << 20, hi))
        self.restart_prob, self.edge_prob = restart_prob, edge_prob
        self.kernel_limit = kernel_limit
        self.ack = self.done = self.idle = 0
        self.instr = [0] * n_sms
        self.cycles = [0] * n_sms
        self.ack_timer: dict[int, int] = {}
        self.done_timer: dict[int, int] = {}
        self.idle_timer: dict[int, int] = {}
        self.start_in = 0              # cycles until the next start (0 = start now)
        self.kernels = 0

    def _new_kernel(self) -> None:
        self.kernels += 1
        if self.fixed_curve is None:
            self.curve = random_curve(self.rng, self.w.m)

    def _report(self, i: int, n: int) -> None:
        """SM i finishes its sample while n SMs are being sampled."""
        w, rng = self.w, self.rng
        per_sm = max(0.0, self.curve(n) / max(n, 1)) * (1.0 + rng.gauss(0.0, self.noise))
        cycles = rng.randint(*self.window)
        instr = round(max(0.0, per_sm) * cycles)
        if rng.random() < self.edge_prob:
            cycles, instr = rng.choice([(0, instr), (cycles, (1 << w.instr_bits) - 1),
                                        ((1 << w.count_bits) - 1, instr), (1, 0)])
        self.cycles[i] = min(cycles, (1 << w.count_bits) - 1)
        self.instr[i] = min(instr, (1 << w.instr_bits) - 1)

    def _step_timers(self, timers: dict[int, int]) -> list[int]:
        fired = []
        for i in list(timers):
            timers[i] -= 1
            if timers[i] <= 0:
                del timers[i]
                fired.append(i)
        return fired

    def next(self, prev_out: dict | None) -> dict:
        rng, w = self.rng, self.w
        start = 0
        if prev_out is None or prev_out["state"] == 0 or prev_out["done"]:
            if self.start_in <= 0:
                self.start_in = rng.randint(1, 40)
            self.start_in -= 1
            if self.start_in == 0 and self.kernels != self.kernel_limit:
                start = 1
        elif rng.random() < self.restart_prob:
            start = 1
        if start:
            self._new_kernel()
        pause_req = prev_out["pause_req"] if prev_out else 0
        sample_req = prev_out["sample_req"] if prev_out else 0
        active = prev_out["active"] if prev_out else w.all_sms

        # pause handshake: the ack follows the request after an in-flight drain
        for i in range(w.m):
            if ((pause_req ^ self.ack) >> i) & 1 and i not in self.ack_timer:
                self.ack_timer[i] = rng.randint(0, self.max_delay)
        for i in self._step_timers(self.ack_timer):
            self.ack = (self.ack & ~(1 << i)) | (pause_req & (1 << i))

        # sample handshake: done after a window, values held until the request falls
        n_sampled = bin(sample_req).count("1")
        for i in range(w.m):
            if ((sample_req ^ self.done) >> i) & 1 and i not in self.done_timer:
                self.done_timer[i] = rng.randint(0, 3 * self.max_delay)
        for i in self._step_timers(self.done_timer):
            if (sample_req >> i) & 1 and not (self.done >> i) & 1:
                self._report(i, n_sampled)
                self.done |= 1 << i
            elif not (sample_req >> i) & 1:
                self.done &= ~(1 << i)

        # inactive SMs drain and go idle; active ones hold CTAs
        for i in range(w.m):
            bit = 1 << i
            if active & bit:
                self.idle &= ~bit
                self.idle_timer.pop(i, None)
            elif not self.idle & bit and i not in self.idle_timer:
                self.idle_timer[i] = rng.randint(0, 4 * self.max_delay)
        for i in self._step_timers(self.idle_timer):
            self.idle |= 1 << i

        instr = cycles = 0
        for i in range(w.m):
            if (self.done >> i) & 1:
                v_i, v_c = self.instr[i], self.cycles[i]
            else:        # undefined while not done: garbage the detector must ignore
                v_i = rng.getrandbits(w.instr_bits) if rng.random() < 0.1 else 0
                v_c = 0
            instr |= v_i << (i * w.instr_bits)
            cycles |= v_c << (i * w.count_bits)
        return {"start": start, "pause_ack": self.ack, "sample_done": self.done,
                "sample_instr": instr, "sample_cycles": cycles, "sm_idle": self.idle}
