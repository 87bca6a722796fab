"""Device memory: the global heap (a bump allocator, deterministic addresses), the constant bank,
and the address windows of the generic space.

Global memory is one growing byte array; an allocation is a range of it, 256-byte aligned as
``cudaMalloc``'s are. Every global access is checked against the allocations: an address in
no allocation (or straddling an allocation's end) is a ``MemoryFault`` — the memory is never
silently extended. Generic addresses are global addresses, except in the shared, local and
constant windows (``cvta`` moves between them).
"""

from __future__ import annotations

import bisect
import hashlib

import numpy as np

from .errors import MemoryFault

GLOBAL_BASE = 0x7F00_0000_0000          # first device allocation
SHARED_WINDOW = 0x7E00_0000_0000        # generic addresses of a CTA's shared memory
LOCAL_WINDOW = 0x7D00_0000_0000         # generic addresses of a thread's local memory
CONST_WINDOW = 0x7C00_0000_0000         # generic addresses of the constant bank
LOCAL_PHYSICAL = 0x7B00_0000_0000       # where local memory lives in DRAM (timing addresses)
WINDOW_SIZE = 1 << 32
ALIGN = 256

WINDOWS = {"shared": SHARED_WINDOW, "local": LOCAL_WINDOW, "const": CONST_WINDOW,
           "global": 0, "param": 0}


class Allocation:
    __slots__ = ("start", "size", "label")

    def __init__(self, start: int, size: int, label: str):
        self.start, self.size, self.label = start, size, label


class DeviceMemory:
    """The global heap. ``data`` holds every allocation back to back (with alignment gaps)."""

    def __init__(self) -> None:
        self.data = np.zeros(1 << 16, np.uint8)
        self.top = 0                                    # bytes used (offset of the next allocation)
        self.allocs: list[Allocation] = []
        self.digests: list[bytes] = []
        self.dirty: set[int] = set()
        self._refresh()

    def _refresh(self) -> None:
        self.starts = np.array([a.start for a in self.allocs], np.uint64)
        self.start_list = [a.start for a in self.allocs]
        self.index_of = {a.start: i for i, a in enumerate(self.allocs)}
        self.ends = np.array([a.start + a.size for a in self.allocs], np.uint64)
        d = self.data
        self.views = {1: d, 2: d.view(np.uint16), 4: d.view(np.uint32), 8: d.view(np.uint64)}

    def alloc(self, nbytes: int, label: str = "") -> int:
        """A new allocation of ``nbytes`` (zeroed); returns its device address."""
        offset = -(-self.top // ALIGN) * ALIGN
        need = offset + max(nbytes, 1)
        if need > len(self.data):
            cap = len(self.data)
            while cap < need:
                cap *= 2
            grown = np.zeros(cap, np.uint8)
            grown[:self.top] = self.data[:self.top]
            self.data = grown
        self.top = need
        addr = GLOBAL_BASE + offset
        self.allocs.append(Allocation(addr, nbytes, label))
        self._refresh()
        return addr

    def write(self, addr: int, raw: bytes | np.ndarray) -> None:
        buf = np.frombuffer(raw, np.uint8) if isinstance(raw, (bytes, bytearray)) else \
            np.ascontiguousarray(raw).view(np.uint8).reshape(-1)
        off = self._range(addr, len(buf))
        self.data[off:off + len(buf)] = buf
        self.dirty.add(self.index_of[self.find(addr).start])

    def read(self, addr: int, nbytes: int) -> np.ndarray:
        off = self._range(addr, nbytes)
        return self.data[off:off + nbytes].copy()

    def _range(self, addr: int, n: int) -> int:
        a = self.find(addr)
        if a is None or addr + n > a.start + a.size:
            raise MemoryFault(f"host access of {n} bytes at {addr:#x} is outside every allocation")
        return addr - GLOBAL_BASE

    def find(self, addr: int) -> Allocation | None:
        i = bisect.bisect_right(self.start_list, addr) - 1
        if i < 0:
            return None
        a = self.allocs[i]
        return a if a.start <= addr < a.start + max(a.size, 1) else None

    def check(self, addrs: np.ndarray, width: int, write: bool = False):
        """Offsets into ``data`` of global addresses ``addrs`` accessed ``width`` bytes each;
        returns (offsets, None) or (None, index of the first bad lane). ``write`` marks the
        allocations touched as changed (their digests are recomputed)."""
        if len(addrs):                      # the common case: every lane in one allocation
            lo, hi = int(addrs.min()), int(addrs.max())
            a = self.find(lo)
            if a is not None and hi + width <= a.start + a.size:
                if write:
                    self.dirty.add(self.index_of[a.start])
                return (addrs - np.uint64(GLOBAL_BASE)).astype(np.int64), None
        idx = np.searchsorted(self.starts, addrs, "right").astype(np.int64) - 1
        ok = idx >= 0
        safe = np.where(ok, idx, 0)
        ok &= (addrs >= self.starts[safe]) & (addrs + np.uint64(width) <= self.ends[safe]) \
            if len(self.allocs) else False
        if not np.all(ok):
            return None, int(np.argmin(ok))
        if write:
            self.dirty.update(np.unique(idx).tolist())
        return (addrs - np.uint64(GLOBAL_BASE)).astype(np.int64), None

    def digest(self) -> bytes:
        """A digest of every allocation's content and place (the launch cache key's input
        part); only allocations written since the last call are hashed again."""
        h = hashlib.sha256()
        for i, a in enumerate(self.allocs):
            if i in self.dirty or i >= len(self.digests):
                d = hashlib.sha256(self.data[a.start - GLOBAL_BASE:a.start - GLOBAL_BASE + a.size]).digest()
                if i < len(self.digests):
                    self.digests[i] = d
                else:
                    self.digests.append(d)
            h.update(a.start.to_bytes(8, "little") + a.size.to_bytes(8, "little") + self.digests[i])
        self.dirty.clear()
        return h.digest()


def fault(kernel: str, line: str, thread: str, addr: int, what: str) -> MemoryFault:
    return MemoryFault(f"kernel {kernel}, {line}, {thread}: {what} at address {addr:#x}")
