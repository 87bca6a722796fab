"""The packet that travels L1 → interconnect → L2 → DRAM and back (one per line request)."""

from __future__ import annotations

from typing import Final

# Final literals: compiled, each use is a constant (a plain module global costs a dict lookup)
READ: Final = 0
WRITE: Final = 1
ATOM: Final = 2
WRITEBACK: Final = 3
PREFETCH: Final = 4
KIND_NAMES = ("read", "write", "atom", "writeback", "prefetch")


class MemRequest:
    """One line-sized request. ``mask``: 32-byte sectors involved; ``sm``: requesting SM (-1 for
    requests born below the L1: L2 write-backs and memory-side prefetches); ``t_issue``: cycle the
    L1 sent it (latency statistics). DRAM coordinates are filled in at the L2."""

    __slots__ = ("kind", "sm", "line", "mask", "t_issue", "slice", "channel", "bank", "row",
                 "waiter", "t_dram", "parent")

    def __init__(self, kind: int, sm: int, line: int, mask: int, t_issue: int, waiter=None):
        self.kind, self.sm, self.line, self.mask, self.t_issue = kind, sm, line, mask, t_issue
        self.waiter = waiter          # the L1's per-instruction record, for atomics
        self.slice = self.channel = self.bank = self.row = 0
        self.t_dram = 0               # cycle it reached its DRAM channel
        self.parent: MemRequest | None = None   # the request this one is a sector of

    def __repr__(self) -> str:
        return f"MemRequest({KIND_NAMES[self.kind]} sm={self.sm} line={self.line:#x} mask={self.mask:#x})"


def popcount(x: int) -> int:
    return x.bit_count()
