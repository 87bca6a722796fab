"""A small time-ordered event queue shared by the memory components.

Every component schedules work as ``at(cycle, fn, arg)``; the hierarchy's ``tick(now)`` runs all
events due by ``now`` in (cycle, insertion) order, so results are deterministic and an idle
hierarchy costs nothing per cycle (``next_event`` is the head of the heap).

Speed: events are kept in one bucket (a flat ``[fn, arg, fn, arg, …]`` list) per cycle plus a
min-heap of the cycles that have a bucket, so the heap only sees distinct cycles. Buckets live in
a ring of ``RING`` slots indexed by ``cycle % RING`` (a list index, no dict per event); a cycle
whose slot is held by another pending cycle keeps its bucket in a dict instead, and so do its
later events, so each pending cycle has exactly one bucket. An event scheduled while its own
cycle runs joins the end of that cycle's bucket, exactly where a (cycle, sequence) heap would put
it. An event may not be scheduled for a cycle before the one being run (no component does).
"""

from __future__ import annotations

from heapq import heappop, heappush
from typing import Any, Callable, Final

RING: Final = 4096  # ring slots (choice: memory-system delays are far shorter than 4096 cycles)
_MASK: Final = 4095  # RING - 1, written as a literal so compiled code folds it


def nothing() -> None:
    """The no-op hook (stall and queue watchers not wired)."""


class EventQueue:
    """Per-cycle buckets of (fn, arg); ``fn(cycle, arg)`` is called when the cycle is reached."""

    __slots__ = ("_cycles", "_ring", "_owner", "_far", "now", "running")

    def __init__(self) -> None:
        self._cycles: list[int] = []            # min-heap of cycles with a bucket
        self._ring: list[list[Any]] = [[] for _ in range(RING)]
        self._owner: list[int] = [-1] * RING    # the cycle whose bucket a ring slot holds, or -1
        self._far: dict[int, list[Any]] = {}    # buckets whose ring slot another cycle holds
        self.now = 0
        self.running = False    # True while run_until dispatches (``now`` = current event cycle)

    def at(self, cycle: int, fn: Callable[[int, Any], None], arg: object = None) -> None:
        far = self._far
        if far:
            b = far.get(cycle)
            if b is not None:
                b.append(fn)
                b.append(arg)
                return
        i = cycle & _MASK
        owner = self._owner[i]
        if owner != cycle:              # a new bucket
            if self.running and cycle < self.now:
                raise ValueError(f"event for cycle {cycle} scheduled while cycle {self.now} runs")
            heappush(self._cycles, cycle)
            if owner >= 0:              # the slot is another pending cycle's
                far[cycle] = [fn, arg]
                return
            self._owner[i] = cycle
        b = self._ring[i]
        b.append(fn)
        b.append(arg)

    def run_until(self, now: int) -> None:
        """Run every event with cycle <= now (events added meanwhile run too if due)."""
        cycles, ring, owners, far = self._cycles, self._ring, self._owner, self._far
        self.running = True
        while cycles and cycles[0] <= now:
            cycle = cycles[0]
            self.now = cycle
            i = cycle & _MASK
            in_ring = owners[i] == cycle
            b = ring[i] if in_ring else far[cycle]
            boxed: object = cycle       # compiled: box the cycle once per bucket, not per event
            j = 0
            while j < len(b):           # the bucket may grow while it runs
                b[j](boxed, b[j + 1])
                j += 2
            heappop(cycles)
            if in_ring:
                b.clear()               # the slot's list is reused
                owners[i] = -1
            else:
                del far[cycle]
        self.running = False
        self.now = now

    def next_cycle(self) -> int | None:
        return self._cycles[0] if self._cycles else None

    def __len__(self) -> int:
        n = 0
        for c in self._cycles:
            i = c & _MASK
            n += len(self._ring[i] if self._owner[i] == c else self._far[c])
        return n // 2
