"""Fixed-latency, fixed-bandwidth memory stand-in (GPGPU-Sim's ``-gpgpu_simple_dram_model`` idea).

A warp memory instruction is coalesced into distinct ``l1.line_bytes`` lines of its active
threads' addresses (no address → one line). All lines share one DRAM pipe of
``channels × bus_bytes × data_rate × dram clock ÷ core clock`` bytes per core cycle; a request's
data is done when its last line has crossed the pipe, and it completes
``dram.fixed_latency + 2 × icnt.latency`` cycles (DRAM access plus the interconnect both ways)
after that. Stores and atomics use the pipe the same way (a store completes when accepted).

Back-pressure: none by default (a choice: the bandwidth pipe alone makes memory-bound kernels
queue, and warps wait on their scoreboards). ``max_lines`` caps the lines an SM may have in
flight; an instruction that would exceed it is refused (``issue`` returns False) unless the SM
has nothing in flight — this exercises the SMs' structural-stall path like a full MSHR table.
"""

from __future__ import annotations

import heapq
import math

from gpusched.config import GPUConfig
from sim.memory.interface import CompletionCallback
from sim.workload.kernel import Instr, Kernel, Op


class FixedMemory:
    """Implements ``sim.memory.interface.MemorySystem``."""

    def __init__(self, cfg: GPUConfig, max_lines: int | None = None):
        d = cfg.dram
        self.line_bytes = cfg.l1.line_bytes
        self.latency = d.fixed_latency + 2 * cfg.icnt.latency
        self.bytes_per_cycle = d.channels * d.bus_bytes * d.data_rate * d.clock_mhz / cfg.core_clock_mhz
        self.max_lines = max_lines if max_lines is not None else 1 << 62
        self.pipe_free = 0.0            # core cycle (fractional) at which the DRAM pipe is free
        self.events: list = []          # heap of (cycle, seq, sm_id, token, lines)
        self.seq = 0
        self.callbacks: dict[int, CompletionCallback] = {}
        self.lines_out: dict[int, int] = {}
        self.requests = {op: 0 for op in (Op.LDG, Op.STG, Op.ATOM)}
        self.n_lines = self.refused = self.latency_sum = 0

    def connect(self, sm_id: int, on_complete: CompletionCallback) -> None:
        self.callbacks[sm_id] = on_complete
        self.lines_out[sm_id] = 0

    def lines(self, instr: Instr) -> int:
        """Distinct lines touched by the active threads (line-granularity coalescing)."""
        addrs = instr.addrs
        if not addrs:
            return 1
        shift = self.line_bytes.bit_length() - 1
        lo, hi = min(addrs) >> shift, max(addrs) >> shift
        if hi - lo < 2:
            return hi - lo + 1
        return len({a >> shift for a in addrs})

    def issue(self, now: int, sm_id: int, instr: Instr, token: object) -> bool:
        out = self.lines_out[sm_id]
        if out >= self.max_lines:
            self.refused += 1
            return False
        n = self.lines(instr)
        if out and out + n > self.max_lines:
            self.refused += 1
            return False
        start = self.pipe_free if self.pipe_free > now else now
        self.pipe_free = start + n * self.line_bytes / self.bytes_per_cycle
        done = math.ceil(self.pipe_free) + self.latency
        self.seq += 1
        heapq.heappush(self.events, (done, self.seq, sm_id, token, n))
        self.lines_out[sm_id] = out + n
        self.requests[instr.op] += 1
        self.n_lines += n
        self.latency_sum += done - now
        return True

    def tick(self, now: int) -> None:
        ev = self.events
        while ev and ev[0][0] <= now:
            done, _, sm_id, token, n = heapq.heappop(ev)
            self.lines_out[sm_id] -= n
            self.callbacks[sm_id](token, now)

    def next_event(self) -> int | None:
        return self.events[0][0] if self.events else None

    def kernel_boundary(self, now: int, finished: Kernel | None, next_kernel: Kernel | None) -> None:
        """No caches, nothing to flush."""

    def busy(self) -> bool:
        return bool(self.events)

    def stats(self) -> dict:
        loads, stores, atomics = (self.requests[op] for op in (Op.LDG, Op.STG, Op.ATOM))
        reqs = loads + stores + atomics
        return {"loads": loads, "stores": stores, "atomics": atomics, "lines": self.n_lines,
                "bytes": self.n_lines * self.line_bytes, "refused": self.refused,
                "avg_latency": round(self.latency_sum / reqs, 3) if reqs else 0.0,
                "bytes_per_cycle": round(self.bytes_per_cycle, 6), "latency": self.latency}
