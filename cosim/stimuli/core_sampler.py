"""Closed-loop stimulus for CoreSampler: an SM with in-flight instructions, driven by an SWM.

The SM issues 0-2 warp instructions per cycle unless ``issue_hold`` is high; each stays in
flight for a random latency (ALU-like 4-30 cycles or memory-like 200-600). ``issue_hold`` is
combinational, so the SM asks its own copy of the twin (``CoreSamplerTwin.hold``, the method-level
API the GPU model uses) before issuing, as a real warp scheduler reads the hold line in the
cycle. CTA completions arrive at a random rate; ``cta_limit`` changes now and then.

The SWM side runs the 4-phase pause and sample handshakes with random holding times and now and
then breaks the protocol (drops a sample request mid-window, pauses during a sample).
"""

from __future__ import annotations

import random

from sim.blocks.core_sampler import CoreSamplerTwin


class CoreSamplerStimulus:
    def __init__(self, waves: int, count_bits: int, limit_bits: int, seed: int,
                 p_violate: float = 0.02, **_ignored):
        self.rng = random.Random(seed)
        self.shadow = CoreSamplerTwin(waves, count_bits, limit_bits)
        self.limit_max = (1 << limit_bits) - 1
        self.p_violate = p_violate
        self.pending: list[int] = []      # remaining latency of each in-flight instruction
        self.pause_req = self.sample_req = 0
        self.mode, self.hold_for = "idle", 0
        self.cta_limit = 4
        self.p_cta = 0.05
        self.p_issue = 0.6
        self.pause_acks_with_in_flight = 0

    def _swm(self, prev: dict | None) -> None:
        rng = self.rng
        ack = prev["pause_ack"] if prev else 0
        done = prev["sample_done"] if prev else 0
        if self.mode == "idle":
            if not ack and not done and rng.random() < 0.05:
                self.mode = rng.choice(["pause", "sample", "sample"])
                self.pause_req = int(self.mode == "pause")
                self.sample_req = int(self.mode == "sample")
        elif self.mode == "pause":
            if ack:
                self.mode, self.hold_for = "hold", rng.randint(0, 300)
        elif self.mode == "sample":
            if done:
                self.mode, self.hold_for = "hold", rng.randint(0, 6)
            elif rng.random() < self.p_violate / 100:
                self.sample_req = 0 if rng.random() < 0.5 else self.sample_req
                self.pause_req = 1 - self.sample_req
                self.mode = "hold"
        elif self.mode == "hold":
            self.hold_for -= 1
            if self.hold_for <= 0:
                self.pause_req = self.sample_req = 0
                self.mode = "idle"

    def next(self, prev_out: dict | None) -> dict:
        rng = self.rng
        self._swm(prev_out)
        if rng.random() < 0.002:
            self.cta_limit = rng.randint(0, self.limit_max) if rng.random() < 0.1 else \
                rng.randint(1, min(8, self.limit_max))
            self.p_cta = rng.uniform(0.005, 0.3)
            self.p_issue = rng.uniform(0.1, 1.0)
        for j in range(len(self.pending)):
            self.pending[j] -= 1
        self.pending = [c for c in self.pending if c > 0]
        in_flight = int(bool(self.pending))
        instr = 0
        if not self.shadow.hold(self.pause_req):
            instr = (rng.random() < self.p_issue) + (rng.random() < self.p_issue)
            for _ in range(instr):
                self.pending.append(rng.randint(4, 30) if rng.random() < 0.97 else
                                    rng.randint(200, 600))
        cta_done = int(rng.random() < self.p_cta)
        inputs = {"pause_req": self.pause_req, "sample_req": self.sample_req, "instr": instr,
                  "in_flight": in_flight, "cta_done": cta_done, "cta_limit": self.cta_limit}
        out = self.shadow.step(**inputs)
        if out["pause_ack"] and in_flight:
            self.pause_acks_with_in_flight += 1
        return inputs
