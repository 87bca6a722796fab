"""ck_dispatch (hdl/ck_dispatch.py, sim/blocks/ck_dispatch.py; [THESIS §5.4]): the three
policies on hand-made sequences, the two properties over random traffic, the RTL in random
lockstep with the twin, and a mutant of each caught."""

from __future__ import annotations

import dataclasses

import pytest

from cosim.amaranth_backend import run_lockstep_amaranth
from cosim.lockstep import LockstepMismatch
from cosim.stimuli.ck_dispatch import CkDispatchStimulus
from gpusched.blocks import get_block, parse_params
from sim.blocks.ck_dispatch import CkDispatchTwin

LOCKSTEP_CYCLES = 5_000    # random-stimulus lockstep here; the 100k-cycle soaks: gpusched verify

SMALL = {"K": 4, "NC": 3, "BW": 8, "MW": 3}


def rows(tw: CkDispatchTwin, c: int) -> list[int]:
    return [k for k in range(tw.K) if tw.allowed(c, k)]


def test_interleaved_shares_every_core_then_shifts_to_the_longer_kernel():
    tw = CkDispatchTwin(4, 2, policy="interleaved")
    add = tw.launch(blocks=3, full=8, share=4)
    stream = tw.launch(blocks=100, full=8, share=4)
    assert (add, stream) == (0, 1) and rows(tw, 0) == rows(tw, 1) == [0, 1]
    for _ in range(4):
        tw.issue(1, stream)
    assert tw.cap(stream) == 4 and not tw.allowed(1, stream)        # per-(core, kernel) max
    for c in (0, 0, 1):
        tw.issue(c, add)
    assert tw.cap(stream) == 8 and tw.allowed(1, stream)            # the shift: add fully issued
    tw.done(1, add)
    tw.done(0, add)
    assert tw.completes() == []                                      # one CTA of add still on core 0
    tw.done(0, add)
    assert tw.completes() == [add] and not tw.rows[add].valid


def test_baseline_deals_cores_round_robin_and_drains_before_switching():
    tw = CkDispatchTwin(4, 3, policy="baseline")
    a = tw.launch(blocks=2, full=8, share=4)
    b = tw.launch(blocks=50, full=8, share=4)
    assert [rows(tw, c) for c in range(3)] == [[a], [b], [a]]
    tw.issue(0, a)
    tw.issue(2, a)                                                    # a fully issued: all cores → b
    assert rows(tw, 1) == [b] and rows(tw, 0) == [] and rows(tw, 2) == []
    tw.done(0, a)
    assert rows(tw, 0) == [b]                                         # drained: now takes b


def test_sequential_serves_the_oldest_kernel_and_lets_tails_overlap():
    tw = CkDispatchTwin(4, 2, policy="sequential")
    tw.launch(blocks=1, full=8, share=4)
    tw.launch(blocks=5, full=8, share=4)
    assert rows(tw, 0) == [0]
    tw.issue(0, 0)
    assert rows(tw, 0) == [1] and rows(tw, 1) == [1]                  # left-over: core 0 holds 0 too


def test_launch_fails_when_the_ksb_is_full():
    tw = CkDispatchTwin(2, 2)
    assert tw.launch(5, 4, 2) == 0 and tw.launch(5, 4, 2) == 1
    assert tw.launch(5, 4, 2) is None
    out = tw.step(launch_valid=1, launch_blocks=3, launch_full=2, launch_share=1)
    assert out["launch_ok"] == 0


class OffByOne(CkDispatchTwin):
    """Mutant: a core may take one CTA more than its per-kernel maximum."""

    def allowed(self, c: int, k: int) -> bool:
        r = self.rows[k]
        if r.left() and self.count[c][k] == self.cap(k) and self.cap(k):
            return True
        return super().allowed(c, k)


def check_properties(twin_cls, policy: str, cycles: int = 20_000, seed: int = 5) -> dict:
    """Drive the twin with the random stimulus and check, independently of its code: a core never
    holds more CTAs of a kernel than the max_blocks it was given when it took the last one; a row
    pulses complete exactly in the cycle the last CTA of a fully issued kernel leaves its last core."""
    K, NC, MW = SMALL["K"], SMALL["NC"], SMALL["MW"]
    tw = twin_cls(**SMALL, policy=policy)
    stim = CkDispatchStimulus(*SMALL.values(), seed)
    held = [[0] * K for _ in range(NC)]
    issued, grid, live = [0] * K, [0] * K, [False] * K
    seen = {"launch_fail": 0, "complete": 0, "refused": 0, "issued": 0}
    prev = None
    for _ in range(cycles):
        ins = stim.next(prev)
        out = tw.step(**ins)
        caps = [out["max_blocks"] >> (k * MW) & ((1 << MW) - 1) for k in range(K)]
        if ins["issue_valid"] and out["issue_ok"]:
            c, k = ins["issue_core"], ins["issue_k"]
            held[c][k] += 1
            issued[k] += 1
            seen["issued"] += 1
            assert held[c][k] <= caps[k], f"core {c} holds {held[c][k]} CTAs of row {k} > {caps[k]}"
        elif ins["issue_valid"]:
            seen["refused"] += 1
        if ins["done_valid"]:
            held[ins["done_core"]][ins["done_k"]] -= 1
        for k in range(K):
            due = live[k] and issued[k] == grid[k] and all(held[c][k] == 0 for c in range(NC))
            assert bool(out["complete"] >> k & 1) == due, f"row {k}: complete {out['complete']}"
            if due:
                live[k] = False
                seen["complete"] += 1
        if ins["launch_valid"]:
            if out["launch_ok"]:
                k = out["launch_row"]
                live[k], issued[k], grid[k] = True, 0, ins["launch_blocks"]
            else:
                seen["launch_fail"] += 1
        prev = out
    return seen


@pytest.mark.parametrize("policy", ["baseline", "sequential", "interleaved"])
def test_properties_over_random_traffic(policy):
    seen = check_properties(CkDispatchTwin, policy)
    assert min(seen.values()) > 10, seen      # every event kind exercised


def test_the_property_check_catches_the_cap_mutant():
    with pytest.raises(AssertionError, match="CTAs of row"):
        check_properties(OffByOne, "interleaved")


@pytest.mark.parametrize("policy", ["baseline", "sequential", "interleaved"])
def test_lockstep_amaranth(policy):
    spec = get_block("ck_dispatch")
    rep = run_lockstep_amaranth(spec, parse_params(spec, {**SMALL, "policy": policy}), LOCKSTEP_CYCLES, 3)
    assert rep.cycles == LOCKSTEP_CYCLES


def test_lockstep_catches_the_cap_mutant_twin_and_rtl():
    from hdl.ck_dispatch import CkDispatch
    spec = get_block("ck_dispatch")
    p = parse_params(spec, {**SMALL, "policy": "interleaved"})
    with pytest.raises(LockstepMismatch):
        run_lockstep_amaranth(spec, p, 5_000, 3, twin=OffByOne(**SMALL, policy="interleaved"))
    bad = dataclasses.replace(spec, make_rtl=lambda q: CkDispatch(*SMALL.values(), policy="interleaved",
                                                                  cap_off_by_one=True))
    with pytest.raises(LockstepMismatch):
        run_lockstep_amaranth(bad, p, 5_000, 3)
