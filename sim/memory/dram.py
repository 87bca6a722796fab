"""DRAM: channels × banks with open-row buffers and an FR-FCFS scheduler per channel.

Sources: [GPGPU-Sim §1.6] (GPGPU-Sim `dram.cc`, `frfcfs_scheduler`), [OWL §2.2] (row hit = tCL,
closed = tRCD + tCL, conflict = tRP + tRCD + tCL), [OWL A7/A8] (open-page policy; oldest row hit
first, else oldest; back-pressure when the queue is full).

Timing model (request level, one command slot per DRAM clock per channel; choices recorded):
- Time inside a channel is counted in *beats* (1 / data_rate of a DRAM command clock), so burst
  lengths that are not a multiple of data_rate stay exact. Conversion to core cycles uses the
  exact ratio of the two clocks (an integer fraction, i.e. a fractional accumulator without drift).
- A request to bank b issued at command cycle c:
  row hit   → column command at c;
  closed    → ACT at c, column at c + tRCD;
  conflict  → PRE at max(c, ACT_prev + tRAS), ACT after tRP, column after tRCD;
  with ``tRRD`` > 0, an ACT waits until tRRD after the channel's previous ACT (activate-to-
  activate delay between banks: GDDR5/5X datasheets, GPGPU-Sim's ``RRD``); 0 leaves it out.
  Data occupies the channel's shared data bus from max(column + tCL, bus free) for
  ceil(bytes / (bus_bytes × burst_length)) bursts of burst_length beats each.
  The bank accepts its next request once this one's data has left (tCCD = one burst).
- Writes use the same timing as reads (tWR, tWTR, refresh not modelled: choice).
- The channel queue holds ``queue_size`` requests that the scheduler may pick from; later ones
  wait in arrival order in an input buffer. When that buffer also holds ``queue_size`` requests
  the channel's L2 slices stall (``full``; ``on_space`` tells them when it drains), so DRAM
  back-pressure reaches the SMs ([OWL A8]). Requests inside the fixed controller latency are
  not counted (that pipe is bounded by the L2 MSHRs and the request rate).

Statistics: row hits / closed misses / conflicts (aggregate row-hit rate), activations, bytes,
queue occupancy, queueing latency (arrival → first command) and access latency (arrival → data
done), and
bank-level parallelism ([OWL §1, §10]): the mean number of banks with ≥ 1 outstanding request
(queued or in service) over the cycles with ≥ 1 such bank, per channel and system-wide.
"""

from __future__ import annotations

from collections import deque
from fractions import Fraction
from typing import Any, Callable

from gpusched.config.schema import DRAMConfig

from .events import EventQueue
from .request import PREFETCH, WRITE, WRITEBACK, MemRequest


class AddressMap:
    """Address → (channel, bank, row) per ``DRAMConfig`` (modulo, so channel and bank counts
    need not be powers of two), and → L2 slice: ``slices_per_channel`` slices sit behind each
    channel and lines of one channel are interleaved over them."""

    __slots__ = ("channels", "banks", "channel_bit", "bank_bit", "row_bit", "line_shift",
                 "spc", "low_mask", "low_bits", "random", "n_slices", "draw", "ipoly",
                 "ipoly_rows", "ipoly_bits", "ch_bits", "spc_mask")

    def __init__(self, d: DRAMConfig, line_bytes: int, slices: int):
        self.channels, self.banks = d.channels, d.banks
        self.channel_bit, self.bank_bit, self.row_bit = d.channel_bit, d.bank_bit, d.row_bit
        self.line_shift = line_bytes.bit_length() - 1
        self.spc = slices // d.channels
        self.low_mask = (1 << d.channel_bit) - 1
        self.low_bits = d.channel_bit - self.line_shift
        self.n_slices = self.spc * d.channels
        self.ipoly = d.partition_map == "ipoly"
        self.ch_bits = max(0, (d.channels - 1).bit_length())
        self.spc_mask = self.spc - 1
        self.ipoly_rows, self.ipoly_bits = (ipoly_matrix(self.n_slices) if self.ipoly else ((), 0))
        # both hashed maps go through random_slice (the name predates IPOLY)
        self.random = d.partition_map in ("random", "ipoly")
        # dram.partition_seed: a far-away start in the hash's sequence, so another draw (choice)
        self.draw = (0x9E3779B97F4A7C15 + d.partition_seed * 0xD1B54A32D192ED03) & 0xFFFFFFFFFFFFFFFF

    def random_slice(self, addr: int) -> int:
        """``partition_map = random``: the line's slice from a fixed hash of its line
        number (splitmix64's finaliser). GPGPU-Sim's RANDOM partition indexing draws rand() the
        first time a line is seen and keeps it; a hash gives the same uniform, address-blind
        spread without depending on the order lines are first touched (choice).
        ``partition_map = ipoly``: ``ipoly_slice``."""
        if self.ipoly:
            return self.ipoly_slice(addr)
        z = ((addr >> self.line_shift) + self.draw) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        return (z ^ (z >> 31)) % self.n_slices

    def ipoly_slice(self, addr: int) -> int:
        """GPGPU-Sim's IPOLY partition indexing (``addrdec.cc``, -gpgpu_memory_partition_indexing
        2): the sub-partition index (channel bits at ``channel_bit``, then the sub-partition bit
        just above them) XORed, bit by bit, with the address bits above both, through the
        H-matrix of x^(n+k) mod P(x) (``ipoly_matrix``)."""
        low = self.channel_bit + self.ch_bits
        index = (((addr >> self.channel_bit) % self.channels) * self.spc
                 + ((addr >> low) & self.spc_mask))
        high = (addr >> (low + (self.spc_mask.bit_length()))) & ((1 << self.ipoly_bits) - 1)
        for i, row in enumerate(self.ipoly_rows):
            if (high & row).bit_count() & 1:
                index ^= 1 << i
        return index % self.n_slices

    def locate(self, addr: int) -> tuple[int, int, int]:
        ch = (self.random_slice(addr) // self.spc if self.random
              else (addr >> self.channel_bit) % self.channels)
        return ch, (addr >> self.bank_bit) % self.banks, addr >> self.row_bit

    def line_in_channel(self, addr: int) -> int:
        """The line number with the channel field taken out (dense within one channel)."""
        hi = (addr >> self.channel_bit) // self.channels
        return (hi << self.low_bits) | ((addr & self.low_mask) >> self.line_shift)

    def line_in_slice(self, addr: int) -> int:
        """Dense line number among the lines of the address's own L2 slice (its set index)."""
        return self.line_in_channel(addr) // self.spc

    def slice_of(self, addr: int) -> int:
        if self.random:
            return self.random_slice(addr)
        hi = addr >> self.channel_bit
        line = ((hi // self.channels) << self.low_bits) | ((addr & self.low_mask) >> self.line_shift)
        return (hi % self.channels) * self.spc + line % self.spc


# IPOLY: per number of sub-partitions, the irreducible polynomial P(x) of degree n and how many
# address bits above the index take part (GPGPU-Sim's hashing.cc: IPOLY(5), IPOLY(37), IPOLY(67)
# after Rau, ISCA 1991, and Khairy et al., TPDS 2017; its equations are x^(n+k) mod P for k < bits)
IPOLY = {16: (0b10011, 13), 32: (0b100101, 15), 64: (0b1000011, 19)}


def ipoly_matrix(n_slices: int) -> tuple[tuple[int, ...], int]:
    """Rows of the H-matrix: row i has bit k set when x^(n+k) mod P(x) has the term x^i."""
    poly, bits = IPOLY[n_slices]
    n = poly.bit_length() - 1
    rows = [0] * n
    for k in range(bits):
        v = 1 << (n + k)
        for d in range(n + k, n - 1, -1):         # reduce modulo P over GF(2)
            if v >> d & 1:
                v ^= poly << (d - n)
        for i in range(n):
            if v >> i & 1:
                rows[i] |= 1 << k
    return tuple(rows), bits


class _Channel:
    __slots__ = ("index", "queue", "overflow", "open_row", "act_at", "bank_free", "outstanding",
                 "busy_banks", "bus_free", "cmd_free", "wake_at", "last_t", "blp_area",
                 "blp_time", "q_area", "max_queue", "last_act")

    def __init__(self, index: int, banks: int):
        self.index = index
        self.queue: list[MemRequest] = []
        self.overflow: deque[MemRequest] = deque()
        self.open_row = [-1] * banks
        self.act_at = [0] * banks       # beat of the last ACT (tRAS)
        self.bank_free = [0] * banks    # first beat the bank takes its next request
        self.outstanding = [0] * banks
        self.busy_banks = 0
        self.bus_free = 0               # first free beat of the data bus
        self.cmd_free = 0               # first free command slot (beat)
        self.wake_at = -1               # core cycle of the pending scheduler wake-up (-1: none)
        self.last_t = 0
        self.blp_area = self.blp_time = self.q_area = 0
        self.max_queue = 0
        self.last_act = -(1 << 40)      # beat of the channel's latest ACT (tRRD)


class DRAM:
    """All channels. ``on_done(cycle, request)`` is called when a request's data has moved."""

    def __init__(self, ev: EventQueue, d: DRAMConfig, core_clock_mhz: float, sector_bytes: int,
                 on_done: Callable[[int, MemRequest], None]):
        self.ev, self.on_done, self.sector_bytes = ev, on_done, sector_bytes
        # event handlers bound once: compiled, binding a method per event costs more than the call
        self._schedule_cb: Callable[[int, _Channel], None] = self._schedule
        self._done_cb: Callable[[int, MemRequest], None] = self._done
        self.n_banks, self.queue_size, self.fifo = d.banks, d.queue_size, d.scheduler == "fifo"
        dr = self.dr = d.data_rate
        self.tCL, self.tRCD, self.tRP, self.tRAS = d.tCL * dr, d.tRCD * dr, d.tRP * dr, d.tRAS * dr
        self.tRRD = d.tRRD * dr
        self.burst_beats = d.burst_length
        self.burst_bytes = d.bus_bytes * d.burst_length
        # beats per core cycle = dram_mhz × data_rate / core_mhz, kept as an exact fraction
        ratio = (Fraction(d.clock_mhz).limit_denominator(10**6) * dr
                 / Fraction(core_clock_mhz).limit_denominator(10**6))
        self.beat_num, self.beat_den = ratio.numerator, ratio.denominator
        self.peak_bytes_per_cycle = float(d.channels * d.bus_bytes * ratio)
        self.channels = [_Channel(i, d.banks) for i in range(d.channels)]
        self.on_space: Callable[[int, int], None] | None = None   # (cycle, channel) after an issue
        self.row_hits = self.row_closed = self.row_conflicts = self.activations = 0
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
            idle = not ch.queue and ch.wake_at < 0
            self._admit(now, ch, req)
            if idle:                    # the only request: no choice to make, try it at once
                ch.wake_at = now
                self._schedule(now, ch)
            else:                       # nothing can issue before the command bus is free
                cycle = -(-ch.cmd_free * self.beat_den // self.beat_num)    # cycle_of
                if cycle < now:
                    cycle = now
                if ch.wake_at < 0 or cycle < ch.wake_at:                    # _wake
                    ch.wake_at = cycle
                    self.ev.at(cycle, self._schedule_cb, ch)
        else:
            ch.overflow.append(req)
            if len(ch.overflow) > self.max_overflow:
                self.max_overflow = len(ch.overflow)

    def _admit(self, now: int, ch: _Channel, req: MemRequest) -> None:
        self._account(ch, now)
        ch.queue.append(req)
        if len(ch.queue) > ch.max_queue:
            ch.max_queue = len(ch.queue)
        if ch.outstanding[req.bank] == 0:
            ch.busy_banks += 1
            self.g_busy += 1
        ch.outstanding[req.bank] += 1

    def _account(self, ch: _Channel, now: int) -> None:
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

    def _wake(self, ch: _Channel, cycle: int) -> None:
        if ch.wake_at < 0 or cycle < ch.wake_at:
            ch.wake_at = cycle
            self.ev.at(cycle, self._schedule_cb, ch)

    def _schedule(self, now: int, ch: _Channel) -> None:
        """FR-FCFS: among queued requests whose bank is free, the oldest row hit, else the oldest."""
        if ch.wake_at != now:
            return                      # superseded by an earlier wake-up
        ch.wake_at = -1
        if self.pf is not None:
            self.pf.schedule(self, now, ch)
            return
        num, den, dr = self.beat_num, self.beat_den, self.dr
        c = -(-(-(-now * num // den)) // dr) * dr       # beat_of(now): the next command edge
        if c < ch.cmd_free:             # command bus taken this DRAM cycle
            self._wake(ch, -(-ch.cmd_free * den // num))
            return
        best = None
        soonest = -1                    # earliest bank-free beat among the skipped requests
        bank_free, open_row = ch.bank_free, ch.open_row
        for req in ch.queue:
            f = bank_free[req.bank]
            if f > c:
                if self.fifo:
                    break
                if soonest < 0 or f < soonest:
                    soonest = f
                continue
            if open_row[req.bank] == req.row:
                best = req
                break
            if best is None:
                best = req
                if self.fifo:
                    break
        if best is None:
            if ch.queue:
                if self.fifo:           # in order: only the head's bank matters
                    soonest = bank_free[ch.queue[0].bank]
                self._wake(ch, -(-soonest * den // num))
            return
        ch.queue.remove(best)
        self.queue_wait_sum += now - best.t_dram
        self._issue(ch, best, c)
        ch.cmd_free = c + dr
        if ch.overflow:
            self._admit(now, ch, ch.overflow.popleft())
            if self.on_space is not None and len(ch.overflow) == self.queue_size - 1:
                self.on_space(now, ch.index)
        if ch.queue:
            cycle = -(-ch.cmd_free * den // num)
            if ch.wake_at < 0 or cycle < ch.wake_at:                        # _wake
                ch.wake_at = cycle
                self.ev.at(cycle, self._schedule_cb, ch)

    def _issue(self, ch: _Channel, req: MemRequest, c: int) -> None:
        """Issue ``req`` at command edge ``c``: row commands, data burst, completion event."""
        b, row = req.bank, req.row
        open_row = ch.open_row
        activated = open_row[b] != row
        if not activated:
            col = c
            if req.kind != PREFETCH:
                self.row_hits += 1
        else:
            if open_row[b] < 0:
                act = c
                self.row_closed += 1
            else:
                act = ch.act_at[b] + self.tRAS
                act = (act if act > c else c) + self.tRP
                self.row_conflicts += 1
            if self.tRRD:
                earliest = ch.last_act + self.tRRD
                if act < earliest:
                    act = earliest
                ch.last_act = act
            open_row[b] = row
            ch.act_at[b] = act
            col = act + self.tRCD
            self.activations += 1
        if self.pf is not None:
            self.pf.note(ch.index, req, activated)
        if self.probe is not None:
            self.probe.dram_access(ch.index, b, req.kind == PREFETCH, not activated)
        burst = -(-(req.mask.bit_count() * self.sector_bytes) // self.burst_bytes) * self.burst_beats
        start = col + self.tCL
        if start < ch.bus_free:
            start = ch.bus_free
        ch.bus_free = end = start + burst
        dr = self.dr
        ch.bank_free[b] = -(-(start - self.tCL + burst) // dr) * dr
        self.ev.at(-(-end * self.beat_den // self.beat_num), self._done_cb, req)     # cycle_of(end)

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
