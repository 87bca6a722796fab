"""Mechanisms of GPGPU-Sim 4's pipeline the Accel-Sim configs need (issue 35 item 3): the
write-back slot of BAR/EXIT behind longer ALU ops (units.sync_slot), warps blocked while an
atomic is in flight (sm.blocking_atomics), and L1 misses leaving after the tag pipeline
(l1.miss_after_lookup). Expected cycles derive from the config's latencies."""

from __future__ import annotations

import pytest

from sim.workload.kernel import Instr, Op
from sim_helpers import config, run
from sim_kernels import make_kernel, workload


def cycles(body, preset: str, *overrides: str, **kw) -> int:
    return run(workload(make_kernel("k", body, **kw)), preset, *overrides,
               memory="hierarchy")["cycles"]


def alus_then_bar(k: int, n: int = 20):
    """n rounds of k independent ALU ops and a barrier (one warp: it releases at once)."""
    def body(cta, warp):
        out = []
        for r in range(n):          # destinations rotate over 60 registers: no WAW stalls
            out += [Instr(Op.ALU, dst=(2 + (r * k + i) % 60,), src=(0,)) for i in range(k)]
            out.append(Instr(Op.BAR))
        return out
    return body


def slotted_rounds(k: int, lat: int) -> int:
    """Cycles from round 20 to round 40 of k ALU ops (one per cycle) and a BAR under the rule:
    the BAR enters the pipe at the first cycle x no earlier than the pipe is free such that no
    ALU op was issued at x + 1 − lat, and the pipe is free again at x + 1."""
    issued: set[int] = set()
    starts, t = [], 0
    for _ in range(60):
        starts.append(t)
        for _ in range(k):
            issued.add(t)
            t += 1
        x = t
        while x + 1 - lat in issued:
            x += 1
        t = x + 1
    return starts[40] - starts[20]


@pytest.mark.parametrize("k", [1, 2, 3, 4, 8])
def test_a_barrier_waits_for_a_write_back_slot_behind_longer_alu_ops(k):
    """A BAR (latency 1) may not write back in the cycle of an ALU op issued L − 1 cycles
    before it, and holds the pipe while it waits. Per extra round: the rule's period with the
    mechanism; k + 1 without (one instruction per cycle)."""
    lat = config("titanx").units.alu_latency
    for mode, twenty_rounds in (("true", slotted_rounds(k, lat)), ("false", 20 * (k + 1))):
        extra = (cycles(alus_then_bar(k, 40), "titanx", f"units.sync_slot={mode}")
                 - cycles(alus_then_bar(k, 20), "titanx", f"units.sync_slot={mode}"))
        assert extra == twenty_rounds, (mode, extra)


def test_the_slot_rule_of_one_pipe():
    """ALU ops issued at 0..3 (latency 4, one per cycle) complete at 4..7: a latency-1 op ready
    at 4 can first write back at 8, so it enters at 7 and the pipe is free again at 8; EXIT
    takes the same path (sim.subcore dispatch)."""
    from sim.subcore import Unit
    from sim.warp import ALU
    u = Unit(ALU, 4, 1)
    for t in range(4):
        u.free_at = t + 1
        u.note(t)
    u.take_sync_slot(4)
    assert u.free_at == 8
    v = Unit(ALU, 4, 1)
    v.note(0)
    v.free_at = 1
    v.take_sync_slot(2)                 # 2 + 1 - 4 = -1: no op then; 0 + 3 = 3 ≠ 2: free
    assert v.free_at == 3


def test_other_units_do_not_take_the_alu_slot():
    sfu = lambda c, w: ([Instr(Op.SFU, dst=(2 + i,), src=(0,)) for i in range(3)]
                        + [Instr(Op.BAR)] * 5)
    assert cycles(sfu, "titanx", "units.sync_slot=true") == cycles(sfu, "titanx", "units.sync_slot=false")


def atomic_then_alus(cta, warp):
    lane = tuple(4 * t for t in range(32))
    return [Instr(Op.ATOM, dst=(), src=(0,), addrs=lane)] + \
        [Instr(Op.ALU, dst=(2 + i,), src=(0,)) for i in range(10)]


def test_a_warp_with_an_atomic_in_flight_issues_nothing():
    """Without the mechanism the 10 independent ALU ops issue under the atomic's round trip;
    with it they wait for it, so the warp takes the round trip plus their own issue time."""
    u = config("titanx").units
    free = run(workload(make_kernel("k", atomic_then_alus)), "titanx", "sm.blocking_atomics=false",
               memory="hierarchy")
    blocked = run(workload(make_kernel("k", atomic_then_alus)), "titanx", "sm.blocking_atomics=true",
                  memory="hierarchy")
    assert blocked["cycles"] >= free["cycles"] + 10 * u.alu_ii - 1
    assert blocked["issue"]["memory"] > free["issue"]["memory"]


def one_load(cta, warp):
    lane = tuple(4 * t for t in range(32))
    return [Instr(Op.LDG, dst=(2,), src=(0,), addrs=lane), Instr(Op.ALU, dst=(3,), src=(2,)),
            Instr(Op.LDG, dst=(4,), src=(3,), addrs=lane), Instr(Op.ALU, dst=(5,), src=(4,))]


def test_an_l1_miss_leaves_after_the_tag_pipeline():
    """The first load misses (its request leaves l1.hit_latency later with the mechanism), the
    second hits the filled line (unchanged)."""
    base = ("l1.bypass_global_loads=false", "l1.bypass_unmerged=false", "l2.perfect=true")
    hit = config("titanx", *base).l1.hit_latency
    plain = cycles(one_load, "titanx", *base, "l1.miss_after_lookup=false")
    after = cycles(one_load, "titanx", *base, "l1.miss_after_lookup=true")
    assert after - plain == hit


def same_line_loads(cta, warp):
    lane = tuple(4 * t for t in range(32))
    return [Instr(Op.LDG, dst=(2,), src=(0,), addrs=lane), Instr(Op.ALU, dst=(3,), src=(2,))]


@pytest.mark.parametrize("merge", [0, 2, 4])
def test_an_l2_mshr_takes_at_most_mshr_merge_requests_per_sector(merge):
    """Six warps (on six SMs: one per CTA) load the same line; global loads bypass the L1, so
    six read requests reach the L2 slice. With a limit of m, the first allocates the entry, the
    next m − 1 merge and the rest hold the slice's input until the fill (GPGPU-Sim's
    reservation fail); unlimited, all merge."""
    r = run(workload(make_kernel("k", same_line_loads, grid=(6, 1, 1))), "titanx",
            f"l2.mshr_merge={merge}", memory="hierarchy")
    l2 = r["memory"]["l2"]
    held = 0 if merge == 0 else 6 - merge
    assert l2["merges"] == (5 if merge == 0 else merge - 1)
    assert l2["merge_fails"] == (1 if held else 0)         # counted once per stall of the slice
    # the held requests find the line filled: sector hits
    assert l2["acc_r_hit"] == 4 * held


def one_sector_per_cta(cta, warp):
    """CTA c loads sector c % 4 of one line (all 32 lanes within those 32 bytes)."""
    lane = tuple(32 * (cta % 4) + 4 * (t % 8) for t in range(32))
    return [Instr(Op.LDG, dst=(2,), src=(0,), addrs=lane), Instr(Op.ALU, dst=(3,), src=(2,))]


@pytest.mark.parametrize("merge, held", [(1, 4), (2, 0)])
def test_the_mshr_merge_limit_counts_per_sector(merge, held):
    """Eight CTAs load the line's four sectors, two each: each sector's entry takes two
    requests (GPGPU-Sim keys its MSHRs by sector), so a limit of 2 holds nothing back, a limit
    of 1 holds the second request of each sector until its fill (the slice stalls in order:
    the first hold counts one stall, and the held requests then hit)."""
    r = run(workload(make_kernel("k", one_sector_per_cta, grid=(8, 1, 1))), "titanx",
            f"l2.mshr_merge={merge}", memory="hierarchy")
    l2 = r["memory"]["l2"]
    assert l2["merge_fails"] == (1 if held else 0)
    assert l2["acc_r_hit"] == held
    assert l2["misses"] + l2["merges"] + l2["hits"] == 8
