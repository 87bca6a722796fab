"""The L2 slice's bounded input queue (l2.input_queue, GPGPU-Sim's icnt-to-L2 queue): a slice that
holds back so many requests that a line's sectors would not fit refuses the interconnect, and the
packets for it wait in the network, holding back (with in-order inputs) their sources' later
packets to other slices."""

from __future__ import annotations

import pytest

from memdriver import Driver, config, warp_load
from sim.memory.events import EventQueue
from sim.memory.icnt import Crossbar
from sim.workload.kernel import Op


def held_port_arrivals(fifo: bool, release: int, latency: int = 5, bw: int = 32) -> dict:
    """Port 0 held from cycle 0 to ``release``; source 0 offers A (port 0), then B (port 1)."""
    ev = EventQueue()
    arrivals: dict = {}
    xbar = Crossbar(ev, 1, 2, latency, bw, lambda t, p: arrivals.__setitem__(p, t), fifo_inputs=fifo)
    xbar.hold(0, 0, True)
    xbar.send(0, 0, 0, bw, "A")
    xbar.send(0, 0, 1, bw, "B")
    ev.at(release, lambda now, _: xbar.hold(now, 0, False))
    while ev.next_cycle() is not None:
        ev.run_until(ev.next_cycle())
    return arrivals


@pytest.mark.parametrize("fifo", [False, True])
def test_a_held_port_starts_nothing_until_released(fifo):
    release, latency = 40, 5
    arrivals = held_port_arrivals(fifo, release, latency)
    assert arrivals["A"] == release + latency              # one flit, sent at the release
    # per-port queues: B's port is idle, it goes at once; in-order inputs: B waits behind A
    assert arrivals["B"] == (release + 1 + latency if fifo else latency)


HOT, FAR = 0x4000, 0x4000 + 128 * 5     # two lines; FAR's slice is found below
SECTORS = 4                              # 128-byte lines of 32-byte sectors (titanx)


def setup(queue: int, fifo: bool):
    """titanx with one request per MSHR sector (the second on a pending sector holds the
    slice), a slow DRAM (the hold lasts), short network legs and tag stage."""
    return config("titanx", l2={"mshr_merge": 1, "input_queue": queue, "hit_latency": 1},
                  icnt={"latency": 2, "fifo_inputs": fifo}, dram={"controller_latency": 2000,
                                                                 "partition_map": "modulo"})


def far_line(drv: Driver) -> int:
    """A line in another DRAM channel than HOT's (so the hot miss does not delay it)."""
    m = drv.mem.map
    for k in range(1, 64):
        line = HOT + 128 * k
        if m.slice_of(line) // m.spc != m.slice_of(HOT) // m.spc:
            return line
    raise AssertionError("no line in another channel")


def hot_then_far(queue: int, fifo: bool, n_hot: int) -> tuple[int, int, int]:
    """SM 1 first brings a line of another channel into the L2 (FAR, later an L2 hit). Then SM 0
    sends ``n_hot`` one-sector atomics to HOT; 100 cycles later SM 1 sends one more to HOT, then
    loads FAR. (cycles from SM 0's first atomic to SM 1's load's completion and to that atomic's
    completion, and the load's latency when SM 0 sends nothing)."""
    cfg = setup(queue, fifo)
    runs = []
    for hot in (0, n_hot):
        drv = Driver(cfg)
        far = far_line(drv)
        drv.issue(1, warp_load(far), "warm")
        t0 = drv.wait("warm")
        drv.drain()
        for i in range(hot):
            drv.issue(0, warp_load(HOT, stride=0, op=Op.ATOM), i)
        drv.advance(t0 + 100)
        drv.issue(1, warp_load(HOT, stride=0, op=Op.ATOM), "a1")
        drv.issue(1, warp_load(far), "ld")
        drv.drain()
        runs.append((drv.done["ld"] - t0, drv.done.get(0, t0) - t0))
    (unloaded, _), (done, first) = runs
    return done, first, unloaded - 100


@pytest.mark.parametrize("fifo", [False, True])
def test_a_full_input_queue_holds_the_network(fifo):
    """Queue 8: the slice refuses the network once it holds 8 − (4 − 1) = 5 sectors. SM 0's
    20 atomics behind the pending one fill it, so SM 1's atomic waits in the network until the
    hot sector's fill; with in-order inputs SM 1's load waits behind it, so it completes only
    after the first atomic (the fill), its own unloaded latency later at the earliest. With
    per-port queues, or an unbounded queue, the load goes at once: its unloaded latency."""
    done, first, unloaded = hot_then_far(8, fifo, 21)
    if fifo:
        assert done > first and done - first >= unloaded - 2
    else:
        assert done == 100 + unloaded < first
    done, first, unloaded = hot_then_far(0, fifo, 21)
    assert done == 100 + unloaded < first


def test_the_slice_refuses_at_a_line_short_of_its_queue():
    """GPGPU-Sim's full(SECTOR_CHUNCK_SIZE): with a queue of q, the slice refuses once it holds
    q − (sectors − 1) sector requests. The atomic after the pending one holds the slice, every
    later one queues behind it: q − 3 atomics behind the pending one fill it, one fewer not."""
    q = 8
    for behind, refused in ((q - SECTORS, False), (q - SECTORS + 1, True)):
        drv = Driver(setup(q, True))
        for i in range(1 + behind):
            drv.issue(0, warp_load(HOT, stride=0, op=Op.ATOM), i)
        drv.advance(100)
        sl = drv.mem.slices[drv.mem.map.slice_of(HOT)]
        assert sl.refusing == refused and drv.mem.up.ports[sl.index].held == refused
        drv.drain()
        assert len(drv.done) == 1 + behind      # every atomic completes after the fill
