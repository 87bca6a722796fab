"""A small time-ordered event queue shared by the memory components.

Every component schedules work as ``at(cycle, fn, arg)``; the hierarchy's ``tick(now)`` runs all
events due by ``now`` in (cycle, insertion) order, so results are deterministic and an idle
hierarchy costs nothing per cycle (``next_event`` is the head of the heap).

Speed: events are kept in one bucket (a flat ``[fn, arg, fn, arg, …]`` list) per cycle plus a
min-heap of the cycles that have a bucket, so scheduling is a dict lookup and an append, and the
heap only sees distinct cycles. An event scheduled while its own cycle runs joins the end of
that cycle's bucket, exactly where a (cycle, sequence) heap would put it. An event may not be
scheduled for a cycle before the one being run (no component does).
"""

from __future__ import annotations

from heapq import heappop, heappush
from typing import Any, Callable


def nothing() -> None:
    """The no-op hook (stall and queue watchers not wired)."""


class EventQueue:
    """Per-cycle buckets of (fn, arg); ``fn(cycle, arg)`` is called when the cycle is reached."""

    __slots__ = ("_cycles", "_buckets", "now", "running")

    def __init__(self) -> None:
        self._cycles: list[int] = []            # min-heap of cycles with a bucket
        self._buckets: dict[int, list] = {}
        self.now = 0
        self.running = False    # True while run_until dispatches (``now`` = current event cycle)

    def at(self, cycle: int, fn: Callable[[int, Any], None], arg: object = None) -> None:
        b = self._buckets.get(cycle)
        if b is None:
            if self.running and cycle < self.now:
                raise ValueError(f"event for cycle {cycle} scheduled while cycle {self.now} runs")
            self._buckets[cycle] = [fn, arg]
            heappush(self._cycles, cycle)
        else:
            b.append(fn)
            b.append(arg)

    def run_until(self, now: int) -> None:
        """Run every event with cycle <= now (events added meanwhile run too if due)."""
        cycles, buckets = self._cycles, self._buckets
        self.running = True
        while cycles and cycles[0] <= now:
            cycle = cycles[0]
            self.now = cycle
            b = buckets[cycle]
            boxed: object = cycle       # compiled: box the cycle once per bucket, not per event
            i = 0
            while i < len(b):           # the bucket may grow while it runs
                b[i](boxed, b[i + 1])
                i += 2
            heappop(cycles)
            del buckets[cycle]
        self.running = False
        self.now = now

    def next_cycle(self) -> int | None:
        return self._cycles[0] if self._cycles else None

    def __len__(self) -> int:
        return sum(len(b) for b in self._buckets.values()) // 2
