"""Structural-stall retries between the SM and a memory system with ``watch_stalls``.

A scripted memory refuses every access until ``OPEN``; from then on it takes only warp 0's
accesses until ``ALL``. So at ``OPEN`` the SM's retry pass gets warp 0's load accepted while
warp 1's LD/ST unit (the other sub-core) stays refused. Warp 0's next load must then be offered
one LD/ST initiation interval later, not only when the memory next changes (a stale wake-up
left the SM asleep after such a partial retry until ``ALL``).
"""

from __future__ import annotations

from sim.workload.kernel import Instr, Op

from sim_helpers import config, run
from sim_kernels import make_kernel, workload

OPEN, ALL, LATENCY = 20, 60, 5


class ScriptedMemory:
    """Refuses all before OPEN, all but warp 0 before ALL; loads complete LATENCY later."""

    def __init__(self):
        self.offers: list[tuple[int, int, bool]] = []     # (cycle, warp slot, accepted)
        self.done: list[tuple[int, object]] = []
        self.watchers: dict = {}
        self.callbacks: dict = {}
        self.now = -1

    def connect(self, sm_id, on_complete):
        self.callbacks[sm_id] = on_complete

    def watch_stalls(self, sm_id, fn):
        self.watchers[sm_id] = fn

    def issue(self, now, sm_id, instr, token):
        warp = token[0].slot
        ok = now >= ALL or (now >= OPEN and warp == 0)
        self.offers.append((now, warp, ok))
        if ok:
            self.done.append((now + LATENCY, (sm_id, token)))
        return ok

    def tick(self, now):
        self.now = now
        if now in (OPEN, ALL):
            for fn in self.watchers.values():
                fn()
        due = [d for d in self.done if d[0] <= now]
        self.done = [d for d in self.done if d[0] > now]
        for cycle, (sm_id, token) in due:
            self.callbacks[sm_id](token, now)

    def next_event(self):
        times = [t for t in (OPEN, ALL) if t > self.now] + [d[0] for d in self.done]
        return min(times) if times else None

    def kernel_boundary(self, now, finished, next_kernel):
        pass

    def busy(self):
        return bool(self.done)

    def stats(self):
        return {}


def _loads(warp: int) -> list[Instr]:
    base = warp << 16
    return [Instr(Op.LDG, dst=(2 + i,), src=(1,), addrs=tuple(range(base + i * 128, base + i * 128 + 128, 4)))
            for i in range(3)]


def test_a_partly_accepted_retry_lets_the_accepted_unit_issue_again():
    cfg = config("tiny", "sm.count=1")
    assert cfg.sm.subcores == 2 and not cfg.units.ldst_shared     # one LD/ST unit per warp here
    mem = ScriptedMemory()
    kernel = make_kernel("two_warps", lambda cta, w: _loads(w), block=(64, 1, 1))
    run(workload(kernel), "tiny", "sm.count=1", memory=mem)
    warp0 = [c for c, w, ok in mem.offers if w == 0 and ok]
    assert warp0[0] == OPEN
    # the second load issues one LD/ST interval after the first was taken (plus the issue stage)
    assert warp0[1] <= OPEN + cfg.units.ldst_ii + 1, mem.offers
    assert warp0[1] < ALL
    assert [ok for c, w, ok in mem.offers if w == 1 and c < ALL] and \
        not any(ok for c, w, ok in mem.offers if w == 1 and c < ALL)
