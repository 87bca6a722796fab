"""Closed-loop random stimulus for ``owl_prefetch``: a small memory controller around the engine.

Demands arrive in bursts (busy and quiet phases, so the queue length crosses its running average
both ways) to a few rows per bank. Each cycle the controller reports what it did with the
previous cycle's outputs: a demand row hit, a demand to a closed or other row (ACT first; a held
bank is mostly respected), a write that only opens a row, the engine's proposal as a prefetch,
or as a skip (line already in the L2; then the next cycle is a re-look, ``tick`` = 0), or nothing.
``bank_ready`` is random. Rare commands name lines the engine did not propose.
"""

from __future__ import annotations

import random

from hdl.params.owl_prefetch import PrefetchShape


class OwlPrefetchStimulus:
    def __init__(self, shape: PrefetchShape, seed: int, rows: int = 4):
        self.sh, self.rng, self.rows = shape, random.Random(seed), rows
        self.open: list[int | None] = [None] * shape.BANKS
        self.queue: list[tuple[int, int]] = []          # (bank, row), oldest first
        self.last: dict | None = None                   # inputs sent last cycle
        self.busy = True
        self.skipped = False

    def _act(self, prev: dict) -> dict:
        """The command issued on the previous cycle's outputs."""
        rng, sh, last = self.rng, self.sh, self.last
        none = {"cmd_bank": 0, "cmd_act": 0, "cmd_mark": 0, "cmd_line": 0, "cmd_pf": 0}
        if last is None:
            return none
        ready = last["bank_ready"]
        hits = [i for i, (b, r) in enumerate(self.queue) if ready >> b & 1 and self.open[b] == r]
        if hits and rng.random() < 0.9:
            b, _ = self.queue.pop(hits[0])
            return {**none, "cmd_bank": b, "cmd_mark": 1, "cmd_line": rng.randrange(sh.LINES)}
        if prev["pf_valid"] and rng.random() < 0.7:
            b, line = prev["pf_bank"], prev["pf_line"]
            if rng.random() < 0.2:
                self.skipped = True
                return {**none, "cmd_bank": b, "cmd_mark": 1, "cmd_line": line}
            return {**none, "cmd_bank": b, "cmd_mark": 1, "cmd_line": line, "cmd_pf": 1}
        misses = [i for i, (b, r) in enumerate(self.queue) if ready >> b & 1 and self.open[b] != r
                  and (not prev["hold"] >> b & 1 or rng.random() < 0.05)]
        if misses and rng.random() < 0.8:
            b, r = self.queue.pop(misses[0])
            self.open[b] = r
            return {**none, "cmd_bank": b, "cmd_act": 1, "cmd_mark": 1,
                    "cmd_line": rng.randrange(sh.LINES)}
        if rng.random() < 0.01:                     # a write opening a row, or a stray mark
            b = rng.randrange(sh.BANKS)
            if rng.random() < 0.5:
                self.open[b] = rng.randrange(self.rows)
                return {**none, "cmd_bank": b, "cmd_act": 1}
            return {**none, "cmd_bank": b, "cmd_mark": 1, "cmd_line": rng.randrange(sh.LINES)}
        return none

    def next(self, prev: dict | None) -> dict:
        rng, sh = self.rng, self.sh
        self.skipped = False
        cmd = self._act(prev) if prev is not None else self._act({})
        if rng.random() < 0.01:
            self.busy = not self.busy
        rate = 0.5 if self.busy else 0.05
        if rng.random() < rate and len(self.queue) < 120:
            b = rng.randrange(sh.BANKS)
            same = self.open[b] is not None and rng.random() < 0.5
            self.queue.append((b, self.open[b] if same else rng.randrange(self.rows)))
        hit = other = 0
        for b, r in self.queue:
            if self.open[b] == r:
                hit |= 1 << b
            else:
                other |= 1 << b
        ready = rng.getrandbits(sh.BANKS) | rng.getrandbits(sh.BANKS)
        tick = 0 if self.skipped else int(rng.random() < 0.95)
        self.last = {**cmd, "tick": tick, "hit_pending": hit, "other_pending": other,
                     "bank_ready": ready, "q_len": min(len(self.queue), 127)}
        return self.last
