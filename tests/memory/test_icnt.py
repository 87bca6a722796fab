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
