"""Closed-loop random stimulus for ``srtf_pred`` (our test plan for [SRTF]): one SM's block slots
and a controller.

Kernels are launched into free kernel slots with random Total and R, capped, seeded and ended;
blocks of launched kernels start in free block slots (at most one per cycle, sometimes in a slot
whose block ends in the same cycle) and end after random lifetimes, mostly long, sometimes a few
cycles, sometimes in bursts (several ends in one cycle, a second end while the first is still pending). A command is
held on ``ctl_*`` until the handshake; ``upd_ready`` is random. Rare commands name kernel slots
that are not launched, to cover the corners.
"""

from __future__ import annotations

import random

from hdl.params.srtf_pred import CTL_CAP, CTL_END, CTL_LAUNCH, CTL_SEED, PredShape


class SrtfPredStimulus:
    def __init__(self, shape: PredShape, seed: int, life: tuple[int, int] = (40, 1500),
                 short_prob: float = 0.08, cmd_prob: float = 0.02):
        self.sh, self.rng = shape, random.Random(seed)
        self.life, self.short_prob, self.cmd_prob = life, short_prob, cmd_prob
        self.launched: set[int] = set()
        self.blocks: dict[int, tuple[int, int]] = {}     # slot -> (kernel, cycles left)
        self.cmd: dict | None = None
        self.sent_cmd = False
        self.upd_ready = 0

    def _new_command(self) -> dict:
        rng, sh = self.rng, self.sh
        free = [k for k in range(sh.K) if k not in self.launched]
        kind = rng.choice((CTL_LAUNCH, CTL_LAUNCH, CTL_END, CTL_CAP, CTL_CAP, CTL_SEED))
        if kind == CTL_LAUNCH and free:
            k = rng.choice(free)
        elif self.launched and rng.random() < 0.95:
            k = rng.choice(sorted(self.launched))
        else:
            k = rng.randrange(sh.K)
        if kind == CTL_END and any(bk == k for bk, _ in self.blocks.values()) and rng.random() < 0.8:
            kind = CTL_CAP                   # a kernel normally ends after its last block
        big = rng.random() < 0.1
        return {"ctl_kind": kind, "ctl_k": k,
                "ctl_total": rng.randrange(1 << sh.BW) if big else min(rng.randint(0, 40), (1 << sh.BW) - 1),
                "ctl_res": rng.randrange(1 << sh.RW) if big else min(rng.randint(0, 8), (1 << sh.RW) - 1),
                "ctl_t": rng.randrange(1 << sh.CW) if big else min(rng.randint(0, 3000), (1 << sh.CW) - 1)}

    def next(self, prev: dict | None) -> dict:
        rng, sh = self.rng, self.sh
        if prev is not None and self.sent_cmd and prev["ctl_ready"]:     # accepted last cycle
            kind, k = self.cmd["ctl_kind"], self.cmd["ctl_k"]
            if kind == CTL_LAUNCH:
                self.launched.add(k)
            elif kind == CTL_END:
                self.launched.discard(k)
            self.cmd = None
        if self.cmd is None and rng.random() < self.cmd_prob:
            self.cmd = self._new_command()
        ends = 0
        burst = rng.random() < 0.003          # several blocks end in the same cycle
        for s, (k, left) in list(self.blocks.items()):
            if left <= 1 or (burst and rng.random() < 0.5):
                ends |= 1 << s
                del self.blocks[s]
            else:
                self.blocks[s] = (k, left - 1)
        start = {"blk_start_valid": 0, "blk_start_slot": 0, "blk_start_k": 0}
        free = [s for s in range(sh.SLOTS) if s not in self.blocks]
        if free and self.launched and rng.random() < 0.3:
            s = rng.choice(free)
            k = rng.choice(sorted(self.launched)) if rng.random() < 0.97 else rng.randrange(sh.K)
            short = rng.random() < self.short_prob
            self.blocks[s] = (k, rng.randint(1, 12) if short else rng.randint(*self.life))
            start = {"blk_start_valid": 1, "blk_start_slot": s, "blk_start_k": k}
        self.upd_ready = int(rng.random() < 0.7)
        self.sent_cmd = self.cmd is not None
        cmd = self.cmd or {"ctl_kind": 0, "ctl_k": 0, "ctl_total": 0, "ctl_res": 0, "ctl_t": 0}
        return {**start, "blk_end": ends, "ctl_valid": int(self.sent_cmd), **cmd,
                "upd_ready": self.upd_ready}
