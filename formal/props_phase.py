"""Invariants of the phase-aware warp schedulers ([THESIS §3.4.2.2]).

PhaseAwareSelect: the warp_sched invariants, and the granted warp has the smallest distance of
the ready warps. TwoLevelQueues (on its internal queue signals): every slot in exactly one
queue, at most N in the ready queue; a warp waiting on a long-latency result (``mem_wait``) is
never in the ready queue and never issues; a warp leaves the pending queue only with no
long-latency operation outstanding; a promotion always takes the active queue's head under the
sort key (tlphase: no active warp has a smaller key; every key: the head is one active warp).
"""

from __future__ import annotations

from amaranth.hdl import Module

from formal.props import PropsTop
from formal.props_warp_sched import WarpSchedProps


def _one_hot_or_zero(v):
    return (v & (v - 1)) == 0


class PhaseSelectProps(WarpSchedProps):
    name = "warp_sched"

    def properties(self, m: Module, dut) -> None:
        super().properties(m, dut)
        from hdl.params.warp_sched import DIST_BITS
        w = len(dut.ready)
        d = [dut.distance[i * DIST_BITS:(i + 1) * DIST_BITS] for i in range(w)]
        for i in range(w):
            for j in range(w):
                if i != j:
                    self.invariant(m, "the grant has the smallest distance of the ready warps",
                                   ~dut.grant[i] | ~dut.ready[j] | (d[i] <= d[j]))


class QueuesProps(PropsTop):
    name = "warp_sched"

    def properties(self, m: Module, dut) -> None:
        q = getattr(dut, "inner", dut)          # the block inside a port-level mutant
        g, w = dut.grant, len(dut.ready)
        self.invariant(m, "at most one grant", _one_hot_or_zero(g))
        self.invariant(m, "a grant only to a ready warp", (g & ~dut.ready) == 0)
        self.invariant(m, "grant_valid iff a grant", dut.grant_valid == g.any())
        self.invariant(m, "grant_idx names the granted slot",
                       ~dut.grant_valid | (g == (1 << dut.grant_idx)[:w]))
        self.invariant(m, "every slot in exactly one queue",
                       ((q.rq & q.act) | (q.rq & q.pend) | (q.act & q.pend)) == 0)
        self.invariant(m, "every slot in exactly one queue", (q.rq | q.act | q.pend).all())
        self.invariant(m, "at most N warps in the ready queue",
                       sum(q.rq[i] for i in range(w)) <= q.n_ready)
        self.invariant(m, "a warp waiting on a long-latency result is never in the ready queue",
                       (q.rq_now & dut.mem_wait) == 0)
        self.invariant(m, "a warp waiting on a long-latency result never issues",
                       (g & dut.mem_wait) == 0)
        self.invariant(m, "a warp leaves the pending queue only when its long-latency "
                          "operations are complete", (q.released & dut.long_out) == 0)
        self.invariant(m, "the active queue has one head", _one_hot_or_zero(q.head)
                       & ((q.head & ~q.act) == 0) & (q.head.any() == q.act.any()))
        self.invariant(m, "a promotion takes the active queue's head",
                       (q.promoted == 0) | (q.promoted == q.head))
        if q.policy in ("tlphase", "tlphase_rr"):
            for i in range(w):
                for j in range(w):
                    if i != j:
                        self.invariant(m, "a promotion takes the smallest key of the active queue",
                                       ~q.promoted[i] | ~q.act[j] | (q.keys[i] <= q.keys[j]))


def early_release_queues(n_warps: int, n_ready: int, policy: str):
    """A pending queue that releases a warp before all its long-latency operations complete
    (as soon as its next instruction no longer waits)."""
    from hdl.phase_queues import TwoLevelQueues

    class EarlyRelease(TwoLevelQueues):
        def _release(self, pend):
            return pend & self.valid & ~self.mem_wait & ~self.barrier
    return EarlyRelease(n_warps, n_ready, policy)
