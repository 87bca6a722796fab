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


# Accel-Sim's per-access statuses (GPGPU-Sim gpu-cache.h ``cache_request_status``), counted per
# 32-byte sector as its sectored caches count them; a read (or atomic) at offset 0 of
# ``breakdown``, a write at offset 4. MSHR_HIT there is counted with every HIT_RESERVED.
HIT, HIT_RESERVED, MISS, SECTOR_MISS = 0, 1, 2, 3
STATUSES = ("HIT", "HIT_RESERVED", "MISS", "SECTOR_MISS")
READ_AT, WRITE_AT = 0, 4


def count_access(counts: list[int], at: int, mask: int, valid: int, pending: int,
                 present: bool) -> None:
    """Add one access to sectors ``mask`` of a line to ``counts[at + status]``: sectors valid →
    HIT, on their way (``pending``) → HIT_RESERVED, else the first missing sector of an absent
    line is a MISS and every other missing one a SECTOR_MISS (GPGPU-Sim allocates the line on
    the first sector request, and the sector requests of a line arrive one by one)."""
    counts[at + HIT] += (mask & valid).bit_count()
    waiting = mask & ~valid & pending
    counts[at + HIT_RESERVED] += waiting.bit_count()
    n = (mask & ~valid & ~pending).bit_count()
    if n:
        if present or pending:
            counts[at + SECTOR_MISS] += n
        else:
            counts[at + MISS] += 1
            counts[at + SECTOR_MISS] += n - 1


def breakdown_stats(counts: list[int]) -> dict[str, int]:
    """``counts`` as flat statistics: ``acc_r_hit``, …, ``acc_w_sector_miss``."""
    return {f"acc_{kind}_{status.lower()}": counts[at + i]
            for kind, at in (("r", READ_AT), ("w", WRITE_AT)) for i, status in enumerate(STATUSES)}


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
