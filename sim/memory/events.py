"""A small time-ordered event queue shared by the memory components.

Every component schedules work as ``at(cycle, fn, arg)``; the hierarchy's ``tick(now)`` runs all
events due by ``now`` in (cycle, insertion) order, so results are deterministic and an idle
hierarchy costs nothing per cycle (``next_event`` is the head of the heap).
"""

from __future__ import annotations

import heapq
from typing import Callable


class EventQueue:
    """Min-heap of (cycle, seq, fn, arg); ``fn(cycle, arg)`` is called when the cycle is reached."""

    __slots__ = ("_heap", "_seq", "now", "running")

    def __init__(self) -> None:
        self._heap: list = []
        self._seq = 0
        self.now = 0
        self.running = False    # True while run_until dispatches (``now`` = current event cycle)

    def at(self, cycle: int, fn: Callable[[int, object], None], arg: object = None) -> None:
        self._seq += 1
        heapq.heappush(self._heap, (cycle, self._seq, fn, arg))

    def run_until(self, now: int) -> None:
        """Run every event with cycle <= now (events added meanwhile run too if due)."""
        heap = self._heap
        pop = heapq.heappop
        self.running = True
        while heap and heap[0][0] <= now:
            cycle, _, fn, arg = pop(heap)
            self.now = cycle
            fn(cycle, arg)
        self.running = False
        self.now = now

    def next_cycle(self) -> int | None:
        return self._heap[0][0] if self._heap else None

    def __len__(self) -> int:
        return len(self._heap)
