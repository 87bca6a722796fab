"""DRAM: channels × banks with open-row buffers, an FR-FCFS scheduler and a command scheduler
per channel that applies the full DRAM timing set.

Sources: [GPGPU-Sim gpu-cache.cc] (GPGPU-Sim's dram.cc, dram_sched.cc and the timing it derives in
gpu-sim.h; which copy was read and the options of each preset: docs/validation.md, "DRAM timing"),
[OWL §4.3] (row hit = tCL, closed = tRCD + tCL, conflict = tRP + tRCD + tCL); our choices where
[OWL Table 1] is silent (open-page policy; oldest row hit first, else oldest; back-pressure when the
queue is full).

Time inside a channel is counted in *beats* (1 / data_rate of a DRAM command clock); conversion
to core cycles uses the exact ratio of the two clocks. Every command edge of a channel with work
is one scheduling step, as a GPGPU-Sim DRAM cycle (``dram_t::cycle``):

1. Bank assignment (FR-FCFS): one queued request whose bank has no request in service becomes
   that bank's request — the oldest row hit, else the oldest (FR-FCFS, our detail where [OWL] is
   silent; ``fifo``: the oldest only). Row hits, closed rows and conflicts are counted here, against
the bank's open row.
2. Commands, scanning the banks from a rotating start (``prio``, moved past a bank that takes a
   row command or a request, as GPGPU-Sim does): the first bank whose request is on its open row
   and may take a column command (a read or write of one burst) takes it; before that column
   command is found, the first bank whose request needs another row may take a PRE (its row open)
   or an ACT (precharged). So at most one row and one column command per edge, and a row command
   only from a bank scanned before the column's (GPGPU-Sim's single command bus).
   The constraints each command waits for are in dram_timing.py: tRCD (tRCDWR for writes), tRAS,
   tRP, tRC, tRRD, tCCD and the data bus, bank groups (tCCDL, tRTPL), tRTP, write recovery
   (tWTP = tWL + burst + tWR) and the read/write turnarounds (tRTW = tCL + burst + 2 − tWL,
   tWTR = tWL + burst + tCDLR). Refresh is not modelled (GPGPU-Sim counts none).
3. A request of k bursts takes k column commands; the bank takes its next request after the last.
   A read's data moves tCL after its column command, a write's tWL after (tWL = 0: tCL), one
   burst of ``burst_length`` beats; the request is done when its last burst has moved.

A channel with nothing that can issue sleeps until the first edge at which a constraint lifts,
or until a request arrives. The channel queue holds ``queue_size`` requests that the scheduler
may pick from; later ones wait in arrival order in an input buffer. When that buffer also holds
``queue_size`` requests the channel's L2 slices stall (``full``; ``on_space`` tells them when it
drains), so DRAM back-pressure reaches the SMs (our choice where [OWL] is silent). Requests inside
the fixed controller latency are not counted (that pipe is bounded by the L2 MSHRs and the request
rate).

Statistics: row hits / closed misses / conflicts (aggregate row-hit rate), activations, bytes,
queue occupancy, queueing latency (arrival → its bank takes it) and access latency (arrival →
data done), and bank-level parallelism ([OWL §1, §4.3]): the mean number of banks with ≥ 1
outstanding request (queued or in service) over the cycles with ≥ 1 such bank, per channel and
system-wide.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

from gpusched.config.schema import DRAMConfig

from .dram_map import IPOLY, AddressMap
from .dram_timing import Channel, Timing
from .events import EventQueue
from .request import PREFETCH, WRITE, WRITEBACK, MemRequest

__all__ = ["DRAM", "AddressMap", "IPOLY"]


class DRAM:
    """All channels. ``on_done(cycle, request)`` is called when a request's data has moved."""

    def __init__(self, ev: EventQueue, d: DRAMConfig, core_clock_mhz: float, sector_bytes: int,
                 on_done: Callable[[int, MemRequest], None]):
        self.ev, self.on_done, self.sector_bytes = ev, on_done, sector_bytes
        # event handlers bound once: compiled, binding a method per event costs more than the call
        self._schedule_cb: Callable[[int, Channel], None] = self._schedule
        self._done_cb: Callable[[int, MemRequest], None] = self._done
        self.n_banks, self.queue_size, self.fifo = d.banks, d.queue_size, d.scheduler == "fifo"
        self.t = Timing(d)
        dr = self.dr = d.data_rate
        self.burst_bytes = d.bus_bytes * d.burst_length
        # beats per core cycle = dram_mhz × data_rate / core_mhz, kept as an exact fraction
        ratio = (Fraction(d.clock_mhz).limit_denominator(10**6) * dr
                 / Fraction(core_clock_mhz).limit_denominator(10**6))
        self.beat_num, self.beat_den = ratio.numerator, ratio.denominator
        self.peak_bytes_per_cycle = float(d.channels * d.bus_bytes * ratio)
        self.channels = [Channel(i, d.banks, d.bank_groups) for i in range(d.channels)]
        self.on_space: Callable[[int, int], None] | None = None   # (cycle, channel) after an issue
        self.row_hits = self.row_closed = self.row_conflicts = self.activations = 0
        self.precharges = self.col_reads = self.col_writes = 0
        self.reads = self.writes = self.bytes_read = self.bytes_written = 0
        self.g_busy = self.g_last_t = self.g_area = self.g_time = 0
        self.first_done = self.last_done = -1
        self.max_overflow = 0
        self.queue_wait_sum = self.access_sum = 0   # core cycles, summed over requests
        # OWL's memory-side prefetcher (sim/memory/prefetch.py), set by the hierarchy when
        # ``dram.prefetch`` is on; its reads are counted apart from the demand counters
        self.pf: Any = None
        self.prefetch_reads = self.prefetch_bytes = 0
        # the OWL-metrics profiler's per-bank row counters (sim/profile/owl_metrics.py), or None
        self.probe: Any = None
        # every command as (command cycle, channel, "ACT" | "PRE" | "RD" | "WR", bank) when a
        # list is set here (tests/memory/test_dram_timing.py checks the constraints on it)
        self.log: list[tuple[int, int, str, int]] | None = None

    # --- clock conversion -------------------------------------------------------------------
    def beat_of(self, cycle: int) -> int:
        """First command-clock edge (in beats) at or after core cycle ``cycle``."""
        b = -(-cycle * self.beat_num // self.beat_den)
        return -(-b // self.dr) * self.dr

    def cycle_of(self, beat: int) -> int:
        """First core cycle at or after ``beat``."""
        return -(-beat * self.beat_den // self.beat_num)

    # --- requests ---------------------------------------------------------------------------
    def enqueue(self, now: int, req: MemRequest) -> None:
        req.t_dram = now
        ch = self.channels[req.channel]
        if len(ch.queue) < self.queue_size:
            self._admit(now, ch, req)
            self._poke(now, ch)
        else:
            ch.overflow.append(req)
            if len(ch.overflow) > self.max_overflow:
                self.max_overflow = len(ch.overflow)

    def _poke(self, now: int, ch: Channel) -> None:
        """A request arrived: the channel looks at its next unscheduled edge."""
        e = self.beat_of(now)
        if e < ch.next_edge:
            e = ch.next_edge
        cycle = e * self.beat_den // self.beat_num       # the core cycle holding edge e
        self._wake(ch, cycle if cycle > now else now)

    def _admit(self, now: int, ch: Channel, req: MemRequest) -> None:
        self._account(ch, now)
        ch.queue.append(req)
        if len(ch.queue) > ch.max_queue:
            ch.max_queue = len(ch.queue)
        if ch.outstanding[req.bank] == 0:
            ch.busy_banks += 1
            self.g_busy += 1
        ch.outstanding[req.bank] += 1

    def _account(self, ch: Channel, now: int) -> None:
        """Integrate busy banks and queue length up to ``now`` (piecewise constant)."""
        dt = now - ch.last_t
        if dt:
            if ch.busy_banks:
                ch.blp_area += dt * ch.busy_banks
                ch.blp_time += dt
            ch.q_area += dt * len(ch.queue)
            ch.last_t = now
        dt = now - self.g_last_t
        if dt:
            if self.g_busy:
                self.g_area += dt * self.g_busy
                self.g_time += dt
            self.g_last_t = now

    def _wake(self, ch: Channel, cycle: int) -> None:
        if ch.wake_at < 0 or cycle < ch.wake_at:
            ch.wake_at = cycle
            self.ev.at(cycle, self._schedule_cb, ch)

    def _schedule(self, now: int, ch: Channel) -> None:
        """Run the scheduling steps of every command edge in core cycle ``now`` from the first
        unscheduled one, skipping edges at which nothing can issue; sleep when idle."""
        if ch.wake_at != now:
            return                      # superseded by an earlier wake-up
        num, den, dr = self.beat_num, self.beat_den, self.dr
        e = -(-(-(-now * num // den)) // dr) * dr       # beat_of(now)
        if e < ch.next_edge:
            e = ch.next_edge
        limit = (now + 1) * num         # edge e lies in this core cycle while e * den < limit
        if e * den >= limit:            # the next unscheduled edge is in a later core cycle
            ch.wake_at = -1
            self._wake(ch, e * den // num)
            return
        nxt = -1
        while e * den < limit:
            more = self.pf.assign(self, now, ch, e) if self.pf is not None else self._assign(now, ch, e)
            self._commands(ch, e)
            nxt = self._next_edge(ch, e, more)
            if nxt < 0:
                break
            e = nxt
        ch.wake_at = -1
        if nxt < 0:
            ch.next_edge = e + dr
            return
        ch.next_edge = nxt
        self._wake(ch, nxt * den // num)

    def _assign(self, now: int, ch: Channel, e: int) -> bool:
        """FR-FCFS: one queued request whose bank is free becomes its request in service — the
        oldest row hit, else the oldest (``fifo``: the oldest, once its bank is free)."""
        best = None
        mrq, open_row = ch.mrq, ch.open_row
        for req in ch.queue:
            if mrq[req.bank] is not None:
                if self.fifo:
                    break
                continue
            if open_row[req.bank] == req.row:
                best = req
                break
            if best is None:
                best = req
                if self.fifo:
                    break
        if best is not None:
            self.take(now, ch, best, e)
        return False

    def take(self, now: int, ch: Channel, req: MemRequest, e: int) -> None:
        """Move queued ``req`` into service on its bank; the input buffer refills the queue."""
        ch.queue.remove(req)
        self.queue_wait_sum += now - req.t_dram
        self.start(ch, req, e)
        if ch.overflow:
            self._admit(now, ch, ch.overflow.popleft())
            if self.on_space is not None and len(ch.overflow) == self.queue_size - 1:
                self.on_space(now, ch.index)

    def start(self, ch: Channel, req: MemRequest, e: int) -> None:
        """``req`` becomes bank ``req.bank``'s request in service at edge ``e`` (a demand from the
        queue, or a prefetch): row statistics against the open row, then its column commands."""
        b = req.bank
        row = ch.open_row[b]
        hit = row == req.row
        if hit:
            if req.kind != PREFETCH:
                self.row_hits += 1
        elif row < 0:
            self.row_closed += 1
        else:
            self.row_conflicts += 1
        if self.pf is not None:
            self.pf.note(ch.index, req, not hit)
        if self.probe is not None:
            self.probe.dram_access(ch.index, b, req.kind == PREFETCH, hit)
        ch.mrq[b] = req
        ch.left[b] = -(-(req.mask.bit_count() * self.sector_bytes) // self.burst_bytes)
        n = self.n_banks
        ch.prio = ch.prio + 1 if ch.prio + 1 < n else 0

    def _commands(self, ch: Channel, e: int) -> None:
        """Edge ``e``'s row and column commands (module docstring, step 2)."""
        t = self.t
        n, group_of = self.n_banks, t.group_of
        mrq, open_row = ch.mrq, ch.open_row
        b = ch.prio
        row_done = False
        for _ in range(n):
            req = mrq[b]
            if req is not None:
                g = group_of[b]
                row = open_row[b]
                if row == req.row:
                    if e >= ch.col_ok and e >= ch.gcol_ok[g]:
                        if req.kind == WRITE or req.kind == WRITEBACK:
                            if e >= ch.wr_ok[b] and e >= ch.wcol_ok:
                                self._column(ch, b, g, req, e, True)
                                return
                        elif e >= ch.rd_ok[b] and e >= ch.rcol_ok:
                            self._column(ch, b, g, req, e, False)
                            return
                elif not row_done:
                    if row >= 0:
                        if e >= ch.pre_ok[b] and e >= ch.gpre_ok[g]:
                            open_row[b] = -1
                            x = e + t.rp
                            if x > ch.act_ok[b]:
                                ch.act_ok[b] = x
                            self.precharges += 1
                            if self.log is not None:
                                self.log.append((e // self.dr, ch.index, "PRE", b))
                            row_done = True
                            ch.prio = b + 1 if b + 1 < n else 0
                    elif e >= ch.act_ok[b] and e >= ch.act_any:
                        open_row[b] = req.row
                        ch.rd_ok[b], ch.wr_ok[b] = e + t.rcd, e + t.rcdwr
                        ch.pre_ok[b], ch.act_ok[b] = e + t.ras, e + t.rc
                        ch.act_any = e + t.rrd
                        self.activations += 1
                        if self.log is not None:
                            self.log.append((e // self.dr, ch.index, "ACT", b))
                        row_done = True
                        ch.prio = b + 1 if b + 1 < n else 0
            b = b + 1 if b + 1 < n else 0

    def _column(self, ch: Channel, b: int, g: int, req: MemRequest, e: int, write: bool) -> None:
        """One burst of ``req`` at edge ``e``: the constraints it sets; the last one ends it."""
        t = self.t
        ch.col_ok = e + t.ccd
        ch.gcol_ok[g] = e + t.ccdl
        if write:
            lat = t.wl
            self.col_writes += 1
            if e + t.wtr > ch.rcol_ok:
                ch.rcol_ok = e + t.wtr
            if e + t.wtp > ch.pre_ok[b]:
                ch.pre_ok[b] = e + t.wtp
        else:
            lat = t.cl
            self.col_reads += 1
            if e + t.rtw > ch.wcol_ok:
                ch.wcol_ok = e + t.rtw
            if e + t.rtp > ch.pre_ok[b]:
                ch.pre_ok[b] = e + t.rtp
            if e + t.rtpl > ch.gpre_ok[g]:
                ch.gpre_ok[g] = e + t.rtpl
        if self.log is not None:
            self.log.append((e // self.dr, ch.index, "WR" if write else "RD", b))
        ch.left[b] -= 1
        if ch.left[b] == 0:
            ch.mrq[b] = None
            end = e + lat + t.burst
            self.ev.at(-(-end * self.beat_den // self.beat_num), self._done_cb, req)  # cycle_of

    def _next_edge(self, ch: Channel, e: int, more: bool) -> int:
        """The first edge after ``e`` at which anything can happen (-1: none until a request
        arrives): the next edge if a queued request (or the prefetcher, ``more`` / ``pf_want``)
        can take a free bank, else the earliest edge a bank's next command is allowed."""
        t = self.t
        lo = e + self.dr
        if more:
            return lo
        mrq, open_row = ch.mrq, ch.open_row
        want = ch.pf_want
        for q in ch.queue:
            want |= 1 << q.bank
            if self.fifo:
                break
        nxt = -1
        group_of = t.group_of
        for b in range(self.n_banks):
            req = mrq[b]
            if req is None:
                if want >> b & 1:
                    return lo
                continue
            g = group_of[b]
            row = open_row[b]
            if row == req.row:
                x = ch.col_ok if ch.col_ok > ch.gcol_ok[g] else ch.gcol_ok[g]
                if req.kind == WRITE or req.kind == WRITEBACK:
                    y = ch.wr_ok[b] if ch.wr_ok[b] > ch.wcol_ok else ch.wcol_ok
                else:
                    y = ch.rd_ok[b] if ch.rd_ok[b] > ch.rcol_ok else ch.rcol_ok
                if y > x:
                    x = y
            elif row >= 0:
                x = ch.pre_ok[b] if ch.pre_ok[b] > ch.gpre_ok[g] else ch.gpre_ok[g]
            else:
                x = ch.act_ok[b] if ch.act_ok[b] > ch.act_any else ch.act_any
            if x < lo:
                x = lo
            if nxt < 0 or x < nxt:
                nxt = x
        return nxt

    def full(self, channel: int) -> bool:
        """The channel's input buffer (another ``queue_size`` requests waiting behind the
        scheduler queue) is full: its L2 slices must hold new requests."""
        return len(self.channels[channel].overflow) >= self.queue_size

    def _done(self, now: int, req: MemRequest) -> None:
        """The request's last data beat has moved (traffic is counted here, not at issue)."""
        nbytes = req.mask.bit_count() * self.sector_bytes
        if req.kind == PREFETCH:        # in no queue and no demand counter: traffic only
            self.prefetch_reads += 1
            self.prefetch_bytes += nbytes
            self.bytes_read += nbytes
            self.last_done = now
            self.on_done(now, req)
            return
        if req.kind == WRITE or req.kind == WRITEBACK:
            self.writes += 1
            self.bytes_written += nbytes
        else:
            self.reads += 1
            self.bytes_read += nbytes
        self.access_sum += now - req.t_dram
        if self.first_done < 0:
            self.first_done = now
        self.last_done = now
        ch = self.channels[req.channel]
        if now != ch.last_t or now != self.g_last_t:
            self._account(ch, now)
        outstanding = ch.outstanding
        outstanding[req.bank] -= 1
        if outstanding[req.bank] == 0:
            ch.busy_banks -= 1
            self.g_busy -= 1
        self.on_done(now, req)

    # --- introspection (OWL's prefetcher needs the open rows) --------------------------------
    def open_row(self, channel: int, bank: int) -> int | None:
        r = self.channels[channel].open_row[bank]
        return None if r < 0 else r

    def queued(self) -> int:
        return sum(len(ch.queue) + len(ch.overflow) for ch in self.channels)

    def stats(self, now: int) -> dict:
        for ch in self.channels:
            self._account(ch, now)
        accesses = self.row_hits + self.row_closed + self.row_conflicts
        per_ch = [ch.blp_area / ch.blp_time for ch in self.channels if ch.blp_time]
        return {
            "dram.reads": self.reads, "dram.writes": self.writes,
            "dram.bytes_read": self.bytes_read, "dram.bytes_written": self.bytes_written,
            "dram.row_hits": self.row_hits, "dram.row_closed": self.row_closed,
            "dram.row_conflicts": self.row_conflicts, "dram.activations": self.activations,
            "dram.row_hit_rate": self.row_hits / accesses if accesses else 0.0,
            "dram.queue_latency_mean": self.queue_wait_sum / accesses if accesses else 0.0,
            "dram.access_latency_mean": (self.access_sum / (self.reads + self.writes)
                                         if self.reads + self.writes else 0.0),
            "dram.blp": self.g_area / self.g_time if self.g_time else 0.0,
            "dram.blp_per_channel": sum(per_ch) / len(per_ch) if per_ch else 0.0,
            "dram.queue_mean": (sum(ch.q_area for ch in self.channels) / len(self.channels) / now
                                if now else 0.0),
            "dram.queue_max": max(ch.max_queue for ch in self.channels),
            "dram.input_buffer_max": self.max_overflow,
            "dram.peak_bytes_per_cycle": self.peak_bytes_per_cycle,
            "dram.first_done": self.first_done, "dram.last_done": self.last_done,
            "dram.prefetch_reads": self.prefetch_reads, "dram.prefetch_bytes": self.prefetch_bytes,
            "dram.row_hit_rate_with_prefetch": ((self.row_hits + self.prefetch_reads)
                                                / (accesses + self.prefetch_reads)
                                                if accesses + self.prefetch_reads else 0.0),
        }
