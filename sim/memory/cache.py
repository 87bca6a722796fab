"""Set-associative, sectored tag array with LRU replacement, shared by the L1 and the L2.

A set is a dict ``line address → Line`` whose insertion order is the LRU order (oldest first):
a hit re-inserts the line at the end, a fill that finds the set full evicts the first entry.
Sectors (32 B in the presets) have their own valid and dirty bits (``valid`` / ``dirty`` masks),
so a line can be present with some sectors missing (a "sector miss").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .dram import AddressMap


class Line:
    """One cache line: sector masks, the kernel epoch that filled it, prefetch flag."""

    __slots__ = ("valid", "dirty", "epoch", "prefetched")

    def __init__(self, valid: int, dirty: int, epoch: int, prefetched: bool = False):
        self.valid, self.dirty, self.epoch, self.prefetched = valid, dirty, epoch, prefetched


class SectorCache:
    """Tags only (a timing model holds no data). ``set_of(line_addr)`` picks the set: by line
    number, or with ``line_map`` by ``line_map.line_in_slice`` (an L2 slice sees only its own
    lines; indexing by their dense numbers keeps every set in use)."""

    __slots__ = ("sets", "n_sets", "ways", "line_shift", "line_map")

    def __init__(self, n_sets: int, ways: int, line_bytes: int, line_map: AddressMap | None = None):
        self.n_sets, self.ways = n_sets, ways
        self.line_shift = line_bytes.bit_length() - 1
        self.line_map = line_map
        self.sets: list[dict[int, Line]] = [{} for _ in range(n_sets)]

    def index(self, line_addr: int) -> int:
        m = self.line_map
        if m is None:
            return (line_addr >> self.line_shift) % self.n_sets
        return m.line_in_slice(line_addr) % self.n_sets

    def set_of(self, line_addr: int) -> dict[int, Line]:
        return self.sets[self.index(line_addr)]

    def probe(self, line_addr: int) -> Line | None:
        """The line if present, without touching the LRU order."""
        return self.sets[self.index(line_addr)].get(line_addr)

    def touch(self, line_addr: int) -> Line | None:
        """The line if present, moved to the most-recently-used position."""
        s = self.sets[self.index(line_addr)]
        line = s.get(line_addr)
        if line is not None:
            del s[line_addr]
            s[line_addr] = line
        return line

    def fill(self, line_addr: int, valid: int, dirty: int, epoch: int,
             prefetched: bool = False) -> tuple[int, Line] | None:
        """Install sectors (merging into a present line, which becomes MRU). Returns the evicted
        (line address, Line) when a valid line had to make room, else None."""
        s = self.sets[self.index(line_addr)]
        line = s.get(line_addr)
        if line is None:
            victim = None
            if len(s) >= self.ways:
                for victim_addr in s:       # the LRU line: the set's first key
                    victim = (victim_addr, s[victim_addr])
                    del s[victim_addr]
                    break
            s[line_addr] = Line(valid, dirty, epoch, prefetched)
            return victim
        del s[line_addr]
        line.valid |= valid
        line.dirty |= dirty
        line.epoch = epoch
        s[line_addr] = line
        return None

    def lines(self):
        """Iterate (line address, Line) over every resident line."""
        for s in self.sets:
            yield from s.items()

    def clear(self) -> None:
        for s in self.sets:
            s.clear()

    def resident(self) -> int:
        return sum(len(s) for s in self.sets)
