"""Twin of ``hdl.phase_queues.TwoLevelQueues``: the two-level scheduler of [THESIS §3.4.2.2] with a
ready queue (the fetch group), an active queue and a pending queue; the active queue's sort key
is the policy (tlrr: insertion order, FIFO; tlgto: launch age; tlphase: the length of the phase
the warp resumes in, ties by age, our choice). Same port timing; the rules are the RTL's:

Every warp slot is in exactly one of the three queues; at start-up all are pending. Each cycle,
combinationally:
1. Demote: a ready-queue warp that waits — not ``valid``, ``mem_wait`` (its next instruction
   needs a long-latency result) or ``barrier`` — leaves the ready queue for the pending queue.
2. Release: a warp that was pending at the start of the cycle and is ``valid`` with no
   ``long_out`` (all its long-latency operations complete), no ``mem_wait`` and no ``barrier``
   joins the active queue at the clock edge, with its key (tlphase: its ``distance`` now).
3. Promote: if the ready queue (after 1) has fewer than N warps, the active queue's head under
   the key moves into it at the edge (one promotion per cycle: a hardware choice, the thesis
   gives none).
4. Issue, from the ready queue after 1 only: tlrr and tlphase_rr by loose round-robin over the
   slots after the last issuer, tlgto and tlphase greedy-then-oldest (our choice: GTO inside the
   fetch group; tlphase_rr is our RR alternative, sorted like tlphase).
"""

from __future__ import annotations

from hdl.params.warp_sched import RR_INSIDE, TWO_LEVEL_QUEUES, check_params, granted

from .phase_select import slot_distance
from .warp_sched import WarpSchedulerTwin


class TwoLevelQueuesTwin(WarpSchedulerTwin):
    """Ready / active / pending queues over ``n_warps`` slots, ``n_ready`` ready entries."""

    every_cycle = True

    def __init__(self, n_warps: int, n_ready: int, policy: str):
        check_params(n_warps, policy, n_ready)
        if policy not in TWO_LEVEL_QUEUES:
            raise ValueError(f"policy = {policy!r}: this twin implements "
                             + ", ".join(TWO_LEVEL_QUEUES))
        super().__init__(n_warps)
        self.n_ready, self.policy = n_ready, policy
        self.full = (1 << n_warps) - 1
        self.rq, self.act, self.pend = 0, 0, self.full
        self.seq = list(range(n_warps))         # insertion order into the active queue (tlrr)
        self.next_seq = n_warps
        self.key = [0] * n_warps                # distance captured on insertion (tlphase)
        self.rr_inside = policy in RR_INSIDE
        self.last = n_warps - 1 if self.rr_inside else 0

    # -- the sort key ------------------------------------------------------------------------
    def sort_key(self, w: int) -> tuple:
        if self.policy == "tlrr":
            return (self.seq[w],)
        if self.policy == "tlgto":
            return (self.age[w],)
        return (self.key[w], self.age[w])

    def head(self, act: int) -> int:
        """The active queue's head under the sort key, or -1."""
        best, best_key = -1, None
        while act:
            low = act & -act
            w = low.bit_length() - 1
            k = self.sort_key(w)
            if best_key is None or k < best_key:
                best, best_key = w, k
            act ^= low
        return best

    # -- one cycle ---------------------------------------------------------------------------
    def queues(self, inputs: dict) -> tuple[int, int, int, int]:
        """(ready queue after demotion, demoted, released, promoted one-hot) for these inputs."""
        valid, mem_wait = inputs.get("valid", 0), inputs.get("mem_wait", 0)
        barrier, long_out = inputs.get("barrier", 0), inputs.get("long_out", 0)
        wait = (~valid & self.full) | mem_wait | barrier
        demoted = self.rq & wait
        rq = self.rq & ~wait
        released = self.released(valid, long_out, mem_wait, barrier)
        promoted = 0
        if rq.bit_count() < self.n_ready:
            h = self.head(self.act)
            promoted = 0 if h < 0 else 1 << h
        return rq, demoted, released, promoted

    def released(self, valid: int, long_out: int, mem_wait: int, barrier: int) -> int:
        return self.pend & valid & ~long_out & ~mem_wait & ~barrier

    def step(self, **inputs) -> dict[str, int]:
        """One clock cycle (``choose`` then ``advance``) with the queues worked out once (a
        subclass that redefines either gets the base's step, which calls both)."""
        cls = type(self)
        if cls.choose is not TwoLevelQueuesTwin.choose or cls.advance is not TwoLevelQueuesTwin.advance:
            return super().step(**inputs)
        q = self.queues(inputs)
        g = self.pick(inputs.get("ready", 0) & q[0])
        self.edge(inputs, g, q)
        return granted(g)

    def choose(self, inputs: dict) -> int:
        return self.pick(inputs.get("ready", 0) & self.queues(inputs)[0])

    def pick(self, ready: int) -> int:
        """The slot issued from these ready-queue warps that are ready, or -1."""
        if not ready:
            return -1
        if self.rr_inside:
            upper = ready >> (self.last + 1)
            if upper:
                return self.last + 1 + ((upper & -upper).bit_length() - 1)
            return (ready & -ready).bit_length() - 1
        if ready >> self.last & 1:
            return self.last
        return self.oldest(ready)

    def advance(self, inputs: dict, g: int) -> None:
        self.edge(inputs, g, self.queues(inputs))

    def edge(self, inputs: dict, g: int, q: tuple[int, int, int, int]) -> None:
        """The clock edge for ``queues(inputs)`` = ``q`` and grant ``g``."""
        rq, demoted, released, promoted = q
        self.rq = rq | promoted
        self.act = (self.act & ~promoted) | released
        self.pend = (self.pend & ~released) | demoted
        distance = inputs.get("distance", 0)
        while released:                     # lower slot first among one cycle's insertions
            low = released & -released
            w = low.bit_length() - 1
            self.seq[w] = self.next_seq
            self.next_seq += 1
            self.key[w] = slot_distance(distance, w)
            released ^= low
        if g >= 0:
            self.last = g
        super().advance(inputs, g)
