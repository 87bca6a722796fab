"""Closed-loop random stimulus for ``ck_dispatch``: a host that launches kernels (also into a
full KSB), a dispatcher that places CTAs where last cycle's ``allow`` said (so stale choices test
the refusal) and cores that complete random resident CTAs."""

from __future__ import annotations

import random


class CkDispatchStimulus:
    def __init__(self, K: int, NC: int, BW: int, MW: int, seed: int):
        self.K, self.NC, self.BW, self.MW = K, NC, BW, MW
        self.rng = random.Random(seed)
        self.count = [[0] * K for _ in range(NC)]      # mirror of the CSB counts
        self.last: dict = {}

    def next(self, prev: dict | None) -> dict:
        rng, K, NC = self.rng, self.K, self.NC
        last = self.last
        if prev is not None and last.get("issue_valid") and prev["issue_ok"]:
            self.count[last["issue_core"]][last["issue_k"]] += 1
        if last.get("done_valid") and last["done_core"] < NC:
            self.count[last["done_core"]][last["done_k"]] -= 1
        ins = {"launch_valid": 0, "launch_kid": 0, "launch_blocks": 0, "launch_full": 0, "launch_share": 0,
               "issue_valid": 0, "issue_core": 0, "issue_k": 0, "done_valid": 0, "done_core": 0, "done_k": 0}
        top = (1 << self.MW) - 1
        if rng.random() < 0.06:
            full = rng.randint(1, top)
            blocks = rng.choice((0, 1, 2)) if rng.random() < 0.1 else rng.randint(1, 4 * NC * full)
            if rng.random() < 0.02:
                blocks = rng.randrange(1 << self.BW)
            ins.update(launch_valid=1, launch_kid=rng.randrange(256), launch_blocks=blocks,
                       launch_full=full, launch_share=rng.randint(0 if rng.random() < 0.05 else 1, full))
        allow = prev["allow"] if prev else 0
        if allow and rng.random() < 0.8:
            bits = [i for i in range(NC * K) if allow >> i & 1]
            i = rng.choice(bits)
            ins.update(issue_valid=1, issue_core=i // K, issue_k=i % K)
        elif rng.random() < 0.05:          # a CTA the block should refuse
            ins.update(issue_valid=1, issue_core=rng.randrange(1 << max(1, (NC - 1).bit_length())),
                       issue_k=rng.randrange(K))
        held = [(c, k) for c in range(NC) for k in range(K) if self.count[c][k]]
        if held and rng.random() < 0.45:
            c, k = rng.choice(held)
            ins.update(done_valid=1, done_core=c, done_k=k)
        self.last = ins
        return ins
