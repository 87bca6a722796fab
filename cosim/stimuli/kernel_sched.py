"""Closed-loop random stimulus for ``kernel_sched``: a GPU whose SMs take blocks of the kernels
the controller allows, with random predictor records.

Kernels arrive in free kernel slots (random blocks, sometimes none, random R, random per-block
footprints for MPMax); each cycle an
allowed kernel loses a random number of undispatched blocks (``all_dispatched`` pulses at zero)
and ends a random time after its last dispatch. Records come from random SMs (SM 0 often) for
running kernels (rarely for others), with remaining times from a small set so that ties are
common. Block ends (``done_*``) come for running kernels (rarely others), sometimes more than a
kernel has blocks; standalone runtimes (``arr_tsp``) come from a small set, so that zero-sampling
ties and switches are common. Arrivals, block ends and records are held until accepted;
``ctl_ready`` is random.
"""

from __future__ import annotations

import random


class KernelSchedStimulus:
    def __init__(self, K: int, NSM: int, CW: int, BW: int, RW: int, seed: int, FW: int = 16,
                 LIMITS: str = "1536,32768,49152,8,48"):
        from hdl.params.kernel_sched import limits_of
        self.K, self.NSM, self.CW, self.BW, self.RW = K, NSM, CW, BW, RW
        self.FW, self.limits = FW, limits_of(LIMITS)
        self.rng = random.Random(seed)
        self.undispatched: dict[int, int] = {}   # running kernel -> blocks not yet dispatched
        self.ends_in: dict[int, int] = {}        # all dispatched -> cycles to its end
        self.arr: dict | None = None
        self.upd: dict | None = None
        self.done: dict | None = None
        self.drove_arr = self.drove_upd = self.drove_done = False

    def next(self, prev: dict | None) -> dict:
        rng, K = self.rng, self.K
        if prev is not None:
            if self.drove_arr and prev["arr_ready"]:
                k = self.arr["arr_k"]
                self.undispatched[k] = self.arr["arr_blocks"]
                self.arr = None
            if self.drove_upd and prev["upd_ready"]:
                self.upd = None
            if self.drove_done and prev["done_ready"]:
                self.done = None
        free = [k for k in range(K) if k not in self.undispatched and k not in self.ends_in]
        if self.arr is None and free and rng.random() < 0.02:
            self.arr = {"arr_k": rng.choice(free),
                        "arr_blocks": 0 if rng.random() < 0.05 else rng.randint(1, 400),
                        "arr_R": rng.randrange(1 << self.RW), "arr_fp": self._footprint(),
                        "arr_tsp": rng.choice((300, 600, 900)) if rng.random() < 0.7
                        else rng.randrange(1 << self.CW)}
        running = sorted(set(self.undispatched) | set(self.ends_in))
        if self.upd is None and rng.random() < 0.08 and (running or rng.random() < 0.1):
            k = rng.choice(running) if running and rng.random() < 0.95 else rng.randrange(K)
            small = rng.random() < 0.7
            self.upd = {"upd_sm": 0 if rng.random() < 0.3 else rng.randrange(self.NSM), "upd_k": k,
                        "upd_rem": rng.choice((100, 200, 300)) if small else rng.randrange(1 << self.CW),
                        "upd_t": rng.randrange(1 << self.CW) if rng.random() < 0.5
                        else rng.choice((0, 50, 100)),
                        "upd_pred": rng.choice((100, 150, 250, 400)) if rng.random() < 0.8
                        else rng.randrange(1 << self.CW),
                        "upd_res": rng.randrange(1 << self.RW)}
        if self.done is None and rng.random() < 0.1 and (running or rng.random() < 0.1):
            k = rng.choice(running) if running and rng.random() < 0.95 else rng.randrange(K)
            self.done = {"done_k": k}
        allowed = prev["allow"] if prev else 0
        dispatched = ends = 0
        for k in list(self.undispatched):
            on = any(allowed >> (s * K + k) & 1 for s in range(self.NSM))
            if on or self.undispatched[k] == 0:
                self.undispatched[k] -= min(self.undispatched[k], rng.randint(0, self.NSM))
                if self.undispatched[k] == 0:
                    del self.undispatched[k]
                    dispatched |= 1 << k
                    self.ends_in[k] = rng.randint(5, 400)
        for k in list(self.ends_in):
            if k in self.undispatched:
                continue
            self.ends_in[k] -= 1
            if self.ends_in[k] <= 0:
                del self.ends_in[k]
                ends |= 1 << k
        self.drove_arr, self.drove_upd = self.arr is not None, self.upd is not None
        self.drove_done = self.done is not None
        arr = self.arr or {"arr_k": 0, "arr_blocks": 0, "arr_R": 0, "arr_fp": 0, "arr_tsp": 0}
        upd = self.upd or {"upd_sm": 0, "upd_k": 0, "upd_rem": 0, "upd_t": 0, "upd_pred": 0,
                           "upd_res": 0}
        return {"arr_valid": int(self.drove_arr), **arr, "upd_valid": int(self.drove_upd), **upd,
                "done_valid": int(self.drove_done), "done_k": (self.done or {"done_k": 0})["done_k"],
                "all_dispatched": dispatched, "kernel_end": ends,
                "ctl_ready": int(rng.random() < 0.6)}

    def _footprint(self) -> int:
        """Per resource: none, a small share of the limit (several blocks fit) or any value up
        to the limit (caps of 1 and reservations that do not fit), packed in FW-bit fields."""
        rng, out = self.rng, 0
        for r, limit in enumerate(self.limits):
            v = rng.choice((0, rng.randint(1, max(1, limit // 6)), rng.randint(1, limit)))
            out |= min(v, (1 << self.FW) - 1) << (r * self.FW)
        return out
