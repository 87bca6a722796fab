"""Phase-aware warp schedulers ([THESIS §3.4.2.2]): the single-level select and the two-level
ready/active/pending queues (tlrr, tlgto, tlphase) — directed rules on twin and RTL, random
lockstep with the twin as scoreboard, mutants the lockstep must catch."""

import pytest

from cosim.amaranth_backend import run_lockstep_amaranth, run_sequence
from cosim.lockstep import LockstepMismatch
from gpusched.blocks import get_block, parse_params
from sim.blocks.phase_queues import TwoLevelQueuesTwin
from sim.blocks.phase_select import PhaseAwareSelectTwin

LOCKSTEP_CYCLES = 5_000    # random-stimulus lockstep here; the 100k-cycle soaks: gpusched verify

SPEC = get_block("warp_sched")


def _dist(*d):
    return sum(v << (9 * s) for s, v in enumerate(d))


def _grants(outputs):
    return [o["grant_idx"] if o["grant_valid"] else None for o in outputs]


def _both(params, inputs, twin):
    """Grants of the twin and of the RTL (Amaranth simulator) for the same inputs."""
    twin_out = [twin.step(**i) for i in inputs]
    return _grants(twin_out), _grants(run_sequence(SPEC, parse_params(SPEC, params), inputs))


# single level, W = 4: (ready, launch, distances, expected grant)
PHASE_CASE = [
    (0b1111, 0, (40, 12, 30, 12), 1),     # smallest distance 12: slots 1 and 3 tie → older 1
    (0b1101, 0, (40, 12, 30, 12), 3),     # 1 not ready → 3
    (0b0101, 0, (40, 12, 30, 12), 2),     # 30 < 40
    (0b0011, 0b0001, (7, 7, 0, 0), 0),    # tie 7: 0 older than 1 (relaunched at this edge)
    (0b0011, 0, (7, 7, 0, 0), 1),         # now 0 is the youngest: 1 wins the tie
    (0b0000, 0, (0, 0, 0, 0), None),
    (0b1000, 0, (0, 0, 0, 511), 3),       # saturated distance still issues when alone
]


def test_phase_select_smallest_distance_then_oldest():
    inputs = [{"ready": r, "launch": l, "distance": _dist(*d)} for r, l, d, _ in PHASE_CASE]
    twin, rtl = _both({"W": 4, "policy": "phase"}, inputs, PhaseAwareSelectTwin(4))
    assert twin == rtl == [g for *_, g in PHASE_CASE]


def _q(ready=0, valid=0b1111, mem_wait=0, barrier=0, long_out=0, distance=0):
    return {"ready": ready, "launch": 0, "valid": valid, "mem_wait": mem_wait,
            "barrier": barrier, "long_out": long_out, "distance": distance}


def test_queues_demote_to_pending_and_release_only_when_all_long_ops_are_done():
    """W = 4, N = 2. Start-up: all pending; valid warps join the active queue, then one is
    promoted per cycle. Slot 0 waits on a load: demoted to pending; it stays pending while
    ``long_out`` is set, although its ``mem_wait`` has cleared."""
    seq = [_q(), _q(), _q(), _q(ready=0b1111)]
    t = TwoLevelQueuesTwin(4, 2, "tlgto")
    for i in seq:
        t.step(**i)
    assert (t.rq, t.act, t.pend) == (0b0011, 0b1100, 0)
    t.step(**_q(ready=0b1110, mem_wait=0b0001, long_out=0b0001))    # 0 demoted, 2 promoted
    assert (t.rq, t.act, t.pend) == (0b0110, 0b1000, 0b0001)
    for _ in range(3):          # the load the warp waited on is back, another one is not
        assert t.step(**_q(ready=0b0111, long_out=0b0001))["grant_idx"] in (1, 2)
        assert t.pend == 0b0001
    t.step(**_q(ready=0b0110))                                     # all done: released
    assert (t.pend, t.act) == (0, 0b1001)
    inputs = seq + [_q(ready=0b1110, mem_wait=0b0001, long_out=0b0001)] + \
        [_q(ready=0b0111, long_out=0b0001)] * 3 + [_q(ready=0b0110), _q(ready=0b1111)]
    for policy in ("tlrr", "tlgto", "tlphase", "tlphase_rr"):
        twin, rtl = _both({"W": 4, "policy": policy, "N": 2}, inputs,
                          TwoLevelQueuesTwin(4, 2, policy))
        assert twin == rtl
        assert 0 not in twin[4:8]            # never issued while pending


@pytest.mark.parametrize("policy, order", [("tlrr", [2, 1, 3]), ("tlgto", [1, 2, 3]),
                                           ("tlphase", [3, 2, 1]), ("tlphase_rr", [3, 2, 1])])
def test_promotion_takes_the_active_queue_head_under_the_sort_key(policy, order):
    """W = 4, N = 1. Slot 0 enters the ready queue and keeps issuing while 2, then 1, then 3
    leave the pending queue (next-phase lengths 20, 30, 5). Then, three times, the ready warp
    waits (and stays pending: ``long_out``) and the head comes in and issues: tlrr in insertion
    order, tlgto by age (lower slot older at start-up), tlphase by length."""
    d = _dist(0, 30, 20, 5)
    warm = [_q(valid=0b0001, distance=d)] * 2                        # 0 → active → ready
    inserts = [_q(valid=v, ready=0b0001, distance=d) for v in (0b0101, 0b0111, 0b1111)]
    rounds = [_q(mem_wait=0b1111, long_out=0b1111, distance=d),
              _q(ready=0b1110, long_out=0b1111, distance=d)] * 3
    twin, rtl = _both({"W": 4, "policy": policy, "N": 1}, warm + inserts + rounds,
                      TwoLevelQueuesTwin(4, 1, policy))
    assert twin == rtl
    assert twin[:5] == [None, None, 0, 0, 0]
    assert twin[5:] == [None, order[0], None, order[1], None, order[2]]


@pytest.mark.parametrize("policy, w, n", [("phase", 8, 1), ("phase", 16, 1), ("tlrr", 8, 3),
                                          ("tlgto", 8, 3), ("tlphase", 8, 3),
                                          ("tlphase", 12, 6), ("tlphase_rr", 8, 3)])
def test_random_lockstep_5k_cycles(policy, w, n):
    report = run_lockstep_amaranth(SPEC, parse_params(SPEC, {"W": w, "policy": policy, "N": n}),
                                   LOCKSTEP_CYCLES, seed=300 + w + n)
    assert report.cycles == LOCKSTEP_CYCLES and report.mismatches == 0


class EarlyRelease(TwoLevelQueuesTwin):
    """Mutation: the pending queue releases a warp once its next instruction no longer waits
    (``mem_wait`` clear) although long-latency operations are still outstanding."""

    def released(self, valid, long_out, mem_wait, barrier):
        return self.pend & valid & ~mem_wait & ~barrier


class PromoteLowestSlot(TwoLevelQueuesTwin):
    """Mutation: promotion takes the lowest active slot, not the head under the sort key."""

    def head(self, act):
        return (act & -act).bit_length() - 1 if act else -1


class GtoInside(TwoLevelQueuesTwin):
    """Mutation: tlphase_rr issues greedy-then-oldest inside the ready queue (tlphase's rule)."""

    def __init__(self, n_warps, n_ready, policy):
        super().__init__(n_warps, n_ready, policy)
        self.rr_inside = False


class YoungestOnTies(PhaseAwareSelectTwin):
    """Mutation: equal distances go to the youngest warp."""

    def choose(self, inputs):
        self.age = [-a for a in self.age]
        try:
            return super().choose(inputs)
        finally:
            self.age = [-a for a in self.age]


@pytest.mark.parametrize("policy, mutant", [
    ("tlrr", EarlyRelease), ("tlgto", EarlyRelease), ("tlphase", EarlyRelease),
    ("tlgto", PromoteLowestSlot), ("tlphase", PromoteLowestSlot), ("phase", YoungestOnTies),
    ("tlphase_rr", EarlyRelease), ("tlphase_rr", PromoteLowestSlot), ("tlphase_rr", GtoInside)])
def test_lockstep_catches_the_mutant(policy, mutant):
    twin = mutant(8) if policy == "phase" else mutant(8, 3, policy)
    params = parse_params(SPEC, {"W": 8, "policy": policy, "N": 3})
    with pytest.raises(LockstepMismatch, match="mismatch at cycle"):
        run_lockstep_amaranth(SPEC, params, 5_000, seed=11, twin=twin)


def test_parameters_are_checked():
    from gpusched.config import ConfigError
    with pytest.raises(ConfigError, match="N = 9"):
        parse_params(SPEC, {"W": 8, "policy": "tlphase", "N": 9})


@pytest.mark.slow
@pytest.mark.parametrize("policy, w, n", [("phase", 24, 1), ("tlrr", 24, 6), ("tlgto", 24, 6),
                                          ("tlphase", 24, 6)])
def test_random_lockstep_soak_100k_cycles(policy, w, n):
    report = run_lockstep_amaranth(SPEC, parse_params(SPEC, {"W": w, "policy": policy, "N": n}),
                                   100_000, seed=9000 + w + n)
    assert report.cycles == 100_000 and report.mismatches == 0


@pytest.mark.parametrize("policy, expect", [("tlphase", [0, 0, 0, 0, 0, 0]),
                                            ("tlphase_rr", [0, 1, 2, 3, 0, 1])])
def test_inside_the_ready_queue_gto_or_round_robin(policy, expect):
    """W = 4, N = 4, all warps always ready: after start-up (all released, then one promotion a
    cycle) tlphase keeps issuing the greedy warp, tlphase_rr rotates over the ready queue
    (our choice where [THESIS] is silent: GTO or RR inside)."""
    inputs = [_q(ready=0)] * 6 + [_q(ready=0b1111)] * 6
    twin, rtl = _both({"W": 4, "policy": policy, "N": 4}, inputs, TwoLevelQueuesTwin(4, 4, policy))
    assert twin == rtl
    assert twin[6:] == expect
