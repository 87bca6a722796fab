"""Two-level warp scheduler with ready, active and pending queues ([THESIS §3.4.2.2]
``TwoLevelQueues``) on the warp-scheduler port (hdl/params/warp_sched.py; twin and the rules:
sim/blocks/phase_queues.py).

One template, the active queue's sort key a parameter: ``tlrr`` insertion order (FIFO),
``tlgto`` launch age, ``tlphase`` and ``tlphase_rr`` the distance captured when the warp left
the pending queue (the length of the phase it resumes in), ties by age. Inside the ready queue
``tlrr`` and ``tlphase_rr`` issue by loose round-robin, ``tlgto`` and ``tlphase`` by GTO
([THESIS] leaves the in-queue choice open; ``tlphase_rr`` is its RR alternative). The queues are bit
vectors (``rq``, ``act``, ``pend``: every slot in exactly one); the active queue is kept unsorted
and its head is a min-select under the key when a ready entry is free (a bitmask plus a min-select
at promotion time), which needs W(W-1)/2 comparisons of the key but no shifting.
Per-slot state: tlrr an insertion-order matrix, tlphase a 9-bit key register; all keep the age
matrix (GTO inside the ready queue, tie-break of tlphase).
"""

from __future__ import annotations

from amaranth.hdl import Const, Module, Mux, Signal
from amaranth.lib import wiring

from hdl.params.warp_sched import (DIST_BITS, RR_INSIDE, TWO_LEVEL_QUEUES, check_params, idx_width,
                                   ports)

from .common import first_one_hot, one_hot_index, prefix_or, signature_of
from .phase_select import distance_fields, min_select, order_matrix


class TwoLevelQueues(wiring.Component):
    """Ready (``n_ready`` entries) / active / pending queues over ``n_warps`` slots."""

    def __init__(self, n_warps: int, n_ready: int, policy: str):
        check_params(n_warps, policy, n_ready)
        if policy not in TWO_LEVEL_QUEUES:
            raise ValueError(f"policy = {policy!r}: this block implements "
                             + ", ".join(TWO_LEVEL_QUEUES))
        self.n_warps, self.n_ready, self.policy = n_warps, n_ready, policy
        super().__init__(signature_of(ports(n_warps)))
        w = n_warps
        # internal signals the properties read (formal/props_phase.py)
        self.rq_now = Signal(w, name="rq_now")        # the ready queue after demotion
        self.rq = Signal(w, name="rq")                # the ready queue (registered)
        self.act = Signal(w, name="act")              # the active queue (registered)
        self.pend = Signal(w, name="pend", init=(1 << w) - 1)   # the pending queue
        self.keys = [Signal(DIST_BITS, name=f"key_{i}") for i in range(w)]   # tlphase(_rr)
        self.released = Signal(w, name="released")    # pending → active at this edge
        self.head = Signal(w, name="head")            # the active queue's head under the key
        self.promoted = Signal(w, name="promoted")    # active → ready at this edge

    def elaborate(self, platform):
        m = Module()
        w = self.n_warps
        rq, act = self.rq, self.act
        rq_now, released, promoted = self.rq_now, self.released, self.promoted
        pend = self.pend
        rr_inside = self.policy in RR_INSIDE
        last = Signal(idx_width(w), name="last", init=w - 1 if rr_inside else 0)

        wait = Signal(w)
        m.d.comb += [
            wait.eq(~self.valid | self.mem_wait | self.barrier),
            rq_now.eq(rq & ~wait),
            released.eq(self._release(pend)),
        ]

        age = order_matrix(m, self.launch, w, "age")
        m.d.comb += self.head.eq(min_select(m, act, w, self._key_order(m, age, released), "head"))
        n_in_rq = sum((rq_now[i] for i in range(w)), Const(0, w.bit_length()))
        m.d.comb += promoted.eq(Mux(n_in_rq < self.n_ready, self.head, 0))

        ready = Signal(w)
        m.d.comb += ready.eq(self.ready & rq_now)
        last_hot = Signal(w)
        m.d.comb += last_hot.eq(1 << last)
        grant = self._lrr(m, ready, last_hot) if rr_inside else \
            self._gto(m, ready, last_hot, age)
        m.d.comb += [
            self.grant.eq(grant),
            self.grant_valid.eq(ready.any()),
            self.grant_idx.eq(one_hot_index(m, grant, w, "grant_idx_enc")),
        ]
        m.d.sync += [
            rq.eq(rq_now | promoted),
            act.eq((act & ~promoted) | released),
            pend.eq((pend & ~released) | (rq & wait)),
        ]
        with m.If(self.grant_valid):
            m.d.sync += last.eq(self.grant_idx)
        return m

    def _release(self, pend: Signal):
        """Pending warps that join the active queue at this edge: all long-latency operations
        complete, the next instruction not waiting, not at a barrier."""
        return pend & self.valid & ~self.long_out & ~self.mem_wait & ~self.barrier

    def _key_order(self, m: Module, age: list, released: Signal):
        """``first(i, j)``: slot i before slot j in the active queue under the policy's key."""
        w = self.n_warps
        if self.policy == "tlgto":
            return lambda i, j: age[j][i]
        if self.policy == "tlrr":
            seq = order_matrix(m, released, w, "ins")
            return lambda i, j: seq[j][i]
        key = self.keys
        for i, d in enumerate(distance_fields(self, w)):
            with m.If(released[i]):
                m.d.sync += key[i].eq(d)
        return lambda i, j: (key[i] < key[j]) | ((key[i] == key[j]) & age[j][i])

    def _lrr(self, m: Module, ready: Signal, last_hot: Signal) -> Signal:
        """First ready slot strictly after ``last``, else the first ready slot."""
        w = self.n_warps
        seen = prefix_or(m, last_hot, w, "upto_last")
        upper = Signal(w)
        m.d.comb += upper.eq(ready & (seen << 1)[:w])
        grant = Signal(w)
        m.d.comb += grant.eq(Mux(upper.any(), first_one_hot(m, upper, w, "pick_upper"),
                                 first_one_hot(m, ready, w, "pick_any")))
        return grant

    def _gto(self, m: Module, ready: Signal, last_hot: Signal, age: list) -> Signal:
        """The greedy slot if ready, else the oldest ready slot."""
        w = self.n_warps
        oldest = min_select(m, ready, w, lambda i, j: age[j][i], "oldest")
        grant = Signal(w)
        m.d.comb += grant.eq(Mux((ready & last_hot).any(), last_hot, oldest))
        return grant
