"""The memory model's fast paths agree with the plain definitions: event order, coalescing,
the stall-watch hook that lets a stalled SM sleep instead of retrying every cycle."""

import random

import pytest

from memdriver import Driver, config, warp_load
from sim.workload.kernel import Op
from sim.memory.coalescer import coalesce
from sim.memory.events import RING, EventQueue


def test_events_run_in_cycle_then_insertion_order():
    ev, log = EventQueue(), []
    for cycle, name in [(5, "a"), (3, "b"), (5, "c"), (3, "d"), (9, "e")]:
        ev.at(cycle, lambda t, n: log.append((t, n)), name)

    def spawn(t, _):                # added while cycle 5 runs: same cycle last, later in order
        log.append((t, "spawn"))
        ev.at(5, lambda t2, n: log.append((t2, n)), "same")
        ev.at(7, lambda t2, n: log.append((t2, n)), "later")
    ev.at(5, spawn)
    assert ev.next_cycle() == 3 and len(ev) == 6
    ev.run_until(6)
    assert log == [(3, "b"), (3, "d"), (5, "a"), (5, "c"), (5, "spawn"), (5, "same")]
    ev.run_until(100)
    assert log[-2:] == [(7, "later"), (9, "e")] and ev.next_cycle() is None and len(ev) == 0


def test_cycles_sharing_a_ring_slot_keep_cycle_then_insertion_order():
    ev, log = EventQueue(), []
    far = 3 + RING                  # shares cycle 3's ring slot: whichever comes second waits
    add = lambda c, n: ev.at(c, lambda t, m: log.append((t, m)), n)     # noqa: E731
    add(far, "far1")
    add(3, "near")
    add(far + RING, "farther")
    ev.at(3, lambda t, _: add(far, "far2"))     # scheduled while cycle 3 runs
    assert len(ev) == 4
    ev.run_until(3)
    add(far, "far3")                # joins cycle `far`'s one bucket, wherever it is
    add(3 + 2 * RING + 1, "after")
    ev.run_until(10 * RING)
    assert log == [(3, "near"), (far, "far1"), (far, "far2"), (far, "far3"),
                   (far + RING, "farther"), (3 + 2 * RING + 1, "after")]
    assert len(ev) == 0 and ev.next_cycle() is None


def test_an_event_for_a_past_cycle_is_refused_while_running():
    ev = EventQueue()
    ev.at(4, lambda t, _: ev.at(2, lambda *a: None))
    with pytest.raises(ValueError, match="cycle 2"):
        ev.run_until(4)


def _reference_coalesce(addrs, size, line_bytes, sector_bytes):
    """Every byte of every access marks its sector; lines in ascending order."""
    lines: dict[int, int] = {}
    for a in addrs:
        for byte in range(a, a + size):
            line = byte - byte % line_bytes
            lines[line] = lines.get(line, 0) | 1 << (byte % line_bytes // sector_bytes)
    return dict(sorted(lines.items()))


def test_coalesce_matches_the_definition():
    rng = random.Random(7)
    for _ in range(3000):
        size = rng.choice([1, 2, 4, 4, 8, 16, 32, 64])
        base, n = rng.randrange(1 << 14), rng.randrange(33)
        kind = rng.randrange(4)
        if kind == 0:       # consecutive elements (the fully coalesced fast path when aligned)
            addrs = tuple(base // size * size + i * size for i in range(n))
        elif kind == 1:
            addrs = tuple(base + i * rng.choice([0, 4, 8, 128]) for i in range(n))
        elif kind == 2:
            addrs = tuple(base + rng.randrange(256) for _ in range(n))
        else:
            addrs = tuple(rng.sample(range(base, base + 4 * n), n))
        got = coalesce(addrs, size, 128, 32)
        want = _reference_coalesce(addrs, size, 128, 32)
        assert got == want, (addrs, size)
        if size <= 32:      # wider accesses list lines in first-touch order
            assert list(got) == list(want), (addrs, size)


def test_stall_watch_fires_when_an_mshr_frees():
    drv = Driver(config("tiny", l1={"mshrs": 2}))
    calls = []
    drv.mem.watch_stalls(0, lambda: calls.append(drv.now))
    for k in range(2):
        drv.issue(0, warp_load(k * 4096), k)
    third = warp_load(3 * 4096)
    assert not drv.mem.issue(drv.now, 0, third, "third")        # MSHRs full
    stalls = drv.mem.l1s[0].stalls
    assert not drv.mem.issue(drv.now, 0, third, "third")        # nothing changed: refused at
    assert drv.mem.l1s[0].stalls == stalls                      # once, not counted again
    calls.clear()
    drv.wait(0)
    assert calls, "no stall_changed call although an MSHR was freed"
    assert drv.mem.issue(drv.now, 0, third, "third")


def test_a_load_refused_on_mshrs_then_held_by_the_queue_wakes_when_the_queue_moves():
    """The MSHRs free while stores keep the injection queue full: the refused load now waits on
    the queue, and the queue draining must wake the SM (it once slept for ever: bfs_sdk on owl)."""
    drv = Driver(config("tiny", l1={"mshrs": 2}, icnt={"inject_queue": 4}))
    mem, l1 = drv.mem, drv.mem.l1s[0]
    calls = []
    mem.watch_stalls(0, lambda: calls.append(drv.now))
    for k in range(2):
        drv.issue(0, warp_load(k * 4096), f"load{k}")
    wide = warp_load(8 * 4096, stride=128, threads=3)                # 3 lines, 3 new MSHRs
    assert not mem.issue(drv.now, 0, wide, "wide") and l1.refused_on_mshrs
    n = 0
    while "load0" not in drv.done or "load1" not in drv.done:       # stores fill the queue,
        if l1.queue_room(1):                                        # never refused themselves
            assert mem.issue(drv.now, 0, warp_load(64 * 4096 + n * 128, op=Op.STG), f"store{n}")
            n += 1
        drv.advance(drv.now + 1)
    assert l1.mshrs_used() == 0 and mem.up.src_waiting[0] + 3 > 4    # queue-bound now
    calls.clear()
    while mem.up.src_waiting[0]:
        drv.advance(drv.now + 1)
    assert calls, "the queue drained but the refused load's SM was never woken"
    assert mem.issue(drv.now, 0, wide, "wide")
