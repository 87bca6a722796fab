"""Interconnect crossbar: per-port bandwidth, latency, round-robin fairness between sources."""

import math

from sim.memory.events import EventQueue
from sim.memory.icnt import Crossbar


def run(n_src, packets_per_src, nbytes, latency=8, bw=32):
    ev = EventQueue()
    arrivals = []
    xbar = Crossbar(ev, n_src, 1, latency, bw, lambda t, p: arrivals.append((t, p)))
    for k in range(packets_per_src):
        for s in range(n_src):
            xbar.send(0, s, 0, nbytes, (s, k))
    while ev.next_cycle() is not None:
        ev.run_until(ev.next_cycle())
    return arrivals


def test_round_robin_and_bandwidth():
    n_src, per, nbytes, latency, bw = 3, 4, 64, 8, 32
    arrivals = run(n_src, per, nbytes, latency, bw)
    flits = math.ceil(nbytes / bw)
    # one packet every `flits` cycles, sources in turn, each arriving flits − 1 + latency later
    assert [p for _, p in arrivals] == [(s, k) for k in range(per) for s in range(n_src)]
    assert [t for t, _ in arrivals] == [i * flits + flits - 1 + latency
                                        for i in range(n_src * per)]


def test_idle_port_has_pure_latency():
    (t, _), = run(1, 1, 8, latency=5, bw=32)
    assert t == 5


def fifo_vs_voq(fifo: bool, latency=5, bw=32):
    """Source 1 holds port 0 for 4 cycles; source 0 then offers A (port 0) and B (idle port 1)."""
    ev = EventQueue()
    arrivals = {}
    xbar = Crossbar(ev, 2, 2, latency, bw, lambda t, p: arrivals.__setitem__(p, t), fifo_inputs=fifo)
    xbar.send(0, 1, 0, 4 * bw, "long")
    xbar.send(0, 0, 0, bw, "A")
    xbar.send(0, 0, 1, bw, "B")
    while ev.next_cycle() is not None:
        ev.run_until(ev.next_cycle())
    return arrivals


def test_fifo_inputs_block_behind_the_head_packet():
    voq, fifo = fifo_vs_voq(False), fifo_vs_voq(True)
    # A waits for port 0 either way: starts at 4, arrives 4 + 1 - 1 + 5
    assert voq["A"] == fifo["A"] == 9 and voq["long"] == fifo["long"] == 8
    assert voq["B"] == 5                       # its own queue: starts at once on the idle port
    assert fifo["B"] == 10                     # behind A (head-of-line), after A's flit has left


def test_fifo_inputs_send_one_flit_per_cycle_per_source():
    ev = EventQueue()
    arrivals = []
    xbar = Crossbar(ev, 1, 3, 0, 32, lambda t, p: arrivals.append((p, t)), fifo_inputs=True)
    for dst in range(3):                       # three idle ports, 2 flits each
        xbar.send(0, 0, dst, 64, dst)
    while ev.next_cycle() is not None:
        ev.run_until(ev.next_cycle())
    assert arrivals == [(0, 1), (1, 3), (2, 5)]   # starts 0, 2, 4: the source's link in turn
    assert xbar.src_waiting == [0]


def test_fifo_inputs_round_robin_between_sources_at_one_port():
    ev = EventQueue()
    order = []
    xbar = Crossbar(ev, 3, 1, 8, 32, lambda t, p: order.append(p), fifo_inputs=True)
    for k in range(3):
        for s in range(3):
            xbar.send(0, s, 0, 32, (s, k))
    while ev.next_cycle() is not None:
        ev.run_until(ev.next_cycle())
    assert order == [(s, k) for k in range(3) for s in range(3)]
