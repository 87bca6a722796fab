"""The contract between the SMs and the memory system.

The SM code only ever talks to a ``MemorySystem``; the fixed-latency stand-in and the full
hierarchy (coalescer, L1 + MSHRs, interconnect, L2 slices, DRAM) both implement it, so one drops
in for the other without touching the SM.

Protocol, per core cycle ``now`` (the GPU calls ``tick`` once per simulated cycle before the
SMs run, and may skip cycles up to ``next_event()`` when nothing else is active):

- ``connect(sm_id, on_complete)``: ``on_complete(token, cycle)`` is called when a request has
  finished: for a load/atomic, all its data is back (the SM releases the destination registers);
  for a store, it has been accepted (the SM may retire it).
- ``issue(now, sm_id, instr, token) -> bool``: offer one warp memory instruction (global, local,
  atomic; the SM handles shared-memory LDS/STS itself). ``False`` means a structural stall (e.g. MSHRs full, queue full): nothing was
  taken and the SM retries later. The system coalesces the active threads' addresses itself.
- ``tick(now)``: advance internal state to cycle ``now`` and deliver completions due by then.
- ``next_event() -> int | None``: the earliest future cycle at which anything can change
  (a completion, a queue moving); None when idle. Used to skip idle cycles.
- ``kernel_boundary(now, finished, next_kernel)``: a kernel ended / another starts (L1
  invalidate-vs-keep policies hook here). ``busy()``: requests still in flight.
- ``stats() -> dict``: counters gathered at the end (flat, JSON-ready).
- optional ``watch_stalls(sm_id, fn)``: the system promises that re-offering a refused request
  is refused again, with no side effect, until it calls ``fn()`` (what the request waits on has
  changed); the SM then skips retries in between (sim/sm_memory.py). Without it the SM
  re-offers a refused request every cycle.
"""

from __future__ import annotations

from typing import Callable, Protocol

from sim.workload.kernel import Instr, Kernel

CompletionCallback = Callable[[object, int], None]


class MemorySystem(Protocol):
    def connect(self, sm_id: int, on_complete: CompletionCallback) -> None: ...
    def issue(self, now: int, sm_id: int, instr: Instr, token: object) -> bool: ...
    def tick(self, now: int) -> None: ...
    def next_event(self) -> int | None: ...
    def kernel_boundary(self, now: int, finished: Kernel | None, next_kernel: Kernel | None) -> None: ...
    def busy(self) -> bool: ...
    def stats(self) -> dict: ...
