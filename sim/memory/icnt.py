"""SM ↔ L2 interconnect: one crossbar per direction (a fixed-latency, bandwidth-limited crossbar:
our choice where [OWL] is silent; GPGPU-Sim's built-in xbar, [GPGPU-Sim gpu-cache.cc]).

Each destination port (an L2 slice for requests, an SM for replies) accepts ``bytes_per_cycle``
bytes per cycle. Packets waiting for a port sit in per-source queues (virtual output queues, so a
busy slice never blocks an SM's packets to another slice) and the port serves the sources in
round-robin order, one whole packet at a time. A packet of B bytes holds its port for
ceil(B / bytes_per_cycle) cycles and arrives ``latency`` cycles after its last flit was sent:

    arrival = start + ceil(B / bytes_per_cycle) - 1 + latency

Sources are not bandwidth-limited on their own side (choice: the destination is where SMs
contend). The crossbar calls ``deliver(arrival_cycle, payload)`` when the packet starts, so the
receiver schedules its own event and no per-hop event is needed.

``fifo_inputs`` (``icnt.fifo_inputs``): each source instead has one in-order input queue, as a
router with one virtual channel per input (GPGPU-Sim's Booksim config ``num_vcs = 1``,
``input_speedup = 1``): only a source's head packet competes for its port, so a packet waiting
for a busy port holds back the source's later packets to idle ones (head-of-line blocking), and a
source sends one flit per cycle, its next packet becoming head when the last flit has left.

``hold(now, dst, True)`` stops a destination port: it starts no packet until ``hold(now, dst,
False)``, its waiting packets staying in their queues (and, with ``fifo_inputs``, holding back
their sources' later packets). The L2 slices hold their port while their input queue is full
(``l2.input_queue``), so a stalled slice backs up into the network and the SMs.

A packet whose payload is ``None`` only occupies the network (ports, queues, statistics) and is
delivered to nobody: the hierarchy sends the leading sectors of a per-sector read request
(``icnt.sector_requests``) that way, the request itself travelling with the last sector.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Callable

from .events import EventQueue, nothing


class _Port:
    __slots__ = ("queues", "rr", "free_at", "waiting", "wake_pending", "heads", "held")

    def __init__(self, n_src: int):
        self.queues: list[deque[tuple[int, int, Any]]] = [deque() for _ in range(n_src)]
        self.heads: list[int] = []     # fifo_inputs: sources whose head packet waits for this port
        self.rr = 0             # next source to consider
        self.free_at = 0        # first cycle the port can start a new packet
        self.waiting = 0        # packets queued (not started)
        self.wake_pending = False
        self.held = False       # the receiver refuses packets (hold)


class Crossbar:
    """One direction of the interconnect (n_src sources → n_dst destination ports)."""

    __slots__ = ("ev", "n_src", "latency", "bw", "deliver", "ports", "src_waiting", "src_changed",
                 "packets", "bytes", "flits", "max_waiting", "wait_cycles", "_serve_cb",
                 "fifo", "src_queues", "src_free_at", "_serve_fifo_cb", "_advance_cb")

    def __init__(self, ev: EventQueue, n_src: int, n_dst: int, latency: int, bytes_per_cycle: int,
                 deliver: Callable[[int, Any], None], fifo_inputs: bool = False):
        self.ev, self.n_src, self.latency, self.bw = ev, n_src, latency, bytes_per_cycle
        self.deliver = deliver
        self._serve_cb: Callable[[int, _Port], None] = self._serve   # bound once (hot event)
        self.ports = [_Port(n_src) for _ in range(n_dst)]
        self.src_waiting = [0] * n_src     # packets per source not yet on the wire
        self.src_changed: list[Callable[[], None]] = [nothing] * n_src  # per source, on src_waiting changes
        self.packets = self.bytes = self.flits = self.max_waiting = self.wait_cycles = 0
        self.fifo = fifo_inputs
        # fifo_inputs: per source, its packets in order (cycle offered, port, bytes, payload)
        self.src_queues: list[deque[tuple[int, int, int, Any]]] = [deque() for _ in range(n_src)]
        self.src_free_at = [0] * n_src     # the source's link is busy sending until then
        self._serve_fifo_cb: Callable[[int, _Port], None] = self._serve_fifo
        self._advance_cb: Callable[[int, int], None] = self._advance

    def send(self, now: int, src: int, dst: int, nbytes: int, payload: object) -> None:
        """Offer a packet at cycle ``now``; it starts at once if its port is idle."""
        if self.fifo:
            self._send_fifo(now, src, dst, nbytes, payload)
            return
        port = self.ports[dst]
        if port.waiting == 0 and port.free_at <= now and not port.held:
            port.rr = (src + 1) % self.n_src      # this source was just served
            flits = -(-nbytes // self.bw)           # _start, inlined (the common case)
            port.free_at = now + flits
            self.packets += 1
            self.bytes += nbytes
            self.flits += flits
            if payload is not None:
                self.deliver(now + flits - 1 + self.latency, payload)
            return
        port.queues[src].append((now, nbytes, payload))
        port.waiting += 1
        self.src_waiting[src] += 1
        self.src_changed[src]()
        if port.waiting > self.max_waiting:
            self.max_waiting = port.waiting
        if not port.wake_pending:
            port.wake_pending = True
            self.ev.at(max(port.free_at, now), self._serve_cb, port)

    def hold(self, now: int, dst: int, held: bool) -> None:
        """Stop (``held``) or restart port ``dst``; restarted, it serves its waiting packets from
        ``now`` on."""
        port = self.ports[dst]
        port.held = held
        if held or port.wake_pending or not (port.waiting or port.heads):
            return
        port.wake_pending = True
        cb = self._serve_fifo_cb if self.fifo else self._serve_cb
        self.ev.at(max(port.free_at, now), cb, port)

    def _start(self, port: _Port, now: int, nbytes: int, payload: object) -> None:
        flits = -(-nbytes // self.bw)
        port.free_at = now + flits
        self.packets += 1
        self.bytes += nbytes
        self.flits += flits
        if payload is not None:
            self.deliver(now + flits - 1 + self.latency, payload)

    def _serve(self, now: int, port: _Port) -> None:
        """The port is free: start the next source's packet in round-robin order."""
        if port.held:
            port.wake_pending = False   # hold(..., False) wakes it again
            return
        queues, n = port.queues, self.n_src
        src = port.rr
        while not queues[src]:
            src += 1
            if src == n:
                src = 0
        t_in, nbytes, payload = queues[src].popleft()
        port.waiting -= 1
        self.src_waiting[src] -= 1
        self.src_changed[src]()
        self.wait_cycles += now - t_in
        port.rr = src + 1 if src + 1 < n else 0
        self._start(port, now, nbytes, payload)
        if port.waiting:
            self.ev.at(port.free_at, self._serve_cb, port)
        else:
            port.wake_pending = False

    # --- fifo_inputs: one in-order queue per source -----------------------------------------
    def _send_fifo(self, now: int, src: int, dst: int, nbytes: int, payload: object) -> None:
        q = self.src_queues[src]
        q.append((now, dst, nbytes, payload))
        self.src_waiting[src] += 1
        self.src_changed[src]()
        if self.src_waiting[src] > self.max_waiting:
            self.max_waiting = self.src_waiting[src]
        if len(q) == 1:                 # a new head: it competes once the source's link is free
            if self.src_free_at[src] <= now:
                self._advance(now, src)
            else:
                self.ev.at(self.src_free_at[src], self._advance_cb, src)

    def _advance(self, now: int, src: int) -> None:
        """The head packet of ``src`` asks for its port."""
        port = self.ports[self.src_queues[src][0][1]]
        port.heads.append(src)
        if not port.wake_pending:
            port.wake_pending = True
            if port.free_at <= now:
                self._serve_fifo(now, port)
            else:
                self.ev.at(port.free_at, self._serve_fifo_cb, port)

    def _serve_fifo(self, now: int, port: _Port) -> None:
        """The port is free: start the head packet of the next waiting source (round-robin)."""
        if port.held:
            port.wake_pending = False   # hold(..., False) wakes it again
            return
        heads, n, rr = port.heads, self.n_src, port.rr
        best = 0
        for i in range(1, len(heads)):
            if (heads[i] - rr) % n < (heads[best] - rr) % n:
                best = i
        src = heads.pop(best)
        q = self.src_queues[src]
        t_in, _, nbytes, payload = q.popleft()
        self.src_waiting[src] -= 1
        self.src_changed[src]()
        self.wait_cycles += now - t_in
        port.rr = src + 1 if src + 1 < n else 0
        self._start(port, now, nbytes, payload)
        self.src_free_at[src] = port.free_at
        if q:
            self.ev.at(port.free_at, self._advance_cb, src)
        if heads:
            self.ev.at(port.free_at, self._serve_fifo_cb, port)
        else:
            port.wake_pending = False
